"""Pearson's chi-squared goodness-of-fit test, for the tests of random draws (stdlib only)."""

from __future__ import annotations

import math
from collections.abc import Sequence


def chi_squared_sf(x: float, dof: int) -> float:
    """P(X >= x) for X chi-squared with ``dof`` degrees of freedom (exact closed forms: a
    Poisson sum for an even ``dof``, the normal tail plus a finite sum for an odd one)."""
    if dof < 1:
        raise ValueError(f"dof must be at least 1, not {dof!r}")
    if x <= 0:
        return 1.0
    half = x / 2
    if dof % 2 == 0:
        term = total = math.exp(-half)
        for j in range(1, dof // 2):
            term *= half / j
            total += term
        return min(total, 1.0)
    total = math.erfc(math.sqrt(half))
    term = math.sqrt(2 / math.pi) * math.sqrt(x) * math.exp(-half)
    for r in range(1, (dof + 1) // 2):
        total += term
        term *= x / (2 * r + 1)
    return min(total, 1.0)


def chi_squared_pvalue(observed: Sequence[float], expected: Sequence[float]) -> float:
    """The p-value of observed counts against expected ones (as ``scipy.stats.chisquare``,
    with ``len(observed) - 1`` degrees of freedom)."""
    if len(observed) != len(expected) or len(observed) < 2:
        raise ValueError("give two or more categories, as many expected counts as observed")
    statistic = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    return chi_squared_sf(statistic, len(observed) - 1)
