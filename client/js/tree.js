// Search traces (docs/search-trace.md) for the visualizer: checking a document, naming its
// nodes, and laying out the visible part of the tree. Pure functions, no DOM.

export const NODE_W = 148;
export const NODE_H = 40;
export const GAP_X = 46;
export const ROW_H = 50;
const WIN = 900000;

/** The trace in `doc`, checked enough to draw it; throws Error with what is wrong. */
export function checkTrace(doc) {
  if (!doc || typeof doc !== "object") throw new Error("not a JSON object");
  if (doc.format !== "hive-arena-search-trace") throw new Error("not a Hive Arena search trace (format)");
  if (doc.version !== 1) throw new Error(`unsupported trace version ${doc.version}`);
  if (typeof doc.position !== "string") throw new Error("the trace has no position");
  if (doc.root !== null && (typeof doc.root !== "object" || doc.root.kind !== "root")) {
    throw new Error("the trace's root is not a root node");
  }
  return doc;
}

/** The node at `id` ("0" is the root, "0.3.1" its fourth child's second child). */
export function nodeAt(root, id) {
  let node = root;
  for (const index of id.split(".").slice(1)) node = node?.children?.[Number(index)];
  return node ?? null;
}

/** The moves from the root down to node `id` (MoveStrings). */
export function pathMoves(root, id) {
  const moves = [];
  let node = root;
  for (const index of id.split(".").slice(1)) {
    node = node.children[Number(index)];
    if (node.move) moves.push(node.move);
  }
  return moves;
}

export const isGroup = (node) => node.kind === "cut" || node.kind === "pruned";

/** "1.2k" */
export function count(n) {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e4) return `${Math.round(n / 1e3)}k`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

/** A score as people read it: "+37", "−12", "win (ply 41)", "loss (ply 40)". */
export function scoreText(score) {
  if (Math.abs(score) >= WIN) {
    const ply = 1000000 - Math.abs(score);
    return `${score > 0 ? "win" : "loss"} (ply ${ply})`;
  }
  return score > 0 ? `+${score}` : score < 0 ? `−${-score}` : "0";
}

export const BOUND_MARK = { exact: "", lower: "≥", upper: "≤" };

/**
 * Lay out the visible tree: every node whose ancestors are all expanded. Returns
 * {nodes: [{id, node, x, y, depth, expandable, expanded}], edges: [{from, to}], width, height}
 * with x, y the node box's top-left corner; leaves take one row each, and a parent sits level
 * with its first child, so the best line (children come best first) runs along the top.
 */
export function layout(root, expanded) {
  const nodes = [];
  const edges = [];
  let row = 0;
  const place = (node, id, depth) => {
    const children = node.children ?? [];
    const open = expanded.has(id) && children.length > 0;
    let y;
    if (open) {
      const ys = children.map((child, i) => {
        const childId = `${id}.${i}`;
        edges.push({ from: id, to: childId });
        return place(child, childId, depth + 1);
      });
      y = ys[0]; // a parent sits level with its first (best) child: the main line reads across
    } else {
      y = row * ROW_H;
      row += 1;
    }
    nodes.push({
      id, node, x: depth * (NODE_W + GAP_X), y, depth,
      expandable: children.length > 0, expanded: open,
    });
    return y;
  };
  if (root) place(root, "0", 0);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const depth = nodes.reduce((m, n) => Math.max(m, n.depth), 0);
  return {
    nodes,
    byId,
    edges: edges.map((e) => ({ from: byId.get(e.from), to: byId.get(e.to) })),
    width: (depth + 1) * (NODE_W + GAP_X),
    height: row * ROW_H,
  };
}

/** The terms of a node sorted by weight, with their share for a bar: [{name, value, share}]. */
export function termRows(terms) {
  const entries = Object.entries(terms ?? {});
  const biggest = Math.max(1, ...entries.map(([, v]) => Math.abs(v)));
  return entries
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]) || a[0].localeCompare(b[0]))
    .map(([name, value]) => ({ name, value, share: Math.abs(value) / biggest }));
}
