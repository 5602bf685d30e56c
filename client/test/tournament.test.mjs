// Unit tests of the tournament pages' pure parts (js/tournament.js, js/tournaments.js): an
// arena's points marked where a streak doubled them, the games in progress read from the
// standings, the clock and countdown as shown. Run by `node --test client/test/`
// (tests/client/test_state_unit.py).

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import "../testing/vendored.mjs"; // the msgpack the server vendors, from client/node_modules

const { gamesInProgress, markedScores } = await import("../js/tournament.js");
const { countdownText, settingsText, timeText } = await import("../js/tournaments.js");

const doubled = (scores, kind) => markedScores(scores, kind).map((m) => m.doubled);

describe("tournament standings", () => {
  test("an arena's points are doubled from the third win in a row, until a game not won", () => {
    // win, win, win (4), draw on the streak (2), win (2: the streak broken), loss, win, win, win (4)
    assert.deepEqual(doubled([2, 2, 4, 2, 2, 0, 2, 2, 4]), [false, false, true, true, false, false, false, false, true]);
    // a doubled draw (2) is not a win: the next game is not doubled
    assert.deepEqual(doubled([2, 2, 2, 2]), [false, false, true, false]);
    assert.deepEqual(doubled([1, 2, 2, 4, 0]), [false, false, false, true, false]);
    assert.deepEqual(doubled([1, 1, 1], "swiss"), [false, false, false]);
  });

  test("the games in progress are the playing players' games, each once", () => {
    const standings = [
      { name: "ann", status: "playing", game: "g1" },
      { name: "bob", status: "waiting", game: null },
      { name: "cy", status: "playing", game: "g1" },
      { name: "dee", status: "paused", game: null },
    ];
    assert.deepEqual(gamesInProgress(standings), [{ game: "g1", players: ["ann", "cy"] }]);
  });

  test("clocks and countdowns as shown", () => {
    assert.equal(timeText({ base: 180, increment: 2 }), "3+2");
    assert.equal(timeText({ base: 90, increment: 0 }), "1.5+0");
    assert.equal(countdownText(65_000), "1 min 05 s");
    assert.equal(countdownText(3_720_000), "1 h 02 min");
    assert.equal(countdownText(-5), "0 s");
    const summary = { kind: "swiss", rounds: 5, game_type: "Base", time: { base: 300, increment: 3 }, rated: false, rating_min: null, rating_max: 1800 };
    assert.equal(settingsText(summary), "Swiss, 5 rounds · Base · 5+3 · casual · rating –1800");
  });
});
