// The pieces drawn in SVG: a hexagonal tile (ivory for White, ebony for Black) with its bug,
// each bug its own top-down icon drawn here. Pure: the markup is drawn from constants only (a
// piece's name picks a colour and a bug, and is never written into it), so it is `trusted`.

import { trusted } from "./dom.js";
import { SIZE, hexPath } from "./hex.js";

/** The bugs by UHP letter: name and colour. */
export const BUGS = Object.freeze({
  Q: { name: "Queen Bee", color: "#e3a512", dark: "#6b4a00" },
  S: { name: "Spider", color: "#a0622d", dark: "#4a2a0e" },
  B: { name: "Beetle", color: "#8a5cc2", dark: "#3c1f63" },
  G: { name: "Grasshopper", color: "#4ea843", dark: "#1f4d19" },
  A: { name: "Soldier Ant", color: "#3b82d6", dark: "#143e73" },
  M: { name: "Mosquito", color: "#9aa3ad", dark: "#3a4149" },
  L: { name: "Ladybug", color: "#dc3b2e", dark: "#5c120c" },
  P: { name: "Pillbug", color: "#2aa198", dark: "#0d4a45" },
});

/** The order pieces are listed in a reserve. */
export const BUG_ORDER = "QSBGAMLP";

/** {color: "white"|"black", bug: "Q", number: 1|null} of a piece name such as "wS1". */
export function parsePiece(name) {
  return {
    color: name[0] === "w" ? "white" : "black",
    bug: name[1],
    number: name.length > 2 ? Number(name.slice(2)) : null,
  };
}

/** "White Spider 1" */
export function pieceTitle(name) {
  const { color, bug, number } = parsePiece(name);
  const side = color === "white" ? "White" : "Black";
  return `${side} ${BUGS[bug]?.name ?? bug}${number ? ` ${number}` : ""}`;
}

const TILE = {
  white: { fill: "#f7f1e1", edge: "#6b5840", bevel: "#e3d7bd", shade: "#d9ccb0" },
  black: { fill: "#2c2825", edge: "#0b0a09", bevel: "#4a433d", shade: "#171513" },
};

const OUTER = hexPath(SIZE * 0.94, 0.18);
const INNER = hexPath(SIZE * 0.8, 0.18);

/** A piece at (0, 0): the tile and its bug, `SIZE` across its corners (markup). */
export function pieceSvg(name) {
  const { color, bug } = parsePiece(String(name));
  const t = TILE[color];
  return trusted(`<path class="tile-shade" d="${OUTER}" transform="translate(0 3.5)" fill="${t.shade}"/>`
    + `<path class="tile" d="${OUTER}" fill="${t.fill}" stroke="${t.edge}" stroke-width="2"/>`
    + `<path d="${INNER}" fill="none" stroke="${t.bevel}" stroke-width="1.5"/>`
    + `<g class="bug" transform="scale(0.95)">${bugSvg(bug, color)}</g>`);
}

/** A whole piece as a standalone <svg> (reserves, tooltips, move lists). */
export function pieceIcon(name, size = 40) {
  const px = Number(size);
  return trusted(`<svg class="piece-icon" viewBox="-40 -40 80 84" width="${px}" height="${px}" `
    + `aria-hidden="true">${pieceSvg(name)}</svg>`);
}

/** The bug of letter `bug` at (0, 0) on a `tile` ("white" or "black") piece, within about
 * 28 units of the centre. Legs and antennae over the tile are dark on White's ivory and light
 * on Black's ebony. */
export function bugSvg(bug, tile = "white") {
  const b = Object.hasOwn(BUGS, bug) ? BUGS[bug] : null;
  if (!b) return "";
  return DRAW[bug](b.color, b.dark, tile === "white" ? b.dark : lighten(b.color, 0.45));
}

function lighten(hex, amount) {
  const n = parseInt(hex.slice(1), 16);
  const channel = (shift) => {
    const v = (n >> shift) & 255;
    return Math.round(v + (255 - v) * amount).toString(16).padStart(2, "0");
  };
  return `#${channel(16)}${channel(8)}${channel(0)}`;
}

const mirror = (markup) => `${markup}<g transform="scale(-1 1)">${markup}</g>`;
const legs = (paths, color, width) => mirror(
  paths.map((d) => `<path d="${d}" fill="none" stroke="${color}" stroke-width="${width}" `
    + `stroke-linecap="round" stroke-linejoin="round"/>`).join(""),
);
const halfWidth = (rx, ry, dy) => rx * Math.sqrt(Math.max(0, 1 - (dy / ry) ** 2));

const DRAW = {
  // A bee seen from above, crowned.
  Q(body, dark, line) {
    const stripes = [4, 11, 18].map((y) => {
      const w = halfWidth(10, 14, y - 10) - 0.6;
      return `<path d="M${-w},${y} L${w},${y}" stroke="${dark}" stroke-width="3.6"/>`;
    }).join("");
    const wing = `<ellipse cx="-12" cy="-4" rx="12" ry="6.5" transform="rotate(-28 -12 -4)" `
      + `fill="#f4fbff" fill-opacity="0.9" stroke="${dark}" stroke-width="1.3"/>`;
    return `${mirror(wing)}`
      + `<ellipse cx="0" cy="10" rx="10" ry="14" fill="${body}" stroke="${dark}" stroke-width="1.5"/>`
      + stripes
      + `<path d="M-2.2,23.5 L0,28 L2.2,23.5Z" fill="${dark}"/>`
      + `<circle cx="0" cy="-8" r="6.5" fill="${dark}"/>`
      + `<circle cx="0" cy="-17" r="5" fill="${dark}"/>`
      + legs(["M-3,-19 Q-7,-24 -10,-23"], line, 1.4)
      + `<path d="M-6,-22 L-6.5,-28.5 L-3,-25 L0,-30 L3,-25 L6.5,-28.5 L6,-22Z" fill="#ffd84d" `
      + `stroke="${dark}" stroke-width="1.2" stroke-linejoin="round"/>`;
  },
  // Eight jointed legs round a small head and a round abdomen.
  S(body, dark) {
    return legs([
      "M-4,-11 L-13,-20 L-17,-28",
      "M-5,-8 L-18,-12 L-27,-15",
      "M-5,-5 L-18,-1 L-27,5",
      "M-4,-2 L-13,9 L-18,19",
    ], body, 3.2)
      + `<ellipse cx="0" cy="-8" rx="7" ry="7.5" fill="${body}" stroke="${dark}" stroke-width="1.5"/>`
      + `<ellipse cx="0" cy="10" rx="11" ry="13" fill="${body}" stroke="${dark}" stroke-width="1.5"/>`
      + `<path d="M0,2 L-4,9 L0,16 L4,9Z M0,18 L-2,21 L0,24 L2,21Z" fill="${dark}" opacity="0.75"/>`
      + `<circle cx="-2.3" cy="-12" r="1.5" fill="${dark}"/><circle cx="2.3" cy="-12" r="1.5" fill="${dark}"/>`;
  },
  // A round shell split down the middle, a dark neck shield and horned jaws.
  B(body, dark, line) {
    return legs(["M-10,-6 L-19,-12 L-22,-17", "M-12,3 L-22,4 L-25,9", "M-10,12 L-18,19 L-19,25"],
      body, 3)
      + `<ellipse cx="0" cy="5" rx="13.5" ry="17.5" fill="${body}" stroke="${dark}" stroke-width="1.6"/>`
      + `<path d="M-11.5,-4 Q0,-1 11.5,-4 Q10,-13 0,-14 Q-10,-13 -11.5,-4Z" fill="${dark}"/>`
      + `<path d="M0,-2 L0,22" stroke="${dark}" stroke-width="1.6"/>`
      + `<ellipse cx="-6" cy="6" rx="2.2" ry="6" fill="#fff" opacity="0.35"/>`
      + `<ellipse cx="0" cy="-17.5" rx="6" ry="4.5" fill="${dark}"/>`
      + legs(["M-3,-20 Q-7,-24 -5,-29"], line, 2.4);
  },
  // A long body, folded hind legs like springs, antennae swept back.
  G(body, dark, line) {
    return legs(["M-3,-24 Q-12,-30 -22,-22"], line, 1.3)
      + legs(["M-5,-11 L-11,-16 L-14,-13", "M-5,-5 L-12,-4 L-15,0"], body, 2.2)
      + legs(["M-14,-12 L-11,26"], line, 1.8)
      + legs(["M-5,-2 L-14,-12"], body, 5.5)
      + `<ellipse cx="0" cy="3" rx="6.5" ry="21" fill="${body}" stroke="${dark}" stroke-width="1.5"/>`
      + `<path d="M-3,-6 L-4,20 M3,-6 L4,20" stroke="${dark}" stroke-width="1" opacity="0.6"/>`
      + `<ellipse cx="0" cy="-20" rx="5.5" ry="6.5" fill="${body}" stroke="${dark}" stroke-width="1.5"/>`
      + `<circle cx="-3" cy="-22" r="1.6" fill="${dark}"/><circle cx="3" cy="-22" r="1.6" fill="${dark}"/>`;
  },
  // Head, thorax and abdomen, six legs and elbowed antennae.
  A(body, dark, line) {
    return legs([
      "M-3,-9 L-12,-16 L-17,-25",
      "M-4,-6 L-15,-6 L-24,-3",
      "M-3,-3 L-12,7 L-17,17",
    ], body, 2.6)
      + legs(["M-2,-22 L-7,-28 L-13,-26"], line, 1.5)
      + `<ellipse cx="0" cy="-18" rx="6.5" ry="5.5" fill="${body}" stroke="${dark}" stroke-width="1.5"/>`
      + `<ellipse cx="0" cy="-6" rx="4.5" ry="7" fill="${body}" stroke="${dark}" stroke-width="1.5"/>`
      + `<circle cx="0" cy="2.5" r="2.4" fill="${dark}"/>`
      + `<ellipse cx="0" cy="14" rx="9" ry="11" fill="${body}" stroke="${dark}" stroke-width="1.5"/>`
      + `<circle cx="-2.6" cy="-20" r="1.3" fill="${dark}"/><circle cx="2.6" cy="-20" r="1.3" fill="${dark}"/>`;
  },
  // A thin body, long legs, clear wings and a proboscis.
  M(body, dark, line) {
    return legs([
      "M-3,-9 L-13,-19 L-19,-28",
      "M-3,-6 L-17,-7 L-28,-1",
      "M-3,-3 L-12,9 L-19,26",
    ], line, 1.5)
      + mirror(`<ellipse cx="-8" cy="6" rx="5" ry="15" transform="rotate(22 -8 6)" `
        + `fill="#eef6fb" fill-opacity="0.85" stroke="${dark}" stroke-width="1"/>`)
      + `<ellipse cx="0" cy="13" rx="3.8" ry="13" fill="${body}" stroke="${dark}" stroke-width="1.3"/>`
      + [6, 11, 16, 21].map((y) => `<path d="M-3.4,${y} L3.4,${y}" stroke="${dark}" stroke-width="1"/>`).join("")
      + `<ellipse cx="0" cy="-7" rx="5.5" ry="6.5" fill="${body}" stroke="${dark}" stroke-width="1.4"/>`
      + `<circle cx="0" cy="-16" r="4" fill="${dark}"/>`
      + `<path d="M0,-19 L0,-31" stroke="${line}" stroke-width="1.6" stroke-linecap="round"/>`
      + legs(["M-1.5,-19 L-6,-25"], line, 1.2);
  },
  // A spotted dome with a dark head.
  L(body, dark, line) {
    const ink = "#231a18";
    const spots = [[-7, -3, 3.3], [-9.5, 8, 2.8], [-4.5, 15, 2.3]]
      .map(([x, y, r]) => `<circle cx="${x}" cy="${y}" r="${r}" fill="${ink}"/>`).join("");
    const limbs = line === dark ? ink : line;
    return legs(["M-13,-5 L-20,-9", "M-15,4 L-22,5", "M-13,13 L-19,19"], limbs, 2.4)
      + legs(["M-3,-20 L-7,-26"], limbs, 1.5)
      + `<ellipse cx="0" cy="-15" rx="9" ry="6.5" fill="${ink}"/>`
      + `<circle cx="-4" cy="-15.5" r="1.8" fill="#fff"/><circle cx="4" cy="-15.5" r="1.8" fill="#fff"/>`
      + `<circle cx="0" cy="4" r="17" fill="${body}" stroke="${dark}" stroke-width="1.5"/>`
      + mirror(spots)
      + `<path d="M0,-12.5 L0,21" stroke="${ink}" stroke-width="1.6"/>`
      + `<ellipse cx="-8" cy="-4" rx="3" ry="5" fill="#fff" opacity="0.25"/>`;
  },
  // An armoured oval of overlapping plates.
  P(body, dark, line) {
    const plates = [-13, -7, -1, 5, 11, 16].map((y) => {
      const w = halfWidth(14, 21, y) - 0.4;
      return `<path d="M${-w.toFixed(2)},${y} Q0,${y - 4} ${w.toFixed(2)},${y}" fill="none" `
        + `stroke="${dark}" stroke-width="1.3"/>`;
    }).join("");
    return legs([-12, -6, 0, 6, 12].map((y) => `M-13,${y} L-18,${y + 2}`), line, 1.8)
      + legs(["M-4,-20 Q-10,-29 -16,-26"], line, 1.5)
      + `<ellipse cx="0" cy="1" rx="14" ry="21" fill="${body}" stroke="${dark}" stroke-width="1.5"/>`
      + `<path d="M-9,-16 Q0,-26 9,-16 Q0,-19 -9,-16Z" fill="${dark}"/>`
      + plates
      + `<ellipse cx="-6" cy="-2" rx="2.2" ry="8" fill="#fff" opacity="0.22"/>`;
  },
};
