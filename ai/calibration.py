"""Fitting and checking ``ai.analysis.win_chance``: scores of positions against the results
of the games they came from.

A sample is a position's score (side to move's view) and the result the side to move got in
the end (1 a win, 0.5 a draw, 0 a loss). ``fit_slope`` finds by maximum likelihood the slope
``k`` of the logistic ``1 / (1 + exp(-k * score))`` (Newton's method on the log-likelihood,
which is concave in ``k``; a draw counts as half a win and half a loss). Proved wins and
losses are left out of the fit (their chance is 1 or 0 whatever ``k``). ``brier`` and
``reliability`` say how well a slope predicts: the mean squared error of the predicted
chances, and the predicted against the observed mean in each tenth of the samples sorted by
predicted chance.

The command that gathers samples from self-play games and prints all this is
``python -m bench.calibrate``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ai.analysis import win_chance
from ai.evaluation import MATE_BOUND


class Sample(NamedTuple):
    """A position's score (side to move's view) and that side's result (1, 0.5 or 0)."""

    score: int
    result: float


def fit_slope(samples: Sequence[Sample], *, iterations: int = 50) -> float:
    """The slope of the logistic that makes ``samples``' results likeliest (proved results
    left out).

    Raises:
        ValueError: No sample with a non-zero, unproved score.
    """
    data = [(s.score, s.result) for s in samples if 0 < abs(s.score) < MATE_BOUND]
    if not data:
        raise ValueError("no sample with a score to fit")
    k = 0.0
    for _ in range(iterations):
        gradient = 0.0
        curvature = 0.0
        for score, result in data:
            p = 1.0 / (1.0 + math.exp(-k * score))
            gradient += (result - p) * score
            curvature += p * (1.0 - p) * score * score
        if curvature == 0.0:
            break
        step = gradient / curvature
        k += step
        if abs(step) <= 1e-12 + 1e-9 * abs(k):
            break
    return k


def brier(samples: Sequence[Sample], slope: float | None = None) -> float:
    """The mean squared difference between the predicted chance (``win_chance`` with
    ``slope``; None: the constant 0.5) and the result."""
    if not samples:
        raise ValueError("no samples")
    total = 0.0
    for s in samples:
        p = 0.5 if slope is None else win_chance(s.score, slope)
        total += (p - s.result) ** 2
    return total / len(samples)


@dataclass(frozen=True)
class Bin:
    """A tenth of the samples, by predicted chance: its range, its mean predicted chance,
    the mean result observed, and how many samples it holds."""

    low: float
    high: float
    predicted: float
    observed: float
    count: int


def reliability(samples: Sequence[Sample], slope: float, bins: int = 10) -> list[Bin]:
    """The samples sorted by predicted chance and cut into ``bins`` groups of (nearly) equal
    size: predicted against observed in each (empty groups left out)."""
    predicted = sorted((win_chance(s.score, slope), s.result) for s in samples)
    out = []
    for i in range(bins):
        group = predicted[i * len(predicted) // bins : (i + 1) * len(predicted) // bins]
        if not group:
            continue
        out.append(
            Bin(
                low=group[0][0],
                high=group[-1][0],
                predicted=sum(p for p, _ in group) / len(group),
                observed=sum(r for _, r in group) / len(group),
                count=len(group),
            )
        )
    return out


__all__ = ["Bin", "Sample", "brier", "fit_slope", "reliability"]
