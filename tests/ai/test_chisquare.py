"""The tests' chi-squared helper, against values scipy.stats gave (chi2.sf, chisquare)."""

import pytest

from tests.ai.chisquare import chi_squared_pvalue, chi_squared_sf

# chi2.sf(3.7, dof) for dof 1..8
SF_AT_3_7 = [
    0.054412467991601404,
    0.1572371663136276,
    0.29573403237527585,
    0.44812592399383866,
    0.5933639617818078,
    0.717198024848034,
    0.8136101095426413,
    0.8831258203747877,
]


@pytest.mark.parametrize(("dof", "expected"), list(enumerate(SF_AT_3_7, 1)))
def test_the_survival_function_matches_scipy(dof: int, expected: float) -> None:
    assert chi_squared_sf(3.7, dof) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    ("observed", "expected", "pvalue"),
    [
        ([10, 20, 30], [20, 20, 20], 0.006737946999085468),
        ([48, 35, 15, 2], [50, 30, 15, 5], 0.4379661874823281),
        ([5, 7, 9, 11, 13, 15], [10] * 6, 0.22064030793671066),
    ],
)
def test_the_pvalue_matches_scipy(observed: list[int], expected: list[int], pvalue: float) -> None:
    assert chi_squared_pvalue(observed, expected) == pytest.approx(pvalue, rel=1e-12)


def test_edges() -> None:
    assert chi_squared_sf(0.0, 3) == 1.0
    assert chi_squared_sf(1e4, 7) == pytest.approx(0.0, abs=1e-300)
    with pytest.raises(ValueError):
        chi_squared_sf(1.0, 0)
    with pytest.raises(ValueError):
        chi_squared_pvalue([100], [100])
