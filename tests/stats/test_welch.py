"""Welch t-tests with BH/BY: the corrections agree with scipy's, decisions and intervals agree."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from flamespace.errors import ArgumentError
from flamespace.stats import welch


@pytest.mark.parametrize("fdr", ["bh", "by"])
def test_adjust_matches_scipy(rng, fdr):
    p = rng.uniform(0, 0.2, 50) ** 2
    assert welch.adjust(p, fdr) == pytest.approx(stats.false_discovery_control(p, method=fdr))


def test_adjust_rejects_unknown_methods():
    with pytest.raises(ArgumentError, match="bh, by"):
        welch.adjust(np.array([0.1]), "holm")


def test_per_stack_p_values_match_scipy_welch(rng):
    x1, x2 = rng.normal(0, 1, (20, 6)), rng.normal(0.3, 2, (25, 6))
    for alternative in ("two-sided", "greater", "less"):
        result = welch.test(x1, x2, 0.05, alternative=alternative)
        expected = stats.ttest_ind(x2, x1, equal_var=False, alternative=alternative).pvalue
        assert result.p == pytest.approx(expected)


def test_intervals_exclude_zero_exactly_for_discoveries(rng):
    x1 = rng.normal(50, 4, (30, 40))
    x2 = rng.normal(50, 4, (30, 40))
    x2[:, :5] += 6
    result = welch.test(x1, x2, 0.05, fdr="bh", alternative="two-sided")
    excludes = (result.lower > 0) | (result.upper < 0)
    assert result.significant[:5].all()
    assert excludes.tolist() == result.significant.tolist()


def test_by_is_more_conservative_than_bh(rng):
    x1, x2 = rng.normal(0, 1, (20, 30)), rng.normal(0, 1, (20, 30))
    x2[:, :10] += 0.9
    bh, by = welch.test(x1, x2, 0.05, "bh"), welch.test(x1, x2, 0.05, "by")
    holm = welch.test(x1, x2, 0.05)
    assert (holm.p_adjusted >= bh.p_adjusted - 1e-12).all()
    assert (by.p_adjusted >= bh.p_adjusted).all()
    assert by.significant.sum() <= bh.significant.sum()


def test_holm_matches_statsmodels_formula():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # sorted 0.005·4, 0.01·3, 0.03·2, 0.04·1 -> 0.02, 0.03, 0.06, 0.06 (running maximum)
    assert welch.holm(p).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_a_stack_without_variance_gets_the_floor_not_p_zero():
    x1 = np.array([[0.0], [0.0], [0.0]])
    x2 = np.array([[1.0], [1.0], [1.0]])
    result = welch.test(x1, x2, 0.05)
    assert result.statistic[0] == pytest.approx(18**0.5)  # 1 / sqrt(2 · (1/12) / 3)
    assert 0 < result.p[0] < 0.01 and np.isfinite(result.lower[0])
