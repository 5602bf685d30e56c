"""Fitting the winning chance (``ai.calibration``): the slope, the Brier score, the table."""

from __future__ import annotations

import random

import pytest

from ai.analysis import win_chance
from ai.calibration import Sample, brier, fit_slope, reliability
from ai.evaluation import WIN

SCORES = list(range(-600, 601, 7))


def test_the_fit_recovers_the_slope_of_exact_chances() -> None:
    samples = [Sample(s, win_chance(s, 0.008)) for s in SCORES]
    assert fit_slope(samples) == pytest.approx(0.008, rel=1e-6)


def test_the_fit_recovers_the_slope_of_drawn_results() -> None:
    rng = random.Random(3)
    samples = []
    for _ in range(40):
        for s in SCORES:
            samples.append(Sample(s, 1.0 if rng.random() < win_chance(s, 0.004) else 0.0))
    assert fit_slope(samples) == pytest.approx(0.004, rel=0.1)


def test_draws_count_half_and_proved_results_are_left_out() -> None:
    draws = [Sample(s, 0.5) for s in SCORES]
    assert fit_slope(draws) == pytest.approx(0.0, abs=1e-12)
    samples = [Sample(s, win_chance(s, 0.01)) for s in SCORES]
    proved = [Sample(WIN - 40, 0.0), Sample(-(WIN - 40), 1.0)]  # would pull it anywhere
    assert fit_slope(samples + proved) == pytest.approx(0.01, rel=1e-6)
    with pytest.raises(ValueError, match="no sample"):
        fit_slope([Sample(0, 1.0), Sample(WIN - 3, 1.0)])


def test_brier_scores_predictions_against_results() -> None:
    results = [Sample(-100, 0.0), Sample(100, 1.0), Sample(0, 0.5)]
    assert brier(results) == pytest.approx((0.25 + 0.25 + 0.0) / 3)
    slope = 0.01
    expected = ((win_chance(-100, slope)) ** 2 + (1 - win_chance(100, slope)) ** 2) / 3
    assert brier(results, slope) == pytest.approx(expected)
    assert brier(results, slope) < brier(results)
    assert brier([Sample(WIN - 5, 1.0)], slope) == 0.0


def test_reliability_cuts_the_samples_into_tenths_by_predicted_chance() -> None:
    samples = [Sample(s, 1.0 if s > 0 else 0.0) for s in SCORES]
    table = reliability(samples, 0.005)
    assert len(table) == 10
    assert sum(b.count for b in table) == len(samples)
    assert max(b.count for b in table) - min(b.count for b in table) <= 1
    assert [b.predicted for b in table] == sorted(b.predicted for b in table)
    for b in table:
        assert b.low <= b.predicted <= b.high
    assert table[0].observed == 0.0 and table[-1].observed == 1.0
    assert len(reliability(samples[:3], 0.005)) == 3  # no empty tenth
