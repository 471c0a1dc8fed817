"""Westfall–Young max-t: exact enumeration, one- and two-sided, seeded, finds real changes, holds α under A/A."""

from __future__ import annotations

import numpy as np
import pytest

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from flamespace.errors import ArgumentError
from flamespace.stats import maxt

from .conftest import counts


def test_same_seed_same_result_and_other_seed_differs(rng):
    x1, x2 = counts(rng, 20, np.full(30, 50.0)), counts(rng, 20, np.full(30, 50.0))
    a, b = maxt.test(x1, x2, 0.05, 200, seed=1), maxt.test(x1, x2, 0.05, 200, seed=1)
    c = maxt.test(x1, x2, 0.05, 200, seed=2)
    assert a.p_adjusted.tolist() == b.p_adjusted.tolist()
    assert a.p_adjusted.tolist() != c.p_adjusted.tolist()


def test_finds_the_changed_stack_only(rng):
    means = np.linspace(20, 400, 60)
    x1, x2 = counts(rng, 30, means), counts(rng, 30, means * np.r_[np.ones(59), 1.5])
    result = maxt.test(x1, x2, 0.05, 500, seed=0, alternative="two-sided")
    assert np.flatnonzero(result.significant).tolist() == [59]
    assert result.global_p == pytest.approx(1 / 501)
    assert result.lower[59] > 0


def test_adjusted_p_values_are_at_least_the_raw_ones(rng):
    x1, x2 = counts(rng, 15, np.full(40, 30.0)), counts(rng, 15, np.full(40, 30.0))
    result = maxt.test(x1, x2, 0.05, 300, seed=3)
    assert (result.p_adjusted >= result.p - 1e-12).all()
    assert ((result.p > 0) & (result.p <= 1)).all()


def test_a_stack_constant_in_each_group_but_different_is_found_by_its_rank_not_declared_certain():
    x1 = np.column_stack([np.arange(10.0), np.full(10, 3.0)])
    x2 = np.column_stack([np.arange(10.0)[::-1], np.full(10, 4.0)])
    result = maxt.test(x1, x2, 0.05, 100, seed=0)
    assert result.significant.tolist() == [False, True]
    assert result.p_adjusted[1] == pytest.approx(1 / 101)  # the observed labelling is the most extreme of 101
    assert np.isfinite(result.statistic).all()


def test_rejects_zero_permutations(rng):
    with pytest.raises(ArgumentError, match="permutations"):
        maxt.test(np.ones((3, 2)), np.ones((3, 2)), 0.05, 0)


def test_exact_enumeration_of_three_against_three():
    # a stack 0,0,0 -> 1,1,1 (no variance in either group) and one that did not change
    x1 = np.array([[0.0, 5], [0, 6], [0, 7]])
    x2 = np.array([[1.0, 6], [1, 5], [1, 7]])
    greater = maxt.test(x1, x2, 0.05)
    assert greater.details["exact"] == 1 and greater.details["relabellings"] == 20
    assert greater.p_adjusted[0] == pytest.approx(1 / 20) and greater.significant.tolist() == [True, False]
    assert greater.smallest_p == pytest.approx(1 / 20)
    assert greater.lower[0] > 0  # the interval agrees with the decision
    two = maxt.test(x1, x2, 0.05, alternative="two-sided")
    assert two.p_adjusted[0] == pytest.approx(2 / 20) and not two.significant.any()  # the mirror ties
    assert two.smallest_p == pytest.approx(0.1)
    less = maxt.test(x1, x2, 0.05, alternative="less")
    assert less.p_adjusted[0] == 1 and not less.significant.any()


def test_exact_p_values_are_permutation_ranks():
    rng = np.random.default_rng(5)
    x1, x2 = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)) + [2, 0, 0]
    result = maxt.test(x1, x2, 0.05)
    assert result.details["relabellings"] == 70
    assert (np.round(result.p * 70, 9) % 1 == 0).all() and (np.round(result.p_adjusted * 70, 9) % 1 == 0).all()


def test_enumeration_and_many_random_relabellings_agree():
    rng = np.random.default_rng(6)
    x1, x2 = rng.poisson(20, (5, 8)).astype(float), rng.poisson(24, (5, 8)).astype(float)
    exact = maxt.test(x1, x2, 0.05, 2000)
    sampled = maxt.test(x1, x2, 0.05, 251, seed=1)  # 252 relabellings: one more than the budget, so drawn
    assert exact.details["exact"] == 1 and sampled.details["exact"] == 0
    # 251 draws: a p-value's binomial s.e. ≤ 0.032; 5 s.e. gives a false-failure rate below 1e-5
    assert np.abs(exact.p_adjusted - sampled.p_adjusted).max() < 0.16


@settings(max_examples=40)
@given(
    arrays(np.float64, st.tuples(st.integers(2, 4), st.integers(1, 4)), elements=st.integers(0, 6).map(float)),
    arrays(np.float64, st.tuples(st.integers(2, 4), st.integers(1, 4)), elements=st.integers(0, 6).map(float)),
)
def test_p_values_are_probabilities_and_swapping_groups_swaps_the_alternative(a, b):
    columns = min(a.shape[1], b.shape[1])
    x1, x2 = a[:, :columns], b[:, :columns]
    greater = maxt.test(x1, x2, 0.05, alternative="greater")
    less = maxt.test(x2, x1, 0.05, alternative="less")
    for result in (greater, less):
        assert ((result.p > 0) & (result.p <= 1)).all() and ((result.p_adjusted > 0) & (result.p_adjusted <= 1)).all()
        assert (result.p_adjusted >= result.p - 1e-12).all() and np.isfinite(result.statistic).all()
    assert greater.p_adjusted == pytest.approx(less.p_adjusted) and greater.p == pytest.approx(less.p)


def test_fdr_intervals_exclude_zero_exactly_for_discoveries(rng):
    x1, x2 = counts(rng, 12, np.full(10, 40.0)), counts(rng, 12, np.full(10, 40.0))
    x2[:, :3] += 25
    result = maxt.test(x1, x2, 0.05, 4000, seed=2, fdr="bh", alternative="two-sided")
    excludes = (result.lower > 0) | (result.upper < 0)
    assert result.significant[:3].all() and excludes.tolist() == result.significant.tolist()


def aa_bound(reps: int, alpha: float, false_failure: float = 1e-4) -> int:
    """The count of false positives in ``reps`` A/A replications that a level-α test exceeds
    with probability below ``false_failure`` (binomial upper quantile)."""
    return int(stats.binom.isf(false_failure, reps, alpha))


@pytest.mark.parametrize("n", [3, 5])
def test_aa_false_positive_rate_holds_at_small_n(n):
    """Integer counts with rare stacks (the case that failed 8-9% of the time at 3 + 3)."""
    rng = np.random.default_rng(100 + n)
    means = np.r_[np.full(10, 0.4), np.linspace(2, 200, 20)]
    reps, alpha = 2000, 0.05  # a 3 + 3 test that called a stack 0,0,0 -> 1,1,1 certain flagged 11% here
    found = 0
    for r in range(reps):
        x1, x2 = counts(rng, n, means), counts(rng, n, means)
        found += bool(maxt.test(x1, x2, alpha, 300, seed=r).significant.any())
    assert found <= aa_bound(reps, alpha), f"{found} of {reps} A/A comparisons flagged a change"


@pytest.mark.parametrize("n, reps", [(5, 700), (10, 2000), (20, 700)])
def test_aa_compares_default_two_sided_test_holds_alpha(n, reps):
    """compare's default (both directions, one family-wise error) on the same model: its false
    reports, in either direction, are Binomial(reps, ≤ α); failing by chance has P < 1e-4.
    2,000 comparisons at n = 10 tell α from 2α (each direction at α: 0.08-0.11) with room to
    spare; 700 at the other sizes keep the three under a minute (compare is the whole path)."""
    from flamespace.stats import compare

    from .conftest import as_sample

    rng = np.random.default_rng(200 + n)
    means = np.r_[np.full(10, 0.4), np.linspace(2, 200, 20)]
    alpha = 0.05
    found = 0
    for r in range(reps):
        result = compare(as_sample(counts(rng, n, means)), as_sample(counts(rng, n, means)), permutations=300, seed=r)
        assert result.alternative == "two-sided"
        found += bool(result.kept)
    assert found <= aa_bound(reps, alpha), f"{found} of {reps} A/A comparisons reported a change"


def test_without_a_floor_an_infinite_t_ranks_as_an_extreme_not_as_zero():
    x1 = np.array([[0.0, 5], [0, 6], [0, 7]])
    x2 = np.array([[1.0, 6], [1, 5], [1, 7]])
    result = maxt.test(x1, x2, 0.05, floor=0.0)
    assert result.statistic[0] == np.inf
    assert result.p_adjusted[0] == pytest.approx(1 / 20)  # only the observed labelling reaches +∞
    two = maxt.test(x1, x2, 0.05, floor=0.0, alternative="two-sided")
    assert two.p_adjusted[0] == pytest.approx(2 / 20) and not np.isnan(two.lower).any()


# -- paired: the runs of one round of an interleaved collection ------------------------------


def test_paired_enumerates_every_sign_flip_and_reaches_one_over_2_to_the_n():
    x1 = np.array([[10.0], [20.0], [30.0], [40.0], [50.0]])  # drift: each round slower than the last
    x2 = x1 + np.array([[1.0], [2.0], [1.5], [1.2], [1.8]])  # yet every candidate run is above its partner
    paired = maxt.test(x1, x2, 0.05, alternative="greater", paired=True)
    assert paired.details["relabellings"] == 32 and paired.details["exact"] == 1
    assert paired.p_adjusted[0] == pytest.approx(1 / 32) and paired.significant[0]
    unpaired = maxt.test(x1, x2, 0.05, alternative="greater")
    assert not unpaired.significant[0]  # the drift swamps the change when every run is exchangeable


def test_paired_needs_as_many_runs_on_each_side():
    with pytest.raises(ArgumentError, match="as many baseline runs as candidate runs"):
        maxt.test(np.ones((3, 2)), np.ones((4, 2)), 0.05, paired=True)


def test_paired_holds_alpha_under_drift_that_breaks_the_unpaired_test():
    """A/A with a strong trend shared by the two runs of each round (a machine whose load
    grows through the collection), runs taken as baseline, candidate, baseline, ... The paired
    test must hold α; its rejections over 300 replications are Binomial(300, ≤ 0.05), and
    P(X ≥ 29) < 1e-4, the test's false-failure rate."""
    rng = np.random.default_rng(5)
    rejections = 0
    for r in range(300):
        trend = np.linspace(0, 200, 8)[:, None]
        x1 = rng.poisson(50, (8, 10)) + trend
        x2 = rng.poisson(50, (8, 10)) + trend + 200 / 14  # the candidate ran half a round later
        x2 -= 200 / 14  # ...and the same program: remove that half step to make it A/A
        rejections += bool(maxt.test(x1, x2, 0.05, 256, seed=r, paired=True).significant.any())
    assert rejections < 29


def coverage_bound(reps: int, level: float, false_failure: float = 1e-4) -> int:
    """The fewest covering replications of ``reps`` that intervals covering with probability
    ``level`` reach but with probability below ``false_failure`` (binomial lower quantile)."""
    return int(stats.binom.ppf(false_failure, reps, level))


@pytest.mark.parametrize("statistic", ["welch", "moderated"])
def test_simultaneous_intervals_cover_at_three_runs_a_side(statistic):
    """Every stack's interval holds its true Δ (0, or the growth of stack 5) in 90% of
    replications (one-sided α = 0.05: two-sided intervals at 1 − 2α). At 3 + 3 runs the observed
    maximum t often ties another relabelling's; the interval's end then sat 1e-14 beyond the truth
    by rounding while p counted the tie: 0.84 (failed before, with Welch's t)."""
    rng = np.random.default_rng(31)
    means = np.geomspace(2, 2000, 200)
    growth = np.zeros(200)
    growth[5] = 0.4 * means[5] * np.exp(0.05**2 / 2)  # the slowdown's mean: lognormal(0, 0.05)
    reps, covered = 1500, 0
    for r in range(reps):
        x1, x2 = counts(rng, 3, means), counts(rng, 3, means + growth / np.exp(0.05**2 / 2))
        result = maxt.test(x1, x2, 0.05, 300, seed=r, statistic=statistic)
        covered += bool(np.all((result.lower <= growth) & (growth <= result.upper)))
    assert covered >= coverage_bound(reps, 0.90), f"{covered} of {reps} replications covered every Δ"
