"""Hexes on a wrapping 32x32 axial grid, as integers.

A hex is the integer ``(q & 31) | (r & 31) << 5`` of its axial coordinates. The grid wraps, so the
hive may drift anywhere; it never spans more than 30 hexes along any axis (28 pieces and the
empty hexes around them), so no two hexes it touches collide. Rows of tables indexed by hex
(neighbours, slide triples) are computed once at import.

Directions, in ring order, and their UHP spellings relative to a reference piece ``X``::

    0 E  "X-"    1 NE "X/"    2 NW "\\X"    3 W  "-X"    4 SW "/X"    5 SE "X\\"
"""

from typing import Final

SIZE: Final = 32
MASK: Final = SIZE - 1
CELLS: Final = SIZE * SIZE
ORIGIN: Final = 0

# (dq, dr) of the six directions in ring order: each is adjacent to the one before and after.
DIRECTIONS: Final = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def hex_at(q: int, r: int) -> int:
    """The hex at axial coordinates ``(q, r)``."""
    return (q & MASK) | (r & MASK) << 5


def axial(h: int) -> tuple[int, int]:
    """Axial coordinates of ``h`` in ``[-16, 15]``, relative to the origin."""
    q, r = h & MASK, h >> 5
    return (q - SIZE if q >= SIZE // 2 else q, r - SIZE if r >= SIZE // 2 else r)


def _neighbors(h: int) -> tuple[int, ...]:
    q, r = h & MASK, h >> 5
    return tuple(hex_at(q + dq, r + dr) for dq, dr in DIRECTIONS)


NEIGHBORS: Final = tuple(_neighbors(h) for h in range(CELLS))
"""``NEIGHBORS[h][d]`` is the hex next to ``h`` in direction ``d``."""

SLIDES: Final = tuple(
    tuple((n[d], n[(d + 1) % 6], n[(d + 5) % 6]) for d in range(6)) for n in NEIGHBORS
)
"""``SLIDES[h]`` holds, per direction, ``(to, side1, side2)``: the hex moved to and the two hexes
that both ``h`` and ``to`` touch, which decide freedom to move (the gate) and contact."""


def direction_between(a: int, b: int) -> int | None:
    """The direction from ``a`` to its neighbour ``b``, or None if they are not adjacent."""
    try:
        return NEIGHBORS[a].index(b)
    except ValueError:
        return None
