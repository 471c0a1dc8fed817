"""Change points: known answers, the stated false-positive rate, and invariants.

Seeds are fixed, so each test is deterministic; the rate tests also hold for any seed, with
bounds taken from the binomial distribution at a false-failure rate of 1e-4 (no flakes when
the seeds or numpy's generator change).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from flamespace.errors import ArgumentError
from flamespace.stats import changepoint
from flamespace.stats.changepoint import detect

FALSE_FAILURE = 1e-4


def test_a_step_at_a_known_index_is_found_with_its_levels():
    rng = np.random.default_rng(1)
    x = rng.normal(100, 2, 60)
    x[25:] += 10  # 5 standard deviations
    result = detect(x, labels=[f"c{i}" for i in range(60)])
    assert [c.index for c in result.points] == [25]
    (c,) = result.points
    assert c.label == "c25" and c.p == pytest.approx(1 / 1000)  # no permutation reaches it: the smallest p of 999
    # the levels are means of 25 and 35 points of sd 2: within 5 standard errors (about 2 and 1.7)
    assert c.before == pytest.approx(100, abs=5 * 2 / 25**0.5) and c.after == pytest.approx(110, abs=5 * 2 / 35**0.5)
    assert c.relative == pytest.approx((c.after - c.before) / c.before) and c.change == pytest.approx(c.after - c.before)


def test_two_steps_are_both_found_and_segments_bound_the_levels():
    rng = np.random.default_rng(2)
    x = rng.normal(50, 1, 90)
    x[30:] += 6
    x[60:] -= 12
    # α = 0.01: at 0.05 the first stretch's last three low points (p = 0.045) are a third, false,
    # change, which each flat stretch shows at rate α; this test is about the two real ones
    result = detect(x, alpha=0.01)
    assert [c.index for c in result.points] == [30, 60]
    first, second = result.points
    assert first.after == pytest.approx(second.before)  # the middle segment is one level
    assert [(a, b) for a, b, _ in result.segments] == [(0, 30), (30, 60), (60, 90)]
    assert second.relative < 0 < first.relative


def test_exact_p_value_of_a_short_series():
    """6 points: every one of the 720 orderings is tested. Only the 2 · 3! · 3! = 72 that put the
    three 1s together at one end split the series as well as the observed one."""
    result = detect([0, 0, 0, 1, 1, 1], alpha=0.2)
    (c,) = result.points
    assert c.index == 3 and c.p == pytest.approx(72 / 720)
    assert c.before == 0 and c.after == 1 and c.relative == math.inf
    assert detect([0, 0, 0, 1, 1, 1], alpha=0.05).points == ()  # 0.1 > α: six points cannot say more


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_smallest_p_is_the_p_of_a_clean_split_in_the_middle(n):
    x = [0.0] * (n // 2) + [1.0] * (n - n // 2)
    (c,) = detect(x, alpha=0.5, min_size=1).points
    assert c.p == pytest.approx(changepoint.smallest_p(n))


def test_several_runs_per_point_are_averaged():
    runs = [[10, 12], [11], [9, 11, 10], [20, 22], [21, 19], [20]]
    result = detect(runs, alpha=0.2)
    assert result.levels == (11, 11, 10, 21, 20, 20)
    assert [c.index for c in result.points] == [3]


def test_a_constant_series_has_no_change():
    assert detect([5.0] * 40).points == ()


@pytest.mark.parametrize("n, runs", [(30, 1), (12, 3)])
def test_a_flat_series_reports_a_change_at_most_at_the_stated_rate(n, runs):
    """A/A: flat noisy series. The count of series that report a change is Binomial(reps, ≤ α)
    (α · (B + 1) = 10 is whole: the random-permutation test is exact); it must stay below the
    binomial's 1e-4 upper quantile and (a test that never rejects is no test) above its lower one."""
    rng = np.random.default_rng(100 + n)
    reps, alpha = 400, 0.05
    flagged = sum(
        bool(detect(rng.lognormal(3, 0.2, (n, runs)), alpha=alpha, permutations=199, seed=r).points) for r in range(reps)
    )
    assert flagged <= stats.binom.isf(FALSE_FAILURE, reps, alpha), f"{flagged} of {reps} flat series reported a change"
    assert flagged >= stats.binom.ppf(FALSE_FAILURE, reps, alpha), f"only {flagged} of {reps}: the test is far below its level"


def test_the_same_seed_gives_the_same_answer():
    rng = np.random.default_rng(3)
    x = rng.normal(0, 1, 40)
    x[20:] += 0.9  # a weak step: p near α, where the draws matter
    first, second = detect(x, seed=7), detect(x, seed=7)
    assert first == second


integers = arrays(np.float64, st.integers(4, 40), elements=st.integers(0, 20).map(float))


@settings(max_examples=60, deadline=None)
@given(integers, st.sampled_from([1e-3, 0.5, 3.0, 1e3, -2.0]), st.sampled_from([0.0, -7.5, 1000.0]))
def test_change_points_are_invariant_to_shift_and_scale(x, a, b):
    plain = detect(x, alpha=0.2, permutations=99)
    moved = detect(a * x + b, alpha=0.2, permutations=99)
    assert [c.index for c in moved.points] == [c.index for c in plain.points]
    assert [c.p for c in moved.points] == pytest.approx([c.p for c in plain.points])
    for p, m in zip(plain.points, moved.points):
        assert m.before == pytest.approx(a * p.before + b, abs=1e-6 * abs(a)) and m.after == pytest.approx(
            a * p.after + b, abs=1e-6 * abs(a)
        )


@settings(max_examples=60, deadline=None)
@given(integers, st.integers(1, 3))
def test_change_points_split_the_series_into_segments_of_at_least_min_size(x, min_size):
    result = detect(x, alpha=0.5, permutations=49, min_size=min_size)
    indices = [c.index for c in result.points]
    bounds = [0, *indices, len(x)]
    assert all(b - a >= min_size for a, b in zip(bounds, bounds[1:]))
    assert all(0 < c.p <= 0.5 for c in result.points)
    assert sum((b - a) * level for a, b, level in result.segments) == pytest.approx(float(x.sum()))


def test_cusum_peaks_at_the_step():
    x = np.r_[np.zeros(5), np.ones(15)]
    t = changepoint.cusum(x, 1)  # splits k = 1 .. 19
    assert int(np.argmax(t)) + 1 == 5


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"alpha": 0}, "alpha"),
        ({"permutations": 0}, "permutations"),
        ({"min_size": 0}, "min_size"),
        ({"labels": ["a"]}, "1 labels for 3 points"),
    ],
)
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ArgumentError, match=message):
        detect([1.0, 2.0, 3.0], **kwargs)


def test_a_point_without_runs_or_a_nan_is_an_error():
    with pytest.raises(ArgumentError, match="point 1 of the series has no runs"):
        detect([[1.0], [], [2.0]])
    with pytest.raises(ArgumentError, match="point 2 of the series is not a finite number"):
        detect([1.0, 2.0, math.nan])


def test_random_orderings_stop_once_enough_reach_the_statistic():
    rng = np.random.default_rng(0)
    x = rng.normal(0, 1, 50)
    x -= x.mean()
    every = changepoint._sequential_p(x, 0.0, 2, 999, np.random.default_rng(1))
    assert every == 1.0  # all orderings reach 0: stopped at the 20th, p = 20/20
    none = changepoint._sequential_p(x, math.inf, 2, 999, np.random.default_rng(1))
    assert none == pytest.approx(1 / 1000)  # none reaches it: all 999 drawn
    # a statistic that about half the orderings reach: stopped near 40 orderings, p near 1/2
    t = float(
        np.median(
            changepoint.cusum(np.random.default_rng(2).permuted(np.broadcast_to(x, (401, 50)), axis=1), 2, True).max(axis=1)
        )
    )
    half = changepoint._sequential_p(x, t, 2, 999, np.random.default_rng(3))
    assert 0.2 < half <= 1.0  # 20 / L with L ~ NegativeBinomial: below 0.2 has probability < 1e-6


def timing_like(rng, n, step):
    """n points of 1-5 profiles: 150 ms ± 4%, 2.5% of profiles stalled (doubled), ``step`` from the middle on."""
    out = []
    for i in range(n):
        runs = 150 * (1 + 0.04 * rng.normal(0, 1, int(rng.integers(1, 6))))
        runs[rng.random(runs.size) < 0.025] *= 2
        out.append(runs * (1 + step) if i >= n // 2 else runs)
    return out


def test_an_eight_percent_step_among_stalls_is_found_and_sized():
    """Issue 26 item 6: on 30 points the mean CUSUM found this step in 33% of series, the winsorised
    weighted test in 92% (benchmarks/bench_changepoint.py --timing, 2000 series). Found in at least
    80 of 100 fails with probability < 1e-4 at 92%; at 33% it cannot pass. The mean reported size
    (≈ +8.0%, sd of one ≈ 1.5 points) must lie within a third of the step (5.3% .. 10.7%)."""
    rng = np.random.default_rng(26)
    reps = 100
    found = [detect(timing_like(rng, 30, 0.08), seed=r).points for r in range(reps)]
    sizes = [c[0].relative for c in found if c and abs(c[0].index - 15) <= 2]
    assert len(sizes) >= stats.binom.ppf(FALSE_FAILURE, reps, 0.92), f"found in {len(sizes)} of {reps}"
    assert abs(np.mean(sizes) - 0.08) <= 0.08 / 3


def test_flat_series_of_unequal_points_report_a_change_at_most_at_the_stated_rate():
    """Points of 1-5 profiles with stalls and no step: the count reporting a change is at most
    Binomial(400, α) (below its 1e-4 upper quantile). A guard: the mean CUSUM also passed it on this
    noise (the 0.098 of issue 26 came from another set-up, not reproduced here)."""
    rng = np.random.default_rng(27)
    reps, alpha = 400, 0.05
    flagged = sum(bool(detect(timing_like(rng, 30, 0.0), alpha=alpha, seed=r).points) for r in range(reps))
    assert flagged <= stats.binom.isf(FALSE_FAILURE, reps, alpha), f"{flagged} of {reps} flat series reported a change"


def test_a_tie_in_where_to_split_is_broken_alike_at_every_scale():
    """Found by hypothesis: [0, 5, 7, 9, 9] costs 7 split after the 2nd or the 3rd point; at 0.001
    times the values, rounding made the 3rd cheaper and the change point moved (it failed before)."""
    x = np.array([0.0, 5.0, 7.0, 9.0, 9.0])
    plain = detect(x, alpha=0.2, permutations=99)
    for a, b in ((1e-3, 0.0), (1e3, -7.5), (-2.0, 1000.0)):
        assert [c.index for c in detect(a * x + b, alpha=0.2, permutations=99).points] == [c.index for c in plain.points]
