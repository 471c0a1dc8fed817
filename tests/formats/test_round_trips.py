"""folded -> X -> folded gives the same bytes for every writer X, and our JSON keeps every value and label."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flamespace as fs
from flamespace.core.chart import FlameChart
from flamespace.core.metadata import Metadata
from flamespace.core.vector import MAX_VALUE
from flamespace.formats import flamespace_json, folded, recognition, registry

from ..strategies import frames, graphs

#: Writers and what their format cannot hold: the Firefox Profiler and trace events have no
#: empty stack (a sample with no frame), so their graphs have at least one frame per stack.
WRITERS = {"folded": 0, "speedscope": 0, "pprof": 0, "flamespace-json": 0, "gecko": 1, "chrome": 1}
EXAMPLES = settings(max_examples=40, deadline=None, derandomize=True)


def test_every_writer_is_round_tripped() -> None:
    assert set(registry.writable_names()) == set(WRITERS) | {"folded-diff"}  # folded-diff: below


def _through(text: str, format: str) -> str:
    """Read folded ``text``, write it as ``format``, read that back, write it as folded."""
    binary = io.BytesIO()
    profile = folded.loads(text, folded.ReadOptions(columns="2" if format == "folded-diff" else "auto"))
    stream = io.TextIOWrapper(binary, encoding="utf-8", errors="surrogateescape", newline="")
    registry.by_name(format).dump(profile, stream)
    stream.flush()
    back = registry.read(io.BytesIO(binary.getvalue()), format)
    if isinstance(back, FlameChart):
        back = back.graph()
    return folded.dumps(back)


@pytest.mark.parametrize("format", sorted(WRITERS))
@EXAMPLES
@given(data=st.data())
def test_folded_through_each_writer_and_back_is_identical(format: str, data: st.DataObject) -> None:
    graph = data.draw(graphs(min_frames=WRITERS[format]))
    graph = fs.FlameGraph(
        dict(graph.items()), metadata=Metadata(unit="samples", metric="cpu", labels={"host": "ci", "mode": "wall"})
    )
    text = folded.dumps(graph)
    assert _through(text, format) == text


@EXAMPLES
@given(graphs(), graphs())
def test_differential_folded_through_folded_diff_and_back_is_identical(before: fs.FlameGraph, after: fs.FlameGraph) -> None:
    text = folded.dumps(fs.Differential(before, after))
    assert _through(text, "folded-diff") == text


numbers = st.one_of(
    st.integers(min_value=1, max_value=10**40),
    st.floats(min_value=5e-324, max_value=MAX_VALUE, exclude_max=True, allow_nan=False, allow_infinity=False),
)
words = st.text(min_size=0, max_size=8)


@st.composite
def metadata(draw: st.DrawFn) -> Metadata:
    return Metadata(
        unit=draw(st.none() | st.sampled_from(["samples", "ns", "bytes", "µs"])),
        metric=draw(st.none() | words),
        labels=draw(st.dictionaries(words, words, max_size=4)),
    )


@st.composite
def exact_graphs(draw: st.DrawFn) -> fs.FlameGraph:
    stacks = st.lists(frames | words, max_size=4).map(tuple)
    return fs.FlameGraph(draw(st.dictionaries(stacks, numbers, max_size=8)), metadata=draw(metadata()))


def _same(a: fs.FlameGraph, b: fs.FlameGraph) -> None:
    assert a.metadata == b.metadata
    assert dict(a.items()) == dict(b.items())
    for stack, value in a.items():
        assert type(b[stack]) is type(value)  # ints stay ints, floats stay floats (and equal: repr round-trips)


@EXAMPLES
@given(exact_graphs())
def test_json_keeps_every_value_and_label(graph: fs.FlameGraph) -> None:
    _same(flamespace_json.loads(flamespace_json.dumps(graph)), graph)


@EXAMPLES
@given(exact_graphs(), exact_graphs())
def test_json_keeps_both_sides_of_a_differential(before: fs.FlameGraph, after: fs.FlameGraph) -> None:
    back = flamespace_json.loads(flamespace_json.dumps(fs.Differential(before, after)))
    assert isinstance(back, fs.Differential)
    _same(back.before, before)
    _same(back.after, after)


def test_json_keeps_a_chart_in_time_order() -> None:
    chart = FlameChart(Metadata(unit="ns", labels={"command": "app"}))
    for sample in [
        (10, "main", ("a", "b"), 5),
        (12, "worker", ("c",), 2.5),
        (12, "main", ("\udcff bytes not UTF-8",), 1),
        (30, "main", ("a",), 10**30),
    ]:
        chart.append(*sample)
    back = flamespace_json.loads(flamespace_json.dumps(chart, flamespace_json.WriteOptions(indent=2)))
    assert isinstance(back, FlameChart)
    assert list(back.samples()) == list(chart.samples())
    assert back.metadata == chart.metadata
    assert [type(s.weight) for s in back.samples()] == [int, float, int, int]


def test_json_is_detected_and_written_by_extension(tmp_path) -> None:  # type: ignore[no-untyped-def]
    graph = fs.FlameGraph({("a", "b"): 0.1 + 0.2, ("a",): 3}, unit="ms", labels={"run": "1"})
    path = tmp_path / "p.flamespace.json"
    fs.write(graph, path, format=recognition.by_extension(str(path)).name)
    assert registry.detect(path.read_bytes(), "").name == "flamespace-json"
    back = fs.read(path)
    _same(back, graph)
    assert back[("a", "b")] == 0.30000000000000004


def test_folded_diff_refuses_one_count_lines_and_plain_profiles() -> None:
    with pytest.raises(fs.InputError, match=":2: expected two counts"):
        registry.read(io.BytesIO(b"a 1 2\nb 3\n"), "folded-diff")
    with pytest.raises(fs.ArgumentError, match="before/after pair"):
        registry.by_name("folded-diff").dump(fs.FlameGraph({("a",): 1}), io.StringIO())
    back = registry.read(io.BytesIO(b"a 1 2\nb 3 0\n"), "folded-diff")
    assert isinstance(back, fs.Differential)
    assert (back.before[("b",)], back.after[("a",)]) == (3, 2)


@pytest.mark.parametrize(
    "bad, message",
    [
        (b'{"format": "flamespace", "version": 2}', "version is 2"),
        (
            b'{"format": "flamespace", "version": 1, "kind": "graph", "frames": ["a"], "stacks": [[1]], "values": [1]}',
            r"stacks\[0\]\[0\] is 1, not the index of a frame",
        ),
        (
            b'{"format": "flamespace", "version": 1, "kind": "graph", "frames": ["a"], "stacks": [[0]], "values": [-1],'
            b' "metadata": {}}',
            r"values\[0\] is -1",
        ),
        (
            b'{"format": "flamespace", "version": 1, "kind": "graph", "frames": [], "stacks": [[], []], "values": [1, 2],'
            b' "metadata": {}}',
            r"stacks\[1\] repeats stacks\[0\]",
        ),
        (
            b'{"format": "flamespace", "version": 1, "kind": "graph", "frames": [], "stacks": [[]], "values": [1e999],'
            b' "metadata": {}}',
            r"values\[0\] is inf",
        ),
        (b'{"format": "flamespace", "version": 1, "kind": "graph", "fra', "truncated"),
    ],
)
def test_bad_json_names_what_is_wrong(bad: bytes, message: str) -> None:
    with pytest.raises(fs.InputError, match=message):
        registry.read(io.BytesIO(bad), "flamespace-json")


def test_json_sniffing() -> None:
    sniff = flamespace_json.sniff
    assert sniff(b'  {"format": "flamespace", "version": 1') is True
    assert sniff(b'{"form') is None and sniff(b"") is None
    assert isinstance(sniff(b'{"shared": {}}'), str)
