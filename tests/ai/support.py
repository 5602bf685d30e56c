"""Helpers for the search's and the bots' tests: positions to search, a clock to search by."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from itertools import count
from pathlib import Path

from hive import Game
from tests.vectors import tsv_rows

REAL_GAMES = [row[0] for row in tsv_rows("mzinga_validmoves_realgames.tsv")]
HIVE_AI = str(Path(sys.executable).with_name("hive-ai"))
"""``hive-ai``: the real console script, as a person or a script would run it."""
MIDGAME = REAL_GAMES[80]
FINISHED = (
    "Base;WhiteWins;Black[8];wS1;bS1 wS1-;wQ -wS1;bQ bS1/;wG1 -wQ;bG1 \\bQ;wG1 bQ\\;bG2 bQ/;"
    "wA1 wQ\\;bA1 bG2/;wA1 bG2\\;bA1 \\bG2;wQ \\wS1;bA1 bG2/;wQ /bG1"
)
"""A finished Base game (White wins)."""


def mid_games(n: int) -> Iterator[Game]:
    """``n`` mid-game positions spread over the real-game vectors."""
    rows = [s for s in REAL_GAMES if ";White[" in s or ";Black[" in s]
    for text in rows[40 :: max(1, (len(rows) - 40) // n)][:n]:
        yield Game.from_game_string(text)


def fake_clock(step: float = 0.001) -> Callable[[], float]:
    """A clock that advances by ``step`` every time it is read (deterministic deadlines)."""
    ticks = count()
    return lambda: next(ticks) * step


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``hive-ai`` with ``args``: its exit status and what it printed."""
    return subprocess.run(
        [HIVE_AI, *args], capture_output=True, text=True, timeout=timeout, check=False
    )
