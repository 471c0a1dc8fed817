"""A profile built from stack texts (FlameGraph.from_texts) is the same vector as the one over
their frame tuples, and splits a text into frames only when a stack is asked for, once."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import flamespace as fs
from flamespace.core.stacks import StackTable
from flamespace.errors import ArgumentError

from ..strategies import graphs


def texts_of(graph: fs.FlameGraph) -> dict:
    return {";".join(stack): value for stack, value in graph.items()}


def as_texts(graph: fs.FlameGraph, stacks: dict | None = None) -> fs.FlameGraph:
    return fs.FlameGraph.from_texts(texts_of(graph), metadata=graph.metadata, stacks=stacks)


@given(graphs())
def test_a_text_backed_graph_is_the_graph_of_its_frames(graph):
    made = as_texts(graph)
    assert made == graph and graph == made
    assert len(made) == len(graph) and made.total() == graph.total() and made.norm() == graph.norm()
    assert dict(made.items()) == dict(graph.items())
    assert made.support() == graph.support()
    assert made.unit == graph.unit


@given(graphs(), graphs(), st.integers(min_value=-3, max_value=3))
def test_text_backed_algebra_gives_the_same_vectors(a, b, k):
    ta, tb = as_texts(a), as_texts(b)
    assert ta + tb == a + b and ta + b == a + b and a + tb == a + b
    assert ta - tb == a - b and ta - b == a - b
    assert k * ta == k * a and ta * 2.5 == a * 2.5 and ta / 4 == a / 4
    assert -ta == -a
    assert (ta - tb).positive() == (a - b).positive() and (ta - tb).negative() == (a - b).negative()
    assert type(ta + tb) is type(a + b) and type(ta - tb) is type(a - b) and type(k * ta) is type(k * a)
    assert (ta - tb).sorted_items() == (a - b).sorted_items()


def test_adding_scaling_comparing_and_relabelling_split_no_stack():
    stacks: dict = {}
    a = fs.FlameGraph.from_texts({"main;f": 2, "main;g": 3, "": 1}, unit="samples", stacks=stacks)
    b = fs.FlameGraph.from_texts({"main;f": 5}, unit="samples", stacks=stacks)
    result = ((a + b) * 3 - b / 2).positive().with_metadata(metric="cpu")
    assert len(result) == 3 and result.total() == 3 * 11 - 2.5 and a != b and list(a.values()) == [2, 3, 1]
    assert stacks == {}  # nothing was split
    assert result[("main", "f")] == 21 - 2.5 and result.metric == "cpu"
    assert set(stacks) == {"main;f", "main;g", ""} and stacks[""] == ()


def test_a_text_is_split_once_and_its_tuple_shared_by_the_graphs_that_share_a_table():
    stacks: dict = {}
    a = fs.FlameGraph.from_texts({"main;f": 2}, stacks=stacks)
    b = fs.FlameGraph.from_texts({"main;f": 7}, stacks=stacks)
    (first,), (second,) = list(a), list(b)
    assert first == ("main", "f") and first is second


def test_from_texts_checks_values_as_the_constructor_does():
    with pytest.raises(ArgumentError, match="negative value -1 .stack 'a;b'"):
        fs.FlameGraph.from_texts({"a;b": -1})
    with pytest.raises(ArgumentError, match="not a finite number"):
        fs.FlameGraph.from_texts({"a": float("nan")})
    with pytest.raises(TypeError, match="not a number"):
        fs.FlameGraph.from_texts({"a": "3"})
    with pytest.raises(TypeError, match="stack text is a str"):
        fs.FlameGraph.from_texts({("a",): 3})  # type: ignore[dict-item]
    made = fs.FlameGraph.from_texts({"a": np.int64(3), "b": 0, "c": np.float64(0.5)})
    built = fs.FlameGraph({("a",): np.int64(3), ("b",): 0, ("c",): np.float64(0.5)})
    assert dict(made.items()) == dict(built.items()) and type(made[("a",)]) is type(built[("a",)])
    assert fs.Delta.from_texts({"a": -2})[("a",)] == -2


def test_a_text_backed_graph_pickles_and_reprs_as_its_frames():
    made = fs.FlameGraph.from_texts({"main;f": 2, "main": 1}, unit="ns")
    again = pickle.loads(pickle.dumps(made))
    assert again == made and again.unit == "ns" and dict(again.items()) == {("main", "f"): 2, ("main",): 1}
    assert repr(fs.FlameGraph.from_texts({"main;f": 2})) == repr(fs.FlameGraph({("main", "f"): 2}))


frame_text = st.text(st.sampled_from(["a", "b", "\0", " ", "é", "\x01"]), max_size=3)


@given(st.lists(st.lists(frame_text, max_size=4).map(tuple), unique=True, max_size=12))
def test_texts_sort_as_their_frame_tuples(stacks):
    texts = [";".join(stack) for stack in stacks if stack != ("",)]  # ("",) would join as the empty stack
    assert [StackTable().stack(text) for text in StackTable().sorted(texts)] == sorted(StackTable().stack(t) for t in texts)


def test_a_graph_pickled_before_the_text_slots_still_answers():
    """A pickle holds the slots that were set: one made before _texts, _table and _plain existed has none of them."""
    from flamespace.core.metadata import Metadata

    old = fs.FlameGraph.__new__(fs.FlameGraph)
    old._values, old._metadata = {("a", "b"): 2}, Metadata(unit="samples")  # all an old pickle restores
    assert len(old) == 1 and old.total() == 2 and old == fs.FlameGraph({("a", "b"): 2}) and (old + old)[("a", "b")] == 4
