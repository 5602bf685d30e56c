// Players who stay (issue 20): accounts, ratings, profiles and leaderboards, as pure helpers
// of state.js and the screens, and the state's account, profile and leaderboard transitions. Nothing here touches the DOM or the socket, and nothing reckons
// a rating: the server sends every figure; this module only reads them.

import { ErrorCode, SPEEDS } from "./protocol.js";

/** A rating with no rated game yet (server/game/rating.py's START_RATING): what the server
 * compares with a game's rating range for an account new to that speed. */
export const START_RATING = 1500;

/** The estimated durations (seconds, base + 40 x increment) below which a clock game is of
 * each speed: server/game/rating.py's `speed`, mirrored to say which rating a game is about. */
const LIMITS = [[180, "bullet"], [480, "blitz"], [1500, "rapid"]];

/** The speed of a game with TimeControl `time`: null for one without a clock (never rated). */
export function speedOf(time) {
  if (!time || time.kind === "none") return null;
  if (time.kind === "days") return "correspondence";
  const duration = time.base + 40 * time.increment;
  return LIMITS.find(([limit]) => duration < limit)?.[1] ?? "classical";
}

/** A speed's name with a capital ("Blitz"). */
export const speedName = (speed) => (speed ? speed[0].toUpperCase() + speed.slice(1) : "");

/** A rating as shown: "1612", or "1612?" while provisional; "" for none. */
export function ratingText(rating, provisional = false) {
  if (rating === null || rating === undefined) return "";
  return `${rating}${provisional ? "?" : ""}`;
}

/** The rating a seat (Seat) shows beside its name: "1612?" or "" (a guest, the server's
 * bots, a game without a clock). */
export const seatRating = (seat) => ratingText(seat?.rating ?? null, Boolean(seat?.provisional));

/** Whether `seat` has a profile page: a person's account or a bot account (not a guest, not
 * one of the server's own bots). */
export const hasProfile = (seat) => Boolean(seat && !seat.bot && (seat.account === "account" || seat.account === "bot"));

/** The address of `name`'s profile and of the download of their games. */
export const profileHref = (name) => `#/@/${encodeURIComponent(name)}`;
export const gamesHref = (name) => `/@/${encodeURIComponent(name)}/games.txt`;

/** "+16", "-8", "±0". */
export const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0");

/** A rating range in words: "1400–1700", "from 1400", "up to 1700", or "" for none. */
export function rangeText(min, max) {
  if (min !== null && min !== undefined && max !== null && max !== undefined) return `${min}–${max}`;
  if (min !== null && min !== undefined) return `from ${min}`;
  if (max !== null && max !== undefined) return `up to ${max}`;
  return "";
}

/** Why `me` cannot join the open game `g` (GameSummary), or null: a rated game or a game with
 * a rating range wants an account, and a range wants a rating in the game's speed within it
 * (`ratings`: the player's SpeedRatings, from their profile; a speed without one counts as
 * START_RATING, as on the server). The server decides; this only marks the lobby's rows. */
export function whyNotJoin(g, me, ratings = []) {
  const ranged = (g.rating_min ?? null) !== null || (g.rating_max ?? null) !== null;
  if (!g.rated && !ranged) return null;
  if (!me?.account) {
    return g.rated ? "a rated game: sign up or log in to play it" : "a rating range: sign up or log in to play it";
  }
  if (!ranged) return null;
  const speed = speedOf(g.time);
  const rating = ratings.find((r) => r.speed === speed)?.rating ?? START_RATING;
  if ((g.rating_min ?? null) !== null && rating < g.rating_min) return `your rating ${rating} is below ${g.rating_min}`;
  if ((g.rating_max ?? null) !== null && rating > g.rating_max) return `your rating ${rating} is above ${g.rating_max}`;
  return null;
}

/** Why the create form's choice cannot be a rated game, or null: only an account plays rated
 * games, with a clock or days per move, never against the server's bots. */
export function whyNotRated(me, time, opponent) {
  if (!me?.account) return "only an account plays rated games: sign up or log in";
  if (!time || time.kind === "none") return "a rated game needs a clock or days per move";
  if (opponent === "bot") return "games against the server's bots are casual";
  return null;
}

/** The rating range of the create form (text fields, blank for no bound): {min, max}, or
 * {error} when a bound is not a whole number or the lower is above the upper. */
export function ratingRange(minText, maxText) {
  const read = (text) => {
    const t = String(text ?? "").trim();
    if (t === "") return null;
    return /^\d{1,4}$/.test(t) ? Number(t) : NaN;
  };
  const min = read(minText);
  const max = read(maxText);
  if (Number.isNaN(min) || Number.isNaN(max)) return { error: "a rating bound is a whole number, such as 1400" };
  if (min !== null && max !== null && min > max) return { error: "the lowest rating is above the highest" };
  return { min, max };
}

/** Clear words for a refusal of signup, login or change_password (an Error message). The
 * server's own words come after when they say more (which rule a name broke). */
export function accountErrorText(error) {
  const said = error.message ? ` (${error.message})` : "";
  switch (error.code) {
    case ErrorCode.BAD_NAME:
      return `That name cannot be an account's${said}.`;
    case ErrorCode.NAME_TAKEN:
      return "That name is taken: choose another.";
    case ErrorCode.BAD_PASSWORD:
      return error.request === "change_password" && /old/.test(error.message ?? "")
        ? "Your current password is wrong." : `That password will not do${said}.`;
    case ErrorCode.BAD_LOGIN:
      return "Wrong name or password.";
    case ErrorCode.RATE_LIMITED:
      return `Too many attempts: wait a few minutes, then try again${said}.`;
    case ErrorCode.UNAVAILABLE:
      return "The server cannot reach its accounts just now: try again in a moment.";
    case ErrorCode.INTERNAL:
      return "Something went wrong on the server: try again.";
    case ErrorCode.ALREADY_AUTHENTICATED:
      return "Already signed in: reload the page and try again.";
    default:
      return error.message || `Refused (${error.code}).`;
  }
}

/** The rating history (RatingPoints, oldest first) as uPlot's aligned data: the times (seconds)
 * of every point, then one array per speed played, with null where that speed has no point
 * (the line spans the gap); `speeds` names each series. */
export function historySeries(history) {
  const speeds = SPEEDS.filter((s) => history.some((p) => p.speed === s));
  const times = [...new Set(history.map((p) => Math.floor(p.at / 1000)))].sort((a, b) => a - b);
  const index = new Map(times.map((t, i) => [t, i]));
  const series = speeds.map(() => times.map(() => null));
  for (const p of history) series[speeds.indexOf(p.speed)][index.get(Math.floor(p.at / 1000))] = p.rating;
  return { speeds, data: [times, ...series] };
}

/** A profile's game (ArchivedGame) from its player's side, in words: {result: "Won" | "Drew"
 * | "Lost", change: "+12" | null}. */
export function gameOutcome(g) {
  const result = { win: "Won", draw: "Drew", loss: "Lost" }[g.outcome] ?? g.outcome;
  return { result, change: g.rating_change === null || g.rating_change === undefined ? null : signed(g.rating_change) };
}

/** Account names are the same ignoring case. */
export const sameName = (a, b) => typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase();

// -- the account, profile and leaderboard transitions of the state (state.js) -----------------

/** Open one of the header's account forms ("signup", "login", "password"), or close them
 * (null). */
export const authOpened = (state, panel) => ({ ...state, auth: { panel, error: null, busy: false } });

/** A form of the panel sent: its answer is awaited. */
export const authSent = (state) => ({ ...state, auth: { ...state.auth, error: null, busy: true } });

/** A refusal of signup, login or change_password (an Error): said in the panel, in words. */
export const authFailed = (state, error) => ({ ...state, auth: { ...state.auth, error: accountErrorText(error), busy: false } });

/** An `account` message (the answer to signup or change_password): this player is the
 * account `name`; the panel closes and a notice says what happened. */
export function accountMade(state, account) {
  const asked = state.auth.panel;
  const text = asked === "password" ? "Password changed: your other sessions have ended."
    : `You are ${account.name} now: your games stay yours, and you may play rated games.`;
  return {
    ...state,
    me: { ...state.me, player: account.player, nickname: account.name, account: true },
    nickname: account.name,
    auth: { panel: null, error: null, busy: false },
    notice: { text, kind: "info" },
  };
}

/** The profile `page` asked for (the pager). */
export const profilePaged = (state, page) => (state.profile ? { ...state, profile: { ...state.profile, page, error: null } } : state);

/** A `profile` message: the profile on show when it is that player's (and page), and my own
 * ratings when it is mine. */
export function profileReceived(state, profile) {
  let next = state;
  if (state.me?.account && sameName(state.me.nickname, profile.name)) next = { ...next, myRatings: profile.ratings };
  if (state.profile && sameName(state.profile.name, profile.name) && state.profile.page === profile.page) {
    next = { ...next, profile: { ...state.profile, data: profile, error: null } };
  }
  return next;
}

export function leaderboardReceived(state, board) {
  if (!state.leaderboard || state.leaderboard.speed !== board.speed) return state;
  return { ...state, leaderboard: { ...state.leaderboard, data: board, error: null } };
}
