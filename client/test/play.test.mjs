// Unit tests of playing the game on show (js/play.js), given a fake page (its state, dispatch,
// connection, navigation and sounds: client/testing/page.mjs), with Node's own runner:
// `node --test client/test/` (tests/client/test_state_unit.py runs it in `make test`).

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { fakePage, tick } from "../testing/page.mjs";

const S = await import("../js/state.js");
const Sub = await import("../js/subscription.js");
const P = await import("../js/protocol.js");
const { playing } = await import("../js/play.js");
const { GAME, adaWatching, event, gameState, update } = await import("../testing/fixtures.mjs");

/** Ada's page with her game on show, brought up to date on connection `number`. */
function ada({ gs = gameState(), online = true, number = 1 } = {}) {
  const page = fakePage(Sub.synced(adaWatching(gs), number), { online, number });
  return { page, play: playing(page.uses) };
}

const QUEEN = gameState().legal[0]; // wQ -wS1

describe("a move", () => {
  test("goes at once on the connection the game was brought up to date on, and is pending", () => {
    const { page, play } = ada();
    play.move(QUEEN);
    assert.deepEqual(page.sent, [P.Play(GAME, 4, "wQ -wS1")]);
    assert.equal(page.now.game.pending.sentOn, 1);
  });

  test("is queued while the connection is down, and goes once the game is brought up to date", () => {
    const { page, play } = ada({ online: false });
    play.move(QUEEN);
    assert.deepEqual(page.sent, []);
    assert.equal(page.now.game.pending.sentOn, null);
    assert.match(page.now.notice.text, /queued/);
    page.conn.online = true;
    page.conn.number = 2;
    play.updated(update(gameState())); // the watch's update on the new connection
    assert.deepEqual(page.sent, [P.Play(GAME, 4, "wQ -wS1")]);
    assert.equal(page.now.game.pending.sentOn, 2);
  });

  test("is not sent again on the connection it went on when an update comes before its own", () => {
    const { page, play } = ada();
    play.move(QUEEN);
    play.updated(update(gameState({ version: 5, chat: [{ at: 0, player: "x", name: "bob", text: "hi" }] })));
    assert.equal(page.sent.length, 1);
    assert.equal(page.now.game.pending.move, "wQ -wS1");
  });

  test("is not made out of turn, nor twice", () => {
    const { page, play } = ada({ gs: gameState({ turn: "black" }) });
    play.move(QUEEN);
    assert.equal(page.now.game.pending, null);
    const mine = ada();
    mine.play.move(QUEEN);
    mine.play.move(P.PASS);
    assert.equal(mine.page.sent.length, 1);
  });
});

describe("the board's handlers", () => {
  test("a destination clicked plays its legal move; a piece clicked twice is put down", () => {
    const { page, play } = ada();
    play.board.pick("wQ", null);
    assert.deepEqual(page.now.game.selected, { piece: "wQ", from: null });
    play.board.pick("wQ", null);
    assert.equal(page.now.game.selected, null);
    play.board.target("wG1 -wS1");
    assert.deepEqual(page.sent.map((m) => m.move), ["wG1 -wS1"]);
  });

  test("a drop on a hex no legal move goes to asks the server why, spelled as a move", () => {
    const { page, play } = ada();
    assert.equal(play.board.canDrag(), true);
    play.board.drop("wQ", null, 2, 0); // beside Black's spider
    assert.deepEqual(page.sent.map((m) => m.move), ["wQ bS1-"]);
    assert.deepEqual(page.now.game.probe, { piece: "wQ", move: "wQ bS1-" });
    play.board.drop("wQ", null, 9, 9); // touching nothing: said here
    assert.equal(page.sent.length, 1);
    assert.match(page.now.notice.text, /does not touch the hive/);
  });

  test("during the opponent's turn a piece let go is a premove, played when the turn comes", async () => {
    const { page, play } = ada({ gs: gameState({ turn: "black", legal: [] }) });
    assert.equal(play.board.canDrag(), false);
    play.board.pick("wQ", null);
    play.board.drop("wQ", null, -1, 0);
    assert.deepEqual(page.now.game.premove, { piece: "wQ", from: null, q: -1, r: 0 });
    play.updated(update(gameState({ version: 5, moves: ["wS1", "bS1 wS1-", "bG1 bS1-"] })));
    assert.deepEqual(page.sent.map((m) => [m.version, m.move]), [[5, "wQ -wS1"]]);
    await tick();
    assert.deepEqual(page.sounds.played, ["move"]);
  });
});

describe("an update", () => {
  test("of a game this page created shows it, watched, with the start's sound", () => {
    const page = fakePage(Sub.awaited(S.initial({ page: "lobby" }, "ada"), "create"));
    playing(page.uses).updated(update(gameState({ id: "0a0b0c0d" })));
    assert.deepEqual(page.routes, [{ page: "game", id: "0a0b0c0d" }]);
    assert.equal(page.now.subs.awaiting, null);
    assert.deepEqual(page.now.subs.watching, ["0a0b0c0d"]);
  });

  test("of another game than the one on show changes nothing", () => {
    const { page, play } = ada();
    const before = page.now;
    play.updated(update(gameState({ id: "0f0f0f0f" })));
    assert.equal(page.now, before);
  });

  test("with a rematch takes a player to the new game", () => {
    const { page, play } = ada({ gs: gameState({ status: "over", result: "WhiteWins" }) });
    const next = gameState({ version: 5, status: "over", result: "WhiteWins" });
    play.updated(update(next, [event(5, "rematch", { text: "0a0b0c0d" })]));
    assert.deepEqual(page.routes, [{ page: "game", id: "0a0b0c0d" }]);
    assert.ok(page.now.subs.watching.includes("0a0b0c0d"));
  });
});
