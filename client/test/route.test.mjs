// Unit tests of the pages' addresses (js/route.js), with Node's own runner: `node --test
// client/test/` (tests/client/test_state_unit.py runs it in `make test`).

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import "../testing/vendored.mjs"; // the msgpack the server vendors, from client/node_modules

const { parseRoute, routeHash } = await import("../js/route.js");

describe("routes", () => {
  test("each page's hash is read back as its route", () => {
    const routes = [
      { page: "lobby" },
      { page: "game", id: "5e11ba55" },
      { page: "review", id: "5e11ba55", ply: null },
      { page: "review", id: "5e11ba55", ply: 7 },
      { page: "rules" },
      { page: "profile", name: "Ada_Lovelace" },
      { page: "leaderboard", speed: "rapid" },
      { page: "analysis", gameType: "Base+MLP", moves: [], ply: 0 },
      { page: "analysis", gameType: "Base+M", moves: ["wS1", "bM -wS1", "wQ wS1/"], ply: 2 },
      { page: "tournaments" },
      { page: "tournament", id: "7c1e5a9b" },
    ];
    for (const route of routes) assert.deepEqual(parseRoute(routeHash(route)), route);
    assert.equal(routeHash({ page: "review", id: "5e11ba55", ply: 0 }), "#/review/5e11ba55/0");
  });

  test("an analysis board's address keeps its moves whatever they hold", () => {
    const moves = ["wS1", "bG1 \\wS1", "wQ /wS1", "bQ -bG1"];
    const route = { page: "analysis", gameType: "Base", moves, ply: 3 };
    assert.deepEqual(parseRoute(routeHash(route)), route);
    assert.deepEqual(parseRoute("#/analysis"), { page: "analysis", gameType: "Base+MLP", moves: [], ply: 0 });
    assert.deepEqual(parseRoute("#/analysis/Nope/wS1/9"), { page: "analysis", gameType: "Base+MLP", moves: ["wS1"], ply: 1 });
    assert.deepEqual(parseRoute("#/analysis/Base/%E0%A4%A"), { page: "analysis", gameType: "Base", moves: [], ply: 0 });
  });

  test("anything else is the lobby, or the blitz leaderboard", () => {
    for (const hash of ["", "#", "#/nowhere", "#/game/NOT-AN-ID", "#/review/short", "#/@/a", "#/@/%E0%A4%A", "#/tournament/NOT-AN-ID"]) {
      assert.deepEqual(parseRoute(hash), { page: "lobby" }, hash);
    }
    assert.deepEqual(parseRoute("#/leaderboard"), { page: "leaderboard", speed: "blitz" });
    assert.deepEqual(parseRoute("#/leaderboard/warp"), { page: "leaderboard", speed: "blitz" });
    assert.deepEqual(parseRoute("#/review/5e11ba55/x"), { page: "review", id: "5e11ba55", ply: null });
  });
});
