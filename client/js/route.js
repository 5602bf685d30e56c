// The pages' addresses: a location hash read as a route, and a route written as a hash. Pure.

import { SPEEDS } from "./protocol.js";

/** A game's id (8 base-36 characters). */
export const GAME_ID = /^[0-9a-z]{8}$/;

const ACCOUNT = /^[A-Za-z0-9_-]{2,20}$/;

/** The route of a location hash: #/, #/game/ID, #/review/ID[/PLY], #/rules, #/@/NAME (a
 * profile), #/leaderboard[/SPEED]. */
export function parseRoute(hash) {
  const [page, id, ply] = hash.replace(/^#\/?/, "").split("/");
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
  return { page: "lobby" };
}

/** The location hash of `route` (parseRoute's inverse). */
export function routeHash(route) {
  if (route.page === "game") return `#/game/${route.id}`;
  if (route.page === "review") return `#/review/${route.id}${route.ply !== null && route.ply !== undefined ? `/${route.ply}` : ""}`;
  if (route.page === "rules") return "#/rules";
  if (route.page === "profile") return `#/@/${encodeURIComponent(route.name)}`;
  if (route.page === "leaderboard") return `#/leaderboard/${route.speed}`;
  return "#/";
}
