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
    result = welch.test(x1, x2, 0.05)
    expected = stats.ttest_ind(x2, x1, equal_var=False).pvalue
    assert result.p == pytest.approx(expected)


def test_intervals_exclude_zero_exactly_for_discoveries(rng):
    x1 = rng.normal(50, 4, (30, 40))
    x2 = rng.normal(50, 4, (30, 40))
    x2[:, :5] += 6
    result = welch.test(x1, x2, 0.05)
    excludes = (result.lower > 0) | (result.upper < 0)
    assert result.significant[:5].all()
    assert excludes.tolist() == result.significant.tolist()


def test_by_is_more_conservative_than_bh(rng):
    x1, x2 = rng.normal(0, 1, (20, 30)), rng.normal(0, 1, (20, 30))
    x2[:, :10] += 0.9
    bh, by = welch.test(x1, x2, 0.05, "bh"), welch.test(x1, x2, 0.05, "by")
    assert (by.p_adjusted >= bh.p_adjusted).all()
    assert by.significant.sum() <= bh.significant.sum()
