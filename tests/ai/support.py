"""Helpers for the search's and the bots' tests: positions to search, a clock to search by."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import count

from hive import Game
from tests.vectors import tsv_rows

REAL_GAMES = [row[0] for row in tsv_rows("mzinga_validmoves_realgames.tsv")]


def mid_games(n: int) -> Iterator[Game]:
    """``n`` mid-game positions spread over the real-game vectors."""
    rows = [s for s in REAL_GAMES if ";White[" in s or ";Black[" in s]
    for text in rows[40 :: max(1, (len(rows) - 40) // n)][:n]:
        yield Game.from_game_string(text)


def fake_clock(step: float = 0.001) -> Callable[[], float]:
    """A clock that advances by ``step`` every time it is read (deterministic deadlines)."""
    ticks = count()
    return lambda: next(ticks) * step
