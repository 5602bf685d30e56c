// The client's plain state and its pure transitions: each takes the state (and what happened)
// and returns a new state, never touching the DOM or the socket (app.js does that). Selectors
// at the end derive what the screens show.

import { ErrorCode, MAX_NICKNAME, Opponent, PASS } from "./protocol.js";
import { LOW_TIME, clockReading } from "./clock.js";
import { moveWords, stacksOf } from "./notation.js";
import { accountErrorText } from "./players.js";

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

/** Account names are the same ignoring case. */
export const sameName = (a, b) => typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase();

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

// -- accounts, profiles, leaderboards ---------------------------------------------------------

/** Open one of the header's account forms ("signup", "login", "password"), or close them
 * (null). */
export const authOpened = (state, panel) => ({ ...state, auth: { panel, error: null, busy: false } });

/** A form of the panel sent: its answer is awaited. */
export const authSent = (state) => ({ ...state, auth: { ...state.auth, error: null, busy: true } });

/** A refusal of signup, login or change_password (an Error): said in the panel, in words. */
export const authFailed = (state, error) => ({ ...state, auth: { ...state.auth, error: accountErrorText(error), busy: false } });

/** An `account` message (the answer to signup or change_password): this player is the
 * account `name`; the panel closes and a notice says what happened. */
export function accountMade(state, account) {
  const asked = state.auth.panel;
  const text = asked === "password" ? "Password changed: your other sessions have ended."
    : `You are ${account.name} now: your games stay yours, and you may play rated games.`;
  return {
    ...state,
    me: { ...state.me, player: account.player, nickname: account.name, account: true },
    nickname: account.name,
    auth: { panel: null, error: null, busy: false },
    notice: { text, kind: "info" },
  };
}

/** The profile `page` asked for (the pager). */
export const profilePaged = (state, page) => (state.profile ? { ...state, profile: { ...state.profile, page, error: null } } : state);

/** A `profile` message: the profile on show when it is that player's (and page), and my own
 * ratings when it is mine. */
export function profileReceived(state, profile) {
  let next = state;
  if (state.me?.account && sameName(state.me.nickname, profile.name)) next = { ...next, myRatings: profile.ratings };
  if (state.profile && sameName(state.profile.name, profile.name) && state.profile.page === profile.page) {
    next = { ...next, profile: { ...state.profile, data: profile, error: null } };
  }
  return next;
}

export function leaderboardReceived(state, board) {
  if (!state.leaderboard || state.leaderboard.speed !== board.speed) return state;
  return { ...state, leaderboard: { ...state.leaderboard, data: board, error: null } };
}

export const noticed = (state, text, kind = "info") => ({ ...state, notice: text ? { text, kind } : null });

// -- a game --------------------------------------------------------------------------------------

/** An `update` of the game on show (others are ignored). `now`: the client's clock. */
export function updateReceived(state, update, now) {
  const view = state.game;
  if (!view || view.id !== update.game) return state;
  if (view.state && update.state.version < view.state.version) return state;
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

/** A premove now due (this player's turn): {legal} with its legal move, or {legal: null} when
 * it is no longer legal; null when no premove waits or it is not this player's turn. */
export function premoveDue(state) {
  const view = state.game;
  const gs = view?.state;
  const premove = view?.premove;
  if (!premove || !gs || !isMyTurn(state.me, gs) || view.pending) return null;
  const legal = gs.legal.find((m) => m.piece === premove.piece && m.to_q === premove.q && m.to_r === premove.r);
  return { legal: legal ?? null };
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

// -- selectors -------------------------------------------------------------------------------------

const capital = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** "white", "black" or null: the colour `player` plays in game state `gs`. */
export function seatColor(gs, player) {
  if (!gs || !player) return null;
  if (gs.white?.player === player) return "white";
  if (gs.black?.player === player) return "black";
  return null;
}

export const isPlayer = (me, gs) => Boolean(me && seatColor(gs, me.player));
export const isMyTurn = (me, gs) => Boolean(me && gs.status === "live" && seatColor(gs, me.player) === gs.turn);

/** Map piece -> its legal moves. */
export function legalByPiece(gs) {
  const byPiece = new Map();
  for (const move of gs?.legal ?? []) {
    if (!byPiece.has(move.piece)) byPiece.set(move.piece, []);
    byPiece.get(move.piece).push(move);
  }
  return byPiece;
}

/** The chat lines of game state `gs` as shown to `me`: {by, text, player, muted, canMute}.
 * A player of the game may mute (or unmute) anyone else's lines; lines from before chat
 * events named their player cannot be. */
export function chatLines(gs, me) {
  const muted = new Set(gs.muted ?? []);
  const seated = isPlayer(me, gs);
  return gs.chat.map((e) => ({
    by: e.by,
    text: e.text,
    player: e.player ?? null,
    muted: Boolean(e.player && muted.has(e.player)),
    canMute: Boolean(seated && e.player && e.player !== me.player),
  }));
}

/** The CreateGame fields of a challenge to `bot` (a BotInfo): the create form's `choice`
 * ({game_type, time, color}) where the bot plays it, otherwise the bot's first game type and
 * `fallback[kind]` (a TimeControl) of the first kind of time control it plays. */
export function challengeTerms(bot, choice, fallback) {
  const game_type = bot.game_types.includes(choice.game_type) ? choice.game_type : bot.game_types[0];
  const time = bot.times.includes(choice.time.kind) ? choice.time : fallback[bot.times[0]];
  return { game_type, time, color: choice.color, opponent: Opponent.BOTS, challenge: bot.name };
}

/** The longest chat line the server takes (null until a welcome says). */
export const chatLength = (state) => state.server?.limits.chat_length ?? null;

/** The longest nickname the server takes (MAX_NICKNAME until a welcome says: the name form
 * shows before any welcome when the first hello is refused for its nickname). */
export const nicknameLength = (state) => state.server?.limits.nickname_length ?? MAX_NICKNAME;

/** Whether `bot` (a BotInfo) plays as many games as it takes at once. */
export const isBusy = (bot) => bot.playing >= bot.max_games;

/** The opening rules that keep `piece` (of the side to move; `inHand`: in its reserve) from
 * moving in game state `gs`, in words, or null: they need no rules engine, only the turn and
 * the hands (the server's engine says the same when asked). */
export function whyBarred(gs, piece, inHand) {
  const color = piece[0] === "w" ? "white" : "black";
  const hand = color === "white" ? gs.hand_white : gs.hand_black;
  const turn = Math.floor(gs.moves.length / 2) + 1; // this side's turn number
  const queenInHand = hand.includes(`${piece[0]}Q`);
  if (inHand && piece[1] === "Q" && turn === 1) {
    return "the Queen may not be placed on a player's first move (the tournament opening rule)";
  }
  if (inHand && piece[1] !== "Q" && turn === 4 && queenInHand) {
    return "the Queen must be placed by a player's fourth move";
  }
  if (!inHand && queenInHand) return "no piece may move before its side's Queen is placed";
  return null;
}

/** The seconds each side has for its first move when the welcome does not say (the server's
 * `--first-move-timeout` default; see docs/protocol.md). */
export const FIRST_MOVE_TIMEOUT = 60;

/** The deadline of a first move not yet made in the game on show: {color, at} (at: ms on the
 * client's clock), or null. Whatever the time control, each side's first move must come within
 * the server's first-move timeout from the start of its turn, or the game is aborted; with
 * days per move the first moves have their days instead. */
export function firstMoveDeadline(state) {
  const view = state.game;
  const gs = view?.state;
  if (!gs || gs.status !== "live" || gs.moves.length >= 2 || gs.time.kind === "days") return null;
  const seconds = state.server?.limits.first_move_timeout ?? FIRST_MOVE_TIMEOUT;
  return { color: gs.turn, at: view.turnSince + seconds * 1000 };
}

/** "GAME:PLY" when this player's clock runs under LOW_TIME at `now` (ms, the client's clock),
 * the turn whose low time sounds once; null otherwise. */
export function lowTimeTurn(state, now) {
  const view = state.game;
  const gs = view?.state;
  if (!gs || gs.status !== "live" || gs.time.kind !== "clock" || !isMyTurn(state.me, gs)) return null;
  const left = clockReading(gs.clocks, view.receivedAt, now, state.connection.lag)[gs.turn];
  return left !== null && left < LOW_TIME ? `${gs.id}:${gs.moves.length}` : null;
}

/** What the board draws for the game on show. */
export function boardModel(state) {
  const view = state.game;
  const gs = view.state;
  const interactive = isMyTurn(state.me, gs) && !view.pending;
  const movable = interactive ? legalByPiece(gs) : new Map();
  const targets = view.selected ? movable.get(view.selected.piece) ?? [] : [];
  return {
    pieces: gs.pieces,
    stacks: stacksOf(gs.pieces),
    movable: new Set(movable.keys()),
    selected: view.selected,
    targets,
    lastMove: view.lastMove,
    pending: view.pending,
    premove: view.premove ?? null,
    interactive,
  };
}

/** The human words for a finished game: {title, detail}. */
export function resultText(gs) {
  const winner = gs.result === "WhiteWins" ? "white" : gs.result === "BlackWins" ? "black" : null;
  const name = (color) => gs[color]?.name ?? capital(color);
  const loser = winner === "white" ? "black" : "white";
  const reasons = {
    queen: `${name(loser)}'s Queen is surrounded`,
    both_queens: "both Queens are surrounded",
    repetition: "the same position came three times",
    resign: `${name(loser)} resigned`,
    agreement: "agreed",
    timeout: winner ? `${name(loser)} ran out of time` : "time ran out",
    abandoned: `${name(loser)} left the game`,
    aborted: "a first move did not come in time",
    deserted: "both players left a game without a clock",
    cancelled: "the game was cancelled",
    expired: "nobody joined",
  };
  const detail = reasons[gs.reason] ?? gs.reason ?? "";
  if (gs.result === "Draw") return { title: "Draw", detail };
  if (winner) return { title: `${name(winner)} wins`, detail, winner };
  return { title: gs.reason === "aborted" ? "Game aborted" : "No result", detail };
}

/** What a screen reader hears of the game on show (an aria-live region says it when it
 * changes): the piece picked up and how to play it, else the last move in words and whose turn
 * it is, else the result. `title` names a piece ("wS1" -> "White Spider 1"). */
export function announcement(state, title) {
  const view = state.game;
  const gs = view?.state;
  if (!gs) return "";
  if (gs.status === "over") {
    const { title: result, detail } = resultText(gs);
    return `Game over: ${result}${detail ? `, ${detail}` : ""}.`;
  }
  if (view.selected) {
    const count = legalByPiece(gs).get(view.selected.piece)?.length ?? 0;
    return count === 0 ? ""
      : `${title(view.selected.piece)} picked up: ${count} destination${count === 1 ? "" : "s"}. `
        + "Arrow keys or Tab to choose, Enter to play, Escape to put it back.";
  }
  const turn = isMyTurn(state.me, gs) ? "Your turn." : `${gs[gs.turn]?.name ?? capital(gs.turn)} to move.`;
  if (gs.moves.length === 0) return gs.status === "live" ? turn : "";
  const last = gs.moves[gs.moves.length - 1];
  const mover = gs.moves.length % 2 === 1 ? "White" : "Black";
  return `${mover} played ${last}: ${moveWords(last, title)}. ${turn}`;
}
