"""Search traces: the tree a search explored, as JSON for the visualizer.

A ``TraceRecorder`` is handed to ``ai.search.search`` (or ``Bot.choose``); the search fills it
with one dictionary per node down to ``max_depth`` plies below the root, and counts the nodes
below that cap without storing them. ``to_dict()`` returns a JSON-serialisable document; its
format is described in ``docs/search-trace.md``.

Every score in a trace is from the root player's point of view (the side to move at the root):
the root and the nodes where that player is to move maximise, the others minimise.
"""

from __future__ import annotations

import json
from typing import Any, Final

FORMAT: Final = "hive-arena-search-trace"
VERSION: Final = 1

Node = dict[str, Any]


class TraceRecorder:
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

    # -- filled by the search ------------------------------------------------------------------

    def begin(self, position: str, player: str, depth: int) -> Node:
        """Start the tree of a new search to ``depth`` plies; returns its root node."""
        self.position = position
        self._building = {**move_node(0, None, player, True, depth), "kind": "root"}
        return self._building

    def complete(self) -> None:
        """The tree being built is finished: it becomes the trace."""
        if self._building is not None:
            self._root = self._building
            self._building = None

    def abandon(self) -> None:
        """Forget the tree being built (its search ran out of time)."""
        self._building = None

    def note(self, **figures: Any) -> None:
        """Add figures of the run (nodes, depth, K, Q, chosen index...) to the root's ``run``."""
        self.run.update(figures)

    # -- read by the caller --------------------------------------------------------------------

    @property
    def root(self) -> Node | None:
        """The root node of the last completed search, or None."""
        return self._root

    def to_dict(self) -> dict[str, Any]:
        """The trace document (see ``docs/search-trace.md``)."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "position": self.position,
            "max_depth": self.max_depth,
            "run": dict(self.run),
            "root": self._root,
        }

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
