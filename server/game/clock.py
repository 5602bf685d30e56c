"""The server's clock: milliseconds since the epoch, what records, clocks and deadlines use;
and the games' clocks: the time a side has left, and when a game changes by itself."""

from __future__ import annotations

import time
from typing import Final

from protocol import Color, TimeControl
from server.game.record import Record

DAY_MS: Final = 86_400_000


def now_ms() -> int:
    return int(time.time() * 1000)


def initial_clock(time: TimeControl) -> int | None:
    if time.kind == "clock":
        return time.base * 1000
    if time.kind == "days":
        return time.days * DAY_MS
    return None


def clocks_started(record: Record) -> bool:
    """Whether the clocks run: from each side's second turn (the first moves have
    ``first_move_timeout`` instead)."""
    return len(record.moves) >= 2


def time_left(record: Record, color: Color, now: int) -> int | None:
    """Milliseconds ``color`` has left at ``now`` (None: no clock)."""
    stored = record.clock_white if color == "white" else record.clock_black
    if stored is None:
        return None
    if record.status == "live" and record.turn == color and clocks_started(record):
        return max(0, stored - max(0, now - record.turn_started))  # (held: not yet started)
    return stored


def deadline(record: Record, first_move_ms: int) -> int | None:
    """When the game changes by itself if nobody acts: an open game expires, a clock held for
    its player after a restart runs again (``server.game.holds``), a first move not made
    aborts the game, a flag falls. None: never."""
    if record.status == "open":
        return record.expires
    if record.status != "live":
        return None
    if record.held is not None:  # (before any flag: the clock does not run while held)
        return record.held
    if not clocks_started(record):  # a first move not made in time aborts the game
        if record.time.kind == "days":
            return record.turn_started + record.time.days * DAY_MS
        return record.turn_started + first_move_ms
    left = record.clock_white if record.turn == "white" else record.clock_black
    if left is None:
        return None
    return record.turn_started + left
