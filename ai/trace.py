"""Search traces: the tree a search explored, as JSON for the visualizer.

A ``TraceRecorder`` is handed to ``ai.search.search`` (or ``Bot.choose``); the search fills it
with one dictionary per node down to ``max_depth`` plies below the root, and counts the nodes
below that cap without storing them. ``to_dict()`` returns a JSON-serialisable document; its
format is described in ``docs/search-trace.md``.

Every score in a trace is from the root player's point of view (the side to move at the root):
the root and the nodes where that player is to move maximise, the others minimise.

The search fills the tree through hooks, and calls them whether it is traced or not: a
``Tracer`` starts each depth's tree and gives the ``NodeTrace`` of its root, and each
``NodeTrace`` gives its children's. The base classes do nothing: ``NO_TRACER`` stands for a
search without a recorder, ``UNTRACED`` for a node that is not kept (tracing is off, or the
node lies below the cap).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from ai.evaluation import Weights, terms
from ai.table import EXACT, LOWER, UPPER
from hive import Game, Move

FORMAT: Final = "hive-arena-search-trace"
VERSION: Final = 1

Node = dict[str, Any]

_BOUND_NAMES: Final = {EXACT: "exact", LOWER: "lower", UPPER: "upper"}
_FLIP: Final = {EXACT: EXACT, LOWER: UPPER, UPPER: LOWER}  # a bound seen from the other side


class NodeTrace:
    """A search's hooks at one node of its tree, called as the search goes.

    Values are from the node's side to move's point of view, as the search has them; the trace
    stores them from the root player's. These hooks do nothing: the node is not kept.
    """

    __slots__ = ()

    def child(self, move: Move, depth: int) -> NodeTrace:
        """The hooks of the child reached by ``move`` (not yet played), to search ``depth``
        plies."""
        return self

    def leaves(self, moves: list[Move], searched: int) -> None:
        """The first ``searched`` of ``moves`` were scored statically as leaves; alpha-beta
        pruned the others."""

    def unsearched(self, pruned: int, cut: int) -> None:
        """``pruned`` children were left out by alpha-beta, ``cut`` by the branching limit."""

    def score(self, value: int, bound: int) -> None:
        """The node's value, found without searching its children."""

    def table_hit(self, value: int, bound: int) -> None:
        """The transposition table gave the node's value."""

    def close(self, value: int, bound: int, visited: int) -> None:
        """The node was searched: its value, and how many positions were visited below it."""

    def reset(self, depth: int | None = None) -> None:
        """The node is searched again (a wider window, or to ``depth`` plies after a reduced
        search): forget its subtree."""

    def rank(self, ranked: list[tuple[Move, int]], visited: int) -> None:
        """The root's moves were ranked (best first, exact and not); ``visited`` positions."""


UNTRACED: Final = NodeTrace()
"""The hooks of a node that is not kept."""


@dataclass(frozen=True)
class _Search:
    """What the hooks of one search's kept nodes share; ``visited`` holds, by ``id`` of a kept
    node, the positions searched below it (for a shallower copy: see ``to_dict``)."""

    game: Game
    leaf: Callable[[], int]
    weights: Weights
    cap: int
    root_color: int
    visited: dict[int, int] = field(default_factory=dict)

    def evaluate(self, node: Node) -> None:
        """Fill ``node``'s pre-score and terms from the current position (its move played)."""
        game = self.game
        sign = 1 if node["maximizing"] else -1
        node["prescore"] = sign * self.leaf()
        node["terms"] = {name: sign * v for name, v in terms(game, self.weights).items()}
        if game.state.is_over:
            node["terminal"] = str(game.state)


class _KeptNode(NodeTrace):
    """The hooks of a node the trace keeps: they fill its dictionary."""

    __slots__ = ("node", "search")

    def __init__(self, node: Node, search: _Search) -> None:
        self.node = node
        self.search = search

    def _expanded(self) -> bool:
        """Whether the node's children are kept (it is above the cap)."""
        return bool(self.node["ply"] < self.search.cap)

    def _add(self, move: Move, depth: int) -> Node:
        """A kept child for ``move`` (not yet played) with its pre-score: the move is played
        and taken back here."""
        search = self.search
        game = search.game
        parent = self.node
        maximizing = (game.ply + 1) & 1 == search.root_color
        node = move_node(
            parent["ply"] + 1, game.move_string(move), str(game.turn), maximizing, depth
        )
        parent["children"].append(node)
        game.push(move)
        search.evaluate(node)
        game.pop()
        return node

    def child(self, move: Move, depth: int) -> NodeTrace:
        if not self._expanded():
            return UNTRACED
        return _KeptNode(self._add(move, depth), self.search)

    def leaves(self, moves: list[Move], searched: int) -> None:
        if not self._expanded():
            return
        for move in moves[:searched]:
            node = self._add(move, 0)
            node["score"] = node["prescore"]
        self.unsearched(len(moves) - searched, 0)

    def unsearched(self, pruned: int, cut: int) -> None:
        if not self._expanded():
            return
        children, ply = self.node["children"], self.node["ply"] + 1
        if pruned:
            children.append(group_node("pruned", ply, pruned))
        if cut:
            children.append(group_node("cut", ply, cut))

    def score(self, value: int, bound: int) -> None:
        node = self.node
        maximizing = node["maximizing"]
        node["score"] = value if maximizing else -value
        node["bound"] = _BOUND_NAMES[bound if maximizing else _FLIP[bound]]

    def table_hit(self, value: int, bound: int) -> None:
        self.node["table"] = True
        self.score(value, bound)

    def close(self, value: int, bound: int, visited: int) -> None:
        self.score(value, bound)
        self.search.visited[id(self.node)] = visited
        if not self._expanded():
            self.node["hidden"] = visited

    def reset(self, depth: int | None = None) -> None:
        node = self.node
        if depth is not None:
            node["depth"] = depth
        self.search.visited.pop(id(node), None)
        node["children"].clear()
        node.pop("table", None)
        node.pop("hidden", None)

    def rank(self, ranked: list[tuple[Move, int]], visited: int) -> None:
        self.close(ranked[0][1], EXACT, visited)
        node = self.node
        if node["children"]:
            game = self.search.game
            index = {child["move"]: child for child in node["children"]}
            names = [game.move_string(move) for move, _ in ranked]
            node["children"] = [index[name] for name in names if name in index]


class Tracer:
    """A search's hooks for its whole tree. These do nothing: the search has no recorder."""

    def begin(self, game: Game, depth: int, leaf: Callable[[], int], weights: Weights) -> NodeTrace:
        """Start the tree of a search of ``game`` to ``depth`` plies; the root's hooks.

        ``leaf`` gives the static score of the current position (side to move's view), as the
        search has it, from the evaluation's ``weights`` (which the kept nodes' terms show).
        """
        return UNTRACED

    def complete(self) -> None:
        """The tree being built is finished: it becomes the trace."""

    def abandon(self) -> None:
        """Forget the tree being built (its search ran out of time)."""

    def note(self, **figures: Any) -> None:
        """Add figures of the run (nodes, depth, K, Q, chosen index...) to the root's ``run``."""


NO_TRACER: Final = Tracer()
"""The hooks of a search without a recorder."""


class TraceRecorder(Tracer):
    """Collects the tree of one search (the last completed depth of an iterative search).

    Args:
        max_depth: How many plies below the root to store (0 keeps the root and its figures
            only). Nodes deeper than that are counted in their stored ancestor's ``hidden``.
    """

    def __init__(self, max_depth: int = 2) -> None:
        if max_depth < 0:
            raise ValueError(f"max_depth must be at least 0, not {max_depth!r}")
        self.max_depth = max_depth
        self.position = ""
        self.run: dict[str, Any] = {}
        self._root: Node | None = None
        self._building: Node | None = None
        self._visited: dict[int, int] = {}
        self._building_visited: dict[int, int] = {}

    # -- filled by the search ------------------------------------------------------------------

    def begin(self, game: Game, depth: int, leaf: Callable[[], int], weights: Weights) -> NodeTrace:
        self.position = game.game_string()
        root: Node = {**move_node(0, None, str(game.turn), True, depth), "kind": "root"}
        self._building = root
        search = _Search(game, leaf, weights, self.max_depth, game.ply & 1)
        self._building_visited = search.visited
        search.evaluate(root)
        return _KeptNode(root, search)

    def complete(self) -> None:
        if self._building is not None:
            self._root = self._building
            self._visited = self._building_visited
            self._building = None

    def abandon(self) -> None:
        self._building = None

    def note(self, **figures: Any) -> None:
        self.run.update(figures)

    # -- read by the caller --------------------------------------------------------------------

    @property
    def root(self) -> Node | None:
        """The root node of the last completed search, or None."""
        return self._root

    def to_dict(self, max_depth: int | None = None) -> dict[str, Any]:
        """The trace document (see ``docs/search-trace.md``); with ``max_depth`` below the
        recorder's, the document it would have made with that cap (a trace too large to keep
        is kept shallower)."""
        depth = self.max_depth if max_depth is None else max_depth
        if not 0 <= depth <= self.max_depth:
            raise ValueError(f"max_depth must lie in 0..{self.max_depth}, not {max_depth!r}")
        root = self._root
        if root is not None and depth < self.max_depth:
            root = self._cut(root, depth)
        return {
            "format": FORMAT,
            "version": VERSION,
            "position": self.position,
            "max_depth": depth,
            "run": dict(self.run),
            "root": root,
        }

    def _cut(self, node: Node, depth: int) -> Node:
        """A copy of ``node``'s subtree down to ``depth`` plies below the root; a node at that
        cap counts the positions searched below it in ``hidden``."""
        if "children" not in node:  # a group node
            return node
        copy = dict(node)
        if node["ply"] >= depth:
            copy["children"] = []
            if id(node) in self._visited:  # searched, not a leaf or a table hit
                copy["hidden"] = self._visited[id(node)]
        else:
            copy["children"] = [self._cut(child, depth) for child in node["children"]]
        return copy

    def to_json(self, *, indent: int | None = None) -> str:
        """``to_dict()`` as JSON text."""
        return json.dumps(self.to_dict(), indent=indent)


def move_node(ply: int, move: str | None, player: str, maximizing: bool, depth: int) -> Node:
    """A node for the position after ``move``, played by ``player``; its scores come later."""
    return {
        "kind": "move",
        "ply": ply,
        "move": move,
        "player": player,
        "maximizing": maximizing,
        "depth": depth,
        "score": None,
        "bound": "exact",
        "prescore": None,
        "terms": {},
        "children": [],
    }


def group_node(kind: str, ply: int, count: int) -> Node:
    """The synthetic node standing for ``count`` siblings: ``pruned`` by alpha-beta, or
    ``cut`` by the branching limit."""
    return {"kind": kind, "ply": ply, "count": count}
