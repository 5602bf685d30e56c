// The wire protocol, mirroring server/protocol.py: message names, fields and error codes.
// This is the only module that touches msgpack. Client messages are built by functions named
// after the server's classes (Hello, Play, ...); `decode` checks a frame's type and gives back
// a plain object. docs/protocol.md documents every message.

// @msgpack/msgpack's ES module build, served by the server under the version installed (it
// must be the one in package-lock.json; the browser then keeps it for good); no import map:
// the page runs no inline script, as its Content-Security-Policy requires.
import { decode as unpack, encode as pack } from "/vendor/msgpack@3.1.3/index.mjs";

/** Why a request was refused (ErrorCode): a closed set the client may switch on. */
export const ErrorCode = Object.freeze({
  BAD_MESSAGE: "bad_message",
  UNKNOWN_TYPE: "unknown_type",
  NOT_AUTHENTICATED: "not_authenticated",
  BAD_TOKEN: "bad_token",
  ALREADY_AUTHENTICATED: "already_authenticated",
  UNKNOWN_GAME: "unknown_game",
  UNKNOWN_LEVEL: "unknown_level",
  UNKNOWN_BOT: "unknown_bot",
  NOT_OPEN: "not_open",
  OWN_GAME: "own_game",
  NOT_YOUR_GAME: "not_your_game",
  NOT_YOUR_TURN: "not_your_turn",
  ILLEGAL_MOVE: "illegal_move",
  STALE: "stale",
  GAME_OVER: "game_over",
  NOT_ALLOWED: "not_allowed",
  TOO_LONG: "too_long",
  RATE_LIMITED: "rate_limited",
  UNAVAILABLE: "unavailable",
  INTERNAL: "internal",
  BAD_NAME: "bad_name",
  NAME_TAKEN: "name_taken",
  BAD_PASSWORD: "bad_password",
  BAD_LOGIN: "bad_login",
  ACCOUNT_REQUIRED: "account_required",
  OUT_OF_RANGE: "out_of_range",
  UNKNOWN_PLAYER: "unknown_player",
  UNKNOWN_TOURNAMENT: "unknown_tournament",
});

/** Tags of the messages a client sends (CLIENT_MESSAGES). */
export const ClientType = Object.freeze({
  HELLO: "hello",
  PING: "ping",
  LOBBY: "lobby",
  CREATE: "create",
  BOT_READY: "bot_ready",
  JOIN: "join",
  CANCEL: "cancel",
  WATCH: "watch",
  UNWATCH: "unwatch",
  PLAY: "play",
  RESIGN: "resign",
  DRAW: "draw",
  CLAIM: "claim",
  REMATCH: "rematch",
  CHAT: "chat",
  MUTE: "mute",
  SPECTATOR_CHAT: "spectator_chat",
  LOGOUT: "logout",
  SIGNUP: "signup",
  LOGIN: "login",
  CHANGE_PASSWORD: "change_password",
  PROFILE: "profile",
  LEADERBOARD: "leaderboard",
  POSITION: "position",
  ENGINE: "engine",
  ENGINE_STOP: "engine_stop",
  TAKEBACK: "takeback",
  CHALLENGE: "challenge",
  ANSWER_CHALLENGE: "answer_challenge",
  FOLLOW: "follow",
  BLOCK: "block",
  ALLOW_CHALLENGES: "allow_challenges",
  ONLINE: "online",
  ANALYSE_GAME: "analyse_game",
  LEAVE_ANALYSIS: "leave_analysis",
  PUZZLE: "puzzle",
  PUZZLE_MOVE: "puzzle_move",
  PUZZLE_SOLUTION: "puzzle_solution",
  TOURNAMENT_CREATE: "tournament_create",
  TOURNAMENTS: "tournaments",
  TOURNAMENT_JOIN: "tournament_join",
  TOURNAMENT_LEAVE: "tournament_leave",
  TOURNAMENT_WATCH: "tournament_watch",
});

/** Tags of the messages the server sends (SERVER_MESSAGES). */
export const ServerType = Object.freeze({
  WELCOME: "welcome",
  PONG: "pong",
  ERROR: "error",
  LOBBY: "lobby",
  LOBBY_CHANGE: "lobby_change",
  UPDATE: "update",
  PRESENCE: "presence",
  ACCOUNT: "account",
  PROFILE: "profile",
  LEADERBOARD: "leaderboard",
  POSITION: "position",
  LINES: "lines",
  ENGINE_DONE: "engine_done",
  CHALLENGE: "challenge",
  CHALLENGE_END: "challenge_end",
  SOCIAL: "social",
  ONLINE: "online",
  GAME_ANALYSIS: "game_analysis",
  PUZZLE: "puzzle",
  PUZZLE_ANSWER: "puzzle_answer",
  TOURNAMENT: "tournament",
  TOURNAMENTS: "tournaments",
  TOURNAMENT_GAME: "tournament_game",
});

/** The close code of a connection whose session ended (logout, here or in another browser):
 * its token no longer signs in (SIGNED_OUT). */
export const SIGNED_OUT = 4001;
/** Close codes of a connection the server closed for what its client did: 1008 (policy
 * violation: too many requests, no hello in time) and 1009 (a frame over MAX_FRAME_BYTES). */
export const POLICY_VIOLATION = 1008;
export const MESSAGE_TOO_BIG = 1009;

/** The longest nickname (MAX_NICKNAME), for the name form shown before any welcome. Every
 * other limit, the game types and the bots' levels come in the welcome (`limits`,
 * `game_types`, `levels`): the server's settings say them, not this module. */
export const MAX_NICKNAME = 24;
/** CreateGame.opponent (Opponent): anyone may join; one of the server's bots at once (with a
 * level); only a bot account may join (with `challenge`: only the one of that name). */
export const Opponent = Object.freeze({ ANYONE: "anyone", BOT: "bot", BOTS: "bots" });
/** The kinds of time control (TimeControl.kind, BotInfo.times). */
export const TIME_KINDS = Object.freeze(["none", "clock", "days"]);
/** The rating pools (Speed), fastest first (server/game/rating.py's SPEEDS). */
export const SPEEDS = Object.freeze(["bullet", "blitz", "rapid", "classical", "correspondence"]);
/** Archived games in a page of a profile (PROFILE_PAGE). */
export const PROFILE_PAGE = 20;
/** A password's length (server/requests/accounts.py's MIN_PASSWORD, MAX_PASSWORD). */
export const MIN_PASSWORD = 8;
export const MAX_PASSWORD = 128;
/** The MoveString of a pass. */
export const PASS = "pass";

/** A frame that is not a message the server may send. */
export class ProtocolError extends Error {}

// -- values inside messages -------------------------------------------------------------------

/** TimeControl: kind "none", "clock" (base and increment seconds) or "days" (per move). */
export function TimeControl({ kind = "none", base = 0, increment = 0, days = 0 } = {}) {
  return { kind, base, increment, days };
}

// -- client -> server ---------------------------------------------------------------------------

export const Hello = ({ nickname = null, token = null } = {}) =>
  ({ type: ClientType.HELLO, nickname, token });
export const Ping = (t) => ({ type: ClientType.PING, t });
/** WatchLobby: receive the lobby lists now and on every change (subscribe false: stop). */
export const WatchLobby = (subscribe = true) => ({ type: ClientType.LOBBY, subscribe });
/** CreateGame: `opponent` is an Opponent; `level` goes with "bot", `challenge` (a bot
 * account's name) with "bots"; `rated` (only between accounts, with a clock or days) and, for
 * an open game, the joiner's rating range `rating_min`/`rating_max` (null: no bound). */
export const CreateGame = ({
  game_type = "Base+MLP", time = TimeControl(), color = "random", opponent = Opponent.ANYONE,
  level = null, challenge = null, rated = false, rating_min = null, rating_max = null,
} = {}) => ({
  type: ClientType.CREATE, game_type, time, color, opponent, level, challenge, rated, rating_min, rating_max,
});
/** BotReady: a bot account says what it plays (the web client never sends it: people are
 * guests). */
export const BotReady = ({ game_types, times = [...TIME_KINDS], max_games = 1 }) =>
  ({ type: ClientType.BOT_READY, game_types, times, max_games });
export const JoinGame = (game) => ({ type: ClientType.JOIN, game });
export const CancelGame = (game) => ({ type: ClientType.CANCEL, game });
export const Watch = (game, since = null) => ({ type: ClientType.WATCH, game, since });
export const Unwatch = (game) => ({ type: ClientType.UNWATCH, game });
/** Play `move` (a MoveString, or "pass") in the position of `version`. */
export const Play = (game, version, move) => ({ type: ClientType.PLAY, game, version, move });
export const Resign = (game) => ({ type: ClientType.RESIGN, game });
/** Draw: action "offer", "accept" or "decline". */
export const Draw = (game, action) => ({ type: ClientType.DRAW, game, action });
export const ClaimWin = (game) => ({ type: ClientType.CLAIM, game });
export const Rematch = (game) => ({ type: ClientType.REMATCH, game });
export const Chat = (game, text) => ({ type: ClientType.CHAT, game, text });
/** Mute: refuse `player`'s chat lines in `game` (a game one plays in); `mute` false: unmute. */
export const Mute = (game, player, mute = true) => ({ type: ClientType.MUTE, game, player, mute });
/** SpectatorChat: open (or close) the game's chat to spectators (a player of the game). */
export const SpectatorChat = (game, open) => ({ type: ClientType.SPECTATOR_CHAT, game, open });
/** Logout: end this session, or with `everywhere` every session of this player. */
export const Logout = (everywhere = false) => ({ type: ClientType.LOGOUT, everywhere });
/** SignUp: this guest becomes the account `name` (keeping its games); answered `account`. */
export const SignUp = (name, password) => ({ type: ClientType.SIGNUP, name, password });
/** LogIn: instead of hello, on a connection of its own; answered `welcome` (a new token). */
export const LogIn = (name, password) => ({ type: ClientType.LOGIN, name, password });
/** ChangePassword: every other session of the account ends; answered `account`. */
export const ChangePassword = (old, next) => ({ type: ClientType.CHANGE_PASSWORD, old, new: next });
/** GetProfile: the profile of the account `name`, its `page` of games (0: the newest). */
export const GetProfile = (name, page = 0) => ({ type: ClientType.PROFILE, name, page });
/** GetLeaderboard: the leaderboard of `speed` (one of SPEEDS). */
export const GetLeaderboard = (speed) => ({ type: ClientType.LEADERBOARD, speed });
/** GetPosition: the analysis board's position after `moves` from the start of `game_type`
 * (or after the GameString `game_string`); answered `position`, with its legal moves. */
export const GetPosition = (game_type, moves, id, game_string = null) => ({ type: ClientType.POSITION, game_type, game_string, moves, id });
/** StartEngine: the engine's lines on that position (`lines` at each depth, `engine_done`). */
export const StartEngine = (game_type, moves, id) => ({ type: ClientType.ENGINE, game_type, game_string: null, moves, id });
/** StopEngine: the engine off. */
export const StopEngine = (id = 0) => ({ type: ClientType.ENGINE_STOP, id });
/** The most moves of an analysis board's position (MAX_ANALYSIS_MOVES). */
export const MAX_ANALYSIS_MOVES = 500;
/** Game types when no welcome has said them yet (the welcome's `game_types` count). */
export const GAME_TYPES = Object.freeze(["Base", "Base+M", "Base+L", "Base+P", "Base+ML", "Base+MP", "Base+LP", "Base+MLP"]);
/** Takeback: action "ask" (take back one's last move, in a casual game against a person),
 * "accept" or "decline" (the opponent's request). */
export const Takeback = (game, action) => ({ type: ClientType.TAKEBACK, game, action });
/** Challenge: the account `name` (connected now) to a game; `color` is the challenger's. */
export const Challenge = ({ name, game_type = "Base+MLP", time = TimeControl(), color = "random", rated = false }) =>
  ({ type: ClientType.CHALLENGE, name, game_type, time, color, rated });
/** AnswerChallenge: `action` "accept" or "decline" (the one challenged), "withdraw" (its maker). */
export const AnswerChallenge = (challenge, action) => ({ type: ClientType.ANSWER_CHALLENGE, challenge, action });
/** Follow the account `name` (`follow` false: stop); answered `social`. */
export const Follow = (name, follow = true) => ({ type: ClientType.FOLLOW, name, follow });
/** Block the account `name` (`block` false: unblock); answered `social`. */
export const Block = (name, block = true) => ({ type: ClientType.BLOCK, name, block });
/** AllowChallenges: "everyone", "followed" or "nobody"; answered `social`. */
export const AllowChallenges = (allow) => ({ type: ClientType.ALLOW_CHALLENGES, allow });
/** GetOnline: who is online (`online`; an account's `social` first). */
export const GetOnline = () => ({ type: ClientType.ONLINE });
/** AnalyseGame: follow the computer analysis of the archived game `game` (answered and pushed
 * as `game_analysis`); with `start`, start it when none is stored or running. */
export const AnalyseGame = (game, start = false) => ({ type: ClientType.ANALYSE_GAME, game, start });
/** LeaveAnalysis: stop following the analysis of `game`. */
export const LeaveAnalysis = (game) => ({ type: ClientType.LEAVE_ANALYSIS, game });
/** The themes of puzzles (PuzzleTheme). */
export const PUZZLE_THEMES = Object.freeze(["win1", "win2", "win3", "defend"]);
/** GetPuzzle: a puzzle near this player's puzzle rating (of `theme` and `game_type` when
 * given; not `after`, the one just played), the puzzle of the day (`daily`), or puzzle `id`;
 * answered `puzzle`, without its solution. */
export const GetPuzzle = ({ theme = null, game_type = null, daily = false, id = null, after = null } = {}) =>
  ({ type: ClientType.PUZZLE, theme, game_type, daily, id, after });
/** PuzzleMove: `move` in the open `puzzle`; answered `puzzle_answer` (right or wrong). */
export const PuzzleMove = (puzzle, move) => ({ type: ClientType.PUZZLE_MOVE, puzzle, move });
/** ShowSolution: the open `puzzle`'s whole line (a failed try unless solved). */
export const ShowSolution = (puzzle) => ({ type: ClientType.PUZZLE_SOLUTION, puzzle });
/** CreateTournament: an arena of `minutes` or a Swiss (`kind`) of `rounds`, from `starts`
 * (server time, ms; 0: now); answered `tournament`. */
export const CreateTournament = ({
  name, game_type = "Base+MLP", time = TimeControl({ kind: "clock", base: 180, increment: 2 }), rated = true,
  starts = 0, minutes = 60, rating_min = null, rating_max = null, max_players = 200, kind = "arena", rounds = 7,
}) => ({
  type: ClientType.TOURNAMENT_CREATE, name, game_type, time, rated, starts, minutes, rating_min, rating_max, max_players, kind, rounds,
});
/** GetTournaments: the upcoming and running tournaments, then the last ended (`tournaments`). */
export const GetTournaments = () => ({ type: ClientType.TOURNAMENTS });
/** JoinTournament: join `tournament`, or come back after leaving it. */
export const JoinTournament = (tournament) => ({ type: ClientType.TOURNAMENT_JOIN, tournament });
/** LeaveTournament: before its start, off its list; while it runs, paused. */
export const LeaveTournament = (tournament) => ({ type: ClientType.TOURNAMENT_LEAVE, tournament });
/** WatchTournament: `tournament` now and on every change of its standings (false: stop). */
export const WatchTournament = (tournament, subscribe = true) => ({ type: ClientType.TOURNAMENT_WATCH, tournament, subscribe });
/** The tournaments' requests (their refusals are the tournament pages' to show). */
export const TOURNAMENT_REQUESTS = Object.freeze([
  ClientType.TOURNAMENT_CREATE, ClientType.TOURNAMENTS, ClientType.TOURNAMENT_JOIN, ClientType.TOURNAMENT_LEAVE, ClientType.TOURNAMENT_WATCH,
]);

// -- encoding -----------------------------------------------------------------------------------

const SERVER_TYPES = new Set(Object.values(ServerType));
const CLIENT_TYPES = new Set(Object.values(ClientType));

/** The msgpack frame of a client message. */
export function encode(message) {
  if (!CLIENT_TYPES.has(message.type)) {
    throw new ProtocolError(`not a client message: ${message.type}`);
  }
  return pack(message);
}

/** The server message in a binary frame (an ArrayBuffer or Uint8Array). */
export function decode(frame) {
  if (typeof frame === "string") throw new ProtocolError("frames are binary msgpack, not text");
  let body;
  try {
    body = unpack(frame instanceof ArrayBuffer ? new Uint8Array(frame) : frame);
  } catch (error) {
    throw new ProtocolError(`not msgpack: ${error.message}`);
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new ProtocolError("a message is a map with a 'type' key");
  }
  if (!SERVER_TYPES.has(body.type)) throw new ProtocolError(`unknown message type ${body.type}`);
  return body;
}
