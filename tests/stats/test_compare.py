"""compare(): defaults, Δ_r and its four-way split, margins, regressions, detectable effects, errors."""

from __future__ import annotations

import numpy as np
import pytest

import flamespace as fs
from flamespace.errors import ArgumentError, UnitMismatchError
from flamespace.stats import compare

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
    result = compare(*pair, method=method, seed=1, alternative="two-sided")
    kinds = {c.stack[-1]: c.kind for c in result.kept}
    assert kinds == {"f0": "grown", "f1": "appeared", "f2": "disappeared", "f3": "shrunk"}
    assert result.regressed and {c.stack[-1] for c in result.regressions} == {"f0", "f1"}
    assert result.p_value < 0.01


def test_reduced_difference_and_its_parts(pair):
    result = compare(*pair, method="welch", alternative="two-sided")
    parts = result.parts
    assert set(parts.appeared) == {("main", "f1")} and set(parts.grown) == {("main", "f0")}
    assert set(parts.disappeared) == {("main", "f2")} and set(parts.shrunk) == {("main", "f3")}
    by_stack = {c.stack: c for c in result.changes}
    for stack, value in result.reduced.items():
        assert value == pytest.approx(by_stack[stack].delta)
    assert result.differential().delta == result.reduced
    assert result.unit == "samples"


def test_margins_drop_small_changes(pair):
    relative = compare(*pair, method="welch", min_rel=0.5, alternative="two-sided")
    assert {c.stack[-1] for c in relative.kept} == {"f1", "f2"}  # appeared and gone: 100% changes
    absolute = compare(*pair, method="welch", min_delta=100, alternative="two-sided")
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


def test_normalize_load_names_the_stack_that_grew_under_more_load(rng):
    """The candidate's runs carry 50% more load (every stack alike) and f0 costs 40% more again: the
    values call every stack slower, shares call f1-f9 smaller; over each run's load, f0 alone."""
    means = np.array([600, 100, 120, 140, 160, 180, 200, 220, 240, 260], float)
    base = as_sample(counts(rng, 20, means))
    cand = as_sample(counts(rng, 20, means * 1.5 * np.array([1.4] + [1] * 9)))
    assert len(compare(base, cand, seed=1).kept) == 10
    assert len(compare(base, cand, seed=1, normalize=True).kept) > 1
    result = compare(base, cand, seed=1, normalize_load=True)
    assert {c.stack[-1]: c.kind for c in result.kept} == {"f0": "grown"} and result.unit == "samples"
    (f0,) = result.kept
    assert f0.relative == pytest.approx(0.4, abs=0.08)  # Poisson counts of 600-1,260 a run, 20 runs a side
    assert any("each run divided by its load (the weighted median over 10 stacks" in n for n in result.notes)
    assert len(result.loads[0]) == 20 and np.median(result.loads[1]) == pytest.approx(1.5 * np.median(result.loads[0]), rel=0.1)


def test_the_mean_profiles_drawn_are_over_each_runs_load_too(rng):
    """compare --out's pictures: each side's mean profile of the runs divided by their loads, as tested."""
    from flamespace.render.comparison_files import mean_profiles

    means = np.array([600, 100, 120, 140, 160, 180], float)
    base, cand = as_sample(counts(rng, 12, means)), as_sample(counts(rng, 12, means * 2))
    result = compare(base, cand, normalize_load=True)
    drawn = mean_profiles(result, {"baseline": base, "candidate": cand})
    for graph, side in zip(drawn, ("baseline", "candidate")):
        assert {s: pytest.approx(v) for s, v in graph.items()} == {c.stack: getattr(c, side) for c in result.changes}
    fewer = mean_profiles(result, {"baseline": base.runs(list(range(6))), "candidate": cand})  # not the runs compared
    assert dict(fewer[1].items()) == {c.stack: c.candidate for c in result.changes}


def test_normalize_load_with_too_few_stacks_says_so(rng):
    means = np.array([100.0, 200.0, 300.0])
    result = compare(as_sample(counts(rng, 10, means)), as_sample(counts(rng, 10, means)), normalize_load=True)
    assert result.loads is None and any("not divided by load: fewer than 5" in n for n in result.notes)
    with pytest.raises(ArgumentError, match="choose one"):
        compare(as_sample(counts(rng, 10, means)), as_sample(counts(rng, 10, means)), normalize=True, normalize_load=True)


def test_the_default_tests_both_directions_family_wise(pair):
    result = compare(*pair, seed=1)
    assert (result.method, result.alternative, result.control) == ("maxt", "two-sided", "family-wise error")
    assert {c.stack[-1]: c.kind for c in result.kept} == {"f0": "grown", "f1": "appeared", "f2": "disappeared", "f3": "shrunk"}
    assert {c.stack[-1] for c in result.regressions} == {"f0", "f1"}
    regressions = compare(*pair, seed=1, alternative="greater")  # the gate's question: shrinking is not tested
    assert {c.stack[-1] for c in regressions.kept} == {"f0", "f1"} and all(c.lower > 0 for c in regressions.kept)
    improvements = compare(*pair, seed=1, alternative="less")
    assert {c.stack[-1] for c in improvements.kept} == {"f2", "f3"} and not improvements.regressed


@pytest.mark.parametrize("method", ["maxt", "welch", "hotelling"])
def test_a_stack_that_shrank_20_percent_is_reported_as_shrunk_by_default(rng, method):
    """What got faster fills shrunk and disappeared, and is no regression (under the one-sided
    default it was never tested: the two parts were always empty)."""
    means = np.array([1000.0, 300, 200, 100, 60])
    faster = means * np.array([0.8, 1, 1, 1, 0])  # f0 −20%, f4 gone
    result = compare(as_sample(counts(rng, 10, means)), as_sample(counts(rng, 10, faster)), method=method, seed=0)
    assert {c.stack[-1]: c.kind for c in result.kept} == {"f0": "shrunk", "f4": "disappeared"}
    assert set(result.parts.shrunk) == {("main", "f0")} and set(result.parts.disappeared) == {("main", "f4")}
    assert not result.regressed and not result.parts.grown and not result.parts.appeared


def test_fdr_is_asked_for_not_chosen_by_the_number_of_stacks(pair):
    result = compare(*pair, fdr="bh", seed=1, permutations=5000)
    assert result.control == "false-discovery rate (BH)" and result.options["fdr"] == "bh"
    assert {c.stack[-1] for c in result.kept} == {"f0", "f1", "f2", "f3"}
    assert compare(*pair, method="welch").control == "family-wise error (Holm)"


def test_detectable_effect_allows_for_the_noise_of_its_standard_error(pair):
    """detectable is (c + z)·se padded for a noisy se: above the normal figure, by less as runs grow."""
    from flamespace.stats import power
    from flamespace.stats._result import Moments, variance_floor
    from flamespace.stats.matrix import align

    result = compare(*pair, seed=1)
    _, x1, x2, _ = align(*pair)
    _, se, _ = Moments.of(x1, x2).welch(variance_floor(np.vstack([x1, x2])))
    for change, s in zip(result.changes, se):
        # maxt's lower bound is Δ − c·se with c its critical value: the normal figure is (Δ − lower) + z_0.8·se
        normal = change.delta - change.lower + power.z(0.8) * s
        assert normal < change.detectable < 2 * normal
    assert all(0 < c.detectable < np.inf for c in result.changes)


def test_too_few_runs_to_reach_alpha_are_named():
    base = [fs.FlameGraph({("a",): 10 + i, ("b",): 5}) for i in range(2)]
    cand = [fs.FlameGraph({("a",): 30 + i, ("b",): 5}) for i in range(2)]
    result = compare(base, cand)  # 2 + 2 runs: 6 relabellings, two-sided p ≥ 2/6 (a split and its mirror)
    assert result.smallest_p == pytest.approx(2 / 6) and not result.kept
    assert "no stack can be significant; 4 runs a side can reach α" in result.notes[0]
    one_sided = compare(base, cand, alternative="greater")
    assert one_sided.smallest_p == pytest.approx(1 / 6) and "3 runs a side can reach α" in one_sided.notes[0]
    assert all(c.detectable == np.inf for c in result.changes)


def test_accepts_flame_graphs():
    base = [fs.FlameGraph({("a",): 10 + i % 3, ("a", "b"): 5 + i % 2}) for i in range(10)]
    cand = [fs.FlameGraph({("a",): 10 + i % 3, ("a", "b"): 25 + i % 2}) for i in range(10)]
    result = compare(base, cand, method="welch")
    assert [c.stack for c in result.kept] == [("a", "b")]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"method": "magic"}, "unknown method"),
        ({"method": "auto"}, "choose one of maxt, welch, hotelling"),
        ({"alternative": "up"}, "unknown alternative"),
        ({"method": "hotelling", "fdr": "bh"}, "family-wise error only"),
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
