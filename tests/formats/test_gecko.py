"""The Firefox Profiler's processed format: files laid out as CPython 3.15's profiling.sampling writes
them (built here from its published schema: no Python 3.15 on this machine), older layouts, and our writer."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given

import flamespace as fs
from flamespace.core.chart import FlameChart
from flamespace.core.metadata import Metadata
from flamespace.diagnostics import Diagnostics
from flamespace.formats import gecko, registry

from .test_fuzz import CHART, FUZZ, GRAPH, _read_or_refuse, mangled

AUSTIN = Path(__file__).resolve().parent.parent / "data" / "austin"


def cpython_layout(samples: list) -> dict:
    """A profile as CPython's gecko collector lays it out: one global string table starting with
    "(root)", per-thread stack/frame/func tables as columns, times in ms, no weights, base file names.

    ``samples``: (time ms, thread id, [(file, function, line), ...] leaf first, as the sampler sees them).
    """
    strings = ["(root)"]

    def string(text: str) -> int:
        if text not in strings:
            strings.append(text)
        return strings.index(text)

    threads: dict = {}
    for time, tid, frames in samples:
        thread = threads.setdefault(
            tid,
            {
                "name": f"Thread-{tid}",
                "tid": tid,
                "pid": "1",
                "isMainThread": tid == 1,
                "processType": "default",
                "samples": {"stack": [], "time": [], "eventDelay": [], "weight": None, "weightType": "samples", "length": 0},
                "stackTable": {"frame": [], "category": [], "subcategory": [], "prefix": [], "length": 0},
                "frameTable": {"address": [], "func": [], "line": [], "column": [], "inlineDepth": [], "length": 0},
                "funcTable": {
                    "name": [],
                    "isJS": [],
                    "resource": [],
                    "fileName": [],
                    "lineNumber": [],
                    "columnNumber": [],
                    "length": 0,
                },
            },
        )
        prefix = None
        for file, function, line in reversed(frames):
            funcs = thread["funcTable"]
            key = (string(function), string(file.rpartition("/")[2]))
            pairs = list(zip(funcs["name"], funcs["fileName"]))
            if key not in pairs:
                funcs["name"].append(key[0]), funcs["fileName"].append(key[1]), funcs["lineNumber"].append(line)
                funcs["isJS"].append(True), funcs["resource"].append(0), funcs["columnNumber"].append(None)
            func = pairs.index(key) if key in pairs else len(funcs["name"]) - 1
            table = thread["frameTable"]
            rows = list(zip(table["func"], table["line"]))
            if (func, line) not in rows:
                table["func"].append(func), table["line"].append(line), table["address"].append(-1)
                table["column"].append(None), table["inlineDepth"].append(0)
            frame = list(zip(table["func"], table["line"])).index((func, line))
            stacks = thread["stackTable"]
            entries = list(zip(stacks["frame"], stacks["prefix"]))
            if (frame, prefix) not in entries:
                (
                    stacks["frame"].append(frame),
                    stacks["prefix"].append(prefix),
                    stacks["category"].append(1),
                    stacks["subcategory"].append(0),
                )
            prefix = list(zip(stacks["frame"], stacks["prefix"])).index((frame, prefix))
        (
            thread["samples"]["stack"].append(prefix),
            thread["samples"]["time"].append(time),
            thread["samples"]["eventDelay"].append(None),
        )
    for thread in threads.values():
        for key in ("samples", "stackTable", "frameTable", "funcTable"):
            table = thread[key]
            table["length"] = len(
                table[
                    "stack"
                    if key == "samples"
                    else ("frame" if key == "stackTable" else ("func" if key == "frameTable" else "name"))
                ]
            )
    return {
        "meta": {
            "interval": 1.0,
            "startTime": 0,
            "version": 32,
            "preprocessedProfileVersion": 57,
            "product": "Python",
            "importedFrom": "Tachyon Sampling Profiler",
            "categories": [{"name": "Other", "color": "grey", "subcategories": ["Other"]}],
        },
        "libs": [],
        "threads": list(threads.values()),
        "pages": [],
        "shared": {"stringArray": strings, "sources": {"length": 0, "uuid": [], "filename": []}},
    }


SAMPLES = [
    (0.0, 1, [("/app/prog.py", "leaf", 6), ("/app/prog.py", "middle", 10), ("/app/prog.py", "main", 20)]),
    (1.0, 1, [("/app/prog.py", "leaf", 6), ("/app/prog.py", "middle", 10), ("/app/prog.py", "main", 20)]),
    (1.5, 7, [("/usr/lib/python3.15/threading.py", "wait", 359)]),
    (2.0, 1, [("/app/prog.py", "middle", 11), ("/app/prog.py", "main", 20)]),
]


def _read(document: dict, **options: object) -> FlameChart:
    return gecko.parse(io.StringIO(json.dumps(document)), gecko.ReadOptions(**options))  # type: ignore[arg-type]


def test_cpython_profiles_read_as_a_chart_named_as_our_recorder_names_frames() -> None:
    chart = _read(cpython_layout(SAMPLES))
    assert chart.metadata is not None and chart.metadata.unit == "samples"
    assert chart.metadata.labels["profiler"] == "Tachyon Sampling Profiler"
    assert [(s.timestamp, s.thread, s.stack, s.weight) for s in chart.samples()] == [
        (0, "Thread-1", ("main (prog.py:20)", "middle (prog.py:10)", "leaf (prog.py:6)"), 1),
        (1_000_000, "Thread-1", ("main (prog.py:20)", "middle (prog.py:10)", "leaf (prog.py:6)"), 1),
        (1_500_000, "Thread-7", ("wait (threading.py:359)",), 1),
        (2_000_000, "Thread-1", ("main (prog.py:20)", "middle (prog.py:11)"), 1),
    ]


def test_older_layouts_schema_and_data_and_per_thread_strings() -> None:
    document = cpython_layout(SAMPLES[:1])
    thread = document["threads"][0]
    thread["stringArray"] = document.pop("shared")["stringArray"]
    stacks = thread["stackTable"]
    thread["stackTable"] = {
        "schema": {"prefix": 0, "frame": 1},
        "data": [[p, f] for f, p in zip(stacks["frame"], stacks["prefix"])],
    }
    samples = thread["samples"]
    thread["samples"] = {"schema": {"stack": 0, "time": 1}, "data": [[s, t] for s, t in zip(samples["stack"], samples["time"])]}
    assert dict(_read(document).graph().items()) == dict(_read(cpython_layout(SAMPLES[:1])).graph().items())


def test_the_writer_round_trips_charts_and_graphs_through_the_reader() -> None:
    chart = FlameChart(Metadata(unit="samples"))
    for timestamp, thread, stack, weight in [
        (0, "main", ("a (x.py:1)", "b (x.py:2)"), 2),
        (1_000_000, "t", ("c",), 1),
        (3_000_000, "main", ("a (x.py:1)",), 5),
    ]:
        chart.append(timestamp, thread, stack, weight)
    out = io.StringIO()
    gecko.dump(chart, out)
    back = gecko.parse(io.StringIO(out.getvalue()))
    assert [(s.timestamp, s.stack, s.weight) for s in back.samples()] == [
        (s.timestamp, s.stack, s.weight) for s in chart.samples()
    ]
    assert registry.detect(out.getvalue().encode()).name == "gecko"
    graph_out = io.StringIO()
    gecko.dump(fs.FlameGraph({("a", "b"): 3, ("c",): 4}), graph_out)
    assert dict(gecko.parse(io.StringIO(graph_out.getvalue())).graph().items()) == {("a", "b"): 3, ("c",): 4}


def test_times_are_written_as_tracing_milliseconds_and_read_back_in_their_unit() -> None:
    out = io.StringIO()
    registry.by_name("gecko").dump(CHART, out)
    document = json.loads(out.getvalue())
    assert {t["samples"]["weightType"] for t in document["threads"]} == {"tracing-ms"}
    assert sum(sum(t["samples"]["weight"]) for t in document["threads"]) == pytest.approx(CHART.graph().total() / 1e6)
    back = gecko.parse(io.StringIO(out.getvalue()))
    assert back.metadata == CHART.metadata and dict(back.graph().items()) == dict(CHART.graph().items())


@pytest.mark.parametrize(
    "text", ["a;b 3\nc 1\n", "# unit: ns\n# metric: cpu\n# command: x y\ng 5\nmain (a.py:1);f (a.py:2) 30\n"]
)
def test_folded_to_gecko_to_folded_is_identical(text: str) -> None:
    folded = registry.by_name("folded")
    out = io.StringIO()
    gecko.dump(folded.parse(io.StringIO(text)), out)
    again = io.StringIO()
    folded.dump(gecko.parse(io.StringIO(out.getvalue())).graph(), again)
    assert again.getvalue() == text


def test_bad_profiles_name_the_json_path() -> None:
    document = cpython_layout(SAMPLES)
    document["threads"][0]["stackTable"]["prefix"][0] = 5
    with pytest.raises(fs.InputError, match=r"threads\[0\]\.stackTable\.prefix\[0\] is 5, not an index below 0"):
        _read(document)
    document = cpython_layout(SAMPLES)
    document["threads"][1]["samples"]["stack"][0] = 99
    with pytest.raises(fs.InputError, match=r"threads\[1\]\.samples\.stack\[0\] is 99"):
        _read(document)
    diagnostics = Diagnostics()
    chart = gecko.parse(io.StringIO(json.dumps(document)), gecko.ReadOptions(skip_invalid=True), diagnostics=diagnostics)
    assert diagnostics.skipped == 1 and len(chart) == 3
    raw = {"meta": {"version": 24}, "threads": [{"samples": {"schema": {"stack": 0}, "data": []}}]}
    with pytest.raises(fs.InputError, match="raw Gecko profile"):
        _read(raw)


def test_an_empty_input_is_an_empty_profile_with_a_warning() -> None:
    diagnostics = Diagnostics()
    assert len(gecko.parse(io.StringIO(""), diagnostics=diagnostics)) == 0 and diagnostics.warnings


def test_sniffing_does_not_take_other_json() -> None:
    assert registry.detect(json.dumps(cpython_layout(SAMPLES)).encode()).name == "gecko"
    assert registry.detect((AUSTIN / "wall.speedscope.json").read_bytes()).name == "speedscope"
    assert not gecko.sniff(b'{"traceEvents": [], "meta": 1}')


def _seeds() -> list:
    out = io.StringIO()
    gecko.dump(CHART, out)
    graph = io.StringIO()
    gecko.dump(GRAPH, graph)
    return [json.dumps(cpython_layout(SAMPLES)).encode(), out.getvalue().encode(), graph.getvalue().encode()]


@FUZZ
@given(mangled("gecko", _seeds()))
def test_gecko_reader_raises_only_input_errors(data: bytes) -> None:
    _read_or_refuse(data, "gecko")
