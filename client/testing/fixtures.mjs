// Values shaped as the server sends them (server/protocol.py), for the client's unit tests
// (client/test/): game states, welcomes, updates, events, lobby summaries, and Ada's page
// watching her game. Outside client/test/, where `node --test` would run it as a test.

import "./vendored.mjs"; // the msgpack the server vendors, from client/node_modules

const S = await import("../js/state.js");
const { Opponent } = await import("../js/protocol.js");

// -- values shaped as the server sends them -------------------------------------------------

export const ADA = "a0a0a0a0a0a0a0a0";
export const BOB = "b0b0b0b0b0b0b0b0";
export const CY = "c0c0c0c0c0c0c0c0";
export const GAME = "5e11ba55";

/** Freeze `value` and everything in it: a transition that writes into its input throws (ES
 * modules run in strict mode). */
export function deepFreeze(value) {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

export const seat = (player, name) => ({ player, name, bot: null, connected: true, account: "guest" });
export const legal = (move, piece, from, to) => ({
  move, piece, from_q: from?.[0] ?? null, from_r: from?.[1] ?? null, to_q: to[0], to_r: to[1],
});

/** A GameState of Ada (White) against Bob (Black): after wS1 and bS1 wS1-, White to move. */
export function gameState(changes = {}) {
  return {
    id: GAME,
    game_type: "Base",
    status: "live",
    white: seat(ADA, "ada"),
    black: seat(BOB, "bob"),
    time: { kind: "none", base: 0, increment: 0, days: 0 },
    version: 4,
    game_string: "Base;InProgress;White[2];wS1;bS1 wS1-",
    moves: ["wS1", "bS1 wS1-"],
    turn: "white",
    clocks: { white: null, black: null, running: null },
    pieces: [
      { piece: "wS1", q: 0, r: 0, height: 0 },
      { piece: "bS1", q: 1, r: 0, height: 0 },
    ],
    legal: [
      legal("wQ -wS1", "wQ", null, [-1, 0]),
      legal("wQ /wS1", "wQ", null, [-1, 1]),
      legal("wG1 -wS1", "wG1", null, [-1, 0]),
    ],
    hand_white: ["wQ", "wG1"],
    hand_black: ["bQ", "bG1"],
    must_pass: false,
    result: null,
    reason: null,
    draw_offer: null,
    rematch_offer: null,
    rematch: null,
    spectators: 0,
    chat: [],
    muted: [],
    spectator_chat: true,
    ...changes,
  };
}

/** A Welcome as the server sends it (a server with a chat length of 120 and three levels). */
export const welcome = (player, nickname, changes = {}) => ({
  player, nickname, token: "t", server_time: 0, games: [], bot: false,
  limits: {
    chat_length: 120, chat_interval: 1.0, chat_burst: 5, message_rate: 20.0, message_burst: 60,
    max_frame_bytes: 16384, max_watching: 32, nickname_length: 24,
  },
  game_types: ["Base", "Base+M", "Base+MLP"],
  levels: ["beginner", "easy", "expert"],
  ...changes,
});

export const update = (state, events = []) => ({ game: state.id, version: state.version, events, state, snapshot: false });
export const event = (version, kind, fields = {}) => ({ version, kind, at: 0, by: null, text: null, player: null, ...fields });
export const summary = (id, created, changes = {}) => ({
  id, game_type: "Base", time: { kind: "none", base: 0, increment: 0, days: 0 }, white: null, black: null,
  created, moves: 0, spectators: 0, creator_color: null, wants: Opponent.ANYONE, challenge: null, ...changes,
});

/** Ada's page showing the game, welcomed, with `gs` (default: her turn) received. */
export function adaWatching(gs = gameState()) {
  let state = S.initial({ page: "game", id: GAME }, "ada");
  state = S.welcomed(state, welcome(ADA, "ada", { games: [GAME] }));
  return deepFreeze(S.updateReceived(state, update(gs), 1000));
}

export const ids = (games) => games.map((g) => g.id);
