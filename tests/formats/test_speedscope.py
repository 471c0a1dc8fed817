"""speedscope reading and writing."""

from __future__ import annotations

import io
import json

import pytest

import flamespace as fs
from flamespace.core.chart import FlameChart
from flamespace.formats import speedscope

GRAPH = fs.FlameGraph(
    {("main (a.py:1)", "f (a.py:2)"): 30, ("main (a.py:1)",): 10, ("g",): 5}, unit="ns", labels={"mode": "wall"}
)


def dumps(profile) -> str:
    out = io.StringIO()
    speedscope.dump(profile, out)
    return out.getvalue()


def loads(text: str, source: str = "t.speedscope.json") -> fs.FlameGraph:
    """The file's flame graph (the reader gives a chart: time order kept)."""
    return speedscope.parse(io.StringIO(text), source=source).graph()


def test_graph_round_trip_keeps_values_and_metadata():
    text = dumps(GRAPH)
    assert speedscope.sniff(text.encode())
    back = loads(text)
    assert back == GRAPH
    assert back.metadata == GRAPH.metadata
    frames = json.loads(text)["shared"]["frames"]
    assert {"name": "f", "file": "a.py", "line": 2} in frames and {"name": "g"} in frames


def test_chart_becomes_evented_profiles_whose_sum_is_the_graph():
    chart = FlameChart(fs.Metadata(unit="ns"))
    chart.append(10, "T1", ("a", "b"), 10)
    chart.append(20, "T1", ("a", "c"), 6)  # ran 6 of the last 10 ns (cpu mode): a gap of 4
    chart.append(20, "T1", ("a", "c", "[idle]"), 4)
    chart.append(15, "T2", ("x",), 15)
    document = json.loads(dumps(chart))
    profiles = {p["name"]: p for p in document["profiles"]}
    assert set(profiles) == {"T1", "T2"}
    events = [(e["type"], e["at"], document["shared"]["frames"][e["frame"]]["name"]) for e in profiles["T1"]["events"]]
    assert events == [
        ("O", 0, "a"),
        ("O", 0, "b"),
        ("C", 10, "b"),
        ("O", 10, "c"),
        ("O", 16, "[idle]"),
        ("C", 20, "[idle]"),
        ("C", 20, "c"),
        ("C", 20, "a"),
    ]
    assert loads(dumps(chart)) == chart.graph()


def test_gaps_close_every_frame():
    chart = FlameChart(fs.Metadata(unit="ns"))
    chart.append(10, "T", ("a",), 10)
    chart.append(100, "T", ("a",), 10)  # nothing ran between 10 and 90
    events = json.loads(dumps(chart))["profiles"][0]["events"]
    assert [(e["type"], e["at"]) for e in events] == [("O", 0), ("C", 10), ("O", 90), ("C", 100)]


def test_reads_sampled_profiles_of_other_tools():
    document = {
        "$schema": speedscope.SCHEMA,
        "shared": {"frames": [{"name": "main"}, {"name": "work", "file": "w.py", "line": 3}]},
        "profiles": [
            {
                "type": "sampled",
                "name": "t",
                "unit": "milliseconds",
                "startValue": 0,
                "endValue": 3,
                "samples": [[0, 1], [0], [0, 1]],
                "weights": [1, 1, 1],
            },
        ],
    }
    graph = loads(json.dumps(document))
    assert graph == fs.FlameGraph({("main", "work (w.py:3)"): 2, ("main",): 1})
    assert graph.metadata.unit == "ms"


@pytest.mark.parametrize(
    "document, message",
    [
        ("{", "t.speedscope.json:1: not valid JSON"),
        ('{"profiles": 3}', "expected an object with a 'profiles' list"),
        (
            '{"shared": {"frames": []}, "profiles": [{"type": "sampled", "samples": [[0]], "weights": [1]}]}',
            "not the index of a frame",
        ),
        (
            '{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "evented", "events": [{"type": "O", "at": 1, "frame": 0}]}]}',
            "never closed",
        ),
        (
            '{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "samples": [[0]], "weights": [-1]}]}',
            "non-negative",
        ),
        ('{"shared": {"frames": []}, "profiles": [{"type": "other"}]}', "expected 'sampled' or 'evented'"),
    ],
)
def test_bad_files_are_reported_with_where(document, message):
    with pytest.raises(fs.InputError, match=message):
        loads(document)


def test_registry_detects_speedscope_and_writes_charts_as_graphs_to_folded(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(dumps(GRAPH))
    assert fs.read(path).graph() == GRAPH  # type: ignore[union-attr]
    chart = FlameChart(fs.Metadata(unit="ns"))
    chart.append(5, "T", ("a",), 5)
    fs.write(chart, tmp_path / "c.folded")
    assert fs.read(tmp_path / "c.folded") == fs.FlameGraph({("a",): 5})


def _sampled(weights, samples=None, frames=("a", "b")) -> str:
    """A one-profile sampled file with the given weights (JSON text, so NaN and Infinity can appear)."""
    samples = samples if samples is not None else [[0, 1]] * len(weights)
    return '{"shared":{"frames":[%s]},"profiles":[{"type":"sampled","unit":"none","samples":%s,"weights":[%s]}]}' % (
        ",".join(json.dumps({"name": f}) for f in frames),
        json.dumps(samples),
        ",".join(weights),
    )


@pytest.mark.parametrize("weight", ["NaN", "Infinity", "-Infinity", "-1", "1e999", "1e300", "1" + "0" * 400])
def test_non_finite_or_negative_weight_is_refused_with_its_json_path(weight):
    # NaN used to drop its stack silently; Infinity crashed svg and made merge write "inf"
    with pytest.raises(
        fs.InputError, match=r"t\.speedscope\.json: profiles\[0\]\.weights\[1\] is .*, not a non-negative number below 1e\+300"
    ):
        loads(_sampled(["1", weight]))


@pytest.mark.parametrize("index", [-1, 2, 1.0, True, "0"])
def test_out_of_range_frame_index_is_refused_with_its_json_path(index):
    # -1 used to wrap silently to the last frame
    with pytest.raises(
        fs.InputError, match=r"profiles\[0\]\.samples\[0\]\[1\] is .*not the index of a frame \(shared.frames has 2\)"
    ):
        loads(_sampled(["1"], [[0, index]]))


@pytest.mark.parametrize(
    "event, message",
    [
        ('{"type":"O","at":0,"frame":-1}', r"events\[0\]\.frame is -1, not the index of a frame"),
        ('{"type":"O","at":NaN,"frame":0}', r"events\[0\]\.at is nan, not a number between"),
        ('{"type":"O","at":Infinity,"frame":0}', r"events\[0\]\.at is inf, not a number between"),
    ],
)
def test_evented_profiles_check_times_and_frames(event, message):
    text = '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"evented","unit":"none","events":[%s]}]}' % event
    with pytest.raises(fs.InputError, match=message):
        loads(text)


def test_infinite_start_value_is_refused():
    text = '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"evented","unit":"none","startValue":-Infinity,"events":[]}]}'
    with pytest.raises(fs.InputError, match=r"profiles\[0\]\.startValue is -inf"):
        loads(text)


#: Two profiles: a sampled one ("one") and an evented one ("two") over frames a and b.
TWO_PROFILES = json.dumps(
    {
        "$schema": speedscope.SCHEMA,
        "shared": {"frames": [{"name": "a"}, {"name": "b"}]},
        "profiles": [
            {
                "type": "sampled",
                "name": "one",
                "unit": "none",
                "startValue": 0,
                "endValue": 3,
                "samples": [[0], [0, 1]],
                "weights": [1, 2],
            },
            {
                "type": "evented",
                "name": "two",
                "unit": "none",
                "startValue": 0,
                "endValue": 10,
                "events": [
                    {"type": "O", "at": 0, "frame": 0},
                    {"type": "O", "at": 4, "frame": 1},
                    {"type": "C", "at": 10, "frame": 1},
                    {"type": "C", "at": 10, "frame": 0},
                ],
            },
        ],
    }
)


def _read(options: dict, diagnostics=None) -> fs.FlameGraph:
    chart = fs.formats.registry.read(io.BytesIO(TWO_PROFILES.encode()), "speedscope", options=options, diagnostics=diagnostics)
    return chart.graph()  # type: ignore[union-attr]


def test_every_profile_is_added_up_and_the_diagnostics_say_so():
    from flamespace.diagnostics import Diagnostics

    diagnostics = Diagnostics()
    graph = _read({}, diagnostics)
    assert dict(graph.items()) == {("a",): 1 + 4, ("a", "b"): 2 + 6}
    assert any(
        "read the file's 2 profiles (0: one, 1: two) as one thread each; a flame graph adds them up; pick one with --profile" in m
        for m in diagnostics.messages()
    )


@pytest.mark.parametrize(
    "wanted, expected",
    [
        ("one", {("a",): 1, ("a", "b"): 2}),
        ("0", {("a",): 1, ("a", "b"): 2}),
        (0, {("a",): 1, ("a", "b"): 2}),
        ("two", {("a",): 4, ("a", "b"): 6}),
        ("1", {("a",): 4, ("a", "b"): 6}),
    ],
)
def test_profile_picks_one_by_name_or_index(wanted, expected):
    assert dict(_read({"profile": wanted}).items()) == expected


def test_an_unknown_profile_lists_the_profiles():
    with pytest.raises(fs.InputError, match=r"no profile named '2' .*\(the profiles: 0: one, 1: two\)"):
        _read({"profile": "2"})


def test_convert_profile_option(tmp_path, capsys):
    from flamespace.cli import main

    path = tmp_path / "two.speedscope.json"
    path.write_text(TWO_PROFILES)
    assert main(["convert", str(path), "--profile", "two", "--no-header"]) == 0
    out, err = capsys.readouterr()
    assert out == "a 4\na;b 6\n" and "added up" not in err


def _evented(name: str, events: list, unit: str = "microseconds") -> dict:
    return {
        "type": "evented",
        "name": name,
        "unit": unit,
        "startValue": events[0][1],
        "endValue": events[-1][1],
        "events": [{"type": kind, "at": at, "frame": frame} for kind, at, frame in events],
    }


def test_evented_profiles_keep_time_order_per_thread():
    """A function that ran in six separate intervals is six stretches of the chart, not one summed stack."""
    events = [("O", 0, 0)]
    for k in range(6):
        events += [("O", 10 * k, 1), ("C", 10 * k + 4, 1), ("O", 10 * k + 4, 2), ("C", 10 * k + 10, 2)]
    events.append(("C", 60, 0))
    document = {
        "$schema": speedscope.SCHEMA,
        "shared": {"frames": [{"name": "main"}, {"name": "f"}, {"name": "g"}]},
        "profiles": [_evented("T1", events), _evented("T2", [("O", 5, 1), ("C", 7, 1)])],
    }
    chart = speedscope.parse(io.StringIO(json.dumps(document)))
    assert isinstance(chart, FlameChart) and chart.threads == ["T1", "T2"] and chart.metadata.unit == "us"
    intervals = chart.intervals()
    t1 = [(start, end, chart.stacks[s]) for start, end, s in intervals[0]]
    assert t1 == [
        span
        for k in range(6)
        for span in ((10_000 * k, 10_000 * k + 4000, ("main", "f")), (10_000 * k + 4000, 10_000 * (k + 1), ("main", "g")))
    ]
    assert [(start, end) for start, end, _ in intervals[1]] == [(5000, 7000)]  # the shared time axis: T2 ran at 5-7 us
    assert dict(chart.graph().items()) == {("main", "f"): 24, ("main", "g"): 36, ("f",): 2}


def test_the_recorders_timeline_reads_back_with_its_gaps():
    chart = FlameChart(fs.Metadata(unit="ns"))
    chart.append(10, "T", ("a",), 10)
    chart.append(100, "T", ("a", "b"), 10)  # nothing ran between 10 and 90
    chart.append(100, "U", ("c",), 30)
    back = speedscope.parse(io.StringIO(dumps(chart)))
    assert back.threads == ["T", "U"]
    assert {t: [(s, e, back.stacks[k]) for s, e, k in spans] for t, spans in back.intervals().items()} == {
        0: [(0, 10, ("a",)), (90, 100, ("a", "b"))],
        1: [(70, 100, ("c",))],
    }
