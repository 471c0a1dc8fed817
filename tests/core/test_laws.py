"""Algebraic laws of the flame-graph vector space (DESIGN.md §9), checked by hypothesis."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

import flamespace as fs
from flamespace.formats import folded

from ..strategies import graphs

scalars = st.integers(min_value=0, max_value=1000)


@given(graphs(), graphs())
def test_addition_commutes(a, b):
    assert a + b == b + a


@given(graphs(), graphs(), graphs())
def test_addition_associates(a, b, c):
    assert (a + b) + c == a + (b + c)


@given(graphs(), graphs())
def test_subtraction_undoes_addition(a, b):
    assert (a + b) - b == a


@given(graphs())
def test_zero_is_neutral_and_self_difference_is_zero(a):
    assert a + fs.FlameGraph() == a
    assert len(a - a) == 0


@given(graphs(), graphs())
def test_norm_is_additive_on_the_cone(a, b):
    assert (a + b).norm() == a.norm() + b.norm()


@given(graphs(), scalars, scalars)
def test_scalar_multiplication_distributes(a, k, m):
    assert (k + m) * a == k * a + m * a
    assert (k * a).norm() == k * a.norm()


@given(graphs(), graphs(), scalars)
def test_scalar_distributes_over_sum(a, b, k):
    assert k * (a + b) == k * a + k * b


@given(graphs(), graphs())
def test_delta_splits_into_positive_and_negative_parts(a, b):
    delta = b - a
    assert delta.positive() - delta.negative() == delta
    assert not (delta.positive().support() & delta.negative().support())
    assert delta.norm() == delta.positive().norm() + delta.negative().norm()


@given(graphs(), graphs())
def test_decomposition_parts_are_disjoint_and_sum_to_delta(a, b):
    parts = fs.decompose(a, b)
    supports = [p.support() for p in parts]
    for i in range(4):
        for j in range(i + 1, 4):
            assert not (supports[i] & supports[j])
    assert parts.delta == b - a
    assert parts.appeared + parts.grown == (b - a).positive()
    assert parts.disappeared + parts.shrunk == (b - a).negative()


@given(graphs(), graphs())
def test_similarity_is_symmetric_and_bounded(a, b):
    s = fs.similarity(a, b)
    assert math.isclose(s, fs.similarity(b, a))
    assert -1e-12 <= s <= 1 + 1e-12
    assert fs.similarity(a, a) == 1.0


@given(graphs(), graphs(), graphs())
def test_distance_obeys_triangle_inequality(a, b, c):
    assert fs.distance(a, c) <= fs.distance(a, b) + fs.distance(b, c)


@given(graphs())
def test_normalize_gives_norm_one(a):
    n = fs.normalize(a)
    if a:
        assert math.isclose(n.norm(), 1.0)
        assert n.unit == "share"
    else:
        assert not n


@given(st.lists(graphs(), min_size=1, max_size=5))
def test_sum_graphs_equals_repeated_addition_and_mean_scales(gs):
    total = gs[0]
    for g in gs[1:]:
        total = total + g
    assert fs.sum_graphs(gs) == total
    mean = fs.mean(gs)
    for stack in total:
        assert math.isclose(mean[stack], total[stack] / len(gs))


@given(graphs())
def test_folded_round_trip(a):
    assert folded.loads(folded.dumps(a)) == a
    assert folded.loads(folded.dumps(a)).unit == a.unit


@given(graphs(), graphs())
def test_differential_round_trip(a, b):
    if not (a or b):
        return
    diff = fs.Differential(a, b)
    back = folded.loads(folded.dumps(diff))
    assert isinstance(back, fs.Differential)
    assert (back.before, back.after) == (a, b)


@given(graphs())
def test_tree_invariant_holds_after_every_transform(a):
    transforms = [
        lambda g: g,
        fs.reverse,
        fs.fold_recursion,
        lambda g: fs.limit_depth(g, 2),
        lambda g: fs.prune(g, 0.2),
        lambda g: fs.strip(g, "lines"),
        lambda g: fs.select(g, include="a"),
        lambda g: fs.rebase(g, "b"),
        lambda g: fs.prefix(g, "app"),
    ]
    for transform in transforms:
        out = transform(a)
        tree = fs.Tree.from_graph(out)
        tree.check()
        assert tree.root.value == out.total()


@given(graphs())
def test_norm_preserving_transforms_keep_the_total(a):
    for out in (
        fs.reverse(a),
        fs.fold_recursion(a),
        fs.limit_depth(a, 1),
        fs.prune(a, 0.3),
        fs.strip(a, "lines"),
        fs.prefix(a, "x"),
    ):
        assert out.total() == a.total()
