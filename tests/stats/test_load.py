"""stats.load: each run's load, the weighted median of its stacks' ratios to their usual values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from flamespace.stats.load import LOAD_STACKS, loads, weighted_medians

runs = arrays(
    float,
    st.tuples(st.integers(2, 12), st.integers(LOAD_STACKS, 9)),
    elements=st.floats(1.0, 1e6, allow_nan=False, allow_infinity=False),
)


@settings(max_examples=60, deadline=None)
@given(runs, st.floats(0.01, 100.0), st.randoms(use_true_random=False))
def test_loads_ignore_the_unit_and_follow_the_runs_order(values, k, random):
    """The same runs in another unit give the same loads; the runs in another order give theirs in
    that order (a function of all runs alike: what keeps the permutation test exact)."""
    order = list(range(len(values)))
    random.shuffle(order)
    found = loads(values)
    assert found is not None and np.all(found > 0)
    np.testing.assert_allclose(loads(values * k), found, rtol=1e-9)
    np.testing.assert_allclose(loads(values[order]), found[order], rtol=1e-12)


def test_stacks_that_scatter_weigh_less_than_those_that_hold_still():
    """Three stacks follow the load within 1%, three scatter by a factor of e: a plain median of six
    would mix them in; the weighted one reads the load from the three that hold still."""
    rng = np.random.default_rng(1)
    load = rng.uniform(0.5, 2.0, 40)
    still = np.outer(load, [100.0, 200, 300]) * rng.normal(1, 0.01, (40, 3))
    wild = np.outer(load, [400.0, 500, 600]) * rng.lognormal(0, 1.0, (40, 3))
    found = loads(np.hstack([still, wild]))
    np.testing.assert_allclose(found / np.median(found), load / np.median(load), rtol=0.03)
    both = np.hstack([still, wild])
    plain = np.median(both / np.median(both, axis=0), axis=1)
    assert np.max(np.abs(plain / np.median(plain) / (load / np.median(load)) - 1)) > 0.1  # what the weights save


def test_too_few_stacks_give_no_load():
    assert loads(np.ones((10, LOAD_STACKS - 1))) is None
    assert loads(np.hstack([np.ones((10, LOAD_STACKS - 1)), np.zeros((10, 3))])) is None  # stacks at 0 do not count


@pytest.mark.parametrize(
    "row, weights, median",
    [([3.0, 1.0, 2.0], [1 / 3] * 3, 2.0), ([3.0, 1.0, 2.0], [0.6, 0.2, 0.2], 3.0), ([5.0, 1.0, 4.0, 2.0], [0.25] * 4, 2.0)],
)
def test_weighted_medians(row, weights, median):
    assert weighted_medians(np.array([row]), np.array(weights))[0] == median
