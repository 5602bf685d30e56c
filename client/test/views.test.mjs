// Unit tests of the client's derived views (js/views.js): what the screens show, computed
// from the state. With Node's own runner: `node --test client/test/`
// (tests/client/test_state_unit.py runs it in `make test`).

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import "../testing/vendored.mjs"; // the msgpack the server vendors, from client/node_modules

const S = await import("../js/state.js");
const V = await import("../js/views.js");
const Sub = await import("../js/subscription.js");
const { MAX_NICKNAME, Opponent, PASS } = await import("../js/protocol.js");
const { ADA, BOB, CY, GAME, adaWatching, event, gameState, legal, welcome } = await import("../testing/fixtures.mjs");

// -- selectors ------------------------------------------------------------------------------

describe("selectors", () => {
  test("seats and turns", () => {
    const gs = gameState();
    assert.deepEqual([V.seatColor(gs, ADA), V.seatColor(gs, BOB), V.seatColor(gs, CY), V.seatColor(null, ADA)],
      ["white", "black", null, null]);
    const ada = { player: ADA, nickname: "ada" };
    const bob = { player: BOB, nickname: "bob" };
    assert.deepEqual([V.isPlayer(ada, gs), V.isPlayer({ player: CY }, gs), V.isPlayer(null, gs)], [true, false, false]);
    assert.deepEqual([V.isMyTurn(ada, gs), V.isMyTurn(bob, gs)], [true, false]);
    assert.equal(V.isMyTurn(ada, gameState({ status: "over" })), false);
  });

  test("legal moves by piece", () => {
    const byPiece = V.legalByPiece(gameState());
    assert.deepEqual([...byPiece.keys()], ["wQ", "wG1"]);
    assert.deepEqual(byPiece.get("wQ").map((m) => m.move), ["wQ -wS1", "wQ /wS1"]);
    assert.equal(V.legalByPiece(null).size, 0);
  });

  test("chat lines: who may mute whom", () => {
    const chat = [
      event(5, "chat", { by: "bob", text: "hi", player: BOB }),
      event(6, "chat", { by: "ada", text: "hello", player: ADA }),
      event(7, "chat", { by: "cy", text: "go!", player: CY }),
      event(8, "chat", { by: "old", text: "before ids" }),
    ];
    const gs = gameState({ chat, muted: [CY] });
    const lines = V.chatLines(gs, { player: ADA });
    assert.deepEqual(lines.map((l) => [l.by, l.muted, l.canMute]), [
      ["bob", false, true], ["ada", false, false], ["cy", true, true], ["old", false, false],
    ]);
    assert.ok(V.chatLines(gs, { player: CY }).every((l) => !l.canMute)); // a spectator
  });

  test("a challenge takes the form's terms where the bot plays them, else the bot's first", () => {
    const bot = { player: CY, name: "robo", game_types: ["Base+M", "Base"], times: ["days", "none"], max_games: 2, playing: 2 };
    const fallback = { none: { kind: "none" }, days: { kind: "days", days: 1 } };
    const choice = { game_type: "Base", time: { kind: "none" }, color: "black" };
    assert.deepEqual(V.challengeTerms(bot, choice, fallback), {
      game_type: "Base", time: { kind: "none" }, color: "black", opponent: Opponent.BOTS, challenge: "robo",
    });
    const other = V.challengeTerms(bot, { game_type: "Base+MLP", time: { kind: "clock" }, color: "white" }, fallback);
    assert.deepEqual([other.game_type, other.time], ["Base+M", { kind: "days", days: 1 }]);
    assert.equal(V.isBusy(bot), true);
    assert.equal(V.isBusy({ ...bot, playing: 1 }), false);
  });

  test("the board model: movable pieces and targets only on one's turn with nothing pending", () => {
    const model = V.boardModel(S.selected(adaWatching(), "wQ"));
    assert.equal(model.interactive, true);
    assert.deepEqual([...model.movable], ["wQ", "wG1"]);
    assert.deepEqual(model.targets.map((m) => m.move), ["wQ -wS1", "wQ /wS1"]);
    assert.deepEqual(model.stacks.get("1,0"), ["bS1"]);
    const pending = V.boardModel(S.moveMade(adaWatching(), gameState().legal[0], 1));
    assert.equal(pending.interactive, false);
    assert.equal(pending.movable.size, 0);
    assert.equal(pending.pending.move, "wQ -wS1");
    const theirs = V.boardModel(adaWatching(gameState({ turn: "black" })));
    assert.deepEqual([theirs.interactive, theirs.movable.size, theirs.targets], [false, 0, []]);
  });

  test("the words for a result", () => {
    const over = (result, reason) => V.resultText(gameState({ status: "over", result, reason }));
    assert.deepEqual(over("WhiteWins", "queen"), { title: "ada wins", detail: "bob's Queen is surrounded", winner: "white" });
    assert.deepEqual(over("BlackWins", "resign"), { title: "bob wins", detail: "ada resigned", winner: "black" });
    assert.deepEqual(over("Draw", "agreement"), { title: "Draw", detail: "agreed" });
    assert.deepEqual(over(null, "aborted"), { title: "Game aborted", detail: "a first move did not come in time" });
    assert.deepEqual(over(null, "expired"), { title: "No result", detail: "nobody joined" });
    const inTournament = (moves) => V.resultText(gameState({ status: "over", result: null, reason: "aborted", tournament: "t1", moves }));
    assert.deepEqual(inTournament([]), { title: "Game aborted", detail: "ada did not make a first move in time: paused in the tournament (in a Swiss, the game is lost)" });
    assert.equal(inTournament(["wS1"]).detail.split(" did not")[0], "bob");
    assert.equal(over(null, "timeout").detail, "time ran out");
    assert.equal(over("WhiteWins", "timeout").detail, "bob ran out of time");
    assert.equal(over("BlackWins", "something new").detail, "something new"); // a reason not known here
    const unseated = V.resultText(gameState({ status: "over", result: "WhiteWins", reason: "queen", black: null }));
    assert.equal(unseated.detail, "Black's Queen is surrounded");
  });
});

describe("what a screen reader hears (issue 22)", () => {
  const title = (p) => `<${p}>`;

  test("moves in words: directions, climbing, the first piece, a pass", async () => {
    const { moveWords } = await import("../js/notation.js");
    assert.equal(moveWords("wQ -wS1", title), "<wQ> west of <wS1>");
    assert.equal(moveWords("bS1 wS1-", title), "<bS1> east of <wS1>");
    assert.equal(moveWords("wA1 wS1/", title), "<wA1> north-east of <wS1>");
    assert.equal(moveWords("wA1 \\wS1", title), "<wA1> north-west of <wS1>");
    assert.equal(moveWords("wA1 /wS1", title), "<wA1> south-west of <wS1>");
    assert.equal(moveWords("wA1 wS1\\", title), "<wA1> south-east of <wS1>");
    assert.equal(moveWords("wB1 bQ", title), "<wB1> on top of <bQ>");
    assert.equal(moveWords("wS1", title), "<wS1>, the first piece");
    assert.equal(moveWords("pass", title), "pass");
  });

  test("the last move and whose turn; the piece picked up; the result", () => {
    const mine = adaWatching();
    assert.equal(V.announcement(mine, title), "Black played bS1 wS1-: <bS1> east of <wS1>. Your turn.");
    const picked = S.selected(mine, "wQ");
    assert.match(V.announcement(picked, title), /^<wQ> picked up: 2 destinations\. Arrow keys/);
    assert.equal(V.announcement(S.selected(mine, "wS1", { q: 0, r: 0 }), title), ""); // a piece that cannot move
    const theirs = adaWatching(gameState({ moves: ["wS1"], turn: "black" }));
    assert.equal(V.announcement(theirs, title), "White played wS1: <wS1>, the first piece. bob to move.");
    const over = adaWatching(gameState({ status: "over", result: "WhiteWins", reason: "resign" }));
    assert.equal(V.announcement(over, title), "Game over: ada wins, bob resigned.");
    assert.equal(V.announcement(S.initial({ page: "lobby" }), title), "");
  });
});

describe("low time (issue 22)", () => {
  test("sounds once a turn when this player's running clock falls under 20 s", () => {
    const clock = { kind: "clock", base: 180, increment: 2, days: 0 };
    const running = gameState({ time: clock, clocks: { white: 25_000, black: 90_000, running: "white" } });
    const state = adaWatching(running); // received at 1000
    assert.equal(V.lowTimeTurn(state, 1000 + 4_000), null); // 21 s left
    assert.equal(V.lowTimeTurn(state, 1000 + 6_000), `${GAME}:2`); // 19 s left
    const theirs = adaWatching(gameState({ time: clock, turn: "black", clocks: { white: 5_000, black: 5_000, running: "black" } }));
    assert.equal(V.lowTimeTurn(theirs, 1000), null); // not this player's clock
    assert.equal(V.lowTimeTurn(adaWatching(gameState({ clocks: { white: 5_000, black: 5_000, running: null } })), 1000), null);
  });
});

describe("the tab's title", () => {
  test("my turn (nudging while it came unseen), else the page's name", () => {
    const mine = adaWatching();
    assert.equal(V.pageTitle(mine), "Your turn · Hive Arena");
    assert.equal(V.pageTitle(Sub.nudged(mine, true)), "● Your turn · Hive Arena");
    const theirs = adaWatching(gameState({ turn: "black" }));
    assert.equal(V.pageTitle(theirs), "Hive Arena");
    assert.equal(V.pageTitle(Sub.nudged(theirs, true)), "Hive Arena");
    const at = (route) => V.pageTitle(S.initial(route, "ada"));
    assert.equal(at({ page: "lobby" }), "Hive Arena");
    assert.equal(at({ page: "review", id: GAME, ply: null }), "Review · Hive Arena");
    assert.equal(at({ page: "rules" }), "Rules · Hive Arena");
    assert.equal(at({ page: "profile", name: "bob" }), "bob · Hive Arena");
    assert.equal(at({ page: "leaderboard", speed: "blitz" }), "Leaderboard · Hive Arena");
  });
});

describe("chat and name limits", () => {
  test("none before a welcome (but the protocol's nickname length), the welcome's after", () => {
    const fresh = S.initial({ page: "lobby" }, "ada");
    assert.deepEqual([V.chatLength(fresh), V.nicknameLength(fresh)], [null, MAX_NICKNAME]);
    const welcomed = S.welcomed(fresh, welcome(ADA, "ada"));
    assert.deepEqual([V.chatLength(welcomed), V.nicknameLength(welcomed)], [120, 24]);
  });
});
