"""Plain axial coordinates of a position: unwrapped, and stable as the hive moves.

The board's hexes wrap round a 32x32 grid (``hive.hexes``), which suits move generation but not
a display: a hive that drifts across the edge of the grid would jump to the other side, and the
wrapped coordinates say nothing of where a piece was a move ago. A ``Layout`` gives every stack
plain axial coordinates ``(q, r)`` instead (E is +q, SE is +r, as in ``hive.hexes``):

- the first piece placed is at (0, 0);
- a piece keeps its coordinates from move to move until it moves itself;
- a piece that moves onto a stack takes the stack's coordinates, and one that moves to an empty
  hex takes the coordinates of a stack it touches there, plus the direction from that stack.

These are found by replaying the moves on the stacks alone, tracking the coordinates of each
occupied hex: linear in the moves played, and the game is not touched. The hive is one
connected group of at most 28 pieces on a grid of 32, so the stacks a hex touches all agree on
its coordinates.
"""

from __future__ import annotations

from collections.abc import Iterable

from hive.board import HAND
from hive.errors import HiveError
from hive.hexes import DIRECTIONS, MASK, NEIGHBORS, SIZE, axial
from hive.pieces import MEMBERS, Piece

Axial = tuple[int, int]
"""Plain axial coordinates ``(q, r)``."""


class Layout:
    """Plain axial coordinates of the pieces of one position, and of the hexes around them.

    Build it with ``Game.layout()`` (or from a game's move list); it is a snapshot, so build a
    new one after the game changes.

    Args:
        moves: The moves that reached the position from the start, as ``(piece, source,
            destination)`` triples (``Game.moves``); passes are skipped.

    Attributes:
        positions: ``positions[piece] == (q, r, level)`` for every piece on the board, in piece
            order; ``level`` is 0 on the ground, 1 on top of one piece, and so on, so the pieces
            of a stack share ``(q, r)`` and their levels follow ``Board.stack`` bottom first.
    """

    __slots__ = ("_beside", "_coordinates", "positions")

    def __init__(self, moves: Iterable[tuple[int, int, int]]) -> None:
        # The stacks by hex, bottom first: at most 28 pieces, so dicts, not a Board's lists of
        # every hex (allocating those took longer than replaying a game of 30 moves).
        stacks: dict[int, list[int]] = {}
        coordinates: dict[int, Axial] = {}
        for piece, src, dst in moves:
            if piece < 0:  # a pass
                continue
            if src != HAND:
                left = stacks[src]
                left.pop()
                if not left:
                    del stacks[src]
                    del coordinates[src]
            stack = stacks.get(dst)
            if stack is None:  # a new stack; a climb keeps the stack's coordinates
                coordinates[dst] = _beside(coordinates, dst)
                stacks[dst] = [piece]
            else:
                stack.append(piece)
        self._coordinates = coordinates
        self._beside: dict[int, Axial] = {}  # empty hexes looked up, by hex
        found: dict[int, tuple[int, int, int]] = {}
        for h, stack in stacks.items():
            q, r = coordinates[h]
            for level, p in enumerate(stack):
                found[p] = (q, r, level)
        self.positions: dict[Piece, tuple[int, int, int]] = {
            MEMBERS[p]: found[p] for p in sorted(found)
        }

    def axial(self, h: int) -> Axial:
        """Plain ``(q, r)`` of board hex ``h``: a stack, or an empty hex next to one (every
        legal move starts and ends on such hexes). With no piece on the board, the hex's own
        axial coordinates (the first piece goes to (0, 0)).

        Raises:
            HiveError: ``h`` is neither a stack nor next to one, so has no stable coordinates.
        """
        coordinates = self._coordinates
        found = coordinates.get(h) or self._beside.get(h)
        if found is not None:
            return found
        if not coordinates:
            return axial(h)
        for d, n in enumerate(NEIGHBORS[h]):
            near = coordinates.get(n)
            if near is not None:
                dq, dr = DIRECTIONS[d]
                found = self._beside[h] = (near[0] - dq, near[1] - dr)
                return found
        raise HiveError(f"hex {h!r} at wrapped {axial(h)} touches no piece: no stable coordinates")

    def endpoints(self, move: tuple[int, int, int]) -> tuple[Axial | None, Axial | None]:
        """Plain ``(q, r)`` of a legal move's source and destination: the source is None for a
        placement, both are None for the pass."""
        piece, src, dst = move
        if piece < 0:
            return (None, None)
        return (None if src == HAND else self.axial(src), self.axial(dst))


def _beside(coordinates: dict[int, Axial], h: int) -> Axial:
    """Coordinates for empty hex ``h`` from a stack it touches (those of ``coordinates``)."""
    for d, n in enumerate(NEIGHBORS[h]):
        near = coordinates.get(n)
        if near is not None:
            dq, dr = DIRECTIONS[d]
            return (near[0] - dq, near[1] - dr)
    if not coordinates:
        return (0, 0)  # the first piece
    # A piece pushed (unchecked) where it touches nothing: the image of h nearest a stack.
    ref = min(coordinates)
    q, r = coordinates[ref]
    half = SIZE // 2
    dq = ((h & MASK) - (ref & MASK) + half) % SIZE - half
    dr = ((h >> 5) - (ref >> 5) + half) % SIZE - half
    return (q + dq, r + dr)


__all__ = ["Axial", "Layout"]
