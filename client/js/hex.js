// Pointy-top hex geometry in plain axial coordinates (q, r): +q is east, +r south-east, as the
// server's PieceAt. Pure functions, no DOM.

/** Circumradius of a hex, in board units. */
export const SIZE = 40;
const SQRT3 = Math.sqrt(3);

/** The six neighbours' offsets, in the order E, NE, NW, W, SW, SE. */
export const DIRECTIONS = Object.freeze([
  [1, 0], [1, -1], [0, -1], [-1, 0], [-1, 1], [0, 1],
]);

/** Centre of hex (q, r) in board units. */
export function toPixel(q, r, size = SIZE) {
  return { x: size * SQRT3 * (q + r / 2), y: size * 1.5 * r };
}

/** The hex whose area holds board point (x, y). */
export function fromPixel(x, y, size = SIZE) {
  const q = (SQRT3 / 3 * x - y / 3) / size;
  const r = (2 / 3 * y) / size;
  return roundAxial(q, r);
}

function roundAxial(q, r) {
  const s = -q - r;
  let rq = Math.round(q);
  let rr = Math.round(r);
  const rs = Math.round(s);
  const dq = Math.abs(rq - q);
  const dr = Math.abs(rr - r);
  const ds = Math.abs(rs - s);
  if (dq > dr && dq > ds) rq = -rr - rs;
  else if (dr > ds) rr = -rq - rs;
  return { q: rq + 0, r: rr + 0 }; // + 0 turns -0 into 0
}

/** "q,r": a key for maps of hexes. */
export const key = (q, r) => `${q},${r}`;

/** SVG path of a pointy-top hexagon of circumradius `size` around (0, 0), corners rounded by
 * `round` (0..1 of the side). */
export function hexPath(size = SIZE, round = 0.16) {
  const corners = [];
  for (let i = 0; i < 6; i += 1) {
    const angle = (Math.PI / 180) * (60 * i - 30);
    corners.push([size * Math.cos(angle), size * Math.sin(angle)]);
  }
  if (round <= 0) return `M${corners.map((c) => c.map(fmt).join(",")).join("L")}Z`;
  const parts = [];
  for (let i = 0; i < 6; i += 1) {
    const [x, y] = corners[i];
    const [px, py] = corners[(i + 5) % 6];
    const [nx, ny] = corners[(i + 1) % 6];
    const a = [x + (px - x) * round, y + (py - y) * round];
    const b = [x + (nx - x) * round, y + (ny - y) * round];
    parts.push(`${i === 0 ? "M" : "L"}${fmt(a[0])},${fmt(a[1])}`);
    parts.push(`Q${fmt(x)},${fmt(y)} ${fmt(b[0])},${fmt(b[1])}`);
  }
  return `${parts.join("")}Z`;
}

const fmt = (n) => (Math.round(n * 100) / 100).toString();

/** Bounding box {minX, minY, maxX, maxY} of hexes [{q, r}] (whole hexes), or null. */
export function bounds(hexes, size = SIZE) {
  if (hexes.length === 0) return null;
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const { q, r } of hexes) {
    const { x, y } = toPixel(q, r, size);
    minX = Math.min(minX, x - size);
    maxX = Math.max(maxX, x + size);
    minY = Math.min(minY, y - size);
    maxY = Math.max(maxY, y + size);
  }
  return { minX, minY, maxX, maxY };
}
