// The pages' addresses: a location hash read as a route, and a route written as a hash. Pure.

import { MAX_ANALYSIS_MOVES, SPEEDS } from "./protocol.js";

/** A game's id (8 base-36 characters). */
export const GAME_ID = /^[0-9a-z]{8}$/;

/** A tournament's id (8 hex digits). */
export const TOURNAMENT_ID = /^[0-9a-f]{8}$/;

const ACCOUNT = /^[A-Za-z0-9_-]{2,20}$/;

const GAME_TYPE = /^Base(\+[MLP]{1,3})?$/;

/** The route of a location hash: #/, #/game/ID, #/review/ID[/PLY], #/rules, #/@/NAME (a
 * profile), #/leaderboard[/SPEED], #/analysis[/GAMETYPE[/MOVES[/PLY]]] (the analysis board:
 * MOVES are MoveStrings joined by ";", URI-encoded; PLY the one on show), #/puzzles[/daily|/ID],
 * #/tournaments, #/tournament/ID. */
export function parseRoute(hash) {
  const [page, id, ply, more] = hash.replace(/^#\/?/, "").split("/");
  if (page === "analysis") return analysisRoute(id, ply, more);
  if (page === "@") {
    let name = "";
    try {
      name = decodeURIComponent(id ?? "");
    } catch (error) {
      name = "";
    }
    if (ACCOUNT.test(name)) return { page: "profile", name };
  }
  if (page === "leaderboard") return { page: "leaderboard", speed: SPEEDS.includes(id) ? id : "blitz" };
  if (page === "game" && GAME_ID.test(id ?? "")) return { page: "game", id };
  if (page === "review" && GAME_ID.test(id ?? "")) {
    return { page: "review", id, ply: ply !== undefined && /^\d+$/.test(ply) ? Number(ply) : null };
  }
  if (page === "rules") return { page: "rules" };
  if (page === "puzzles") {
    return { page: "puzzles", daily: id === "daily", puzzle: /^\d{1,9}$/.test(id ?? "") ? Number(id) : null };
  }
  if (page === "tournaments") return { page: "tournaments" };
  if (page === "tournament" && TOURNAMENT_ID.test(id ?? "")) return { page: "tournament", id };
  return { page: "lobby" };
}

function analysisRoute(type, moves, ply) {
  let line = [];
  try {
    line = decodeURIComponent(moves ?? "").split(";").map((m) => m.trim()).filter(Boolean);
  } catch (error) {
    line = [];
  }
  const gameType = GAME_TYPE.test(type ?? "") ? type : "Base+MLP";
  const at = ply !== undefined && /^\d+$/.test(ply) ? Math.min(Number(ply), line.length) : line.length;
  return { page: "analysis", gameType, moves: line.slice(0, MAX_ANALYSIS_MOVES), ply: Math.min(at, MAX_ANALYSIS_MOVES) };
}

/** The location hash of `route` (parseRoute's inverse). */
export function routeHash(route) {
  if (route.page === "analysis") {
    const moves = route.moves ?? [];
    return `#/analysis/${route.gameType ?? "Base+MLP"}/${encodeURIComponent(moves.join(";"))}/${route.ply ?? moves.length}`;
  }
  if (route.page === "game") return `#/game/${route.id}`;
  if (route.page === "review") return `#/review/${route.id}${route.ply !== null && route.ply !== undefined ? `/${route.ply}` : ""}`;
  if (route.page === "rules") return "#/rules";
  if (route.page === "puzzles") return `#/puzzles${route.daily ? "/daily" : route.puzzle ? `/${route.puzzle}` : ""}`;
  if (route.page === "tournaments") return "#/tournaments";
  if (route.page === "tournament") return `#/tournament/${route.id}`;
  if (route.page === "profile") return `#/@/${encodeURIComponent(route.name)}`;
  if (route.page === "leaderboard") return `#/leaderboard/${route.speed}`;
  return "#/";
}
