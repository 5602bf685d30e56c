"""Ratings: one Glicko-2 rating per account and speed.

A game's speed comes from its time control as lichess and hivegame reckon it: the estimated
duration ``base + 40 x increment`` seconds; days per move make ``correspondence``; a game
without a clock has no speed and is never rated. A rating is provisional (shown with a "?")
while its deviation is above ``PROVISIONAL_RD``.
"""

from __future__ import annotations

from typing import Final

from server.protocol import Speed, TimeControl

SPEEDS: Final[tuple[Speed, ...]] = ("bullet", "blitz", "rapid", "classical", "correspondence")
"""Every speed, fastest first."""
START_RATING: Final = 1500.0
START_RD: Final = 350.0
START_VOLATILITY: Final = 0.06
PROVISIONAL_RD: Final = 110.0
"""A rating with a deviation above this is provisional (lichess's threshold)."""
LEADERBOARD_WEEKS: Final = 4
"""A leaderboard lists players who played a rated game of its speed in this many weeks."""

_LIMITS: Final[tuple[tuple[int, Speed], ...]] = ((180, "bullet"), (480, "blitz"), (1500, "rapid"))
"""Estimated durations (seconds) below which a clock game is of each speed."""


def speed(time: TimeControl) -> Speed | None:
    """The speed of a game with ``time``: None for a game without a clock."""
    if time.kind == "days":
        return "correspondence"
    if time.kind == "none":
        return None
    duration = time.base + 40 * time.increment
    return next((name for limit, name in _LIMITS if duration < limit), "classical")
