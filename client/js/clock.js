// Clocks shown in the browser: they count down from the last state and are corrected by each
// update (the server keeps the time). Pure functions.

/** Milliseconds left on each clock at `now` (ms, the client's clock), from `clocks` (the
 * state's) received at `receivedAt`; `lag` (the round trip) is half spent on the way. */
export function clockReading(clocks, receivedAt, now, lag = 0) {
  const elapsed = Math.max(0, now - receivedAt + (lag || 0) / 2);
  const read = (side) => {
    const value = clocks[side];
    if (value === null || value === undefined) return null;
    return clocks.running === side ? Math.max(0, value - elapsed) : value;
  };
  return { white: read("white"), black: read("black"), running: clocks.running };
}

/** Milliseconds left under which a running clock shows (and sounds) low. */
export const LOW_TIME = 20000;

/** "4:59", "1:02:03", "9.4" under ten seconds; days per move: "2d 3h", "5h 12m". */
export function formatClock(ms, kind = "clock") {
  if (ms === null || ms === undefined) return "–";
  if (kind === "days") {
    const hours = Math.floor(ms / 3600000);
    if (hours >= 24) return `${Math.floor(hours / 24)}d ${hours % 24}h`;
    const minutes = Math.floor((ms % 3600000) / 60000);
    return hours > 0 ? `${hours}h ${minutes}m` : `${minutes}m ${Math.floor((ms % 60000) / 1000)}s`;
  }
  if (ms < 10000) return (Math.floor(ms / 100) / 10).toFixed(1);
  const total = Math.floor(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** "5+3", "1 day", "untimed". */
export function describeTime(time) {
  if (!time || time.kind === "none") return "untimed";
  if (time.kind === "days") return `${time.days} day${time.days === 1 ? "" : "s"}/move`;
  const base = time.base % 60 === 0 ? `${time.base / 60}` : `${(time.base / 60).toFixed(1)}`;
  return `${base}+${time.increment}`;
}
