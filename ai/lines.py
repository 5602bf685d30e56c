"""The analysis board's engine lines, one depth a job, in a worker of ``ai.pool``.

The server's engine run (``server.requests.analysis``) asks ``lines_at_depth`` for depth 1,
then 2, 3..., each a short job of ``BotPool.run`` (below live bot moves in priority), and
sends each answer as it comes. A worker keeps the transposition tables of its last
``TABLES_KEPT`` positions, so that when it searches the next depth of a position it searched
before, the table carried from depth to depth orders the moves as ``generate_lines`` does in
one call; another worker, or a position dropped from its tables, starts afresh (the same
scores, only slower).

The answer is plain values (MoveStrings, numbers), so that it pickles across processes.
Pure but for the clock a deadline is read with (``time.monotonic``: one clock for every
process of the machine) and the stop file it may be given (a job cannot be interrupted in its
worker otherwise: ``BotPool.run`` cancelled frees its slot, not its worker).
"""

from __future__ import annotations

import math
import os
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from ai.analysis import DepthLines, generate_lines
from ai.evaluation import MATE_BOUND
from ai.search import TranspositionTable
from hive import Game, GameState, HiveError

TABLES_KEPT: Final = 8
"""Positions whose transposition table a worker keeps."""

_tables: OrderedDict[tuple[str, str, tuple[str, ...]], TranspositionTable] = OrderedDict()


@dataclass(frozen=True)
class FoundLine:
    """One of the best moves: its MoveString, score, chance and principal variation (as
    ``ai.analysis.Line``, spelled)."""

    move: str
    score: int
    chance: float
    pv: tuple[str, ...]


@dataclass(frozen=True)
class Found:
    """What ``lines_at_depth`` found: the lines of ``depth``, the nodes and seconds that depth
    took, and whether every line is a proved win or loss (deeper searches say no more)."""

    depth: int
    lines: tuple[FoundLine, ...]
    nodes: int
    seconds: float
    proved: bool


@dataclass(frozen=True)
class Ended:
    """Why ``lines_at_depth`` found nothing: ``over`` (the game is over), ``time`` (the
    deadline came first), or ``illegal`` (``message`` says which move, and why)."""

    reason: str
    message: str = ""


def lines_at_depth(
    game_type: str,
    moves: list[str],
    depth: int,
    count: int,
    deadline: float,
    tag: str = "",
    stop: str | None = None,
) -> Found | Ended:
    """The best ``count`` lines of the position after ``moves`` at ``depth`` plies (runs in a
    worker), searched before ``deadline`` (a ``time.monotonic()`` reading), or why none.
    ``tag``: part of the key of the table kept (searches of another tag never share it).
    ``stop``: a file whose existence stops the search (as the deadline does, within a few
    thousand nodes): the server's run, cancelled, frees its worker at once."""
    spelled_moves: list[str] = []
    try:
        game = Game(game_type, repetition_draw=True)
        for number, text in enumerate(moves, 1):
            try:
                move = game.parse_move(text)
            except HiveError as error:
                return Ended("illegal", f"move {number} {text!r}: {error}")
            spelled_moves.append(game.move_string(move))
            game.push(move)
    except HiveError as error:
        return Ended("illegal", str(error))
    if game.state not in (GameState.NOT_STARTED, GameState.IN_PROGRESS):
        return Ended("over")
    key = (tag, str(game.game_type), tuple(spelled_moves))
    table = _tables.pop(key, None)
    if table is None:
        table = TranspositionTable()
    _tables[key] = table
    while len(_tables) > TABLES_KEPT:
        _tables.popitem(last=False)
    last: DepthLines | None = None
    clock = _clock(stop)
    for found in generate_lines(
        game, count=count, max_depth=depth, deadline=deadline, clock=clock, table=table
    ):
        last = found
    if last is None or (last.depth < depth and not _proved(last)):
        return Ended("time" if clock() >= deadline else "over")
    spelled = []
    for line in last.lines:
        pv: list[str] = []
        for move in line.pv:  # spelled in the position it is played in
            pv.append(game.move_string(move))
            game.push(move)
        for _ in line.pv:
            game.pop()
        spelled.append(FoundLine(pv[0], line.score, line.chance, tuple(pv)))
    return Found(last.depth, tuple(spelled), last.nodes, last.seconds, _proved(last))


def _clock(stop: str | None) -> Callable[[], float]:
    """``time.monotonic``, or with ``stop`` a clock that reads infinity once that file exists:
    the search reads it every few thousand nodes, and stops past its deadline."""
    if stop is None:
        return time.monotonic

    def clock() -> float:
        return math.inf if os.path.exists(stop) else time.monotonic()

    return clock


def _proved(found: DepthLines) -> bool:
    return all(abs(line.score) >= MATE_BOUND for line in found.lines)


__all__ = ["TABLES_KEPT", "Ended", "Found", "FoundLine", "lines_at_depth"]
