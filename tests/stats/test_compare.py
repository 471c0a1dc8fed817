"""compare(): method choice, Δ_r and its four-way split, margins, regressions, errors."""

from __future__ import annotations

import numpy as np
import pytest

import flamespace as fs
from flamespace.errors import ArgumentError, UnitMismatchError
from flamespace.stats import choose_method, compare

from .conftest import as_sample, counts


@pytest.fixture
def pair(rng):
    """Stack f0 grows 40%, f1 appears, f2 disappears, f3 shrinks 40%, f4..f9 unchanged."""
    means = np.array([200, 0, 80, 300, 100, 120, 140, 160, 180, 220], float)
    after = means * np.array([1.4, 1, 0, 0.6, 1, 1, 1, 1, 1, 1])
    after[1] = 90
    return as_sample(counts(rng, 30, means)), as_sample(counts(rng, 30, after))


@pytest.mark.parametrize("method", ["hotelling", "welch", "maxt"])
def test_every_method_finds_the_four_kinds_of_change(pair, method):
    result = compare(*pair, method=method, seed=1)
    kinds = {c.stack[-1]: c.kind for c in result.kept}
    assert kinds == {"f0": "grown", "f1": "appeared", "f2": "disappeared", "f3": "shrunk"}
    assert result.regressed and {c.stack[-1] for c in result.regressions} == {"f0", "f1"}
    assert result.p_value < 0.01


def test_reduced_difference_and_its_parts(pair):
    result = compare(*pair, method="welch")
    parts = result.parts
    assert set(parts.appeared) == {("main", "f1")} and set(parts.grown) == {("main", "f0")}
    assert set(parts.disappeared) == {("main", "f2")} and set(parts.shrunk) == {("main", "f3")}
    by_stack = {c.stack: c for c in result.changes}
    for stack, value in result.reduced.items():
        assert value == pytest.approx(by_stack[stack].delta)
    assert result.differential().delta == result.reduced
    assert result.unit == "samples"


def test_margins_drop_small_changes(pair):
    relative = compare(*pair, method="welch", min_rel=0.5)
    assert {c.stack[-1] for c in relative.kept} == {"f1", "f2"}  # appeared and gone: 100% changes
    absolute = compare(*pair, method="welch", min_delta=100)
    assert {c.stack[-1] for c in absolute.kept} == {"f3"}
    assert not absolute.regressed


def test_nothing_significant_between_samples_of_one_model(rng):
    means = np.linspace(50, 500, 12)
    result = compare(as_sample(counts(rng, 25, means)), as_sample(counts(rng, 25, means)), seed=0)
    assert result.kept == [] and not result.regressed
    assert result.parts.delta == fs.Delta()


def test_normalize_compares_shares(rng):
    means = np.array([100.0, 200.0, 300.0])
    slow = as_sample(counts(rng, 20, means * 2))  # twice as long, same shape
    result = compare(as_sample(counts(rng, 20, means)), slow, method="welch", normalize=True)
    assert result.unit == "share" and result.kept == []
    assert compare(as_sample(counts(rng, 20, means)), slow, method="welch").regressed


def test_auto_follows_the_documented_rule(pair):
    assert choose_method(10, 30, 30) == "welch" and choose_method(16, 30, 30) == "maxt"
    result = compare(*pair)
    assert result.method == "welch" and result.requested_method == "auto"
    assert "auto chose welch" in result.notes[0]


def test_accepts_flame_graphs():
    base = [fs.FlameGraph({("a",): 10 + i % 3, ("a", "b"): 5 + i % 2}) for i in range(10)]
    cand = [fs.FlameGraph({("a",): 10 + i % 3, ("a", "b"): 25 + i % 2}) for i in range(10)]
    result = compare(base, cand, method="welch")
    assert [c.stack for c in result.kept] == [("a", "b")]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"method": "magic"}, "unknown method"),
        ({"alpha": 1.5}, "alpha"),
        ({"min_delta": -1}, "≥ 0"),
    ],
)
def test_bad_arguments(pair, kwargs, message):
    with pytest.raises(ArgumentError, match=message):
        compare(*pair, **kwargs)


def test_needs_two_runs_and_one_unit(pair):
    one = [fs.FlameGraph({("a",): 1})]
    with pytest.raises(ArgumentError, match="baseline needs at least 2 runs"):
        compare(one, pair[1])
    with pytest.raises(UnitMismatchError, match="'ns'"):
        compare(pair[0], [fs.FlameGraph({("a",): 1}, unit="ns")] * 2)
