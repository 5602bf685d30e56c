// The analysis board's move tree: variations from a start position, each node a move, its
// first child the main line. Pure functions on plain values, no DOM and no rules: the moves
// are MoveStrings the server's engine gave (a position's legal moves), never checked here.
//
// A tree is {nodes, current}: `nodes` maps an id to {id, move, parent, children}, id 0 the
// start (move null); `current` is the node on show. Every function returns a new tree.

/** A tree of one line, `moves`, on show at ply `ply` (clamped to the line). */
export function lineTree(moves = [], ply = moves.length) {
  let tree = { nodes: { 0: { id: 0, move: null, parent: null, children: [] } }, current: 0, next: 1 };
  for (const move of moves) tree = played(tree, move);
  return goTo(tree, nodeAtPly(tree, Math.max(0, Math.min(ply ?? moves.length, moves.length))));
}

/** The moves from the start to node `id` (default: the one on show). */
export function movesTo(tree, id = tree.current) {
  const moves = [];
  for (let node = tree.nodes[id]; node && node.parent !== null; node = tree.nodes[node.parent]) moves.push(node.move);
  return moves.reverse();
}

/** The ply of node `id` (0 at the start). */
export const plyOf = (tree, id = tree.current) => movesTo(tree, id).length;

/** The line through the node on show: the moves to it, then its main line on to the end. */
export function lineThrough(tree) {
  const ids = [];
  for (let node = tree.nodes[tree.current]; node.parent !== null; node = tree.nodes[node.parent]) ids.push(node.id);
  ids.reverse();
  for (let node = tree.nodes[tree.current]; node.children.length; node = tree.nodes[node.children[0]]) ids.push(node.children[0]);
  return ids.map((id) => tree.nodes[id]);
}

/** The node at `ply` along the line through the node on show (the start at 0). */
export function nodeAtPly(tree, ply) {
  if (ply <= 0) return 0;
  const line = lineThrough(tree);
  return line[Math.min(ply, line.length) - 1].id;
}

/** The tree with `move` played from the node on show: its child of that move if there is one,
 * else a new child (the main line when it is the first, a variation otherwise). */
export function played(tree, move) {
  const here = tree.nodes[tree.current];
  const found = here.children.find((id) => tree.nodes[id].move === move);
  if (found !== undefined) return { ...tree, current: found };
  const id = tree.next;
  return {
    nodes: {
      ...tree.nodes,
      [here.id]: { ...here, children: [...here.children, id] },
      [id]: { id, move, parent: here.id, children: [] },
    },
    current: id,
    next: id + 1,
  };
}

/** The tree on show at node `id` (unchanged when there is no such node). */
export const goTo = (tree, id) => (tree.nodes[id] ? { ...tree, current: id } : tree);

/** One move back (the start stays). */
export const back = (tree) => goTo(tree, tree.nodes[tree.current].parent ?? 0);

/** One move forward along the main line from the node on show (the end stays). */
export function forward(tree) {
  const [first] = tree.nodes[tree.current].children;
  return first === undefined ? tree : goTo(tree, first);
}

/** The end of the main line from the node on show. */
export function toEnd(tree) {
  let next = tree;
  while (next.nodes[next.current].children.length) next = forward(next);
  return next;
}

/** The variations at the node on show: its parent's children other than itself (ids). */
export function siblings(tree, id = tree.current) {
  const parent = tree.nodes[tree.nodes[id].parent];
  return parent ? parent.children.filter((child) => child !== id) : [];
}

/** Node `id`'s branch made the main line: at each branch point on the way to the start, the
 * child that leads to it comes first. */
export function promoted(tree, id = tree.current) {
  const nodes = { ...tree.nodes };
  for (let node = nodes[id]; node.parent !== null; node = nodes[node.parent]) {
    const parent = nodes[node.parent];
    nodes[parent.id] = { ...parent, children: [node.id, ...parent.children.filter((c) => c !== node.id)] };
  }
  return { ...tree, nodes };
}

/** Node `id` and everything after it taken away (the start stays); the parent is on show. */
export function removed(tree, id = tree.current) {
  const node = tree.nodes[id];
  if (!node || node.parent === null) return tree;
  const nodes = { ...tree.nodes };
  const gone = [id];
  while (gone.length) {
    const next = gone.pop();
    gone.push(...nodes[next].children);
    delete nodes[next];
  }
  const parent = nodes[node.parent];
  nodes[parent.id] = { ...parent, children: parent.children.filter((c) => c !== id) };
  return { ...tree, nodes, current: parent.id };
}
