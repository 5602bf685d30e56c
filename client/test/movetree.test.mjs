// Unit tests of the analysis board's move tree (js/movetree.js), with Node's own runner.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import * as T from "../js/movetree.js";

const LINE = ["wS1", "bG1 -wS1", "wQ wS1-", "bQ -bG1"];

describe("move tree", () => {
  test("a line is on show at its ply, and steps back and forth", () => {
    let tree = T.lineTree(LINE, 2);
    assert.deepEqual(T.movesTo(tree), LINE.slice(0, 2));
    tree = T.forward(tree);
    assert.equal(T.plyOf(tree), 3);
    tree = T.toEnd(tree);
    assert.deepEqual(T.movesTo(tree), LINE);
    assert.equal(T.plyOf(T.forward(tree)), 4); // the end stays
    assert.equal(T.plyOf(T.goTo(tree, T.nodeAtPly(tree, 0))), 0);
    assert.equal(T.plyOf(T.back(T.lineTree(LINE, 0))), 0); // the start stays
    assert.equal(T.plyOf(T.lineTree(LINE, 99)), 4);
  });

  test("a move played where another was is a variation; the same move follows the line", () => {
    const start = T.lineTree(LINE, 2);
    assert.equal(T.played(start, "wQ wS1-").current, T.forward(start).current);
    const branched = T.played(start, "wA1 wS1-");
    assert.deepEqual(T.movesTo(branched), ["wS1", "bG1 -wS1", "wA1 wS1-"]);
    assert.equal(T.siblings(branched).length, 1);
    // the main line is unchanged: forward from ply 2 still goes to wQ
    const again = T.forward(T.back(branched));
    assert.equal(T.movesTo(again).at(-1), "wQ wS1-");
    assert.deepEqual(T.lineThrough(again).map((n) => n.move), LINE);
  });

  test("a variation promoted becomes the main line; one removed is gone", () => {
    const branched = T.played(T.played(T.lineTree(LINE, 2), "wA1 wS1-"), "bQ -bG1");
    const promoted = T.promoted(branched);
    const fromStart = T.toEnd(T.goTo(promoted, 0));
    assert.deepEqual(T.movesTo(fromStart), ["wS1", "bG1 -wS1", "wA1 wS1-", "bQ -bG1"]);
    const removed = T.removed(T.back(branched));
    assert.deepEqual(T.movesTo(removed), ["wS1", "bG1 -wS1"]);
    assert.deepEqual(T.lineThrough(T.goTo(removed, 0)).map((n) => n.move), LINE);
    assert.equal(Object.keys(removed.nodes).length, 5);
    assert.equal(T.removed(removed, 0), removed); // the start stays
  });
});
