"""Legal move generation: placements and each bug's movement.

Generation works on the board in place: the moving piece is lifted while its destinations are
found (so it neither blocks nor supports its own path) and put back afterwards. Moves come out
grouped as ``(piece, source, destinations)``; ``source`` is ``HAND`` for placements.

Freedom to move, at any height: a piece going from ``a`` to its neighbour ``b`` passes between the
two hexes ``s1``, ``s2`` that both touch; it is blocked when ``min(height(s1), height(s2)) >
max(height(a), height(b))`` with the mover lifted. On the ground it must also keep contact with
the hive: exactly one of ``s1``, ``s2`` is occupied.

Each bug's destinations come as a list without repeats: searches that may reach a hex twice
mark the hexes they reached in the board's scratch list (``Board.marks``, ``Board.new_stamp``)
instead of building a set.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Final

from hive.board import EMPTY, HAND, Board
from hive.hexes import NEIGHBORS, ORIGIN, SLIDES
from hive.pieces import BUG_AT, BUG_OF, FIRST_OF, OWNER, PIECES_PER_COLOR, Bug

if TYPE_CHECKING:
    from mypy_extensions import i64  # the compiled build's fixed-width integers

    from hive.game import Game

Group = tuple[int, int, Collection[int]]

# The values of ``Bug``, as plain integers that the compiled build compares at C speed.
QUEEN: Final = 0
SPIDER: Final = 1
BEETLE: Final = 2
GRASSHOPPER: Final = 3
ANT: Final = 4
MOSQUITO: Final = 5
LADYBUG: Final = 6
PILLBUG: Final = 7
assert tuple(Bug) == (QUEEN, SPIDER, BEETLE, GRASSHOPPER, ANT, MOSQUITO, LADYBUG, PILLBUG)


def generate(game: Game) -> list[Group]:
    """All legal moves of the side to move, grouped by piece. Empty when the game is over;
    it never contains the pass (the caller adds it when nothing else is legal)."""
    if game.is_over():
        return []
    board = game.board
    hex_of = board.hex_of
    color = game.ply & 1
    turn = game.ply // 2 + 1
    queen = FIRST_OF[color][QUEEN]
    queen_in_hand = hex_of[queen] == HAND

    groups: list[Group] = []
    in_hand = game._next_in_hand(color)
    if turn == 1:
        in_hand = [p for p in in_hand if p != queen]
    elif turn == 4 and queen_in_hand:
        in_hand = [queen]
    if in_hand:
        cells = placement_hexes(game)
        if cells:
            for p in in_hand:
                groups.append((p, HAND, cells))
    if not queen_in_hand:
        groups.extend(movements(game, color))
    return groups


def placement_hexes(game: Game) -> list[int]:
    """Empty hexes where the side to move may place a piece."""
    ply = game.ply
    if ply == 0:
        return [ORIGIN]
    if ply == 1:
        return list(NEIGHBORS[ORIGIN])
    board = game.board
    top, hex_of, marks = board.top, board.hex_of, board.marks
    stamp: i64 = board.new_stamp()
    color: i64 = ply & 1
    other: i64 = 1 - color
    cells = []
    start: i64 = color * PIECES_PER_COLOR
    p: i64
    c: i64
    n: i64
    for p in range(start, start + PIECES_PER_COLOR):
        h: i64 = hex_of[p]
        if h == HAND or top[h] != p:
            continue
        for c in NEIGHBORS[h]:
            if marks[c] == stamp or top[c] != EMPTY:
                continue
            marks[c] = stamp
            for n in NEIGHBORS[c]:
                if OWNER[top[n]] == other:
                    break
            else:
                cells.append(c)
    return cells


def movements(game: Game, color: int) -> list[Group]:
    """Moves of pieces on the board, including Pillbug (and Mosquito-as-Pillbug) throws."""
    board = game.board
    top, height, hex_of = board.top, board.height, board.hex_of
    pinned = board.pinned()
    stunned = game.last_moved
    groups: list[Group] = []
    throwers: list[int] = []
    start = color * PIECES_PER_COLOR
    for p in range(start, start + PIECES_PER_COLOR):
        h = hex_of[p]
        if h == HAND or top[h] != p or p == stunned:
            continue
        bug = BUG_OF[p]
        on_ground = height[h] == 1
        if on_ground and (
            bug == PILLBUG
            or (bug == MOSQUITO and any(BUG_AT[top[n]] == PILLBUG for n in NEIGHBORS[h]))
        ):
            throwers.append(h)
        if on_ground and pinned >> p & 1:
            continue
        board.lift(h)
        dests = destinations(board, bug, h)
        board.place(p, h)
        if dests:
            groups.append((p, h, dests))
    if throwers:
        groups = _add_throws(top, height, groups, throwers, pinned, stunned)
    return groups


def destinations(board: Board, bug: int, h: int) -> list[int]:
    """Where a ``bug`` at ``h``, lifted off the board, can move (throws aside)."""
    if bug == ANT:
        return _ant(board, h)
    if bug in (QUEEN, PILLBUG):  # a Pillbug walks as a Queen (its throws come apart)
        return _slides(board.top, h)
    if bug == BEETLE:
        return _beetle(board.height, h)
    if bug == GRASSHOPPER:
        return _grasshopper(board.top, h)
    if bug == SPIDER:
        return _spider(board, h)
    if bug == LADYBUG:
        return _ladybug(board, h)
    return _mosquito(board, h)


def slide_directions(top: list[int], h: i64) -> i64:
    """The directions a ground piece at ``h`` (lifted) can slide in, one bit each (bit ``d``
    for ``NEIGHBORS[h][d]``): to an empty neighbour with exactly one of its two sides (the
    neighbours before and after it round ``h``) occupied. One look at each neighbour, where
    checking the slides one by one looks at each three times."""
    occupied: i64 = 0
    bit: i64 = 1
    n: i64
    for n in NEIGHBORS[h]:
        if top[n] != EMPTY:
            occupied |= bit
        bit <<= 1
    ring: i64 = occupied | occupied << 6  # bit d + 6 repeats bit d, for the wrap round
    return ~occupied & ((ring >> 1) ^ (ring >> 5)) & 63


def _slides(top: list[int], h: int) -> list[int]:
    """Empty neighbours a ground piece at ``h`` (lifted) can slide to."""
    free = slide_directions(top, h)
    return [n for d, n in enumerate(NEIGHBORS[h]) if free >> d & 1]


def _spider(board: Board, h: int) -> list[int]:
    top, marks = board.top, board.marks
    stamp = board.new_stamp()
    ends = []
    for b1 in _slides(top, h):
        for b2 in _slides(top, b1):
            if b2 == h:
                continue
            for b3 in _slides(top, b2):
                if b3 != h and b3 != b1 and marks[b3] != stamp:
                    marks[b3] = stamp
                    ends.append(b3)
    return ends


def _ant(board: Board, h: int) -> list[int]:
    top, marks = board.top, board.marks
    stamp: i64 = board.new_stamp()
    marks[h] = stamp
    ends = []
    todo = [h]
    while todo:
        here = todo.pop()
        free = slide_directions(top, here)
        if not free:
            continue
        around = NEIGHBORS[here]
        for d in range(6):
            if free >> d & 1:
                b = around[d]
                if marks[b] != stamp:
                    marks[b] = stamp
                    ends.append(b)
                    todo.append(b)
    return ends


def _beetle(height: list[int], h: int) -> list[int]:
    here = height[h]
    ends = []
    for b, s1, s2 in SLIDES[h]:
        there = height[b]
        h1, h2 = height[s1], height[s2]
        if here == 0 and there == 0:
            if (h1 == 0) != (h2 == 0):
                ends.append(b)
        elif min(h1, h2) <= max(here, there):
            ends.append(b)
    return ends


def _grasshopper(top: list[int], h: int) -> list[int]:
    ends = []
    for d, n in enumerate(NEIGHBORS[h]):
        if top[n] != EMPTY:
            while top[n] != EMPTY:
                n = NEIGHBORS[n][d]
            ends.append(n)
    return ends


def _ladybug(board: Board, h: int) -> list[int]:
    top, height, marks = board.top, board.height, board.marks
    stamp = board.new_stamp()
    ends = []
    for b1, s1, s2 in SLIDES[h]:
        up = height[b1]
        if up == 0 or min(height[s1], height[s2]) > up:
            continue
        for b2, t1, t2 in SLIDES[b1]:
            across = height[b2]
            if across == 0 or min(height[t1], height[t2]) > max(up, across):
                continue
            for e, u1, u2 in SLIDES[b2]:
                if (
                    top[e] == EMPTY
                    and e != h
                    and marks[e] != stamp
                    and min(height[u1], height[u2]) <= across
                ):
                    marks[e] = stamp
                    ends.append(e)
    return ends


def _mosquito(board: Board, h: int) -> list[int]:
    top, height = board.top, board.height
    if height[h]:  # on top of the hive: a Mosquito moves only as a Beetle
        return _beetle(height, h)
    bugs = 0  # the bugs it touches, one bit each
    for n in NEIGHBORS[h]:
        bug = BUG_AT[top[n]]
        if bug >= 0 and bug != MOSQUITO:
            bugs |= 1 << bug
    if bugs & 1 << BEETLE:  # a Beetle's steps include every Queen and Pillbug step
        bugs &= ~(1 << QUEEN | 1 << PILLBUG)
    elif bugs & 1 << PILLBUG:
        bugs = bugs & ~(1 << PILLBUG) | 1 << QUEEN
    found = [destinations(board, bug, h) for bug in range(8) if bugs & 1 << bug]
    if len(found) == 1:
        return found[0]
    marks = board.marks
    stamp = board.new_stamp()
    ends = []
    for dests in found:
        for e in dests:
            if marks[e] != stamp:
                marks[e] = stamp
                ends.append(e)
    return ends


def _add_throws(
    top: list[int],
    height: list[int],
    groups: list[Group],
    throwers: list[int],
    pinned: int,
    stunned: int,
) -> list[Group]:
    """Add the throws of each Pillbug (or Mosquito touching one) at the hexes ``throwers``.

    A thrower lifts an unstacked neighbour over itself onto an empty neighbour. Not the piece
    moved last turn, not a piece whose removal splits the hive, and not through a gate: the
    passage between thrower and neighbour is blocked when both hexes beside it hold stacks of
    two or more.
    """
    throws: dict[int, tuple[int, set[int]]] = {}
    for h in throwers:
        empties = []
        targets = []
        for n, s1, s2 in SLIDES[h]:
            if height[s1] > 1 and height[s2] > 1:
                continue
            t = top[n]
            if t == EMPTY:
                empties.append(n)
            elif height[n] == 1 and t != stunned and not pinned >> t & 1:
                targets.append((t, n))
        if empties:
            for t, n in targets:
                throws.setdefault(t, (n, set()))[1].update(empties)
    if not throws:
        return groups
    merged = []
    for p, src, dests in groups:
        if p in throws:
            throws[p][1].update(dests)
        else:
            merged.append((p, src, dests))
    merged.extend((p, src, dests) for p, (src, dests) in throws.items())
    return merged
