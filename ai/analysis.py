"""The analysis board's engine lines, and a score a person can read: the chance of winning.

``generate_lines(game)`` searches one ply deeper at a time and yields, as each depth
completes, the best ``count`` root moves with their exact scores (the search's ``exact_top``)
and each one's principal variation, with the nodes and the time that depth took.

A principal variation is read from the transposition table the search filled, not searched
again: from the position after the line's move, the table's best move is followed while the
entry there is exact, at least as deep as the plies left, and holds the score the line
predicts for that position (negated at each ply); it stops at the first entry that does not,
so a variation may be shorter than the depth, but every move in it is legal and is the one
the search found best there. It costs a few table lookups.

``win_chance(score)`` maps a search score (side to move's view) to that side's chance of
winning, a logistic curve ``1 / (1 + exp(-WIN_CHANCE_SLOPE * score))``; a proved win is 1 and
a proved loss 0. ``WIN_CHANCE_SLOPE`` was fitted on positions of self-play games
(``python -m bench.calibrate``; the fit and how well it predicts: docs/analysis.md).

Pure: the search reads time only through the ``clock`` it is given.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Final

from ai.evaluation import MATE_BOUND
from ai.search import TranspositionTable, search
from ai.table import EXACT, from_table, position_key
from hive import Game, GameState, Move

WIN_CHANCE_SLOPE: Final = 0.00445
"""The logistic's slope per score point, fitted by maximum likelihood by
``python -m bench.calibrate --games 400 --seed 1`` (1600 positions of 400 ``medium`` self-play
games, scored by the review's search; docs/analysis.md gives its Brier scores and reliability
tables)."""

LINES_BRANCHING: Final = 20
"""K of the lines' search: the ``expert`` level's."""


def win_chance(score: int, slope: float = WIN_CHANCE_SLOPE) -> float:
    """The side to move's chance of winning in [0, 1] from its ``score``: 1 for a proved win,
    0 for a proved loss, else the logistic ``1 / (1 + exp(-slope * score))`` (0.5 at 0)."""
    if score >= MATE_BOUND:
        return 1.0
    if score <= -MATE_BOUND:
        return 0.0
    x = slope * score
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)  # never overflows: x < 0
    return e / (1.0 + e)


@dataclass(frozen=True)
class Line:
    """One of the best moves at a depth.

    Attributes:
        move: The root move.
        score: Its exact score at that depth (side to move's view).
        chance: ``win_chance(score)``: the side to move's chance of winning with it.
        pv: The principal variation, ``move`` first (at most the depth's plies).
    """

    move: Move
    score: int
    chance: float
    pv: tuple[Move, ...]


@dataclass(frozen=True)
class DepthLines:
    """What one completed depth found.

    Attributes:
        depth: Plies searched.
        lines: The best moves, best first (fewer than asked when there are fewer moves).
        nodes: Positions the search of this depth visited.
        seconds: The time it took, by the clock given (0.0 without one).
    """

    depth: int
    lines: tuple[Line, ...]
    nodes: int
    seconds: float


def generate_lines(
    game: Game,
    *,
    count: int = 3,
    max_depth: int | None = None,
    branching: int | None = LINES_BRANCHING,
    deadline: float | None = None,
    clock: Callable[[], float] | None = None,
    table: TranspositionTable | None = None,
) -> Generator[DepthLines, None, None]:
    """The best ``count`` lines at depth 1, 2, 3..., each depth yielded as it completes.

    Each depth is ``search(game, depth=d, exact_top=count)`` with one table carried from
    depth to depth (it orders the next depth's moves). It stops after ``max_depth``, at the
    ``deadline`` (a depth it interrupts is not yielded), when the game is over (nothing is
    yielded) or once every line is a proved win or loss. The game is searched in place with
    push/pop and left as it was, also when the caller stops early.

    Args:
        game: The position.
        count: How many of the best moves to show (at least 1).
        max_depth: The deepest search (None: until the deadline).
        branching: K, the children searched per node below the root.
        deadline: A ``clock()`` reading after which no depth runs on.
        clock: The time source, also for ``DepthLines.seconds``; required with a deadline.
        table: The transposition table to use (None: a fresh one).

    Raises:
        ValueError: ``count`` or ``max_depth`` below 1, a deadline without a clock, or
            neither a deadline nor a ``max_depth`` (it would never end).
    """
    if count < 1:
        raise ValueError(f"count must be at least 1, not {count!r}")
    if max_depth is not None and max_depth < 1:
        raise ValueError(f"max_depth must be at least 1, not {max_depth!r}")
    if deadline is not None and clock is None:
        raise ValueError("a deadline needs a clock")
    if deadline is None and max_depth is None:
        raise ValueError("give a max_depth or a deadline")
    table = table if table is not None else TranspositionTable()
    depth = 0
    while max_depth is None or depth < max_depth:
        depth += 1
        if deadline is not None and clock is not None and clock() >= deadline:
            return
        result = search(
            game,
            depth=depth,
            branching=branching,
            table=table,
            exact_top=count,
            deadline=deadline,
            clock=clock,
        )
        if not result.completed or not result.ranked:
            return
        lines = tuple(
            Line(move, s, win_chance(s), principal_variation(game, move, s, depth, table))
            for move, s in result.ranked[:count]
        )
        yield DepthLines(depth, lines, result.nodes, result.seconds)
        if all(abs(line.score) >= MATE_BOUND for line in lines):
            return


def principal_variation(
    game: Game, move: Move, score: int, depth: int, table: TranspositionTable
) -> tuple[Move, ...]:
    """``move`` and the best replies the ``depth``-ply search that scored it ``score`` left in
    ``table``: followed while the entry of the position reached is exact, at least as deep
    as the plies left, and holds the score predicted there (``score``, negated at each ply).
    ``game`` is left as it was."""
    pv = [move]
    game.push(move)
    try:
        expected = -score
        left = depth - 1
        while left > 0 and game.state is GameState.IN_PROGRESS:
            entry = table.entries.get(position_key(game))
            if entry is None:
                break
            e_depth, e_value, bound, best = entry
            if (
                bound != EXACT
                or e_depth < left
                or best is None
                or from_table(e_value, game.ply) != expected
                or not game.is_legal(best)  # a key shared by two positions
            ):
                break
            pv.append(best)
            game.push(best)
            expected = -expected
            left -= 1
    finally:
        for _ in pv:
            game.pop()
    return tuple(pv)


__all__ = [
    "LINES_BRANCHING",
    "WIN_CHANCE_SLOPE",
    "DepthLines",
    "Line",
    "generate_lines",
    "principal_variation",
    "win_chance",
]
