// Unit tests of the client's plain state and its pure transitions (js/state.js), with Node's
// own runner: `node --test client/test/` (tests/client/test_state_unit.py runs it in
// `make test`). No browser and no server: the states and messages are built here, shaped as
// server/protocol.py sends them.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import "../testing/vendored.mjs"; // the msgpack the server vendors, from client/node_modules

const S = await import("../js/state.js");
const V = await import("../js/views.js");
const { ADA, BOB, CY, GAME, adaWatching, deepFreeze, event, gameState, ids, legal, summary, update, welcome } = await import("../testing/fixtures.mjs");
const { ErrorCode, MAX_NICKNAME, Opponent, PASS } = await import("../js/protocol.js");

// -- the initial state, navigation, the connection ----------------------------------------

describe("initial and navigated", () => {
  test("a fresh page has a view of what its route shows, and nothing else", () => {
    const lobby = S.initial({ page: "lobby" }, "ada");
    assert.equal(lobby.game, null);
    assert.equal(lobby.review, null);
    assert.equal(lobby.nickname, "ada");
    assert.deepEqual(lobby.connection, { status: "connecting", lag: null, attempt: 0, reason: null });
    assert.equal(lobby.lobby.received, false);

    const game = S.initial({ page: "game", id: GAME });
    assert.equal(game.game.id, GAME);
    assert.equal(game.game.state, null);
    assert.equal(game.game.pending, null);

    const review = S.initial({ page: "review", id: GAME, ply: 3 });
    assert.deepEqual(review.review, { id: GAME, doc: null, ply: 3, error: null });
    assert.equal(review.game, null);
  });

  test("staying on the same game keeps its view and notice; another game starts afresh", () => {
    const watching = deepFreeze(S.noticed(adaWatching(), "hello there"));
    const same = S.navigated(watching, { page: "game", id: GAME });
    assert.equal(same.game, watching.game);
    assert.deepEqual(same.notice, { text: "hello there", kind: "info" });

    const other = S.navigated(watching, { page: "game", id: "0f1e2d3c" });
    assert.equal(other.game.id, "0f1e2d3c");
    assert.equal(other.game.state, null);
    assert.equal(other.notice, null);

    const lobby = S.navigated(watching, { page: "lobby" });
    assert.equal(lobby.game, null);
    assert.equal(lobby.notice, null);
  });

  test("the same review keeps its document and moves to the ply asked, or stays", () => {
    let state = S.initial({ page: "review", id: GAME, ply: null });
    state = deepFreeze(S.reviewLoaded(state, { frames: [{}, {}, {}] }));
    const moved = S.navigated(state, { page: "review", id: GAME, ply: 1 });
    assert.equal(moved.review.doc, state.review.doc);
    assert.equal(moved.review.ply, 1);
    assert.equal(S.navigated(state, { page: "review", id: GAME, ply: null }).review.ply, 2);
    assert.equal(S.navigated(state, { page: "review", id: "0f1e2d3c", ply: null }).review.doc, null);
  });

  test("the connection's status, attempt and close reason; the lag stays", () => {
    let state = deepFreeze(S.lagMeasured(S.initial({ page: "lobby" }), 42));
    state = deepFreeze(S.connectionChanged(state, "closed", 0, "too many requests"));
    assert.deepEqual(state.connection, { status: "closed", lag: 42, attempt: 0, reason: "too many requests" });
    state = deepFreeze(S.connectionChanged(state, "reconnecting", 2));
    assert.deepEqual(state.connection, { status: "reconnecting", lag: 42, attempt: 2, reason: null });
  });

  test("a welcome names the player and their games; a nickname chosen is kept", () => {
    const state = deepFreeze(S.nicknameChosen(S.initial({ page: "lobby" }, "ada"), "ada2"));
    assert.equal(state.nickname, "ada2");
    const welcomed = S.welcomed(state, deepFreeze(welcome(ADA, "Ada2", { games: [GAME] })));
    assert.deepEqual(welcomed.me, { player: ADA, nickname: "Ada2", account: false, bot: false });
    assert.equal(welcomed.nickname, "Ada2"); // as the server spells it
    assert.deepEqual(welcomed.myGames, [GAME]);
  });

  test("a welcome says what the server allows and plays; the next one replaces it", () => {
    const fresh = deepFreeze(S.initial({ page: "lobby" }, "ada"));
    assert.equal(fresh.server, null); // the forms wait for it
    assert.equal(V.chatLength(fresh), null);
    assert.equal(V.nicknameLength(fresh), MAX_NICKNAME); // the name form may show before it
    const first = deepFreeze(S.welcomed(fresh, deepFreeze(welcome(ADA, "ada"))));
    assert.deepEqual(first.server, {
      limits: welcome(ADA, "ada").limits,
      gameTypes: ["Base", "Base+M", "Base+MLP"],
      levels: ["beginner", "easy", "expert"],
      offset: 0, // no clock given: the server's time read as the client's
    });
    assert.equal(V.chatLength(first), 120);
    assert.equal(V.nicknameLength(first), 24);
    // a reconnect to a server restarted with other settings
    const limits = { ...first.server.limits, chat_length: 500, nickname_length: 16 };
    const again = S.welcomed(first, welcome(ADA, "ada", { limits, game_types: ["Base"], levels: ["hard"] }));
    assert.deepEqual(again.server, { limits, gameTypes: ["Base"], levels: ["hard"], offset: 0 });
    assert.equal(V.chatLength(again), 500);
    assert.equal(V.nicknameLength(again), 16);
    // what happens on the connection keeps what the last welcome said
    assert.deepEqual(S.connectionChanged(again, "reconnecting", 1).server, again.server);
  });
});

// -- the lobby ------------------------------------------------------------------------------

describe("lobby", () => {
  const lobby = {
    open: [summary("00000001", 10), summary("00000002", 20)],
    live: [summary("00000009", 90)],
    bots: [{ player: CY, name: "robo", game_types: ["Base"], times: ["none"], max_games: 2, playing: 0 }],
    open_total: 2,
    live_total: 1,
  };

  test("a change before the first lobby is ignored", () => {
    const state = deepFreeze(S.initial({ page: "lobby" }));
    const change = { open: [summary("00000003", 30)], live: [], gone: [], bots: null, open_total: 1, live_total: 0 };
    assert.equal(S.lobbyChanged(state, change), state);
  });

  test("changes add, move and remove games in the server's order, and keep the bots unless given", () => {
    const state = deepFreeze(S.lobbyReceived(S.initial({ page: "lobby" }), lobby));
    assert.equal(state.lobby.received, true);
    assert.deepEqual([state.lobby.openTotal, state.lobby.liveTotal], [2, 1]);
    const changed = S.lobbyChanged(state, {
      open: [summary("00000004", 5), summary("00000005", 50, { wants: Opponent.BOTS })],
      live: [summary("00000002", 20), summary("00000008", 95)],
      gone: ["00000009"],
      bots: null,
      open_total: 3,
      live_total: 2,
    });
    // games for bot accounts first, then the oldest; a game now in progress left the open list
    assert.deepEqual(ids(changed.lobby.open), ["00000005", "00000004", "00000001"]);
    // in progress: the newest first
    assert.deepEqual(ids(changed.lobby.live), ["00000008", "00000002"]);
    assert.equal(changed.lobby.bots, state.lobby.bots);
    assert.deepEqual([changed.lobby.openTotal, changed.lobby.liveTotal], [3, 2]);
    const noBots = S.lobbyChanged(state, { open: [], live: [], gone: [], bots: [], open_total: 2, live_total: 1 });
    assert.deepEqual(noBots.lobby.bots, []);
  });

  test("a lobby without totals counts its lists", () => {
    const state = S.lobbyReceived(S.initial({ page: "lobby" }), { open: lobby.open, live: [] });
    assert.deepEqual([state.lobby.openTotal, state.lobby.liveTotal, state.lobby.bots], [2, 0, []]);
  });
});

// -- a game ---------------------------------------------------------------------------------

describe("updateReceived", () => {
  test("updates of another game, and older versions, change nothing", () => {
    const state = adaWatching();
    assert.equal(S.updateReceived(state, { ...update(gameState()), game: "0f1e2d3c" }, 2000), state);
    assert.equal(S.updateReceived(state, update(gameState({ version: 3 })), 2000), state);
  });

  test("a snapshot of an older version stands: the server took a change back", () => {
    const state = adaWatching();
    const back = { ...update(gameState({ version: 3, moves: ["wS1"] })), snapshot: true };
    const next = S.updateReceived(state, back, 2000);
    assert.equal(next.game.state.version, 3);
    assert.deepEqual(next.game.state.moves, ["wS1"]);
  });

  test("the last move is known with where it came from only when the position before was seen", () => {
    const first = adaWatching();
    assert.deepEqual(first.game.lastMove, { piece: "bS1", from: undefined, to: { q: 1, r: 0 } });
    assert.equal(first.game.receivedAt, 1000);
    const after = gameState({
      version: 5,
      moves: ["wS1", "bS1 wS1-", "wQ -wS1"],
      turn: "black",
      pieces: [...gameState().pieces, { piece: "wQ", q: -1, r: 0, height: 0 }],
      legal: [],
    });
    const next = S.updateReceived(first, update(after), 2000);
    assert.deepEqual(next.game.lastMove, { piece: "wQ", from: null, to: { q: -1, r: 0 } }); // from hand
    // a chat event makes no move: the last move stays
    const chatted = S.updateReceived(next, update({ ...after, version: 6 }, [event(6, "chat")]), 3000);
    assert.equal(chatted.game.lastMove, next.game.lastMove);
  });

  test("a pending move stays until the moves change, and a selection only while it can move", () => {
    let state = S.selected(adaWatching(), "wQ");
    assert.deepEqual(state.game.selected, { piece: "wQ", from: null });
    // the same position again (a resync): the selection stays
    state = deepFreeze(S.updateReceived(state, update(gameState({ version: 4 })), 2000));
    assert.deepEqual(state.game.selected, { piece: "wQ", from: null });
    // the Queen has no move any more: the selection goes
    const noQueen = gameState({ version: 5, legal: [legal("wG1 -wS1", "wG1", null, [-1, 0])] });
    assert.equal(S.updateReceived(state, update(noQueen), 2000).game.selected, null);

    const made = deepFreeze(S.moveMade(adaWatching(), gameState().legal[0], 1));
    const same = S.updateReceived(made, update(gameState({ version: 5 })), 2000); // a chat, say
    assert.equal(same.game.pending, made.game.pending);
    const played = gameState({ version: 5, moves: [...gameState().moves, "wQ -wS1"], turn: "black" });
    assert.equal(S.updateReceived(made, update(played), 2000).game.pending, null);
    const over = gameState({ version: 5, status: "over", result: "BlackWins", reason: "resign" });
    assert.equal(S.updateReceived(made, update(over), 2000).game.pending, null);
  });

  test("the opponent's offers and mutes become notices; one's own offers do not", () => {
    const state = adaWatching();
    const offered = S.updateReceived(state, update(gameState({ version: 5 }), [event(5, "draw_offer", { by: "black" })]), 0);
    assert.deepEqual(offered.notice, { text: "Black offers a draw.", kind: "info" });
    const mine = S.updateReceived(state, update(gameState({ version: 5 }), [event(5, "draw_offer", { by: "white" })]), 0);
    assert.equal(mine.notice, null);
    const declined = S.updateReceived(state, update(gameState({ version: 5 }), [event(5, "draw_decline", { by: "black" })]), 0);
    assert.equal(declined.notice.text, "Black declined the draw.");
    const rematch = S.updateReceived(state, update(gameState({ version: 5 }), [event(5, "rematch_offer", { by: "black" })]), 0);
    assert.equal(rematch.notice.text, "Black offers a rematch.");
    const mutedMe = event(5, "mute", { by: "bob", text: "ada", player: ADA });
    assert.equal(S.updateReceived(state, update(gameState({ version: 5 }), [mutedMe]), 0).notice.text,
      "bob muted you in this game's chat.");
    const unmutedCy = event(5, "unmute", { by: "bob", text: "cy", player: CY });
    assert.equal(S.updateReceived(state, update(gameState({ version: 5 }), [unmutedCy]), 0).notice.text,
      "bob unmuted cy in this game's chat.");
  });
});

describe("presenceReceived", () => {
  test("who is at the game changes the spectators and the seats, not the version", () => {
    const state = adaWatching();
    const left = S.presenceReceived(state, {
      type: "presence", game: GAME, spectators: 3, white_gone: null, black_gone: 1234, claim_after: 60000,
    });
    assert.equal(left.game.state.spectators, 3);
    assert.equal(left.game.state.white.connected, true);
    assert.equal(left.game.state.black.connected, false);
    assert.equal(left.game.state.version, state.game.state.version);
    assert.deepEqual(left.game.gone, { white: null, black: 1234 });
    assert.equal(left.game.claimAfter, 60000);
    const back = S.presenceReceived(left, { ...left, game: GAME, spectators: 0, white_gone: null, black_gone: null, claim_after: 60000 });
    assert.equal(back.game.state.black.connected, true);
  });

  test("another game's presence changes nothing", () => {
    const state = adaWatching();
    const other = { type: "presence", game: "0f1e2d3c", spectators: 9, white_gone: 1, black_gone: 1, claim_after: 1 };
    assert.equal(S.presenceReceived(state, other), state);
  });
});

describe("lastMoveOf", () => {
  test("a pass, no move yet, a piece from the board", () => {
    assert.deepEqual(S.lastMoveOf(gameState({ moves: ["wS1", PASS] })), { pass: true });
    assert.equal(S.lastMoveOf(gameState({ moves: [] })), null);
    const before = gameState();
    const after = gameState({
      moves: [...before.moves, "wS1 bS1-"],
      pieces: [{ piece: "wS1", q: 2, r: 0, height: 0 }, before.pieces[1]],
    });
    assert.deepEqual(S.lastMoveOf(after, before), { piece: "wS1", from: { q: 0, r: 0 }, to: { q: 2, r: 0 } });
  });
});

describe("errorReceived", () => {
  const refusal = (code, message, request = "play") => ({ code, message, request, game: GAME });

  test("an illegal drop says why in the engine's words, without the quoted move", () => {
    const state = deepFreeze(S.probed(adaWatching(), "wQ", "wQ bS1-"));
    assert.deepEqual(state.game.probe, { piece: "wQ", move: "wQ bS1-" });
    const refused = S.errorReceived(state, refusal(ErrorCode.ILLEGAL_MOVE, "'wQ bS1-': a piece may be placed only where it touches its own colour"));
    assert.deepEqual(refused.notice, {
      text: "wQ cannot go there: a piece may be placed only where it touches its own colour",
      kind: "error",
    });
    assert.equal(refused.game.probe, null);
  });

  test("an illegal move made drops the pending move", () => {
    const state = deepFreeze(S.moveMade(adaWatching(), gameState().legal[0], 1));
    const refused = S.errorReceived(state, refusal(ErrorCode.ILLEGAL_MOVE, "'wQ -wS1': no"));
    assert.equal(refused.notice.text, "Illegal move: no");
    assert.equal(refused.game.pending, null);
  });

  test("stale: said when a move was waiting, silent for a copy already played", () => {
    const waiting = deepFreeze(S.moveMade(adaWatching(), gameState().legal[0], 1));
    const stale = S.errorReceived(waiting, refusal(ErrorCode.STALE, "the move was made on version 4"));
    assert.equal(stale.notice.text, "The position changed before your move arrived: choose again.");
    assert.equal(stale.game.pending, null);
    const played = S.errorReceived(adaWatching(), refusal(ErrorCode.STALE, "the move was made on version 4"));
    assert.equal(played.notice, null);
  });

  test("any other refusal shows the server's message", () => {
    const state = adaWatching();
    const refused = S.errorReceived(state, refusal(ErrorCode.NOT_ALLOWED, "no draw offer to accept", "draw"));
    assert.deepEqual(refused.notice, { text: "no draw offer to accept", kind: "error" });
    assert.equal(refused.game, state.game);
  });
});

describe("selected", () => {
  test("a piece of the side to move with legal moves is picked up", () => {
    const state = S.selected(adaWatching(), "wQ");
    assert.deepEqual(state.game.selected, { piece: "wQ", from: null });
    assert.equal(state.notice, null);
    const fromBoard = S.selected(adaWatching(), "wS1", { q: 0, r: 0 });
    assert.deepEqual(fromBoard.game.selected, { piece: "wS1", from: { q: 0, r: 0 } });
    // picked up all the same, with the opening rule that holds it (its Queen is in hand)
    assert.equal(fromBoard.notice.text, "wS1 cannot move now: no piece may move before its side's Queen is placed.");
    const free = S.selected(adaWatching(gameState({ hand_white: ["wG1"] })), "wS1", { q: 0, r: 0 });
    assert.equal(free.notice.text, "wS1 has no legal move now.");
    const stuck = S.selected(adaWatching(gameState({ legal: [], must_pass: true })), "wQ");
    assert.equal(stuck.notice.text, "You have no move: pass.");
  });

  test("otherwise it says why, and picks nothing up", () => {
    const cases = [
      [adaWatching(gameState({ status: "over", result: "Draw" })), "wQ", "The game is not in progress."],
      [adaWatching(gameState({ turn: "black" })), "bS1", "It is black's turn."],
      [S.moveMade(adaWatching(), gameState().legal[0], 1), "wG1", "Your move is on its way."],
      [adaWatching(), "bS1", "bS1 is Black's piece: you play White."],
    ];
    for (const [state, piece, text] of cases) {
      const after = S.selected(deepFreeze(state), piece);
      assert.equal(after.notice.text, text);
      assert.equal(after.game.selected, null);
    }
    // a spectator: nothing at all
    const spectator = deepFreeze(S.welcomed(adaWatching(), welcome(CY, "cy")));
    assert.equal(S.selected(spectator, "wQ"), spectator);
  });

  test("the opponent's piece is picked up when it can be thrown (a Pillbug's move)", () => {
    const throwable = gameState({ legal: [...gameState().legal, legal("bS1 -wS1", "bS1", [1, 0], [-1, 0])] });
    const after = S.selected(deepFreeze(adaWatching(throwable)), "bS1", { q: 1, r: 0 });
    assert.deepEqual(after.game.selected, { piece: "bS1", from: { q: 1, r: 0 } });
    assert.equal(after.notice, null);
  });

  test("deselected drops the selection; without a game nothing changes", () => {
    const picked = deepFreeze(S.selected(adaWatching(), "wQ"));
    assert.equal(S.deselected(picked).game.selected, null);
    assert.deepEqual(picked.game.selected, { piece: "wQ", from: null }); // the input is untouched
    const lobby = deepFreeze(S.initial({ page: "lobby" }));
    assert.equal(S.deselected(lobby), lobby);
  });
});

describe("moves made", () => {
  test("a placement, a move on the board and a pass are pending with what the board needs", () => {
    const placed = S.moveMade(adaWatching(), gameState().legal[0], null);
    assert.deepEqual(placed.game.pending, {
      move: "wQ -wS1", version: 4, ply: 2, piece: "wQ", from: null, to: { q: -1, r: 0 }, sentOn: null,
    });
    assert.equal(placed.game.selected, null);
    const moved = S.moveMade(adaWatching(), legal("wS1 bS1-", "wS1", [0, 0], [2, 0]), 3);
    assert.deepEqual([moved.game.pending.from, moved.game.pending.to, moved.game.pending.sentOn], [{ q: 0, r: 0 }, { q: 2, r: 0 }, 3]);
    const passed = S.moveMade(adaWatching(), PASS, 1);
    assert.deepEqual([passed.game.pending.move, passed.game.pending.piece, passed.game.pending.to], [PASS, null, null]);
  });

  test("pendingSent notes the connection it went on", () => {
    const made = deepFreeze(S.moveMade(adaWatching(), gameState().legal[0], null));
    const sent = S.pendingSent(made, 2);
    assert.equal(sent.game.pending.sentOn, 2);
    assert.equal(sent.game.pending.move, "wQ -wS1");
  });
});

// -- review ---------------------------------------------------------------------------------

describe("review", () => {
  const doc = { frames: [{}, {}, {}, {}] };

  test("a review opens at the ply asked, kept within the game, or at its end", () => {
    const at = (ply) => S.reviewLoaded(deepFreeze(S.initial({ page: "review", id: GAME, ply })), doc).review.ply;
    assert.deepEqual([at(null), at(1), at(9), at(-2)], [3, 1, 3, 0]);
  });

  test("steps stay within the game; failures are kept; nothing without a review", () => {
    const state = deepFreeze(S.reviewLoaded(S.initial({ page: "review", id: GAME, ply: 1 }), doc));
    assert.deepEqual([2, Infinity, -1].map((ply) => S.reviewStepped(state, ply).review.ply), [2, 3, 0]);
    const waiting = deepFreeze(S.initial({ page: "review", id: GAME, ply: 1 }));
    assert.equal(S.reviewStepped(waiting, 2), waiting); // not loaded yet
    assert.equal(S.reviewFailed(waiting, "Cannot load").review.error, "Cannot load");
    const lobby = deepFreeze(S.initial({ page: "lobby" }));
    assert.equal(S.reviewLoaded(lobby, doc), lobby);
    assert.equal(S.reviewFailed(lobby, "x"), lobby);
  });
});

describe("the opening rules a player is told (issue 22)", () => {
  const opening = (changes = {}) => gameState({
    version: 2, moves: [], game_string: "Base;NotStarted;White[1]", pieces: [],
    legal: [legal("wS1", "wS1", null, [0, 0])], hand_white: ["wQ", "wS1"], hand_black: ["bQ", "bS1"], ...changes,
  });

  test("the Queen on a first move, other bugs on a fourth without her, a move before her", () => {
    assert.match(V.whyBarred(opening(), "wQ", true), /first move \(the tournament opening rule\)/);
    assert.equal(V.whyBarred(opening(), "wS1", true), null);
    const fourth = opening({ moves: ["wS1", "bS1 wS1-", "wG1 -wS1", "bG1 bS1-", "wA1 /wS1", "bA1 bS1/"] });
    assert.match(V.whyBarred(fourth, "wS1", true), /Queen must be placed by a player's fourth move/);
    assert.equal(V.whyBarred(fourth, "wQ", true), null);
    assert.match(V.whyBarred(gameState(), "wS1", false), /before its side's Queen is placed/);
    assert.equal(V.whyBarred(gameState({ hand_white: ["wG1"] }), "wS1", false), null);
  });

  test("picking the Queen up on move 1 says the rule", () => {
    const state = adaWatching(deepFreeze(opening()));
    const picked = S.selected(state, "wQ", null);
    assert.equal(picked.notice.kind, "info");
    assert.match(picked.notice.text, /^wQ cannot move now: .*tournament opening rule/);
  });

  test("each first move has its deadline from the start of its turn, on the client's clock", () => {
    let state = S.initial({ page: "game", id: GAME }, "ada");
    state = S.welcomed(state, welcome(ADA, "ada", { server_time: 50_000 }), 10_000); // offset 40 s
    const joined = event(2, "joined", { at: 52_000 });
    state = deepFreeze(S.updateReceived(state, update(opening(), [joined]), 12_500));
    assert.deepEqual(V.firstMoveDeadline(state), { color: "white", at: 12_000 + 60_000 });
    const seconds = deepFreeze({ ...state, server: { ...state.server, limits: { ...state.server.limits, first_move_timeout: 30 } } });
    assert.equal(V.firstMoveDeadline(seconds).at, 12_000 + 30_000);
    const black = opening({ version: 3, moves: ["wS1"], turn: "black" });
    const after = S.updateReceived(state, update(black, [event(3, "move", { at: 61_000 })]), 21_200);
    assert.deepEqual(V.firstMoveDeadline(after), { color: "black", at: 21_000 + 60_000 });
    // an update without the event (a snapshot): the turn began when it came
    const snap = S.updateReceived(state, update(black), 21_300);
    assert.equal(V.firstMoveDeadline(snap).at, 21_300 + 60_000);
    // after both first moves, with days per move, or over: none
    assert.equal(V.firstMoveDeadline(S.updateReceived(state, update(gameState({ version: 9 })), 30_000)), null);
    const days = opening({ version: 3, time: { kind: "days", base: 0, increment: 0, days: 1 } });
    assert.equal(V.firstMoveDeadline(S.updateReceived(state, update(days), 30_000)), null);
    const over = opening({ version: 3, status: "over", reason: "aborted" });
    assert.equal(V.firstMoveDeadline(S.updateReceived(state, update(over), 30_000)), null);
  });
});

describe("premove (issue 22)", () => {
  const theirTurn = () => adaWatching(gameState({ turn: "black", version: 3, moves: ["wS1"], legal: [] }));

  test("one's own piece picked up in the opponent's turn goes to a hex as a premove", () => {
    const picked = deepFreeze(S.selected(theirTurn(), "wQ"));
    assert.deepEqual(picked.game.selected, { piece: "wQ", from: null });
    assert.match(picked.notice.text, /^Premove: click the hex for wQ/);
    const chosen = deepFreeze(S.premoved(picked, -1, 0));
    assert.deepEqual(chosen.game.premove, { piece: "wQ", from: null, q: -1, r: 0 });
    assert.equal(chosen.game.selected, null);
    assert.deepEqual(V.boardModel(chosen).premove, chosen.game.premove);
    assert.equal(V.premoveDue(chosen), null); // not this player's turn yet
    assert.equal(S.deselected(chosen).game.premove, null); // Escape cancels it
  });

  test("played when the turn comes if still legal, else dropped with why", () => {
    const chosen = deepFreeze(S.premoved(S.selected(theirTurn(), "wQ"), -1, 1));
    const mine = deepFreeze(S.updateReceived(chosen, update(gameState({ version: 4 })), 2000));
    assert.deepEqual(mine.game.premove, chosen.game.premove); // kept through the update
    assert.deepEqual(V.premoveDue(mine), { legal: gameState().legal[1] }); // wQ /wS1
    assert.equal(S.premoveDone(mine, true).game.premove, null);
    const gone = deepFreeze(S.premoved(S.selected(theirTurn(), "wQ"), 5, 5));
    const now = deepFreeze(S.updateReceived(gone, update(gameState({ version: 4 })), 2000));
    assert.deepEqual(V.premoveDue(now), { legal: null });
    assert.equal(S.premoveDone(now, false).notice.text, "Premove cancelled: wQ cannot go there now.");
    const over = S.updateReceived(gone, update(gameState({ version: 4, status: "over", result: "Draw" })), 2000);
    assert.equal(over.game.premove, null);
  });
});
