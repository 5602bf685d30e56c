// Derived views: what the screens show, computed from the plain state (state.js) and the
// server's messages. Pure functions, no DOM, no socket: the transitions of state.js use the
// predicates here (whose turn, which moves), the screens and app.js the rest.

import { MAX_NICKNAME, Opponent } from "./protocol.js";
import { LOW_TIME, clockReading } from "./clock.js";
import { moveWords, stacksOf } from "./notation.js";

export const capital = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);

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
  let detail = reasons[gs.reason] ?? gs.reason ?? "";
  if (gs.reason === "aborted" && gs.tournament) { // (the tournament scores it all the same)
    const absent = gs.moves?.length ? "black" : "white";
    detail = `${name(absent)} did not make a first move in time: paused in the tournament (in a Swiss, the game is lost)`;
  }
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

/** The tab's title: "Your turn" (with a dot while it nudges: it became this player's turn
 * while the tab was hidden) in a game where it is this player's move, else the page's name. */
export function pageTitle(state) {
  const gs = state.game?.state;
  const { route } = state;
  const site = "Hive Arena";
  if (gs && isMyTurn(state.me, gs)) return `${state.subs.nudged ? "● " : ""}Your turn · ${site}`;
  if (route.page === "review") return `Review · ${site}`;
  if (route.page === "rules") return `Rules · ${site}`;
  if (route.page === "profile") return `${route.name} · ${site}`;
  if (route.page === "leaderboard") return `Leaderboard · ${site}`;
  return site;
}
