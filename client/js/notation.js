// UHP MoveStrings from hexes, for a drop on a hex that is not a legal destination: the client
// spells the move and the server's engine says why it is illegal. Notation only, no rules:
// the legal moves always come from the server. Pure functions.

import { DIRECTIONS, key } from "./hex.js";

// UHP's way of writing "the destination lies in direction d of the reference piece R":
// E "R-", NE "R/", NW "\R", W "-R", SW "/R", SE "R\" (the order of hex.js's DIRECTIONS).
const SPELL = [
  (r) => `${r}-`, (r) => `${r}/`, (r) => `\\${r}`, (r) => `-${r}`, (r) => `/${r}`, (r) => `${r}\\`,
];

/** Stacks of a position: Map "q,r" -> piece names bottom first. */
export function stacksOf(pieces) {
  const stacks = new Map();
  for (const p of [...pieces].sort((a, b) => a.height - b.height)) {
    const k = key(p.q, p.r);
    if (!stacks.has(k)) stacks.set(k, []);
    stacks.get(k).push(p.piece);
  }
  return stacks;
}

/** The MoveString that puts `piece` on hex (q, r), or null when no piece there or next to it
 * can serve as the reference (the hex does not touch the hive) or (q, r) is where the piece
 * already is. `pieces` is the state's list of PieceAt. */
export function spellMove(pieces, piece, q, r) {
  if (pieces.length === 0) return piece;
  const stacks = stacksOf(pieces);
  const without = (k) => (stacks.get(k) ?? []).filter((p) => p !== piece);
  const here = stacks.get(key(q, r)) ?? [];
  if (here.length && here[here.length - 1] === piece) return null;
  const under = without(key(q, r));
  if (under.length) return `${piece} ${under[under.length - 1]}`;
  for (let d = 0; d < 6; d += 1) {
    const [dq, dr] = DIRECTIONS[d];
    const near = without(key(q - dq, r - dr));
    if (near.length) return `${piece} ${SPELL[d](near[near.length - 1])}`;
  }
  return null;
}

// Where a MoveString's destination lies from its reference piece, in words (the order of SPELL).
const WHERE = [
  [/^(\S+)-$/, "east of"], [/^(\S+)\/$/, "north-east of"], [/^\\(\S+)$/, "north-west of"],
  [/^-(\S+)$/, "west of"], [/^\/(\S+)$/, "south-west of"], [/^(\S+)\\$/, "south-east of"],
];

/** A MoveString in words, for screen readers: "wQ -wS1" is "White Queen Bee west of White
 * Spider 1", "wB1 wS1" "White Beetle 1 on top of White Spider 1", "wS1" alone "White Spider 1,
 * the first piece"; `title` names a piece ("wS1" -> "White Spider 1"). */
export function moveWords(move, title) {
  if (move === "pass") return "pass";
  const [piece, reference] = move.split(" ");
  if (!reference) return `${title(piece)}, the first piece`;
  for (const [pattern, words] of WHERE) {
    const found = pattern.exec(reference);
    if (found) return `${title(piece)} ${words} ${title(found[1])}`;
  }
  return `${title(piece)} on top of ${title(reference)}`;
}
