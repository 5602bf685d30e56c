// The client's plain state and its pure transitions: each takes the state (and what happened)
// and returns a new state, never touching the DOM or the socket (app.js does that). What the
// screens show is derived in views.js; what the connection follows, in subscription.js.

import { ErrorCode, Opponent, PASS } from "./protocol.js";
import { authFailed, sameName } from "./players.js";
import { subscriptions } from "./subscription.js";
import { capital, isMyTurn, isPlayer, legalByPiece, seatColor, whyBarred } from "./views.js";

/** The state of a fresh page at `route` ({page: "lobby"} | {page: "game", id} |
 * {page: "review", id, ply} | {page: "profile", name} | {page: "leaderboard", speed}). */
export function initial(route, nickname = "", { notation = "uhp" } = {}) {
  return {
    route,
    nickname,
    notation, // how move lists are written: "uhp" (MoveStrings) or "icons"
    connection: { status: "connecting", lag: null, attempt: 0, reason: null },
    me: null, // {player, nickname, account, bot}
    auth: { panel: null, error: null, busy: false }, // the header's account forms: "signup" | "login" | "password"
    myRatings: [], // my SpeedRatings (from my own profile: the lobby marks the games out of my range)
    myGames: [], // ids of my games in progress (welcome)
    server: null, // what the server allows and plays (welcome): {limits, gameTypes, levels}
    lobby: { open: [], live: [], bots: [], openTotal: 0, liveTotal: 0, received: false }, // bots: BotInfo
    game: route.page === "game" ? gameView(route.id) : null,
    review: route.page === "review" ? reviewView(route.id, route.ply) : null,
    profile: route.page === "profile" ? profileView(route.name) : null,
    leaderboard: route.page === "leaderboard" ? leaderboardView(route.speed) : null,
    notice: null, // {text, kind: "info" | "error"}
    subs: subscriptions(), // what the connection follows (subscription.js)
  };
}

/** A profile on show: the account `name`, the `page` of games asked for, the Profile. */
function profileView(name, page = 0) {
  return { name, page, data: null, error: null };
}

function leaderboardView(speed) {
  return { speed, data: null, error: null };
}

function gameView(id) {
  return {
    id,
    state: null, // the last GameState
    receivedAt: 0, // when it arrived (ms, the client's clock)
    lastMove: null, // {piece, from: {q, r} | null | undefined, to: {q, r}} or {pass: true}
    turnSince: 0, // when the turn on show began (ms, the client's clock)
    selected: null, // {piece, from: {q, r} | null}
    pending: null, // a move made and not yet seen played: {move, version, ply, piece, to, sentOn}
    probe: null, // a drop sent only to learn why it is illegal
    premove: null, // a move chosen during the opponent's turn: {piece, from, q, r}
  };
}

function reviewView(id, ply = null) {
  return { id, doc: null, ply, error: null };
}

// -- navigation and connection ----------------------------------------------------------------

export function navigated(state, route) {
  const sameGame = route.page === "game" && state.game?.id === route.id;
  const sameReview = route.page === "review" && state.review?.id === route.id;
  return {
    ...state,
    route,
    game: route.page === "game" ? (sameGame ? state.game : gameView(route.id)) : null,
    review: route.page === "review"
      ? (sameReview ? { ...state.review, ply: route.ply ?? state.review.ply } : reviewView(route.id, route.ply))
      : null,
    profile: route.page === "profile"
      ? (sameName(state.profile?.name, route.name) ? state.profile : profileView(route.name)) : null,
    leaderboard: route.page === "leaderboard"
      ? (state.leaderboard?.speed === route.speed ? state.leaderboard : leaderboardView(route.speed)) : null,
    notice: sameGame || sameReview ? state.notice : null,
  };
}

export const nicknameChosen = (state, nickname) => ({ ...state, nickname });

/** Move lists written as MoveStrings ("uhp") or with piece icons ("icons"). */
export const notationChosen = (state, notation) => ({ ...state, notation: notation === "icons" ? "icons" : "uhp" });

/** The socket's status (see connection.js), its retry count, and `reason`: why the server
 * closed it (status "closed"; null otherwise). */
export function connectionChanged(state, status, attempt = 0, reason = null) {
  return { ...state, connection: { ...state.connection, status, attempt, reason } };
}

export const lagMeasured = (state, lag) => ({ ...state, connection: { ...state.connection, lag } });

/** A welcome: who I am, my games, and what the server allows (`limits`: Limits) and plays
 * (its game types and its bots' levels), which the screens take from here, each welcome
 * replacing the last (a server restarted with other settings says so). */
export function welcomed(state, welcome, now = null) {
  return {
    ...state,
    me: { player: welcome.player, nickname: welcome.nickname, account: Boolean(welcome.account), bot: Boolean(welcome.bot) },
    nickname: welcome.nickname,
    myRatings: sameName(state.me?.nickname, welcome.nickname) && welcome.account ? state.myRatings : [],
    auth: { ...state.auth, busy: false }, // an answer lost with a connection: the form may go again
    myGames: welcome.games,
    server: {
      limits: welcome.limits,
      gameTypes: welcome.game_types,
      levels: welcome.levels,
      // server time minus this client's, to read the events' `at` on the client's clock
      offset: now === null ? 0 : welcome.server_time - now,
    },
  };
}

export function lobbyReceived(state, lobby) {
  return {
    ...state,
    lobby: {
      open: lobby.open,
      live: lobby.live,
      bots: lobby.bots ?? [],
      openTotal: lobby.open_total ?? lobby.open.length,
      liveTotal: lobby.live_total ?? lobby.live.length,
      received: true,
    },
  };
}

/** The open list's order (the server's): games for bot accounts first, then by age. */
const openOrder = (a, b) => (a.wants === Opponent.BOTS ? 0 : 1) - (b.wants === Opponent.BOTS ? 0 : 1)
  || a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** A LobbyChange applied to the lobby: games added or changed in either list (a game listed
 * in progress leaves the open list), games gone, the bots when they changed, the totals. */
export function lobbyChanged(state, change) {
  if (!state.lobby.received) return state;
  const open = new Map(state.lobby.open.map((g) => [g.id, g]));
  const live = new Map(state.lobby.live.map((g) => [g.id, g]));
  for (const id of change.gone) {
    open.delete(id);
    live.delete(id);
  }
  for (const g of change.open) {
    live.delete(g.id);
    open.set(g.id, g);
  }
  for (const g of change.live) {
    open.delete(g.id);
    live.set(g.id, g);
  }
  return {
    ...state,
    lobby: {
      open: [...open.values()].sort(openOrder),
      live: [...live.values()].sort((a, b) => openOrder(b, a)),
      bots: change.bots ?? state.lobby.bots,
      openTotal: change.open_total,
      liveTotal: change.live_total,
      received: true,
    },
  };
}

export const noticed = (state, text, kind = "info") => ({ ...state, notice: text ? { text, kind } : null });

// -- a game --------------------------------------------------------------------------------------

/** An `update` of the game on show (others are ignored). `now`: the client's clock. */
export function updateReceived(state, update, now) {
  const view = state.game;
  if (!view || view.id !== update.game) return state;
  // an older version is one already seen, unless the server sends it as a snapshot: its state
  // stands alone (after a Redis failover took a change back, it is the game as it now is)
  if (view.state && update.state.version < view.state.version && !update.snapshot) return state;
  const old = view.state;
  const next = update.state;
  const moved = !old || next.moves.length !== old.moves.length;
  const pending = view.pending
    && (next.moves.length !== view.pending.ply || next.status !== "live") ? null : view.pending;
  const premove = next.status === "live" ? view.premove ?? null : null;
  const movable = legalByPiece(next);
  const selected = view.selected && isMyTurn(state.me, next) && !pending
    && movable.has(view.selected.piece) ? view.selected : null;
  let turnSince = view.turnSince;
  if (moved || next.status !== old?.status) {
    // the move (or the join) that began this turn says when, on the server's clock
    const began = update.events.findLast((e) => e.kind === "move" || e.kind === "joined");
    turnSince = began ? began.at - (state.server?.offset ?? 0) : now;
  }
  let notice = state.notice;
  for (const event of update.events) {
    const text = eventNotice(event, next, state.me);
    if (text) notice = { text, kind: "info" };
  }
  return {
    ...state,
    notice,
    game: {
      ...view,
      state: next,
      receivedAt: now,
      lastMove: moved ? lastMoveOf(next, old) : view.lastMove,
      turnSince,
      selected: selected ?? (view.selected && !isMyTurn(state.me, next) && next.status === "live" ? view.selected : null),
      premove,
      pending,
    },
  };
}

/** Who is at the game now (a `presence` message): its spectators and each player's
 * connection, with when a player who left went (`gone`, server time) and the claim delay. */
export function presenceReceived(state, presence) {
  const view = state.game;
  if (!view || view.id !== presence.game || !view.state) return state;
  const seat = (s, gone) => s && (s.bot ? s : { ...s, connected: gone === null });
  return {
    ...state,
    game: {
      ...view,
      state: {
        ...view.state,
        spectators: presence.spectators,
        white: seat(view.state.white, presence.white_gone),
        black: seat(view.state.black, presence.black_gone),
      },
      gone: { white: presence.white_gone, black: presence.black_gone },
      claimAfter: presence.claim_after,
    },
  };
}

function eventNotice(event, gs, me) {
  const mine = me && seatColor(gs, me.player) === event.by;
  if (event.kind === "draw_decline" && !mine) return `${capital(event.by)} declined the draw.`;
  if (event.kind === "draw_offer" && !mine) return `${capital(event.by)} offers a draw.`;
  if (event.kind === "rematch_offer" && !mine) return `${capital(event.by)} offers a rematch.`;
  if (event.kind === "takeback_offer" && !mine) return `${capital(event.by)} asks to take back a move.`;
  if (event.kind === "takeback_decline" && !mine) return `${capital(event.by)} declined the takeback.`;
  if (event.kind === "takeback") return `${event.text === "2" ? "Two moves" : "A move"} taken back: ${event.by} to play.`;
  if (event.kind === "unrated") return `Not rated: ${event.text}.`;
  if (event.kind === "mute" || event.kind === "unmute") {
    const whom = me && event.player === me.player ? "you" : event.text;
    return `${event.by} ${event.kind === "mute" ? "muted" : "unmuted"} ${whom} in this game's chat.`;
  }
  return null;
}

/** The last move's piece and hexes; `from` is null for a placement and undefined when the
 * previous position is not known (the client saw only this state). */
export function lastMoveOf(gs, old) {
  if (gs.moves.length === 0) return null;
  const text = gs.moves[gs.moves.length - 1];
  if (text === PASS) return { pass: true };
  const piece = text.split(" ")[0];
  const at = gs.pieces.find((p) => p.piece === piece);
  if (!at) return null;
  let from;
  if (old && old.moves.length === gs.moves.length - 1) {
    const before = old.pieces.find((p) => p.piece === piece);
    from = before ? { q: before.q, r: before.r } : null;
  }
  return { piece, from, to: { q: at.q, r: at.r } };
}

/** A refusal from the server. */
export function errorReceived(state, error) {
  if (error.request === "signup" || error.request === "change_password") return authFailed(state, error);
  if (error.request === "profile" && state.profile) {
    return { ...state, profile: { ...state.profile, error: error.message } };
  }
  if (error.request === "leaderboard" && state.leaderboard) {
    return { ...state, leaderboard: { ...state.leaderboard, error: error.message } };
  }
  const view = state.game;
  if (view && error.game === view.id && error.request === "play") {
    const probe = view.probe;
    const game = { ...view, probe: null };
    let text;
    if (probe && error.code === ErrorCode.ILLEGAL_MOVE) {
      text = `${probe.piece} cannot go there: ${why(error.message)}`;
    } else if (error.code === ErrorCode.STALE) {
      // The same move sent twice (a queued move that had arrived after all) is stale too: the
      // update that showed it played has already cleared the pending move.
      if (!view.pending && !probe) return { ...state, game };
      text = "The position changed before your move arrived: choose again.";
    } else {
      text = error.code === ErrorCode.ILLEGAL_MOVE ? `Illegal move: ${why(error.message)}` : error.message;
    }
    if (!probe) game.pending = null;
    return { ...state, game, notice: { text, kind: "error" } };
  }
  return { ...state, notice: { text: error.message, kind: "error" } };
}

/** The engine's reason without the quoted MoveString in front ("'wA1 -bQ': moving..."). */
function why(message) {
  const found = /^'[^']*': (.*)$/s.exec(message);
  return found ? found[1] : message;
}

/** Pick up `piece` (in hand when `from` is null). */
export function selected(state, piece, from = null) {
  const view = state.game;
  const gs = view?.state;
  if (!gs || !isPlayer(state.me, gs)) return state;
  if (gs.status !== "live") return noticed(state, "The game is not in progress.");
  const owner = piece[0] === "w" ? "white" : "black";
  if (!isMyTurn(state.me, gs)) {
    if (owner === gs.turn || view.pending) return noticed(state, `It is ${gs.turn}'s turn.`);
    // one's own piece during the opponent's turn: picked up for a premove (see premoved)
    const text = `Premove: click the hex for ${piece}; it is played at once if still legal.`;
    return { ...state, notice: { text, kind: "info" }, game: { ...view, selected: { piece, from }, premove: null } };
  }
  if (view.pending) return noticed(state, "Your move is on its way.");
  const moves = legalByPiece(gs).get(piece) ?? [];
  // the opponent's piece is picked up only for a throw (a Pillbug's, or a Mosquito's beside one)
  if (owner !== gs.turn && moves.length === 0) return noticed(state, `${piece} is ${capital(owner)}'s piece: you play ${capital(gs.turn)}.`);
  const reason = moves.length === 0 && !gs.must_pass ? whyBarred(gs, piece, from === null) : null;
  const notice = moves.length === 0
    ? { text: gs.must_pass ? "You have no move: pass." : reason ? `${piece} cannot move now: ${reason}.` : `${piece} has no legal move now.`, kind: "info" }
    : null;
  return { ...state, notice, game: { ...view, selected: { piece, from } } };
}

export const deselected = (state) => (state.game ? { ...state, game: { ...state.game, selected: null, premove: null } } : state);

/** The piece picked up during the opponent's turn goes to hex (q, r) as a premove. */
export function premoved(state, q, r) {
  const view = state.game;
  if (!view?.selected) return state;
  const { piece, from } = view.selected;
  return {
    ...state,
    notice: { text: `Premove ${piece}: played at once if still legal (Escape cancels it).`, kind: "info" },
    game: { ...view, selected: null, premove: { piece, from, q, r } },
  };
}

/** The premove played, or dropped with why. */
export function premoveDone(state, played) {
  const view = state.game;
  const piece = view.premove?.piece;
  const notice = played ? state.notice : { text: `Premove cancelled: ${piece} cannot go there now.`, kind: "info" };
  return { ...state, notice, game: { ...view, premove: null } };
}

/** A legal move chosen (or PASS): it is pending until an update shows it played. */
export function moveMade(state, move, connection) {
  const view = state.game;
  const gs = view.state;
  const legal = move === PASS ? null : move;
  return {
    ...state,
    notice: null,
    game: {
      ...view,
      selected: null,
      pending: {
        move: legal ? legal.move : PASS,
        version: gs.version,
        ply: gs.moves.length,
        piece: legal?.piece ?? null,
        from: legal && legal.from_q !== null ? { q: legal.from_q, r: legal.from_r } : null,
        to: legal ? { q: legal.to_q, r: legal.to_r } : null,
        sentOn: connection,
      },
    },
  };
}

/** The pending move went out on connection number `connection`. */
export const pendingSent = (state, connection) => ({
  ...state, game: { ...state.game, pending: { ...state.game.pending, sentOn: connection } },
});

/** An illegal drop sent to learn why: nothing changes on the board. */
export const probed = (state, piece, move) => ({
  ...state, game: { ...state.game, selected: null, probe: { piece, move } },
});

// -- review ---------------------------------------------------------------------------------------

export function reviewLoaded(state, doc) {
  if (!state.review) return state;
  const last = doc.frames.length - 1;
  const ply = state.review.ply === null ? last : Math.min(Math.max(0, state.review.ply), last);
  return { ...state, review: { ...state.review, doc, ply, error: null } };
}

export const reviewFailed = (state, error) => (state.review ? { ...state, review: { ...state.review, error } } : state);

export function reviewStepped(state, ply) {
  const review = state.review;
  if (!review?.doc) return state;
  const last = review.doc.frames.length - 1;
  return { ...state, review: { ...review, ply: Math.min(Math.max(0, ply), last) } };
}

