"""FlameGraph and Delta: construction, types of results, metadata, the paper's examples."""

from __future__ import annotations

import pytest

import flamespace as fs
from flamespace import Delta, FlameGraph

# Tornetta (2023), Figure 2.
FIGURE_2 = FlameGraph({("A", "B"): 1, ("A", "C", "D"): 5, ("A", "C"): 1, ("A",): 2})


def test_figure_2_norm_and_tree():
    assert FIGURE_2.norm() == 9
    tree = fs.Tree.from_graph(FIGURE_2)
    tree.check()
    a = tree.find(("A",))
    assert (a.value, a.self_value) == (9, 2)
    c = tree.find(("A", "C"))
    assert (c.value, c.self_value) == (6, 1)
    assert tree.find(("A", "C", "D")).value == 5
    assert [n.name for n in tree.walk()] == ["all", "A", "B", "C", "D"]


def test_decomposition_with_all_four_parts_hand_computed():
    f1 = FIGURE_2
    f2 = FlameGraph({("A", "B"): 3, ("A", "C", "D"): 4, ("A", "E"): 2, ("A",): 2})
    parts = fs.decompose(f1, f2)
    assert parts.appeared == FlameGraph({("A", "E"): 2})
    assert parts.grown == FlameGraph({("A", "B"): 2})
    assert parts.disappeared == FlameGraph({("A", "C"): 1})
    assert parts.shrunk == FlameGraph({("A", "C", "D"): 1})
    assert parts.delta == f2 - f1
    # ‖f1 − f2‖ = 2 + 2 + 1 + 1 = 6; σ = 1 − 6 / (9 + 11)
    assert fs.distance(f1, f2) == 6
    assert fs.similarity(f1, f2) == pytest.approx(0.7)


def test_values_stay_exact_ints_until_division():
    g = FlameGraph({("a",): 3}) + FlameGraph({("a",): 4})
    assert g[("a",)] == 7 and isinstance(g[("a",)], int)
    assert isinstance((g * 2)[("a",)], int)
    assert isinstance((g / 2)[("a",)], float)


def test_result_types_follow_the_cone():
    a, b = FlameGraph({("x",): 2}), FlameGraph({("x",): 5})
    assert type(a + b) is FlameGraph
    assert type(a - b) is Delta
    assert type(-a) is Delta
    assert type(a * 3) is FlameGraph and type(a * -1) is Delta
    d = a - b
    assert d[("x",)] == -3
    assert d.positive() == FlameGraph() and d.negative() == FlameGraph({("x",): 3})
    assert type(d + a) is Delta


def test_zero_values_are_not_stored():
    g = FlameGraph({("a",): 0, ("b",): 1})
    assert g.support() == {("b",)}
    assert len(FlameGraph({("a",): 2}) - FlameGraph({("a",): 2})) == 0
    assert len(FlameGraph({("a",): 2}) * 0) == 0


def test_repeated_stacks_in_pairs_are_summed():
    g = FlameGraph([(("a",), 1), (("a",), 2)])
    assert g[("a",)] == 3


@pytest.mark.parametrize(
    "values, message",
    [
        ({("a",): -1}, "negative"),
        ({"a;b": 1}, "tuple of frame strings"),
        ({("a", 3): 1}, "tuple of frame strings"),
        ({("a",): "12"}, "not a number"),
        ({("a",): float("nan")}, "finite"),
    ],
)
def test_bad_construction_is_rejected_with_a_reason(values, message):
    with pytest.raises((TypeError, ValueError), match=message):
        FlameGraph(values)


def test_units_must_agree_and_unknown_is_compatible():
    ns = FlameGraph({("a",): 1}, unit="ns")
    samples = FlameGraph({("a",): 1}, unit="samples")
    unknown = FlameGraph({("a",): 1})
    with pytest.raises(fs.UnitMismatchError, match="'ns'.*'samples'"):
        ns + samples
    with pytest.raises(fs.UnitMismatchError):
        fs.sum_graphs([ns, samples])
    assert (ns + unknown).unit == "ns"


def test_labels_keep_what_both_share():
    a = FlameGraph({("a",): 1}, labels={"host": "x", "run": "1"}, metric="cpu")
    b = FlameGraph({("a",): 1}, labels={"host": "x", "run": "2"}, metric="cpu")
    merged = a + b
    assert dict(merged.labels) == {"host": "x"}
    assert merged.metric == "cpu"
    assert (a + FlameGraph({("a",): 1}, metric="wall")).metric is None


def test_mapping_interface_and_value_default():
    g = FIGURE_2
    assert ("A", "B") in g and ("Z",) not in g
    assert g.value(("Z",)) == 0
    with pytest.raises(KeyError):
        g[("Z",)]
    assert g.total() == 9
    assert (-g).total() == -9 and (-g).norm() == 9


def test_normalize_to_another_graph_and_to_a_number():
    g = FlameGraph({("a",): 1, ("b",): 3})
    assert fs.normalize(g, to=FlameGraph({("x",): 8})) == FlameGraph({("a",): 2.0, ("b",): 6.0})
    assert fs.normalize(g, to=2).norm() == pytest.approx(2)
    assert fs.normalize(FlameGraph()) == FlameGraph()
    with pytest.raises(ValueError):
        fs.normalize(g, to=-1)


def test_similarity_edge_cases():
    empty = FlameGraph()
    assert fs.similarity(empty, empty) == 1.0
    assert fs.similarity(FlameGraph({("a",): 1}), FlameGraph({("b",): 1})) == 0.0


def test_mean_of_nothing_is_an_error():
    with pytest.raises(ValueError, match="mean of no"):
        fs.mean([])


def test_division_by_zero_and_infinite_scale():
    with pytest.raises(ZeroDivisionError):
        FIGURE_2 / 0
    with pytest.raises(ValueError):
        FIGURE_2 * float("inf")


def test_differential_normalized_truncates_like_difffolded():
    before = FlameGraph({("a",): 3, ("b",): 4})  # total 7
    after = FlameGraph({("a",): 5, ("b",): 5})  # total 10
    norm = fs.Differential(before, after).normalized()
    # int(3 * 10 / 7) = 4, int(4 * 10 / 7) = 5
    assert norm.before == FlameGraph({("a",): 4, ("b",): 5})
    assert norm.after == after


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), -1])
def test_flame_graph_refuses_non_finite_and_negative_values(value):
    with pytest.raises(fs.ArgumentError):
        fs.FlameGraph({("a",): value})


def test_values_whose_sum_overflows_are_refused():
    with pytest.raises(fs.ArgumentError, match="add up to inf"):
        fs.FlameGraph([(("a",), 1e308), (("a",), 1e308)])


def test_profiles_pickle_with_their_metadata():
    """Dask and multiprocessing pickle profiles: the labels' read-only mapping must survive."""
    import pickle

    from flamespace.core.metadata import Metadata

    meta = Metadata(unit="ns", metric="cpu", labels={"commit": "abc"})
    graph = FlameGraph({("main", "f"): 3, ("main",): 1}, metadata=meta)
    again = pickle.loads(pickle.dumps(graph))
    assert again == graph
    assert again.metadata == meta and dict(again.metadata.labels) == {"commit": "abc"}
    with pytest.raises(TypeError):
        again.metadata.labels["x"] = "y"  # type: ignore[index]
