"""The C loop over relabellings (stats/_maxt.c) against the numpy path it replaces.

Both compute each relabelling's t by the same operations but for the order of the sums over
runs (and divisions by n made products with 1/n), so statistics agree to rounding (relative
1e-9 here, against ~1e-15 seen) and counts (p-values) agree exactly: a relabelled t equal to
the observed one in exact arithmetic counts as exceeding it on both paths (the tie band of
maxt.TIES is 10^6 times wider than the rounding), and integer-valued data (profiles' counts,
here scaled by a unit) leave no distinct values closer than that.

That needs a positive variance floor (the default δ²/12, or any other): t is then a continuous
function of the sums. With floor 0 a group whose variance is 0 in exact arithmetic gets ±1e-13
of rounding on either path, and its t is ±inf on one and ±1e14 on the other, so floor 0 is
compared on data where no relabelled group has a variance of 0.
"""

from __future__ import annotations


import numpy as np
import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from flamespace.stats import maxt

pytestmark = pytest.mark.skipif(maxt._core is None, reason="built without the C extension")

RTOL = 1e-9


def close(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal within rounding, infinities (floor 0) equal as they are. Rounding is judged against
    the array's largest finite value too: an interval's end near 0 is the difference of numbers
    as large as the others (an end of -6e-10 against -2.6e-9 where the others were 4e5)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    finite = np.abs(b[np.isfinite(b)])
    scale = np.maximum(np.abs(b), max(1.0, float(finite.max()) if finite.size else 1.0))
    with np.errstate(invalid="ignore"):  # inf − inf where both are the same infinity
        return bool(np.all(same | (np.abs(a - b) <= RTOL * scale)))


def both(
    x1: np.ndarray,
    x2: np.ndarray,
    permutations: int,
    seed: int,
    alternative: str,
    fdr: str | None,
    paired: bool,
    floor: float | None,
    statistic: str = "welch",
):
    core = maxt._core
    fast = maxt.test(x1, x2, 0.05, permutations, seed, alternative, fdr, floor=floor, paired=paired, statistic=statistic)
    try:
        maxt._core = None
        slow = maxt.test(x1, x2, 0.05, permutations, seed, alternative, fdr, floor=floor, paired=paired, statistic=statistic)
    finally:
        maxt._core = core
    return fast, slow


def assert_same(fast, slow) -> None:
    for name in ("p", "p_adjusted", "significant", "statistic", "se"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name
    for name in ("lower", "upper", "critical"):
        assert close(getattr(fast, name), getattr(slow, name)), name
    assert fast.global_p == slow.global_p and fast.details == slow.details and fast.notes == slow.notes


@st.composite
def samples(draw):
    n1 = draw(st.integers(2, 9))
    paired = draw(st.booleans())
    n2 = n1 if paired else draw(st.integers(2, 9))
    p = draw(st.integers(1, 40))  # across the 16-stack blocks and the padded last one
    high = draw(st.sampled_from([1, 3, 50, 10_000]))  # 1: mostly 0/1, where the variance floor decides
    unit = draw(st.sampled_from([1.0, 0.25, 1e-3, 37.5]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    x1 = rng.integers(0, high + 1, size=(n1, p)) * unit
    x2 = (rng.integers(0, high + 1, size=(n2, p)) + rng.integers(0, 2, size=p)) * unit
    return x1, x2, paired


@settings(max_examples=150, deadline=None)
@given(
    samples(),
    st.sampled_from([5, 60, 500, 3000]),
    st.integers(0, 1000),
    st.sampled_from(["greater", "less", "two-sided"]),
    st.sampled_from([None, "bh"]),
    st.sampled_from([None, 0.02]),
    st.sampled_from(["welch", "moderated"]),
)
def test_the_c_loop_gives_the_numpy_results(sample, permutations, seed, alternative, fdr, floor, statistic):
    # permutations from 5 (random relabellings) to 3000 (every one, up to 9 + 9 runs... when few)
    x1, x2, paired = sample
    fast, slow = both(x1, x2, permutations, seed, alternative, fdr, paired, floor, statistic)
    assert_same(fast, slow)


@pytest.mark.parametrize("paired", [False, True])
def test_floor_zero_agrees_where_no_group_is_constant(paired):
    rng = np.random.default_rng(5)
    x1 = rng.normal(100.0, 10.0, size=(6, 50))  # continuous: no two values equal, no variance 0
    x2 = rng.normal(104.0, 10.0, size=(6, 50))
    for alternative in ("greater", "two-sided"):
        fast, slow = both(x1, x2, 300, 1, alternative, None, paired, 0.0)
        assert_same(fast, slow)


@pytest.mark.parametrize("paired", [False, True])
@pytest.mark.parametrize("statistic", ["welch", "moderated"])
def test_a_profile_sized_test_agrees(paired, statistic):
    rng = np.random.default_rng(7)
    means = rng.gamma(0.5, 40.0, size=1000)
    x1 = rng.poisson(means, size=(20, 1000)).astype(float)
    x2 = rng.poisson(means * np.r_[np.ones(990), np.full(10, 1.8)], size=(20, 1000)).astype(float)
    fast, slow = both(x1, x2, 400, 3, "greater", None, paired, None, statistic)
    assert fast.details.get("prior_df", 9.0) > 0  # moderated: a prior was used
    assert_same(fast, slow)
    assert fast.significant[990:].sum() >= 5  # a real test, not two empty ones


def test_reductions_and_every_t_match_the_numpy_path():
    rng = np.random.default_rng(11)
    x1, x2 = rng.poisson(30, size=(7, 37)).astype(float), rng.poisson(33, size=(6, 37)).astype(float)
    t, _, made, batches, _, _ = maxt._statistics(x1, x2, 1 / 12, False, 100, 100, np.random.default_rng(0))
    labels = next(batches)
    threshold = t - 1e-9
    for alternative in ("greater", "less", "two-sided"):
        high, low, exceed, every = made.reduce(labels, threshold, alternative, True, maxt._core)
        high0, low0, exceed0, every0 = made.reduce(labels, threshold, alternative, True, None)
        assert every is not None and every0 is not None
        assert close(every, every0) and close(high, high0) and close(low, low0)
        assert np.array_equal(exceed, exceed0)
        assert np.array_equal(high, every.max(axis=1)) and np.array_equal(low, (-every).max(axis=1))


def test_labels_must_put_n1_runs_in_group_one():
    x1, x2 = np.ones((3, 4)), np.zeros((3, 4))
    _, _, made, _, _, _ = maxt._statistics(x1, x2, 0.1, False, 10, 10, np.random.default_rng(0))
    bad = np.zeros((1, 6), dtype=np.uint8)
    with pytest.raises(ValueError, match="group 1"):
        made.reduce(bad, np.zeros(4), "greater", False, maxt._core)
