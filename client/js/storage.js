// What this browser keeps in local storage: the nickname, how move lists are written, and the
// games it saw lately (listed in the lobby). The session's token is connection.js's.

export const NICKNAME_KEY = "hive.nickname";
export const NOTATION_KEY = "hive.notation";
const RECENT_KEY = "hive.recent";

/** The recent games, newest first: {id, white, black, status, result, at}. */
export function recentGames() {
  try {
    return JSON.parse(localStorage.getItem(RECENT_KEY) ?? "[]");
  } catch (error) {
    return [];
  }
}

/** Note game state `gs` (not an open game) as seen at `now`; 20 are kept. */
export function remember(gs, now) {
  if (gs.status === "open") return;
  const entry = {
    id: gs.id,
    white: gs.white?.name ?? "?",
    black: gs.black?.name ?? "?",
    status: gs.status,
    result: gs.result ? gs.result.replace("Wins", " wins") : gs.status === "over" ? "no result" : null,
    at: now,
  };
  const list = [entry, ...recentGames().filter((g) => g.id !== gs.id)].slice(0, 20);
  localStorage.setItem(RECENT_KEY, JSON.stringify(list));
}
