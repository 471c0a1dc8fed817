"""Hotelling's T² as in Tornetta §3: the paper's example, pyrometry, refusals, singular covariance."""

from __future__ import annotations

import numpy as np
import pytest

from flamespace.errors import ArgumentError
from flamespace.stats import hotelling


def test_example_3_1_intervals_follow_the_formula():
    # f1 = [1e5, 2e5, 3e5], f2 = [1.001e5, 4e5, 2.998e5]; pooled variances 5000, 7500, 10000;
    # n1 = n2 = 100, F* = 3.8. The paper prints intervals without the n1·n2/(n1+n2) factor.
    delta = np.array([1.001e5, 4e5, 2.998e5]) - np.array([1e5, 2e5, 3e5])
    lower, upper = hotelling.intervals(delta, np.array([5000.0, 7500.0, 10000.0]), 100, 100, 3, 3.8)
    assert np.round(lower, 1).tolist() == [66.1, 199958.4, -248.0]
    assert np.round(upper, 1).tolist() == [133.9, 200041.6, -152.0]


def test_g_squared():
    assert hotelling.g_squared(100, 100, 3) == pytest.approx(196 / (198 * 3) * 50)


@pytest.mark.parametrize("seed", range(5))
def test_matches_pyrometry(seed):
    stats = pytest.importorskip("pyrometry.stats", reason="pyrometry is in the test extra: pip install pyrometry")
    rng = np.random.default_rng(seed)
    p = 8
    cov = np.diag(rng.uniform(1, 4, p)) + 0.5
    x = rng.multivariate_normal(np.zeros(p), cov, size=30)
    shift = np.zeros(p)
    shift[: seed % 3 + 1] = 1.5
    y = rng.multivariate_normal(shift, cov, size=25)
    _, their_f, their_p, their_set = stats.hotelling_two_sample_test(x, y, 0.05)
    ours = hotelling.test(x, y, 0.05)
    assert ours.global_statistic == pytest.approx(their_f, rel=1e-9)
    assert ours.global_p == pytest.approx(their_p, rel=1e-6, abs=1e-15)
    scheffe = (ours.lower > 0) | (ours.upper < 0)
    assert scheffe.tolist() == [bool(s) for s in their_set]
    assert (ours.significant >= scheffe).all()  # closed testing rejects at least what the intervals do


def test_finds_a_large_change_and_its_interval_covers_it(rng):
    x1 = rng.normal(100, 5, (40, 4))
    x2 = rng.normal(100, 5, (40, 4))
    x2[:, 1] += 30
    result = hotelling.test(x1, x2, 0.05)
    assert result.significant.tolist() == [False, True, False, False]
    assert result.lower[1] < 30 < result.upper[1]
    assert result.global_p < 1e-10


def test_refuses_when_there_are_too_many_stacks(rng):
    with pytest.raises(ArgumentError, match="welch or maxt"):
        hotelling.test(rng.normal(size=(10, 30)), rng.normal(size=(10, 30)), 0.05)


def test_constant_stacks_are_left_out_not_declared_certain(rng):
    x1 = np.column_stack([rng.normal(10, 1, 20), np.full(20, 5.0), np.full(20, 7.0)])
    x2 = np.column_stack([rng.normal(10, 1, 20), np.full(20, 6.0), np.full(20, 7.0)])
    result = hotelling.test(x1, x2, 0.05)
    assert result.significant.tolist() == [False, False, False]
    assert result.p_adjusted[1] == 1 and np.isinf(result.upper[1])
    assert any("2 stack(s) without variance" in note and "left out" in note for note in result.notes)


def test_closed_testing_controls_each_stack_and_finds_what_the_intervals_miss():
    rng = np.random.default_rng(3)
    cov = np.eye(6) + 0.3
    x1 = rng.multivariate_normal(np.zeros(6), cov, size=15)
    x2 = rng.multivariate_normal(np.r_[1.4, np.zeros(5)], cov, size=15)
    result = hotelling.test(x1, x2, 0.05)
    scheffe = (result.lower > 0) | (result.upper < 0)
    assert result.significant.tolist() == [True] + [False] * 5 and not scheffe[0]
    assert (result.p_adjusted >= result.global_p - 1e-12).all()  # every subset test includes the global one


def test_closed_testing_p_values_by_hand():
    # two stacks: p_k = max(p_{k}, p_{1,2})
    x1 = np.array([[0.0, 1], [1, 0], [2, 2], [1, 3], [0, 1]])
    x2 = np.array([[3.0, 1], [2, 1], [4, 2], [3, 0], [2, 2]])
    d = x2.mean(0) - x1.mean(0)
    c = (np.cov(x1.T) * 4 + np.cov(x2.T) * 4) / 8
    _, single, _ = hotelling.f_tests(d[:, None], c[np.arange(2)][:, [0, 1]].diagonal()[:, None, None], 5, 5)
    _, both, _ = hotelling.f_tests(d, c, 5, 5)
    assert hotelling.closed_p(d, c, 5, 5) == pytest.approx(np.maximum(single, both))


def test_one_sided_alternative_is_said_to_be_tested_two_sided(rng):
    result = hotelling.test(rng.normal(size=(20, 3)), rng.normal(size=(20, 3)), 0.05, "greater")
    assert any("two-sided" in note for note in result.notes)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_raw_p_follows_the_alternative_and_only_its_direction_is_significant(rng, alternative):
    """Stack 0 grows, stack 1 shrinks, by 8 s.e. each: the raw p is the one-sided t test's (half
    the two-sided p in the tested direction, above 1/2 against it), and of the two changes the
    F tests find only the one in the tested direction counts."""
    from scipy import stats

    x1 = rng.normal(100, 5, (20, 4))
    x2 = rng.normal(100, 5, (20, 4))
    x2[:, 0] += 12
    x2[:, 1] -= 12
    two = hotelling.test(x1, x2, 0.05, "two-sided")
    one = hotelling.test(x1, x2, 0.05, alternative)
    expected = stats.ttest_ind(x2, x1, alternative=alternative).pvalue  # pooled-variance t, as Hotelling's
    assert one.p == pytest.approx(expected, rel=1e-9)
    assert two.p == pytest.approx(stats.ttest_ind(x2, x1).pvalue, rel=1e-9)
    toward, against = (0, 1) if alternative == "greater" else (1, 0)
    assert one.p[toward] == pytest.approx(two.p[toward] / 2) and one.p[against] > 0.5
    assert two.significant.tolist() == [True, True, False, False]
    assert one.significant.tolist() == [i == toward for i in range(4)]
    assert one.p_adjusted[toward] == pytest.approx(two.p_adjusted[toward]) and one.p_adjusted[against] > 0.5
    assert (one.p_adjusted >= one.p).all()


def test_a_one_sided_comparison_states_the_level_of_hotellings_intervals(rng):
    """Scheffé's intervals are at 1 − α whatever the direction tested; the report said 1 − 2α
    (maxt's rule for one-sided tests) under --alternative greater."""
    from flamespace.stats import compare, report

    from .conftest import as_sample, counts

    x1, x2 = counts(rng, 20, np.array([100.0, 200, 300])), counts(rng, 20, np.array([150.0, 200, 300]))
    one = compare(as_sample(x1), as_sample(x2), method="hotelling", alternative="greater")
    two = compare(as_sample(x1), as_sample(x2), method="hotelling", alternative="two-sided")
    assert [(c.lower, c.upper) for c in one.changes] == [(c.lower, c.upper) for c in two.changes]
    assert report.as_dict(one)["interval"]["level"] == report.as_dict(two)["interval"]["level"] == pytest.approx(0.95)
    assert report.interval_line(one).startswith("Intervals for Δ: 95% simultaneous")


def test_rank_deficient_covariance_uses_the_spanned_subspace(rng):
    shares = rng.dirichlet([20, 30, 50], size=40)  # rows sum to 1: covariance of rank 2
    other = rng.dirichlet([20, 30, 50], size=40)
    result = hotelling.test(shares, other, 0.05)
    assert result.details["df1"] == 2
    assert any("rank 2" in note for note in result.notes)
    assert 0 <= result.global_p <= 1
