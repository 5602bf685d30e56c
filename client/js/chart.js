// The profile's rating-history chart, drawn by uPlot (npm `uplot`, served by the server at
// /vendor/uplot@VERSION/, the version installed; its stylesheet beside it). Loaded only when a
// profile is shown, so the lobby's first visit does not fetch it. The data are numbers and the
// series are named after the speeds (this code's constants): nothing from the server becomes
// markup, and uPlot writes its legend as text.

import { historySeries, speedName } from "./players.js";

const UPLOT = "/vendor/uplot@1.6.32/";
const DAY = 86400; // seconds, uPlot's time unit
const RATING_SPAN = 100; // the least range of ratings shown around one rating

/** The range a scale shows: the data's, widened around a single value (one point) to `span`
 * either side (uPlot would otherwise spread one time over years). */
export function widened(min, max, span) {
  if (min === null || max === null) return [min, max];
  return max - min >= span ? [min, max] : [(min + max) / 2 - span, (min + max) / 2 + span];
}
const COLORS = Object.freeze({
  bullet: "#c2412d", blitz: "#e3a512", rapid: "#2f8f5b", classical: "#1d6b8f", correspondence: "#8b5cb8",
});

let loading = null;

/** uPlot's module, its stylesheet linked once. */
function uPlot() {
  if (!loading) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = `${UPLOT}uPlot.min.css`;
    document.head.append(link);
    loading = import(`${UPLOT}uPlot.esm.js`).then((module) => module.default);
  }
  return loading;
}

/** A rating-history chart in `host`: `draw(history)` (RatingPoints, oldest first) draws it
 * again when the history changed; `destroy` removes it. */
export class RatingChart {
  constructor(host) {
    this.host = host;
    this.plot = null;
    this.key = null;
    this.resize = () => this.plot?.setSize(this.size());
    addEventListener("resize", this.resize);
  }

  size() {
    return { width: Math.max(240, this.host.clientWidth), height: 220 };
  }

  async draw(history) {
    const key = JSON.stringify(history);
    if (key === this.key) return;
    this.key = key;
    const { speeds, data } = historySeries(history);
    const UPlot = await uPlot();
    if (this.key !== key) return; // another history came meanwhile
    this.plot?.destroy();
    this.plot = null;
    if (data[0].length === 0) return;
    const ink = getComputedStyle(document.documentElement).getPropertyValue("--muted").trim() || "#6b766f";
    const grid = getComputedStyle(document.documentElement).getPropertyValue("--rule").trim() || "#eee6d6";
    const axis = { stroke: ink, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    this.plot = new UPlot({
      ...this.size(),
      scales: {
        // one game (or a few in a day) reads as points on a week, not on years
        x: {
          time: true,
          range: (u) => {
            // from the data (sorted): uPlot spreads a single time over years before asking
            const times = u.data[0];
            const range = widened(times[0] ?? null, times[times.length - 1] ?? null, 3 * DAY);
            this.host.dataset.xRange = range.join(" "); // seconds: for the tests
            return range;
          },
        },
        y: { range: (u, min, max) => widened(min, max, RATING_SPAN / 2) },
      },
      series: [
        {},
        ...speeds.map((speed) => ({
          label: speedName(speed),
          stroke: COLORS[speed],
          width: 2,
          spanGaps: true,
          points: { show: true, size: 5, fill: COLORS[speed] },
        })),
      ],
      axes: [axis, { ...axis, size: 50 }],
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
    }, data, this.host);
    // what uPlot holds, for the tests: how many times, and each speed's ratings in order
    this.host.dataset.points = String(this.plot.data[0].length);
    this.host.dataset.speeds = speeds.join(" ");
    this.host.dataset.ratings = this.plot.data.slice(1).map((s) => s.filter((v) => v !== null).join(" ")).join(" | ");
  }

  destroy() {
    removeEventListener("resize", this.resize);
    this.plot?.destroy();
    this.plot = null;
  }
}
