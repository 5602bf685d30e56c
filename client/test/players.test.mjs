// Unit tests of issue 20's pure parts: js/players.js (speeds, ratings as shown, who may join
// what, account errors in words, the chart's series) and the account, profile and leaderboard
// transitions of the state (js/players.js). Run by `node --test client/test/` (tests/client/test_state_unit.py).

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import "../testing/vendored.mjs"; // the msgpack the server vendors, from client/node_modules

const S = await import("../js/state.js");
const Pl = await import("../js/players.js");
const { ErrorCode } = await import("../js/protocol.js");

function deepFreeze(value) {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

const clock = (base, increment) => ({ kind: "clock", base, increment, days: 0 });
const NONE = { kind: "none", base: 0, increment: 0, days: 0 };
const DAYS = { kind: "days", base: 0, increment: 0, days: 1 };
const LIMITS = {
  chat_length: 500, chat_interval: 1, chat_burst: 5, message_rate: 20, message_burst: 40,
  max_frame_bytes: 16384, max_watching: 32, nickname_length: 24, first_move_timeout: 60,
};
const welcome = (nickname, account) => ({
  type: "welcome", player: "a0a0a0a0a0a0a0a0", nickname, token: "t", server_time: 0, games: [],
  bot: false, account, limits: LIMITS, game_types: ["Base"], levels: ["easy"],
});
const summary = (changes = {}) => ({
  id: "5e11ba55", game_type: "Base", time: clock(300, 5), white: null, black: null, created: 0,
  moves: 0, spectators: 0, creator_color: "random", wants: "anyone", challenge: null,
  rated: false, rating_min: null, rating_max: null, ...changes,
});
const profile = (name, changes = {}) => ({
  type: "profile", name, player: "p", bot: false, created: 0, ratings: [], wins: 0, draws: 0,
  losses: 0, levels: [], history: [], games: [], page: 0, total_games: 0, ...changes,
});

describe("speeds and ratings as shown", () => {
  test("a time control's speed is server/game/rating.py's: base + 40 x increment", () => {
    assert.equal(Pl.speedOf(NONE), null);
    assert.equal(Pl.speedOf(DAYS), "correspondence");
    assert.equal(Pl.speedOf(clock(60, 2)), "bullet"); // 140 s
    assert.equal(Pl.speedOf(clock(180, 0)), "blitz"); // 180 s: not below 180
    assert.equal(Pl.speedOf(clock(300, 5)), "rapid"); // 500 s
    assert.equal(Pl.speedOf(clock(180, 2)), "blitz"); // 260 s
    assert.equal(Pl.speedOf(clock(1200, 20)), "classical"); // 2000 s
  });

  test("a provisional rating has a question mark; none shows nothing", () => {
    assert.equal(Pl.ratingText(1612, true), "1612?");
    assert.equal(Pl.ratingText(1612, false), "1612");
    assert.equal(Pl.seatRating({ name: "g", rating: null }), "");
    assert.equal(Pl.seatRating({ name: "a", rating: 1499, provisional: true }), "1499?");
    assert.equal(Pl.signed(16), "+16");
    assert.equal(Pl.signed(-8), "−8");
    assert.equal(Pl.signed(0), "±0");
  });

  test("accounts and bot accounts have profiles; guests and the server's bots do not", () => {
    assert.equal(Pl.hasProfile({ account: "account", bot: null }), true);
    assert.equal(Pl.hasProfile({ account: "bot", bot: null }), true);
    assert.equal(Pl.hasProfile({ account: "bot", bot: "easy" }), false);
    assert.equal(Pl.hasProfile({ account: "guest", bot: null }), false);
    assert.equal(Pl.profileHref("Ada_1"), "#/@/Ada_1");
    assert.equal(Pl.gamesHref("Ada_1"), "/@/Ada_1/games.txt");
  });
});

describe("who may join and create what", () => {
  const guest = { player: "g", nickname: "g", account: false };
  const ada = { player: "a", nickname: "Ada", account: true };

  test("a rated game or a rating range wants an account", () => {
    assert.equal(Pl.whyNotJoin(summary(), guest), null);
    assert.match(Pl.whyNotJoin(summary({ rated: true }), guest), /rated game: sign up or log in/);
    assert.match(Pl.whyNotJoin(summary({ rating_min: 1400 }), guest), /rating range: sign up or log in/);
    assert.equal(Pl.whyNotJoin(summary({ rated: true }), ada), null);
  });

  test("a range is checked against the rating in the game's speed (1500 when none yet)", () => {
    const ratings = [{ speed: "rapid", rating: 1700, rd: 60, provisional: false, games: 30 }];
    const g = summary({ time: clock(300, 5), rating_min: 1400, rating_max: 1650 }); // rapid
    assert.equal(Pl.whyNotJoin(g, ada, ratings), "your rating 1700 is above 1650");
    assert.equal(Pl.whyNotJoin({ ...g, rating_max: 1800 }, ada, ratings), null);
    const blitz = summary({ time: clock(180, 2), rating_min: 1600 }); // no blitz rating: 1500
    assert.equal(Pl.whyNotJoin(blitz, ada, ratings), "your rating 1500 is below 1600");
  });

  test("rated only for an account, with a clock or days, not against the server's bots", () => {
    assert.match(Pl.whyNotRated(guest, clock(300, 5), "anyone"), /only an account/);
    assert.match(Pl.whyNotRated(ada, NONE, "anyone"), /needs a clock or days/);
    assert.match(Pl.whyNotRated(ada, clock(300, 5), "bot"), /casual/);
    assert.equal(Pl.whyNotRated(ada, DAYS, "anyone"), null);
    assert.equal(Pl.whyNotRated(ada, clock(300, 5), "bots"), null);
  });

  test("the form's rating range: blank for no bound, whole numbers, low before high", () => {
    assert.deepEqual(Pl.ratingRange("", " "), { min: null, max: null });
    assert.deepEqual(Pl.ratingRange("1400", ""), { min: 1400, max: null });
    assert.deepEqual(Pl.ratingRange("1400", "1700"), { min: 1400, max: 1700 });
    assert.match(Pl.ratingRange("1700", "1400").error, /above/);
    assert.match(Pl.ratingRange("14.5", "").error, /whole number/);
    assert.equal(Pl.rangeText(1400, 1700), "1400–1700");
    assert.equal(Pl.rangeText(null, 1700), "up to 1700");
    assert.equal(Pl.rangeText(1400, null), "from 1400");
    assert.equal(Pl.rangeText(null, null), "");
  });
});

describe("account errors in words", () => {
  const error = (code, message = "", request = "signup") => ({ type: "error", code, message, request, game: null });

  test("every code the account messages may answer has clear words", () => {
    assert.match(Pl.accountErrorText(error(ErrorCode.BAD_NAME, "'hard' is a bot's name")), /cannot be an account's.*bot's name/);
    assert.equal(Pl.accountErrorText(error(ErrorCode.NAME_TAKEN, "the name 'x' is taken")), "That name is taken: choose another.");
    assert.match(Pl.accountErrorText(error(ErrorCode.BAD_PASSWORD, "a password has 8 to 128 characters")), /will not do.*8 to 128/);
    assert.equal(Pl.accountErrorText(error(ErrorCode.BAD_PASSWORD, "the old password is wrong", "change_password")), "Your current password is wrong.");
    assert.equal(Pl.accountErrorText(error(ErrorCode.BAD_LOGIN, "wrong name or password", "login")), "Wrong name or password.");
    assert.match(Pl.accountErrorText(error(ErrorCode.RATE_LIMITED, "at most 10")), /^Too many attempts/);
    assert.match(Pl.accountErrorText(error(ErrorCode.UNAVAILABLE)), /cannot reach its accounts/);
    assert.match(Pl.accountErrorText(error(ErrorCode.INTERNAL)), /went wrong/);
    assert.equal(Pl.accountErrorText(error(ErrorCode.NOT_ALLOWED, "this player has an account")), "this player has an account");
  });
});

describe("account, profile and leaderboard transitions", () => {
  const guest = () => deepFreeze(S.welcomed(S.initial({ page: "lobby" }, "ada"), welcome("ada", false)));

  test("a signup refused is said in the panel; the account answer closes it", () => {
    const open = deepFreeze(Pl.authSent(Pl.authOpened(guest(), "signup")));
    assert.equal(open.auth.busy, true);
    const refused = deepFreeze(S.errorReceived(open, { code: ErrorCode.NAME_TAKEN, message: "", request: "signup" }));
    assert.deepEqual(refused.auth, { panel: "signup", error: "That name is taken: choose another.", busy: false });
    assert.equal(refused.notice, null); // not a toast: in the panel
    const made = deepFreeze(Pl.accountMade(refused, { type: "account", player: "a0a0a0a0a0a0a0a0", name: "Ada_1" }));
    assert.deepEqual(made.me, { player: "a0a0a0a0a0a0a0a0", nickname: "Ada_1", account: true, bot: false });
    assert.equal(made.auth.panel, null);
    assert.match(made.notice.text, /You are Ada_1 now/);
    const changed = Pl.accountMade(Pl.authOpened(made, "password"), { type: "account", player: "a0a0a0a0a0a0a0a0", name: "Ada_1" });
    assert.match(changed.notice.text, /^Password changed/);
  });

  test("a welcome says whether this is an account, and keeps a form open but not waiting", () => {
    assert.equal(guest().me.account, false);
    const waiting = deepFreeze(Pl.authSent(Pl.authOpened(guest(), "signup")));
    assert.deepEqual(S.welcomed(waiting, welcome("ada", false)).auth, { panel: "signup", error: null, busy: false });
    const account = S.welcomed(S.initial({ page: "lobby" }, "x"), welcome("Ada_1", true));
    assert.equal(account.me.account, true);
  });

  test("a profile goes to its page (any case), and my own gives my ratings", () => {
    const route = { page: "profile", name: "ada_1" };
    let state = S.welcomed(S.initial(route, "x"), welcome("Ada_1", true));
    state = deepFreeze(state);
    assert.deepEqual(state.profile, { name: "ada_1", page: 0, data: null, error: null });
    const ratings = [{ speed: "blitz", rating: 1612, rd: 80, provisional: false, games: 40 }];
    const got = deepFreeze(Pl.profileReceived(state, profile("Ada_1", { ratings })));
    assert.equal(got.profile.data.name, "Ada_1");
    assert.deepEqual(got.myRatings, ratings);
    const paged = deepFreeze(Pl.profilePaged(got, 1));
    assert.equal(Pl.profileReceived(paged, profile("Ada_1", { page: 0 })).profile.page, 1);
    assert.equal(Pl.profileReceived(paged, profile("Ada_1", { page: 1 })).profile.data.page, 1);
    const other = Pl.profileReceived(state, profile("Bob"));
    assert.equal(other.profile.data, null); // not the one on show
    const unknown = S.errorReceived(state, { code: ErrorCode.UNKNOWN_PLAYER, message: "no account named 'ada_1'", request: "profile" });
    assert.equal(unknown.profile.error, "no account named 'ada_1'");
  });

  test("a leaderboard goes to its speed's page only", () => {
    const state = deepFreeze(S.initial({ page: "leaderboard", speed: "blitz" }));
    const board = { type: "leaderboard", speed: "blitz", weeks: 4, players: [] };
    assert.deepEqual(Pl.leaderboardReceived(state, board).leaderboard.data, board);
    assert.equal(Pl.leaderboardReceived(state, { ...board, speed: "rapid" }).leaderboard.data, null);
  });
});

describe("the rating chart's series", () => {
  test("one aligned series a speed played, null where it has no point", () => {
    const history = [
      { speed: "blitz", at: 1_000_000, rating: 1500 },
      { speed: "rapid", at: 2_000_000, rating: 1520 },
      { speed: "blitz", at: 3_000_000, rating: 1540 },
    ];
    assert.deepEqual(Pl.historySeries(history), {
      speeds: ["blitz", "rapid"],
      data: [[1000, 2000, 3000], [1500, null, 1540], [null, 1520, null]],
    });
    assert.deepEqual(Pl.historySeries([]), { speeds: [], data: [[]] });
  });
});
