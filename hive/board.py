"""Stacks of pieces on hexes.

The board keeps, per hex, the top piece (``EMPTY`` when none) and the stack height in flat lists
indexed by hex, and the covered pieces of the few stacks higher than one in a side table. Every
piece's hex is in ``hex_of`` (``HAND`` while it is off the board).

Hexes and pieces are plain integers here (``hive.hexes``, ``hive.pieces.Piece``), so that a
search reads the board at list-indexing speed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from hive.hexes import CELLS, NEIGHBORS
from hive.pieces import NUM_PIECES

if TYPE_CHECKING:  # the compiled build's fixed-width integers; plain ints when run as Python
    from mypy_extensions import i64

EMPTY: Final = -1
"""``Board.top[h]`` of a hex with no piece."""
HAND: Final = -1
"""``Board.hex_of[piece]`` of a piece not on the board; also a placement's ``Move.source``."""

POINTS_KEPT: Final = 4096
"""How many shapes' articulation points a board keeps."""

HEX_BITS: Final = tuple(1 << h for h in range(CELLS))
"""``HEX_BITS[h]``: the bit of hex ``h`` in ``Board.shape``."""


class Board:
    """The stacks of pieces on a wrapping grid of hexes.

    The four attributes are the board's fast, read-only interface: callers (evaluation, search,
    tests) index them directly and never change them; ``Game.push``/``pop`` and move generation
    change them through ``place`` and ``lift`` only. Hexes are the integers of ``hive.hexes``
    (``0 .. CELLS - 1``), pieces the integers of ``Piece`` (``0 .. 27``).

    Attributes:
        top: ``top[h]`` is the top piece of the stack at hex ``h``, or ``EMPTY`` (-1). A list
            of ``CELLS`` integers indexed by hex.
        height: ``height[h]`` is the number of pieces at ``h`` (0 for an empty hex). A list of
            ``CELLS`` integers indexed by hex.
        hex_of: ``hex_of[piece]`` is the hex of ``piece``, or ``HAND`` (-1) while it is off the
            board. A list of 28 integers indexed by piece.
        under: ``under[h]`` lists the covered pieces of the stack at ``h``, bottom first (the
            top piece is ``top[h]``); only hexes with two or more pieces are keys. A dict, since
            stacks are few.
        shape: The occupied hexes as one integer, bit ``h`` set when hex ``h`` holds a stack
            (``HEX_BITS[h]``), kept up to date by ``place`` and ``lift``: boards whose stacks
            stand on the same hexes have the same shape, and so the same articulation points.
    """

    __slots__ = (
        "_holder",
        "_lender",
        "_low",
        "_order",
        "_points",
        "height",
        "hex_of",
        "marks",
        "shape",
        "top",
        "under",
    )

    def __init__(self) -> None:
        self.top: list[int] = [EMPTY] * CELLS
        self.height: list[int] = [0] * CELLS
        self.under: dict[int, list[int]] = {}
        self.hex_of: list[int] = [HAND] * NUM_PIECES
        self.shape = 0
        self._lender: Board | None = None
        self._holder: Board | None = None
        self._scratch()

    def _scratch(self) -> None:
        """Scratch lists indexed by hex, so that no search of the board allocates one: ``marks``
        for move generation (``new_stamp``; its last item, after the hexes', is the last
        stamp given), ``_order`` and ``_low`` for ``articulation_points`` (all zero between
        its calls), and that method's results by shape."""
        self.marks: list[int] = [0] * (CELLS + 1)
        self._order: list[int] = [0] * CELLS
        self._low: list[int] = [0] * CELLS
        self._points: dict[int, list[int]] = {}

    def share_scratch(self, other: Board) -> None:
        """Use the scratch lists and kept articulation points of ``other`` from now on, and
        drop this board's own (24 KiB): for many boards kept at once and used one at a time,
        as a server keeps the games it serves. Boards that share them must be used by one
        thread, and one at a time (a move generation or an ``articulation_points`` call
        finishes before another board's starts); a copy gets scratch of its own. The kept
        articulation points depend only on the shape, so they hold for every board."""
        self.marks = other.marks
        self._order = other._order
        self._low = other._low
        self._points = other._points

    def share_stacks(self, lender: Board) -> None:
        """Keep this board's ``top`` and ``height`` in ``lender``'s lists, and drop its own (16
        KiB): for many boards kept at once and used one at a time, as a server keeps the games
        it serves. The lists hold one board's stacks at a time: a board must ``hold`` them
        before any use, which gives them back from the board that held them last. A board
        that does not hold them has empty ones, so that a use without ``hold`` raises
        ``IndexError`` rather than reads another board's stacks. ``lender`` is a board kept
        only to lend (never played on); the boards must be used by one thread, and this board
        holds the lists when this returns."""
        self.top, self.height = [], []
        self._lender = lender
        self.hold()

    def hold(self) -> None:
        """Take the lender's lists (``share_stacks``) for this board's stacks: clear the hexes
        of the board that held them (at most 28) and write this one's (from ``hex_of`` and
        ``under``, which every board keeps). Nothing to do for a board with lists of its own
        or that holds them already."""
        lender = self._lender
        if lender is None or lender._holder is self:
            return
        top, height = lender.top, lender.height
        held = lender._holder
        if held is not None:
            for h in held.hex_of:
                if h != HAND:
                    top[h] = EMPTY
                    height[h] = 0
            held.top, held.height = [], []
        under = self.under
        for piece, h in enumerate(self.hex_of):
            if h != HAND:
                covered = under.get(h)
                if covered is None:
                    top[h] = piece
                    height[h] = 1
                elif piece not in covered:
                    top[h] = piece
                    height[h] = len(covered) + 1
        self.top, self.height = top, height
        lender._holder = self

    def copy(self) -> Board:
        """An independent board with the same stacks, and lists of its own."""
        self.hold()
        board = Board.__new__(Board)
        board.top = self.top.copy()
        board.height = self.height.copy()
        board.under = {h: covered.copy() for h, covered in self.under.items()}
        board.hex_of = self.hex_of.copy()
        board.shape = self.shape
        board._lender = board._holder = None
        board._scratch()
        return board

    def new_stamp(self) -> int:
        """A value no hex of ``marks`` holds yet: a search marks the hexes it has seen with it
        (``marks[h] = stamp``), and forgets them all by asking for the next one.

        Stamps stay below 256, small integers that the compiled build stores in the list
        without allocating: after the 255th, the list is cleared and they start again at 1.
        The last stamp given is kept in the list itself (``marks[CELLS]``), so that boards
        sharing the list (``share_scratch``) never give the same one."""
        marks = self.marks
        stamp = marks[CELLS] + 1
        if stamp > 255:
            for h in range(CELLS):
                marks[h] = 0
            stamp = 1
        marks[CELLS] = stamp
        return stamp

    def mark_ring(self, h: int) -> int:
        """A new stamp (``new_stamp``) marked on the six hexes around ``h``, none when ``h`` is
        ``HAND`` (a piece off the board): ``marks[n] == stamp`` then asks whether ``n``
        touches ``h``, as the search asks of a move's hexes and a Queen's."""
        stamp = self.new_stamp()
        if h != HAND:
            marks = self.marks
            for n in NEIGHBORS[h]:
                marks[n] = stamp
        return stamp

    def place(self, piece: int, h: int) -> None:
        """Put ``piece`` on top of the stack at ``h``."""
        below = self.top[h]
        if below != EMPTY:
            self.under.setdefault(h, []).append(below)
        else:
            self.shape ^= HEX_BITS[h]
        self.top[h] = piece
        self.height[h] += 1
        self.hex_of[piece] = h

    def lift(self, h: int) -> int:
        """Take the top piece off the stack at ``h`` and return it."""
        piece = self.top[h]
        height = self.height[h] - 1
        self.height[h] = height
        if height:
            covered = self.under[h]
            self.top[h] = covered.pop()
            if not covered:
                del self.under[h]
        else:
            self.top[h] = EMPTY
            self.shape ^= HEX_BITS[h]
        self.hex_of[piece] = HAND
        return piece

    def stack(self, h: int) -> list[int]:
        """The pieces at ``h``, bottom first."""
        if self.top[h] == EMPTY:
            return []
        return [*self.under.get(h, ()), self.top[h]]

    def occupied(self) -> set[int]:
        """Every hex with at least one piece."""
        return {h for h in self.hex_of if h != HAND}

    def articulation_points(self) -> set[int]:
        """Hexes whose stack, lifted whole, would split the hive (one linear DFS, Tarjan)."""
        return set(self._kept_points())

    def pinned(self) -> int:
        """The pieces that may not move because they stand alone on an articulation point
        (lifting them would split the hive), one bit each: bit ``p`` for piece ``p``. (A small
        integer: a set of hexes would make an object of each hex in the compiled build.)"""
        top, height = self.top, self.height
        pieces: i64 = 0
        for h in self._kept_points():
            if height[h] == 1:
                pieces |= 1 << top[h]
        return pieces

    def _kept_points(self) -> list[int]:
        """The articulation points, which depend only on the occupied hexes: the board keeps
        them by ``shape`` (a search meets the same shapes again and again; up to
        ``POINTS_KEPT`` of them, then it forgets them all). Callers never change the list."""
        points = self._points.get(self.shape)
        if points is None:
            if len(self._points) >= POINTS_KEPT:
                self._points.clear()
            points = self._points[self.shape] = self._articulation_points()
        return points

    def _articulation_points(self) -> list[int]:
        top = self.top
        start: i64 = HAND
        for h in self.hex_of:
            if h != HAND:
                start = h
                break
        if start == HAND:
            return []
        hex_of = self.hex_of
        order = self._order  # 1 + the order in which the DFS reaches a hex; 0: not yet
        low = self._low  # the lowest order reachable from a hex's subtree by one back edge
        order[start] = low[start] = 1
        reached: i64 = 1
        # The DFS's stack holds the top piece of each hex (a small integer, which the compiled
        # build stores without allocating; a hex is not), and the next direction to look in.
        path = [top[start]]
        turns = [0]
        points: list[int] = []
        found: i64 = 0  # the top pieces of ``points``, one bit each
        root_children: i64 = 0
        while path:
            v: i64 = hex_of[path[-1]]
            d: i64 = turns[-1]
            around = NEIGHBORS[v]
            low_v: i64 = low[v]  # kept here while v's neighbours are seen
            while d < 6:
                w: i64 = around[d]
                d += 1
                if top[w] == EMPTY:
                    continue
                seen: i64 = order[w]
                if seen == 0:  # a tree edge: go down to w
                    low[v] = low_v
                    reached += 1
                    order[w] = low[w] = reached
                    turns[-1] = d
                    path.append(top[w])
                    turns.append(0)
                    break
                if seen < low_v:
                    low_v = seen
            else:  # every neighbour seen: back up to the parent
                path.pop()
                turns.pop()
                if path:
                    parent: i64 = path[-1]
                    u: i64 = hex_of[parent]
                    if low_v < low[u]:
                        low[u] = low_v
                    if u == start:
                        root_children += 1
                    elif low_v >= order[u] and not found >> parent & 1:
                        found |= 1 << parent
                        points.append(u)
        if root_children > 1:
            points.append(start)
        for h in hex_of:
            if h != HAND:
                order[h] = low[h] = 0
        return points

    def is_connected(self) -> bool:
        """Whether all pieces form one hive."""
        cells = self.occupied()
        if not cells:
            return True
        first = next(iter(cells))
        seen = {first}
        todo = [first]
        while todo:
            for n in NEIGHBORS[todo.pop()]:
                if n in cells and n not in seen:
                    seen.add(n)
                    todo.append(n)
        return len(seen) == len(cells)


__all__ = ["EMPTY", "HAND", "HEX_BITS", "Board"]
