"""Chrome Trace Event JSON (VizTracer's real output and hand-made traces) and DevTools .cpuprofile (node --cpu-prof)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given

import flamespace as fs
from flamespace.diagnostics import Diagnostics
from flamespace.formats import chrome, cpuprofile, registry

from .test_fuzz import CHART, FUZZ, GRAPH, _read_or_refuse, mangled

DATA = Path(__file__).resolve().parent.parent / "data" / "chrome"


def _trace(events: list) -> fs.FlameChart:
    return chrome.parse(io.StringIO(json.dumps({"traceEvents": events})))


def test_viztracer_output_becomes_a_flame_chart_of_its_calls() -> None:
    chart = registry.read(str(DATA / "viztracer.json"))
    assert isinstance(chart, fs.FlameChart) and chart.threads == ["MainThread"]
    assert chart.metadata.unit == "ns" and chart.metadata.labels["profiler"] == "viztracer"
    graph = chart.graph()
    document = json.loads((DATA / "viztracer.json").read_text())
    outermost = max(e["dur"] for e in document["traceEvents"] if e["ph"] == "X")
    assert graph.total() == pytest.approx(outermost * 1000, abs=2)  # every ns of the outermost call, once
    leaf = (
        "builtins.exec",
        "<module> (/tmp/fx/prog.py:1)",
        "main (/tmp/fx/prog.py:19)",
        "Worker.run (/tmp/fx/prog.py:13)",
        "middle (/tmp/fx/prog.py:9)",
        "leaf (/tmp/fx/prog.py:3)",
    )
    assert graph[leaf] > graph.total() / 5
    timestamps = [s.timestamp for s in chart.samples()]
    assert timestamps == sorted(timestamps)


def test_begin_end_and_complete_events_nest_per_thread() -> None:
    chart = _trace(
        [
            {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "worker"}},
            {"ph": "B", "name": "main", "ts": 0, "pid": 1, "tid": 1},
            {"ph": "X", "name": "f", "ts": 1, "dur": 2, "pid": 1, "tid": 1},
            {"ph": "X", "name": "g", "ts": 1.5, "dur": 0.5, "pid": 1, "tid": 1},
            {"ph": "E", "ts": 10, "pid": 1, "tid": 1},
            {"ph": "X", "name": "w", "ts": 4, "dur": 1, "pid": 1, "tid": 2},
            {"ph": "i", "name": "instant", "ts": 5, "pid": 1, "tid": 1},
        ]
    )
    samples = [(s.timestamp, s.thread, s.stack, s.weight) for s in chart.samples()]
    assert samples == [
        (1000, "1:1", ("main",), 1000),
        (1500, "1:1", ("main", "f"), 500),
        (2000, "1:1", ("main", "f", "g"), 500),
        (3000, "1:1", ("main", "f"), 1000),
        (5000, "worker", ("w",), 1000),
        (10000, "1:1", ("main",), 7000),
    ]


def test_a_child_running_past_its_parent_is_cut_at_the_parent_end() -> None:
    chart = _trace(
        [
            {"ph": "X", "name": "p", "ts": 0, "dur": 2, "pid": 1, "tid": 1},
            {"ph": "X", "name": "c", "ts": 1, "dur": 5, "pid": 1, "tid": 1},
        ]
    )
    assert dict(chart.graph().items()) == {("p",): 1000, ("p", "c"): 1000}


def test_spans_with_the_same_start_and_end_nest_in_the_order_they_returned() -> None:
    events = [
        {"ph": "X", "name": "inner", "ts": 0, "dur": 5, "pid": 1, "tid": 1},
        {"ph": "X", "name": "outer", "ts": 0, "dur": 5, "pid": 1, "tid": 1},
    ]
    assert dict(_trace(events).graph().items()) == {("outer", "inner"): 5000}


def _written(profile: object, header: bool = True) -> str:
    out = io.StringIO()
    chrome.dump(profile, out, chrome.WriteOptions(header=header))  # type: ignore[arg-type]
    return out.getvalue()


def test_the_writer_round_trips_charts_through_the_reader() -> None:
    viztracer = registry.read(str(DATA / "viztracer.json"))
    for chart in (viztracer,):
        back = chrome.parse(io.StringIO(_written(chart)))
        first = next(chart.samples())  # type: ignore[union-attr]
        start = first.timestamp - first.weight  # a trace read back starts at its first event
        assert [(s.timestamp, s.stack, s.weight) for s in back.samples()] == [
            (s.timestamp - start, s.stack, s.weight) for s in chart.samples()
        ]  # type: ignore[union-attr]
    back = chrome.parse(io.StringIO(_written(CHART)))  # samples of one tick are laid end to end: their sum is kept
    assert back.threads == ["MainThread", "worker"] and dict(back.graph().items()) == dict(CHART.graph().items())


def test_graphs_are_laid_end_to_end_in_their_time_unit() -> None:
    back = chrome.parse(io.StringIO(_written(GRAPH))).graph()
    assert dict(back.items()) == {stack: round(value) for stack, value in GRAPH.items()}  # whole ns stay ns
    samples = fs.FlameGraph({("a", "b"): 3, ("c",): 1})
    drawn = chrome.parse(io.StringIO(_written(samples, header=False))).graph()
    assert dict(drawn.items()) == {("a", "b"): 3000, ("c",): 1000} and drawn.unit == "ns"  # a sample a microsecond
    ours = chrome.parse(io.StringIO(_written(fs.FlameGraph(samples, unit="samples", labels={"run": "1"})))).graph()
    assert dict(ours.items()) == {("a", "b"): 3, ("c",): 1} and ours.metadata.labels == {"run": "1"}  # read back in its unit
    with pytest.raises(fs.ArgumentError, match="differential"):
        _written(fs.Differential(samples, samples))


def test_bad_traces_name_the_event() -> None:
    with pytest.raises(fs.InputError, match=r"traceEvents\[0\]\.ts is 'x', not a number"):
        _trace([{"ph": "X", "name": "a", "ts": "x", "dur": 1}])
    with pytest.raises(fs.InputError, match=r"traceEvents\[0\] ends a span .* never begun"):
        _trace([{"ph": "E", "ts": 1, "pid": 1, "tid": 1}])
    with pytest.raises(fs.InputError, match="1 spans begun on thread 1 never end"):
        _trace([{"ph": "B", "name": "a", "ts": 1, "pid": 1, "tid": 1}])
    with pytest.raises(fs.InputError, match=r"not valid JSON for a Chrome trace: .*truncated"):
        chrome.parse(io.StringIO((DATA / "viztracer.json").read_text()[:500]))
    diagnostics = Diagnostics()
    chart = chrome.parse(
        io.StringIO(json.dumps([{"ph": "X", "name": "a", "ts": "x"}, {"ph": "X", "name": "b", "ts": 0, "dur": 1}])),
        chrome.ReadOptions(skip_invalid=True),
        diagnostics=diagnostics,
    )
    assert diagnostics.skipped == 1 and dict(chart.graph().items()) == {("b",): 1000}


def test_node_cpuprofile_samples_last_until_the_next() -> None:
    chart = registry.read(str(DATA / "node.cpuprofile"))
    document = json.loads((DATA / "node.cpuprofile").read_text())
    assert isinstance(chart, fs.FlameChart)
    hot = ("(anonymous) (/tmp/fx/prog.js:1)", "middle (/tmp/fx/prog.js:2)", "leaf (/tmp/fx/prog.js:1)")
    graph = chart.graph()
    assert sum(value for stack, value in graph.items() if stack[-3:] == hot) > graph.total() / 2
    span = document["endTime"] - document["startTime"] - document["timeDeltas"][0]
    assert graph.total() <= span * 1000  # from the first sample to the end; samples of (root) alone are left out
    assert not any("(root)" in frame for stack, _ in graph.items() for frame in stack)


def test_cpuprofile_parents_and_errors() -> None:
    document = {
        "nodes": [
            {"id": 1, "callFrame": {"functionName": "(root)", "url": "", "lineNumber": -1}},
            {"id": 2, "parent": 1, "callFrame": {"functionName": "f", "url": "file:///app/a.js", "lineNumber": 9}},
            {"id": 3, "parent": 2, "callFrame": {"functionName": "", "url": "file:///app/a.js", "lineNumber": 19}},
        ],
        "startTime": 0,
        "endTime": 30,
        "samples": [3, 2, 3],
        "timeDeltas": [0, 10, 10],
    }
    chart = cpuprofile.parse(io.StringIO(json.dumps(document)))
    assert [(s.timestamp, s.stack, s.weight) for s in chart.samples()] == [
        (10000, ("f (/app/a.js:10)", "(anonymous) (/app/a.js:20)"), 10000),
        (20000, ("f (/app/a.js:10)",), 10000),
        (30000, ("f (/app/a.js:10)", "(anonymous) (/app/a.js:20)"), 10000),
    ]
    document["samples"] = [3, 2, 7]
    with pytest.raises(fs.InputError, match=r"samples\[2\] is 7, not the id of a node"):
        cpuprofile.parse(io.StringIO(json.dumps(document)))
    document["timeDeltas"] = [0]
    with pytest.raises(fs.InputError, match="'samples' has 3 entries but 'timeDeltas' has 1"):
        cpuprofile.parse(io.StringIO(json.dumps(document)))


def test_empty_inputs_are_empty_profiles_with_a_warning() -> None:
    for reader in (chrome, cpuprofile):
        diagnostics = Diagnostics()
        assert len(reader.parse(io.StringIO("  \n"), diagnostics=diagnostics)) == 0  # type: ignore[attr-defined]
        assert "empty" in diagnostics.warnings[0]


def test_sniffing_keeps_json_formats_apart() -> None:
    viz, node = (DATA / "viztracer.json").read_bytes()[:65536], (DATA / "node.cpuprofile").read_bytes()[:65536]
    assert registry.detect(viz).name == "chrome" and registry.detect(node).name == "cpuprofile"
    assert registry.detect(b'[{"ph": "X", "name": "a", "ts": 1, "dur": 1}]').name == "chrome"
    speedscope = (Path(__file__).resolve().parent.parent / "data" / "austin" / "wall.speedscope.json").read_bytes()
    assert registry.detect(speedscope).name == "speedscope"
    for head in (viz, node, speedscope):
        assert sum(bool(registry.by_name(n).sniff(head)) for n in ("speedscope", "gecko", "chrome", "cpuprofile")) == 1


@FUZZ
@given(mangled("chrome", [(DATA / "viztracer.json").read_bytes()[:4000].rpartition(b"},")[0] + b"}]}", _written(CHART).encode()]))
def test_chrome_reader_raises_only_input_errors(data: bytes) -> None:
    _read_or_refuse(data, "chrome")


@FUZZ
@given(mangled("cpuprofile", [(DATA / "node.cpuprofile").read_bytes()]))
def test_cpuprofile_reader_raises_only_input_errors(data: bytes) -> None:
    _read_or_refuse(data, "cpuprofile")
