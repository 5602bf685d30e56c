// The move confirmation's pure transitions (options.js) and the chart's ranges (chart.js).
// Run by `node --test client/test/` (tests/client/test_state_unit.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import "../testing/vendored.mjs"; // the msgpack the server vendors, from client/node_modules

const { widened } = await import("../js/chart.js");
const { choiceDropped, chosenMove, moveChosen } = await import("../js/options.js");

const legal = { move: "wQ -wS1", piece: "wQ", from_q: null, from_r: null, to_q: -1, to_r: 0 };
const page = { game: { id: "g1", state: { version: 5 }, selected: { piece: "wQ" }, pending: null } };

test("a move chosen waits for its confirm while its position is on show", () => {
  const chosen = moveChosen(page, legal, 5);
  assert.equal(chosen.game.selected, null);
  assert.equal(chosenMove(chosen.game), legal);
  // the position changed meanwhile (an update): nothing to confirm
  assert.equal(chosenMove({ ...chosen.game, state: { version: 6 } }), null);
  assert.equal(chosenMove(choiceDropped(chosen).game), null);
});

test("one rating point reads on a few days and a hundred points, not on years", () => {
  assert.deepEqual(widened(1000, 1000, 50), [950, 1050]);
  assert.deepEqual(widened(1_800_000_000, 1_800_000_000, 3 * 86400), [1_800_000_000 - 3 * 86400, 1_800_000_000 + 3 * 86400]);
  assert.deepEqual(widened(1000, 1400, 50), [1000, 1400]);
});
