// Unit tests of the page's actions (js/actions.js), given a fake page (its state, dispatch,
// `send`, navigation, screen, the move to play: client/testing/page.mjs), with Node's own
// runner: `node --test client/test/` (tests/client/test_state_unit.py runs it in `make test`).

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { fakePage, formData } from "../testing/page.mjs";

const S = await import("../js/state.js");
const Sub = await import("../js/subscription.js");
const P = await import("../js/protocol.js");
const { actions } = await import("../js/actions.js");
const { GAME, adaWatching } = await import("../testing/fixtures.mjs");

const CREATE = { game_type: "Base", time: "none", color: "white", opponent: "anyone", rated: "casual" };

describe("the lobby's actions", () => {
  test("a game created or joined is awaited, and its request sent", () => {
    const page = fakePage(S.initial({ page: "lobby" }, "ada"));
    const act = actions(page.uses);
    act.create(formData(CREATE));
    assert.equal(page.now.subs.awaiting, "create");
    assert.deepEqual(page.sent.map((m) => [m.type, m.game_type, m.color]), [[P.ClientType.CREATE, "Base", "white"]]);
    act.join({ dataset: { game: GAME } });
    assert.equal(page.now.subs.awaiting, "join");
    assert.deepEqual(page.sent.at(-1), P.JoinGame(GAME));
  });

  test("a rated game a guest may not play is refused here, with why", () => {
    const page = fakePage(S.initial({ page: "lobby" }, "ada"));
    actions(page.uses).create(formData({ ...CREATE, rated: "rated" }));
    assert.deepEqual(page.sent, []);
    assert.match(page.now.notice.text, /^Not a rated game: only an account/);
  });

  test("a game opened by its id goes to its page or its review; another text does nothing", () => {
    const page = fakePage(S.initial({ page: "lobby" }, "ada"));
    const act = actions(page.uses);
    act.openGame(formData({ id: ` ${GAME} `, how: "review" }));
    act.openGame(formData({ id: GAME, how: "watch" }));
    act.openGame(formData({ id: "../x", how: "watch" }));
    assert.deepEqual(page.routes, [{ page: "review", id: GAME, ply: null }, { page: "game", id: GAME }]);
  });
});

describe("the game's actions", () => {
  test("pass plays a pass; resign is asked twice before it goes", () => {
    const page = fakePage(adaWatching());
    const act = actions(page.uses);
    act.pass();
    assert.deepEqual(page.moves, [P.PASS]);
    act.resign();
    assert.equal(page.screen.confirming, "resign");
    assert.equal(page.renders, 1);
    assert.deepEqual(page.sent, []);
    act.resign();
    assert.equal(page.screen.confirming, null);
    assert.deepEqual(page.sent, [P.Resign(GAME)]);
  });

  test("a chat line goes and its form is emptied, unless it could not be sent", () => {
    const page = fakePage(adaWatching());
    const act = actions(page.uses);
    let resets = 0;
    const form = { reset: () => { resets += 1; } };
    act.chat(formData({ text: "  hello " }), form);
    page.conn.online = false;
    act.chat(formData({ text: "again" }), form);
    assert.deepEqual(page.sent, [P.Chat(GAME, "hello")]);
    assert.equal(resets, 1);
  });
});

describe("the account's and the page's actions", () => {
  test("a nickname chosen is kept, and the connection renamed", () => {
    const page = fakePage(Sub.forgotten(S.initial({ page: "lobby" }, "guest-1234")));
    actions(page.uses).nickname(formData({ nickname: " Ada " }));
    assert.equal(page.now.nickname, "Ada");
    assert.equal(localStorage.getItem("hive.nickname"), "Ada");
    assert.equal(page.conn.renamed, 1);
  });

  test("the sound switch mutes and draws the header; a profile's page is asked for", () => {
    const page = fakePage(S.initial({ page: "profile", name: "ann" }, "ada"));
    const act = actions(page.uses);
    act.toggleSound();
    assert.equal(page.sounds.muted, true);
    assert.equal(page.headers, 1);
    act.profilePage({ dataset: { page: "2" } });
    assert.equal(page.subscribed, 1);
  });
});
