"""An arena's figures: the Elo difference with its interval, times per move, and variety;
and the sequential test (``sprt``) that stops an arena once it has decided.

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


def expected_score(difference: float) -> float:
    """The mean score of a player ``difference`` Elo stronger (the logistic curve)."""
    return 1.0 / (1.0 + math.pow(10.0, -difference / 400.0))


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of H0 "A is ``elo0`` Elo stronger" against H1
    "``elo1``": the log-likelihood ratio of the games so far and the bounds that stop it."""

    elo0: float
    elo1: float
    llr: float
    lower: float
    """ln(beta / (1 - alpha)): at or below it, H0 is accepted."""
    upper: float
    """ln((1 - beta) / alpha): at or above it, H1 is accepted."""

    @property
    def decision(self) -> str | None:
        """``H1`` (A is at least ``elo1`` stronger), ``H0`` (at most ``elo0``), or None: play
        on."""
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return None


SPRT_PRIOR: Final = 1e-3
"""Games of each result (win, draw, loss) added to the counts, as fishtest does: a result
never seen yet is not impossible."""


def _nearest(frequencies: dict[float, float], mean: float) -> dict[float, float]:
    """The distribution of results with expected score ``mean`` nearest the observed
    ``frequencies`` (the maximum likelihood one: ``q = p / (1 + t (score - mean))``, with
    ``t`` found by bisection so that ``q`` sums to 1)."""
    deviations = {score: score - mean for score in frequencies}

    def excess(t: float) -> float:  # sum of q - 1, up to a positive factor: falls with t
        return sum(
            p * deviations[score] / (1 + t * deviations[score]) for score, p in frequencies.items()
        )

    # 1 + t d > 0 for every result: t between -1 / max(d) and -1 / min(d)
    low = -1 / max(deviations.values()) + 1e-12
    high = -1 / min(deviations.values()) - 1e-12
    for _ in range(100):
        middle = (low + high) / 2
        if excess(middle) > 0:
            low = middle
        else:
            high = middle
    t = (low + high) / 2
    return {score: p / (1 + t * deviations[score]) for score, p in frequencies.items()}


def sprt(
    scores: Sequence[float],
    elo0: float,
    elo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
) -> Sprt:
    """The SPRT of ``scores`` (A's: 1, 0.5, 0) for H0 ``elo0`` against H1 ``elo1``, with
    error rates ``alpha`` (H1 accepted when H0 holds) and ``beta`` (the reverse).

    The generalised SPRT as fishtest computes it (Van den Bergh's): under each hypothesis,
    the distribution of results nearest the observed one (maximum likelihood) whose expected
    score is the one the hypothesis's Elo gives (``expected_score``); the log-likelihood ratio
    of the ``n`` games is ``n * sum(p * log(q1 / q0))`` over the results.

    Raises:
        ValueError: ``elo0`` not below ``elo1``, or an error rate outside (0, 0.5).
    """
    if not elo0 < elo1:
        raise ValueError(f"the SPRT's elo0 ({elo0:g}) must be below its elo1 ({elo1:g})")
    if not (0 < alpha < 0.5 and 0 < beta < 0.5):
        raise ValueError("the SPRT's error rates must lie between 0 and 0.5")
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    n = len(scores)
    if n == 0:
        return Sprt(elo0, elo1, 0.0, lower, upper)
    counts = Counter(scores)
    total = n + 3 * SPRT_PRIOR
    frequencies = {score: (counts[score] + SPRT_PRIOR) / total for score in (0.0, 0.5, 1.0)}
    q0 = _nearest(frequencies, expected_score(elo0))
    q1 = _nearest(frequencies, expected_score(elo1))
    llr = n * sum(p * math.log(q1[score] / q0[score]) for score, p in frequencies.items())
    return Sprt(elo0, elo1, llr, lower, upper)


def _spread(seconds: Sequence[float]) -> tuple[float, float, float]:
    """Median, 95th percentile and most."""
    if not seconds:
        return (0.0, 0.0, 0.0)
    if len(seconds) == 1:
        return (seconds[0], seconds[0], seconds[0])
    return statistics.median(seconds), statistics.quantiles(seconds, n=20)[-1], max(seconds)
