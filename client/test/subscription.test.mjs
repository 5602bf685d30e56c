// Unit tests of what the page follows on its connection (js/subscription.js): the state's
// `subs` and its pure transitions, with Node's own runner: `node --test client/test/`
// (tests/client/test_state_unit.py runs it in `make test`). Every input is deeply frozen, so a
// transition that writes into it throws.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import "../testing/vendored.mjs"; // the msgpack the server vendors, from client/node_modules

const S = await import("../js/state.js");
const Pl = await import("../js/players.js");
const Sub = await import("../js/subscription.js");
const { ClientType, ErrorCode, Opponent } = await import("../js/protocol.js");
const { ADA, GAME, adaWatching, deepFreeze, gameState, summary, update, welcome } = await import("../testing/fixtures.mjs");

const OTHER = "0f1e2d3c";

/** A page at `route`, welcomed as Ada (an account when `account`), its subscriptions fresh. */
function page(route, { account = false } = {}) {
  const state = S.welcomed(S.initial(route, "ada"), welcome(ADA, "ada", { account: account ? "ada" : null }));
  return deepFreeze(state);
}

/** The state after what was due was sent. */
const afterSubscribing = (state) => deepFreeze(Sub.subscribed(state));

/** Messages as [type, the field that tells them apart]. */
const brief = (messages) => messages.map((m) => [m.type, m.subscribe ?? m.game ?? m.name ?? m.speed]);

describe("a fresh page", () => {
  test("follows nothing, asks nothing, awaits nothing, has said nothing", () => {
    assert.deepEqual(S.initial({ page: "lobby" }).subs, {
      watching: [], lobby: false, asked: "", ratingsAsked: false, analysis: "", syncedOn: 0, awaiting: null, warned: "", nudged: false,
    });
  });
});

describe("subscriptionsDue and subscribed", () => {
  test("the lobby is followed once, and left for a game, which is watched once", () => {
    const lobby = page({ page: "lobby" });
    assert.deepEqual(brief(Sub.subscriptionsDue(lobby)), [[ClientType.LOBBY, true]]);
    const following = afterSubscribing(lobby);
    assert.equal(following.subs.lobby, true);
    assert.deepEqual(Sub.subscriptionsDue(following), []);
    assert.deepEqual(Sub.subscribed(following).subs, following.subs); // nothing new

    const atGame = deepFreeze(S.navigated(following, { page: "game", id: GAME }));
    assert.deepEqual(brief(Sub.subscriptionsDue(atGame)), [[ClientType.LOBBY, false], [ClientType.WATCH, GAME]]);
    const watching = afterSubscribing(atGame);
    assert.deepEqual([watching.subs.lobby, watching.subs.watching], [false, [GAME]]);
    assert.deepEqual(Sub.subscriptionsDue(watching), []);
  });

  test("a game watched again asks from the version the page has", () => {
    const seen = deepFreeze({ ...adaWatching(), subs: { ...adaWatching().subs, watching: [] } });
    assert.deepEqual(Sub.subscriptionsDue(seen), [{ type: ClientType.WATCH, game: GAME, since: 4 }]);
    const fresh = page({ page: "game", id: GAME });
    assert.deepEqual(Sub.subscriptionsDue(fresh), [{ type: ClientType.WATCH, game: GAME, since: null }]);
  });

  test("a profile's page and a leaderboard are asked once each", () => {
    const profile = page({ page: "profile", name: "bob" });
    assert.deepEqual(Sub.subscriptionsDue(profile), [{ type: ClientType.PROFILE, name: "bob", page: 0 }]);
    const asked = afterSubscribing(profile);
    assert.equal(asked.subs.asked, "profile:bob:0");
    assert.deepEqual(Sub.subscriptionsDue(asked), []);
    const paged = deepFreeze(Pl.profilePaged(asked, 1));
    assert.deepEqual(Sub.subscriptionsDue(paged), [{ type: ClientType.PROFILE, name: "bob", page: 1 }]);

    const board = afterSubscribing(page({ page: "leaderboard", speed: "rapid" }));
    assert.equal(board.subs.asked, "leaderboard:rapid");
    // the lobby: what was asked stays noted
    assert.equal(Sub.subscribed(S.navigated(board, { page: "lobby" })).subs.asked, "leaderboard:rapid");
  });

  test("a review follows its game's analysis once, and leaves it for another page", () => {
    const review = page({ page: "review", id: GAME, ply: null });
    assert.deepEqual(brief(Sub.subscriptionsDue(review)), [[ClientType.ANALYSE_GAME, GAME]]);
    const following = afterSubscribing(review);
    assert.equal(following.subs.analysis, GAME);
    assert.deepEqual(Sub.subscriptionsDue(following), []);
    const away = deepFreeze(S.navigated(following, { page: "rules" }));
    assert.deepEqual(brief(Sub.subscriptionsDue(away)), [[ClientType.LEAVE_ANALYSIS, GAME]]);
    assert.equal(afterSubscribing(away).subs.analysis, "");
    assert.deepEqual(brief(Sub.subscriptionsDue(deepFreeze(Sub.forgotten(following)))), [[ClientType.ANALYSE_GAME, GAME]]);
  });

  test("the rules page follows nothing", () => {
    assert.deepEqual(Sub.subscriptionsDue(page({ page: "rules" })), []);
  });
});

describe("forgotten, reopened", () => {
  test("a connection down or new: nothing followed or asked, the rest kept", () => {
    let state = afterSubscribing(page({ page: "game", id: GAME }));
    state = deepFreeze(Sub.ratingsAsked(Sub.warned(Sub.synced(Sub.awaited(state, "join"), 3), `${GAME}:2`), true));
    const forgot = Sub.forgotten(state);
    assert.deepEqual(forgot.subs, {
      watching: [], lobby: false, asked: "", ratingsAsked: false, analysis: "", syncedOn: 3, awaiting: "join", warned: `${GAME}:2`, nudged: false,
    });
    assert.deepEqual(brief(Sub.subscriptionsDue(forgot)), [[ClientType.WATCH, GAME]]);
  });

  test("a profile opened again is asked again unless it came", () => {
    const asked = afterSubscribing(page({ page: "profile", name: "bob" }));
    assert.equal(Sub.reopened(asked).subs.asked, "");
    const came = deepFreeze(Pl.profileReceived(asked, { name: "bob", page: 0, ratings: [] }));
    assert.equal(Sub.reopened(came), came);
  });
});

describe("watched, unwatched, refused, awaited", () => {
  test("a game watched once, unwatched, and watched again", () => {
    const state = page({ page: "lobby" });
    const one = deepFreeze(Sub.watched(state, GAME));
    assert.deepEqual(one.subs.watching, [GAME]);
    assert.equal(Sub.watched(one, GAME), one);
    const two = deepFreeze(Sub.watched(one, OTHER));
    assert.deepEqual(Sub.unwatched(two, GAME).subs.watching, [OTHER]);
  });

  test("a create or join refused awaits no more; a watch of the game on show refused is no watch", () => {
    const waiting = deepFreeze(Sub.awaited(page({ page: "lobby" }), "create"));
    assert.equal(waiting.subs.awaiting, "create");
    const refusal = (request, game = null) => ({ code: ErrorCode.NOT_ALLOWED, message: "no", request, game });
    assert.equal(Sub.refused(waiting, refusal("create")).subs.awaiting, null);
    assert.equal(Sub.refused(waiting, refusal("chat")).subs.awaiting, "create");

    const watching = adaWatching();
    assert.deepEqual(watching.subs.watching, []); // adaWatching never subscribed
    const watched = deepFreeze(Sub.watched(watching, GAME));
    assert.deepEqual(Sub.refused(watched, refusal("watch", GAME)).subs.watching, []);
    assert.deepEqual(Sub.refused(watched, refusal("watch", OTHER)).subs.watching, [GAME]);
    assert.deepEqual(Sub.refused(watched, refusal("play", GAME)).subs.watching, [GAME]);
  });
});

describe("ratings", () => {
  const ranged = summary("00000001", 10, { rated: true, rating_min: 1400, wants: Opponent.ANYONE });

  test("my ratings are wanted by an account when an open game has a range, once a connection", () => {
    const lobby = { open: [ranged], live: [], bots: [], open_total: 1, live_total: 0 };
    const account = deepFreeze(S.lobbyReceived(page({ page: "lobby" }, { account: true }), lobby));
    assert.equal(Sub.ratingsWanted(account), true);
    const asked = deepFreeze(Sub.ratingsAsked(account, true));
    assert.equal(Sub.ratingsWanted(asked), false);
    assert.equal(Sub.ratingsWanted(Sub.ratingsAsked(asked, false)), true); // my rated game ended
    assert.equal(Sub.ratingsWanted(Sub.forgotten(asked)), true); // a new connection
    const guest = S.lobbyReceived(page({ page: "lobby" }), lobby);
    assert.equal(Sub.ratingsWanted(guest), false);
    const plain = S.lobbyReceived(page({ page: "lobby" }, { account: true }), { ...lobby, open: [summary("00000002", 5)] });
    assert.equal(Sub.ratingsWanted(plain), false);
  });
});

describe("synced, warned, nudged", () => {
  test("each notes what it is given and nothing else", () => {
    const state = adaWatching();
    assert.equal(Sub.synced(state, 2).subs.syncedOn, 2);
    assert.equal(Sub.warned(state, `${GAME}:4`).subs.warned, `${GAME}:4`);
    const nudging = deepFreeze(Sub.nudged(state, true));
    assert.equal(nudging.subs.nudged, true);
    assert.equal(Sub.nudged(nudging, true), nudging);
    assert.equal(Sub.nudged(nudging, false).subs.nudged, false);
    assert.equal(Sub.synced(state, 2).game, state.game);
  });

  test("they survive the game's updates and navigation", () => {
    const state = deepFreeze(Sub.nudged(Sub.synced(adaWatching(), 2), true));
    const next = S.updateReceived(state, update(gameState({ version: 5 })), 2000);
    assert.equal(next.subs, state.subs);
    assert.equal(S.navigated(state, { page: "lobby" }).subs, state.subs);
  });
});
