"""Westfall–Young max-|t|: seeded, finds real changes, adjusted p-values are family-wise."""

from __future__ import annotations

import numpy as np
import pytest

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
    result = maxt.test(x1, x2, 0.05, 500, seed=0)
    assert np.flatnonzero(result.significant).tolist() == [59]
    assert result.global_p == pytest.approx(1 / 501)
    assert result.lower[59] > 0


def test_adjusted_p_values_are_at_least_the_raw_ones(rng):
    x1, x2 = counts(rng, 15, np.full(40, 30.0)), counts(rng, 15, np.full(40, 30.0))
    result = maxt.test(x1, x2, 0.05, 300, seed=3)
    assert (result.p_adjusted >= result.p - 1e-12).all()
    assert ((result.p > 0) & (result.p <= 1)).all()


def test_a_stack_constant_in_each_group_but_different_is_certain():
    x1 = np.column_stack([np.arange(10.0), np.full(10, 3.0)])
    x2 = np.column_stack([np.arange(10.0)[::-1], np.full(10, 4.0)])
    result = maxt.test(x1, x2, 0.05, 100, seed=0)
    assert result.significant.tolist() == [False, True]


def test_rejects_zero_permutations(rng):
    with pytest.raises(ArgumentError, match="permutations"):
        maxt.test(np.ones((3, 2)), np.ones((3, 2)), 0.05, 0)
