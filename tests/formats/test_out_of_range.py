"""Out-of-range values: each reader refuses them with our InputError naming the place, and what
a writer writes its own reader reads back (README: counts and weights non-negative and below
1e300, times between -1e300 and 1e300; a chart's times are 64-bit ns, so no further than 2**62 ns).

Found by the fuzz campaign (benchmarks/fuzz_readers.py) and by hand (issue 24, item 6).
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

import flamespace as fs
from flamespace.core.chart import FlameChart
from flamespace.core.metadata import Metadata
from flamespace.formats import registry


def _read(document: Any, format: str) -> Any:
    data = document if isinstance(document, bytes) else json.dumps(document).encode()
    return registry.read(io.BytesIO(data), format)


def _event(ts: Any, dur: Any) -> dict:
    return {"ph": "X", "name": "f", "ts": ts, "dur": dur, "pid": 1, "tid": 1}


@pytest.mark.parametrize("copies", [1, 70])  # event by event, and the array path of long traces
def test_a_chrome_duration_past_what_a_chart_holds_is_refused_not_lost(copies: int) -> None:
    """A ``dur`` of 1e16 us (1e19 ns, past 64-bit ns) was read as 1000 ns or dropped without a word."""
    events = [_event(0, 1)] * (copies - 1) + [_event(0, 1e16), _event(0, 1)]
    with pytest.raises(fs.InputError, match=rf"traceEvents\[{copies - 1}\]\.dur is 1e\+16 us, beyond .* \(2\*\*62 ns\)"):
        _read({"traceEvents": events}, "chrome")


def test_a_chrome_span_that_ends_past_what_a_chart_holds_is_refused() -> None:
    with pytest.raises(fs.InputError, match=r"traceEvents\[0\]\.ts \+ dur is 6e\+15 us"):
        _read({"traceEvents": [_event(3e15, 3e15)]}, "chrome")


@pytest.mark.parametrize("ts", [-9223376854775809, 1e18, 2**64])
def test_chrome_times_past_64_bits_are_input_errors(ts: Any) -> None:
    """Found by the fuzz campaign: OverflowError ('int too big to convert') from the chart, exit 2."""
    with pytest.raises(fs.InputError, match=r"traceEvents\[1\]\.ts is .* us, beyond"):
        _read({"traceEvents": [_event(0, 1), _event(ts, 1)]}, "chrome")


def _gecko(times: list, interval: Any = 1) -> dict:
    return {
        "meta": {"interval": interval},
        "threads": [
            {
                "name": "main",
                "samples": {"stack": [0] * len(times), "time": times},
                "stackTable": {"prefix": [None], "frame": [0]},
                "frameTable": {"func": [0]},
                "funcTable": {"name": [0]},
                "stringArray": ["f"],
            }
        ],
    }


def test_gecko_times_past_64_bits_are_input_errors() -> None:
    """Found by the fuzz campaign: a sample time of 1e16 ms overflowed the chart's 64-bit ns (exit 2)."""
    assert _read(_gecko([0, 5]), "gecko").graph().total() == 2
    with pytest.raises(fs.InputError, match=r"threads\[0\]\.samples\.time\[1\] is 1e\+16 ms, beyond"):
        _read(_gecko([0, 1e16]), "gecko")


def test_a_gecko_interval_out_of_range_is_an_input_error() -> None:
    """Found by the fuzz campaign: a 310-digit meta.interval raised OverflowError formatting it."""
    with pytest.raises(fs.InputError, match=r"meta\.interval is 9+, not a number between"):
        _read(_gecko([0, 5], interval=10**310 - 1), "gecko")


def _cpuprofile(start: Any, deltas: list) -> dict:
    return {
        "startTime": start,
        "nodes": [
            {"id": 1, "callFrame": {"functionName": "(root)"}, "children": [2]},
            {"id": 2, "callFrame": {"functionName": "f", "url": "a.js", "lineNumber": 1}},
        ],
        "samples": [2] * len(deltas),
        "timeDeltas": deltas,
    }


@pytest.mark.parametrize(
    "start, deltas, where",
    [
        (0, [0, 1e16], r"startTime \+ timeDeltas\[:2\] is 1e\+16 us"),
        (2**64, [0, 1], r"startTime is 1\.84467e\+19 us"),
        (0, [5e15, -5e15], r"startTime \+ timeDeltas\[:1\] is 5e\+15 us"),
    ],
)
def test_cpuprofile_times_past_64_bits_are_input_errors(start: Any, deltas: list, where: str) -> None:
    """Found by the fuzz campaign (51 inputs): times past 64-bit ns raised OverflowError (exit 2)."""
    assert _read(_cpuprofile(0, [0, 5]), "cpuprofile").graph().total() == 5000
    with pytest.raises(fs.InputError, match=where):
        _read(_cpuprofile(start, deltas), "cpuprofile")


@pytest.mark.parametrize(
    "format, document",
    [
        ("flamespace-json", b'{"format":"flamespace","version":1,"kind":"graph","frames":["a"],"stacks":[[0]],"values":[%s]}'),
        (
            "speedscope",
            b'{"profiles":[{"type":"sampled","unit":"none","startValue":0,"endValue":1,"samples":[[0]],"weights":[%s]}],'
            b'"shared":{"frames":[{"name":"a"}]}}',
        ),
        ("chrome", b'{"traceEvents":[\n{"ph":"X","name":"f","pid":1,"tid":1,"ts":0,"dur":%s}]}'),
        ("gecko", b'{"meta":{"interval":%s},"threads":[]}'),
        ("cpuprofile", b'{"nodes":[],"samples":[],"timeDeltas":[],"startTime":%s}'),
    ],
)
def test_a_json_number_of_thousands_of_digits_is_an_input_error(format: str, document: bytes) -> None:
    """Found by the fuzz campaign: json's int() refuses numbers of more than 4300 digits with a
    ValueError that escaped every JSON reader (exit 2)."""
    with pytest.raises(
        fs.InputError, match=r"a number of more than 4300 digits \(column \d+\); numbers in .* must be below 1e\+300"
    ):
        _read(document % (b"9" * 5000), format)


def test_austin_metrics_of_1e300_or_more_are_refused() -> None:
    """They were read, and `convert` wrote a folded file its own reader refuses."""
    sample = "P1;T1;a.py:f:1 {}\n"
    assert _read(sample.format(10**300).encode(), "austin").total() == 10**300  # below 1e300 (a float a little above)
    for metric in ("9" * 301, "9" * 5000):
        with pytest.raises(fs.InputError, match=r":1: metric 9+\.\.\. is out of range; metrics must be below 1e\+300"):
            _read(sample.format(metric).encode(), "austin")
    with pytest.raises(fs.InputError, match=r"the samples of 'P1;T1;a\.py:f:1' add up to 2e\+300, beyond the 1e\+300"):
        _read((sample.format(10**300) * 2).encode(), "austin")


def test_a_sample_count_followed_by_a_form_feed_is_an_input_error() -> None:
    """Found by the fuzz campaign: the row check took any space after the count, the field split
    only spaces and tabs, and int('5\\x0c_') escaped as a ValueError (exit 2)."""
    with pytest.raises(fs.InputError, match=r":2: expected a sample count then a function"):
        _read(b"Call graph:\n    5\x0c_ [\n", "sample")


#: Values at the edges of the README's range, written by every writer and read back by its reader.
EDGES = {
    "10**301": 10**301,
    "1e300": 1e300,
    "10**300": 10**300,
    "10**300-1": 10**300 - 1,
    "9.999e299": 9.999e299,
    "2**63": 2**63,
    "2**64+1": 2**64 + 1,
    "1e-300": 1e-300,
}


def _profile(kind: str, value: Any, format: str) -> Any:
    """A graph (of samples, or of a unit that is no time) or a chart in ns holding ``value`` and 1."""
    if kind == "chart":
        chart = FlameChart(Metadata(unit="ns"))
        chart.append(0, "t", ("a",), value)
        chart.append(2, "t", ("b", "c"), 1)
        return chart
    graph = fs.FlameGraph({("a",): value, ("b", "c"): 1}, unit="samples" if kind == "graph" else "")
    return fs.Differential(graph, graph) if format == "folded-diff" else graph


@pytest.mark.parametrize("format", registry.writable_names())
@pytest.mark.parametrize("value", list(EDGES.values()), ids=list(EDGES))
@pytest.mark.parametrize("kind", ["graph", "graph of no unit", "chart"])
def test_what_a_writer_writes_its_reader_reads_back(format: str, value: Any, kind: str, tmp_path: Any) -> None:
    """A writer refuses (our error) or writes what its reader takes back: the folded reader
    refused 10**300 (301 digits), which is below 1e300; speedscope and Chrome wrote graphs
    laid end to end, and charts, past the 2**62 ns their readers' charts hold; gecko wrote
    10**300 as the float 1e300, which its reader refuses; pprof wrote 2**64 + 1 as 1.
    Found by the fuzz campaign's conversions (benchmarks/fuzz_readers.py)."""
    profile = _profile(kind, value, format)
    try:
        registry.write(profile, tmp_path / "out", format)  # as `flamespace convert` writes
    except fs.FlamespaceError:
        return
    back = registry.read(str(tmp_path / "out"), format)
    back = back.after if isinstance(back, fs.Differential) else back
    back = back.graph() if isinstance(back, FlameChart) else back
    assert back.total() == pytest.approx(value + 1, rel=1e-9)


@pytest.mark.parametrize("format", ["speedscope", "chrome"])
def test_chart_writers_refuse_graphs_that_last_past_what_their_readers_hold(format: str) -> None:
    with pytest.raises(fs.ArgumentError, match=r"laid end to end .* 2\*\*62"):
        registry.writer(format).dump(fs.FlameGraph({("a",): 10**300}), io.StringIO())


def test_a_chart_within_64_bits_still_round_trips_through_chrome() -> None:
    chart = FlameChart(Metadata(unit="ns"))
    chart.append(2**61, "t", ("a",), 2**61)
    out = io.StringIO()
    registry.writer("chrome").dump(chart, out)
    assert _read(out.getvalue().encode(), "chrome").graph().total() == 2**61


def test_cpuprofile_children_that_are_no_list_are_an_input_error() -> None:
    """Found by the fuzz campaign: ``"children": 4`` raised TypeError ('int' object is not iterable)."""
    document = _cpuprofile(0, [0, 5])
    document["nodes"][0]["children"] = 4
    with pytest.raises(fs.InputError, match=r"nodes\[0\]\.children is missing or not a list"):
        _read(document, "cpuprofile")


@pytest.mark.parametrize("to", ["flamespace-json", "folded"])
def test_a_sum_past_1e300_is_refused_when_written_not_when_read_back(to: str, tmp_path: Any, capsys: Any) -> None:
    """Two inputs each below 1e300 add up past it: `convert` wrote the sum (flamespace-json wrote
    1.2e300), which its own reader then refused. Now the writer refuses, naming the stack, exit 1."""
    from flamespace.cli import main

    for name in ("a", "b"):
        (tmp_path / f"{name}.folded").write_text("main;f " + "6" + "0" * 299 + "\n")
    out = tmp_path / "out"
    assert main(["convert", str(tmp_path / "a.folded"), str(tmp_path / "b.folded"), "--to", to, "-o", str(out)]) == 1
    error = capsys.readouterr().err
    assert "has the value 1.2e+300, not below 1e+300, which no reader takes back" in error and "(flamespace scale)" in error
    assert not out.exists()


def test_a_negative_chart_weight_in_flamespace_json_is_refused() -> None:
    """Found by the fuzz campaign's conversions: read as it was, a chart weight of -3 was then
    written by speedscope and gecko into files their readers refused (README: a negative value
    is an error naming its JSON path)."""
    document = {
        "format": "flamespace",
        "version": 1,
        "kind": "chart",
        "frames": ["a"],
        "stacks": [[0]],
        "metadata": {"unit": "ns", "metric": None, "labels": {}},
        "threads": ["t"],
        "samples": {"time": [0, 5], "thread": [0, 0], "stack": [0, 0], "weight": [5, -3]},
    }
    with pytest.raises(fs.InputError, match=r"samples\.weight\[1\] is -3, not a number between 0 and 1e\+300"):
        _read(document, "flamespace-json")


def test_a_line_number_of_thousands_of_digits_stays_part_of_the_frame_name() -> None:
    """Found by the fuzz campaign: int() refuses more than 4300 digits, and the ValueError escaped
    from austin's frames and from every reader that splits 'function (file:line)' (py-spy's)."""
    from flamespace.core.python_frames import split_frame

    line = "9" * 5000
    assert split_frame(f"f (a.py:{line})") == ("f", f"a.py:{line}", None)  # the whole name kept, as other non-lines are
    assert split_frame("f (a.py:123456789012345678)") == ("f", "a.py", 123456789012345678)
    assert split_frame("f (a.py:1234567890123456789)") == ("f", "a.py:1234567890123456789", None)  # past 64 bits when written
    assert _read(f"P1;T1;a.py:f:{line} 5\n".encode(), "austin").total() == 5
    assert _read(f"f (a.py:{line}) 5\n".encode(), "pyspy").total() == 5


def test_a_vsprof_level_of_thousands_of_digits_is_an_input_error() -> None:
    with pytest.raises(fs.InputError, match=r":2: level 9+\.\.\. is out of range"):
        _read(b"Level,Function Name,Number of Calls\n" + b"9" * 5000 + b',"f",1,\n', "vsprof")


def test_nytprof_ticks_that_pass_1e300_in_ns_are_an_input_error() -> None:
    """Found by the fuzz campaign: a count below 1e300 ticks, times 100 ns a tick, got through."""
    with pytest.raises(fs.InputError, match=r"the time of 'main;f' in ns is 1e\+301, not below 1e\+300"):
        _read(("main;f 1" + "0" * 299 + "\n").encode(), "nytprof")


def test_a_perf_line_with_a_long_run_of_digits_is_read_in_linear_time() -> None:
    """Found by the fuzz campaign (a reader past 10 s on one input): the sample header's pattern
    could split a run of digits between pid and tid in every way before failing, quadratic in
    the run (10 KB: 2 s, 40 KB: 24 s). 200 KB of digits would take minutes that way; now well
    under a second (no timing assertion: a hang is what fails)."""
    line = b"busy;main;leaf " + b"9" * 200_000 + b"x\n"
    with pytest.raises(fs.InputError, match=r":1: expected a sample header"):
        _read(line, "perf")


def test_a_mojo_thread_id_of_thousands_of_hex_digits_is_kept_as_it_is() -> None:
    """Found by the fuzz tests once 5000-digit numbers were among their mutations: a thread id of
    hex digits was turned into decimal whatever its length, and str() of an int of more than 4300
    digits raised ValueError (exit 2). Ids of up to 64 bits are still shown in decimal."""
    from flamespace.formats import austin

    thread = b"9" * 5000
    mojo = b"MOJ\x03\x02\x86\xba\x03\x00" + thread + b"\x00"  # a stack event: pid, interpreter id, thread
    assert len(austin.parse_mojo(mojo)) == 0  # no frames, no metric: read, and empty


def test_folded_counts_that_add_up_to_1e300_are_an_input_error() -> None:
    """Found by the fuzz campaign: 10**300 (below 1e300) plus 0.0 is the float 1e300, which was read."""
    with pytest.raises(fs.InputError, match=r"the counts of 'main;x' add up to 1e\+300, not below 1e\+300"):
        _read(b"main;x 1" + b"0" * 300 + b"\nmain;x 0.\n", "folded")


def test_a_label_name_with_a_line_break_is_written_on_one_folded_header_line() -> None:
    """Found by the fuzz campaign: a MOJO metadata key holding '\\r' became a label written as
    two header lines, the second of which the folded reader refused (no count)."""
    graph = fs.FlameGraph({("a",): 1}, labels={"austin.x\ry": "6e86"})
    out = io.StringIO()
    registry.writer("folded").dump(graph, out)
    assert _read(out.getvalue().encode(), "folded").total() == 1
