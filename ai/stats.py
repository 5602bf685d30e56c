"""An arena's figures: the Elo difference with its interval, times per move, and variety.

``summarize`` turns the ``GameRecord``s of an arena into the ``Summary`` that ``hive-ai arena``
prints, from player A's point of view. Standard library only (``statistics``, ``math``).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from ai.symmetry import position_at

if TYPE_CHECKING:
    from ai.arena import GameRecord

VARIETY_PLY: Final = 12
"""The ply at which arenas count distinct positions."""


@dataclass(frozen=True)
class Summary:
    """The figures of an arena, from A's point of view."""

    games: int
    wins: int
    draws: int
    losses: int
    score: float
    elo: float
    elo_low: float
    elo_high: float
    a_seconds: tuple[float, float, float]  # median, 95th percentile, most
    b_seconds: tuple[float, float, float]
    distinct_openings: int
    distinct_games: int
    distinct_positions: int  # at VARIETY_PLY, up to symmetry
    games_reaching: int  # games at least VARIETY_PLY long
    shapes: dict[str, int] = field(default_factory=dict)
    ends: dict[str, int] = field(default_factory=dict)


def elo_difference(scores: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """The Elo difference a list of game scores (1, 0.5, 0) shows, with its interval.

    The mean score ``s`` maps to Elo through the logistic curve, ``400 * log10(s / (1 - s))``;
    the interval is that of the mean (normal approximation, per-game variance), mapped the same
    way. A score of 0 or 1 gives an infinite difference.

    Raises:
        ValueError: No scores.
    """
    n = len(scores)
    if n == 0:
        raise ValueError("no games to rate")
    mean = statistics.fmean(scores)
    spread = statistics.pstdev(scores) / math.sqrt(n)
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    low, high = max(mean - z * spread, 0.0), min(mean + z * spread, 1.0)
    return elo(mean), elo(low), elo(high)


def elo(score: float) -> float:
    """The Elo difference of a mean score in [0, 1]: ``400 * log10(s / (1 - s))``, infinite
    at 0 and 1."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return math.log(score / (1.0 - score)) * 400 / math.log(10)


def summarize(records: Sequence[GameRecord]) -> Summary:
    """The figures of an arena's games (at least one).

    Raises:
        ValueError: No records.
    """
    scores = [r.score for r in records]
    positions = [position_at(r.game_string, VARIETY_PLY) for r in records]
    rating, low, high = elo_difference(scores)
    return Summary(
        games=len(records),
        wins=sum(s == 1.0 for s in scores),
        draws=sum(s == 0.5 for s in scores),
        losses=sum(s == 0.0 for s in scores),
        score=statistics.fmean(scores),
        elo=rating,
        elo_low=low,
        elo_high=high,
        a_seconds=_spread([t for r in records for t in r.a_seconds]),
        b_seconds=_spread([t for r in records for t in r.b_seconds]),
        distinct_openings=len({r.opening for r in records}),
        distinct_games=len({r.game_string for r in records}),
        distinct_positions=len({p for p in positions if p is not None}),
        games_reaching=sum(p is not None for p in positions),
        shapes=dict(Counter(r.shape or "-" for r in records).most_common()),
        ends=dict(Counter(r.end.split(":")[0] for r in records).most_common()),
    )


def _spread(seconds: Sequence[float]) -> tuple[float, float, float]:
    """Median, 95th percentile and most."""
    if not seconds:
        return (0.0, 0.0, 0.0)
    if len(seconds) == 1:
        return (seconds[0], seconds[0], seconds[0])
    return statistics.median(seconds), statistics.quantiles(seconds, n=20)[-1], max(seconds)
