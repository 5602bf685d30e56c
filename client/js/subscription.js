// What this page has going on its connection, kept in the state (`state.subs`) and changed only
// by the pure transitions here: the games it watches, whether it follows the lobby, the profile
// or leaderboard it asked for and whether it asked for its own ratings, the connection on which
// the game on show was last brought up to date, the game whose computer analysis it follows, and
// the create or join whose game it awaits;
// and the two things said once: the turn whose low time has sounded, and the nudge in the tab's
// title. app.js sends what `subscriptionsDue` lists, then applies `subscribed`.

import { AnalyseGame, GetLeaderboard, GetProfile, LeaveAnalysis, Watch, WatchLobby } from "./protocol.js";

/** Nothing watched or asked for yet (a fresh page). */
export function subscriptions() {
  return {
    watching: [], // ids of the games this connection watches
    lobby: false, // this connection follows the lobby
    asked: "", // the profile or leaderboard asked for on this connection ("profile:NAME:PAGE", "leaderboard:SPEED")
    ratingsAsked: false, // my own profile asked for on this connection (my ratings)
    analysis: "", // the game whose computer analysis this connection follows (the review on show)
    syncedOn: 0, // the connection number on which the game on show was last brought up to date
    awaiting: null, // "create" or "join": show the game the server answers with
    warned: "", // "GAME:PLY": the turn whose low time has sounded
    nudged: false, // it became this player's turn while the tab was hidden
  };
}

const withSubs = (state, changes) => ({ ...state, subs: { ...state.subs, ...changes } });

/** Nothing is watched or asked for on the connection now (it is down, or new): what the route
 * shows is asked again once welcomed. */
export const forgotten = (state) => withSubs(state, { watching: [], lobby: false, asked: "", ratingsAsked: false, analysis: "" });

/** The game whose analysis the route shows (the review's), or "". */
const analysisOf = (route) => (route.page === "review" ? route.id : "");

/** The profile or leaderboard on show as a request key, or "". */
function askOf(state) {
  const { profile, leaderboard } = state;
  return profile ? `profile:${profile.name}:${profile.page}` : leaderboard ? `leaderboard:${leaderboard.speed}` : "";
}

/** The messages that make the connection follow what the route shows, in order: the lobby
 * followed or left, the game on show watched (from the version the page has), the profile or
 * leaderboard on show asked for; [] when nothing is due. */
export function subscriptionsDue(state) {
  const { route, subs } = state;
  const due = [];
  const wantLobby = route.page === "lobby";
  if (wantLobby !== subs.lobby) due.push(WatchLobby(wantLobby));
  if (route.page === "game" && !subs.watching.includes(route.id)) {
    due.push(Watch(route.id, state.game?.state?.version ?? null));
  }
  const analysis = analysisOf(route);
  if (subs.analysis && subs.analysis !== analysis) due.push(LeaveAnalysis(subs.analysis));
  if (analysis && analysis !== subs.analysis) due.push(AnalyseGame(analysis));
  const ask = askOf(state);
  if (ask && ask !== subs.asked) {
    due.push(state.profile ? GetProfile(state.profile.name, state.profile.page) : GetLeaderboard(state.leaderboard.speed));
  }
  return due;
}

/** What `subscriptionsDue` listed has been sent. */
export function subscribed(state) {
  const { route, subs } = state;
  const watch = route.page === "game" && !subs.watching.includes(route.id);
  return withSubs(state, {
    lobby: route.page === "lobby",
    watching: watch ? [...subs.watching, route.id] : subs.watching,
    asked: askOf(state) || subs.asked,
    analysis: analysisOf(route),
  });
}

/** Game `id` is watched on this connection (creating, joining and a rematch watch it on the
 * server). */
export const watched = (state, id) => (state.subs.watching.includes(id) ? state : withSubs(state, { watching: [...state.subs.watching, id] }));

export const unwatched = (state, id) => withSubs(state, { watching: state.subs.watching.filter((g) => g !== id) });

/** A page opened again: its profile or leaderboard not received yet is asked again. */
export const reopened = (state) => (state.profile?.data || state.leaderboard?.data ? state : withSubs(state, { asked: "" }));

/** A create or join sent ("create" | "join"), or the game it awaited shown (null). */
export const awaited = (state, request) => withSubs(state, { awaiting: request });

/** A refusal from the server: a create or join refused awaits nothing more, and a watch of the
 * game on show refused is not a watch. */
export function refused(state, error) {
  let next = state;
  if (error.request === state.subs.awaiting) next = awaited(next, null);
  if (error.request === "watch" && error.game === state.game?.id) next = unwatched(next, error.game);
  return next;
}

/** The game on show brought up to date on connection number `connection`. */
export const synced = (state, connection) => withSubs(state, { syncedOn: connection });

/** Whether my own profile was asked for on this connection (false: ask again, as after my
 * rated game or my signup). */
export const ratingsAsked = (state, asked) => withSubs(state, { ratingsAsked: Boolean(asked) });

/** Whether my ratings are wanted and not asked for yet: an account, and the lobby lists an open
 * game with a rating range (my ratings say which I may join). */
export function ratingsWanted(state) {
  if (state.subs.ratingsAsked || !state.me?.account) return false;
  return state.lobby.open.some((g) => (g.rating_min ?? null) !== null || (g.rating_max ?? null) !== null);
}

/** Low time sounded for `turn` ("GAME:PLY"). */
export const warned = (state, turn) => withSubs(state, { warned: turn });

/** Whether the tab's title nudges: it became this player's turn while the tab was hidden. */
export const nudged = (state, on) => (state.subs.nudged === Boolean(on) ? state : withSubs(state, { nudged: Boolean(on) }));
