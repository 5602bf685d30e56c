// Unit tests of the review's computer analysis (js/evaluation.js): its state transitions and
// what it derives from a `game_analysis`, with Node's own runner: `node --test client/test/`.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import "../testing/vendored.mjs"; // the msgpack the server vendors, from client/node_modules

const E = await import("../js/evaluation.js");
const { deepFreeze } = await import("../testing/fixtures.mjs");

const GAME = "a1b2c3d4";
const move = (ply, fields) => ({
  ply, move: `m${ply}`, best: `m${ply}`, best_score: 0, played_score: 0, chance: 0.5, played_chance: 0.5,
  mark: null, accuracy: 100, best_from: null, best_to: [0, ply], ...fields,
});
const DONE = deepFreeze({
  type: "game_analysis", game: GAME, status: "done", done: 3, total: 3, depth: 5,
  moves: [
    move(0, { chance: 0.6, played_chance: 0.6 }),
    move(1, { best: "bQ wS1-", chance: 0.45, played_chance: 0.2, best_score: -40, played_score: -300, mark: "blunder", best_from: [1, 0] }),
    move(2, { chance: 0.8, played_chance: 0.7, played_score: -10, best: "wA1 -bQ", mark: "inaccuracy" }),
  ],
  white: { inaccuracies: 1, mistakes: 0, blunders: 0, accuracy: 88.2 },
  black: { inaccuracies: 0, mistakes: 0, blunders: 1, accuracy: 40.5 },
});
const onReview = (analysis) => deepFreeze({ review: { id: GAME, doc: null, ply: 0, error: null, ...(analysis ? { analysis } : {}) } });

describe("evaluation", () => {
  test("White's chance in every position: before each move, and after the last", () => {
    assert.deepEqual(E.whiteChances(DONE).map((c) => Math.round(c * 100)), [60, 55, 80, 70]);
    assert.deepEqual(E.whiteChances({ ...DONE, status: "running" }), []);
  });

  test("the best move is shown where the move played was worse", () => {
    assert.equal(E.betterMove(DONE, 0), null);
    assert.deepEqual(E.bestArrow(DONE, 1), { from: { q: 1, r: 0 }, to: { q: 0, r: 1 }, move: "bQ wS1-" });
    assert.deepEqual(E.bestArrow(DONE, 2).from, null); // a placement: no source
    assert.equal(E.bestArrow(DONE, 3), null); // the end of the game
  });

  test("a progress message never replaces a finished analysis; another game's is ignored", () => {
    const done = E.analysisReceived(onReview(null), DONE);
    assert.equal(done.review.analysis, DONE);
    const late = { type: "game_analysis", game: GAME, status: "running", done: 2, total: 3, moves: [] };
    assert.equal(E.analysisReceived(deepFreeze(done), late), done);
    const other = { ...DONE, game: "ffffffff" };
    const state = onReview(null);
    assert.equal(E.analysisReceived(state, other), state);
  });

  test("a refusal of analyse_game for the game on show is said", () => {
    const asked = E.analysisAsked(onReview(null));
    const refused = E.analysisRefused(deepFreeze(asked), { request: "analyse_game", game: GAME, message: "slow down" });
    assert.equal(refused.review.analysisError, "slow down");
    assert.equal(refused.review.asking, false);
  });
});
