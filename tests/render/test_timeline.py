"""Flame charts in time: the boxes of a chart per thread (render/timeline.py), the SVG's real time
order (layout of a chart with flamechart=True) and the HTML flame chart's payload (render/chart_html.py)."""

from __future__ import annotations

import io
import json

import pytest

import flamespace as fs
from flamespace.core.chart import FlameChart, intervals
from flamespace.render.chart_html import as_chart, chart_html, chart_intervals, read_chart_payload
from flamespace.render.html import HtmlOptions
from flamespace.render.layout import layout
from flamespace.render.options import LayoutOptions
from flamespace.render.timeline import timeline


def six_calls() -> FlameChart:
    """main calls f then g six times on one thread (f 4 ns, g 6 ns); a worker runs h at 15-25 ns,
    sleeps, then h again at 40-45 ns. In ns, each sample ends at its timestamp."""
    chart = FlameChart(fs.Metadata(unit="ns"))
    for k in range(6):
        chart.append(10 * k + 4, "main", ("main", "f"), 4)
        chart.append(10 * k + 10, "main", ("main", "g"), 6)
        if k == 1:
            chart.append(25, "worker", ("run", "h"), 10)
        if k == 3:
            chart.append(45, "worker", ("run", "h"), 5)
    return chart


def test_intervals_end_at_the_timestamps_and_lay_one_tick_end_to_end() -> None:
    samples = [(10, 0, 10), (20, 1, 6), (20, 2, 4), (100, 0, 10)]  # two parts of one tick; a gap before 90
    assert list(intervals(samples, 1.0)) == [(0, 10, 0), (10, 16, 1), (16, 20, 2), (90, 100, 0)]
    assert list(intervals([(3000, 0, 2), (4000, 1, 3)], 1000.0)) == [(1000, 3000, 0), (3000, 6000, 1)]  # us; no overlap
    assert list(intervals([(7, 0, 2), (9, 1, 3)], None)) == [(0, 2, 0), (2, 5, 1)]  # no time: end to end


def test_a_function_run_in_six_intervals_is_six_boxes_in_time_order() -> None:
    drawn = timeline(six_calls())
    assert drawn.lanes == ["main", "worker"] and drawn.time and drawn.end == 60
    main = drawn.boxes(0)
    assert main[0] == (0, 0, 60, "main")
    assert [b for b in main if b[3] == "f"] == [(1, 10 * k, 10 * k + 4, "f") for k in range(6)]
    assert [b for b in main if b[3] == "g"] == [(1, 10 * k + 4, 10 * k + 10, "g") for k in range(6)]
    # the worker's gap (25-40 ns) ends its boxes: run and h twice each, where they ran on the shared axis
    assert drawn.boxes(1) == [(0, 15, 25, "run"), (1, 15, 25, "h"), (0, 40, 45, "run"), (1, 40, 45, "h")]
    assert drawn.depths == [2, 2]


def test_self_time_is_the_time_in_no_child_box() -> None:
    chart = FlameChart(fs.Metadata(unit="ns"))
    for timestamp, stack, weight in [(3, ("a",), 3), (8, ("a", "b"), 5), (10, ("a",), 2)]:
        chart.append(timestamp, "t", stack, weight)
    drawn = timeline(chart)
    assert list(zip(drawn.name, drawn.start, drawn.value, drawn.self)) == [("a", 0, 10, 5), ("b", 3, 5, 5)]


def test_svg_layout_of_a_chart_is_in_real_time_with_a_lane_per_thread() -> None:
    laid = layout(six_calls(), LayoutOptions(flamechart=True))
    frames = [(f.name, f.depth, f.start, f.value) for f in laid.frames]
    assert frames[0] == ("all", 0, 0, 60) and frames[1] == ("main", 1, 0, 60)  # the thread's lane, as wide as the whole
    assert [f for f in frames if f[0] == "f"] == [("f", 3, 10 * k, 4) for k in range(6)]
    worker = frames.index(("worker", 4, 0, 60))  # the next lane starts above main's two rows
    assert frames[worker + 1 :] == [("run", 5, 15, 10), ("h", 6, 15, 10), ("run", 5, 40, 5), ("h", 6, 40, 5)]
    graph = layout(six_calls())  # without flamechart: the flame graph sums
    assert [(f.name, f.value) for f in graph.frames if f.name == "f"] == [("f", 24)]


def test_svg_layout_keeps_the_charts_unit() -> None:
    chart = FlameChart(fs.Metadata(unit="ms"))
    chart.append(2_000_000, "t", ("a",), 2)  # ms weights, ns timestamps
    chart.append(5_000_000, "t", ("b",), 1)  # a gap of 2 ms before it
    frames = [(f.name, f.start, f.value) for f in layout(chart, LayoutOptions(flamechart=True)).frames]
    assert frames == [("all", 0, 5), ("a", 0, 2), ("b", 4, 1)]


def test_the_html_chart_holds_exactly_the_charts_boxes() -> None:
    chart = six_calls()
    page = chart_html(chart, HtmlOptions(min_percent=0))
    assert isinstance(page, str)
    data = read_chart_payload(page)
    assert data["time"] and data["end"] == 60 and data["units"]["kind"] == "scaled"
    boxes = chart_intervals(data)
    drawn = timeline(chart)
    assert boxes == {"main": drawn.boxes(0), "worker": drawn.boxes(1)}
    # and those are the input's stretches: every leaf's intervals, summed per stack, give the flame graph
    selfs: dict = {}
    names, b = data["names"], data["boxes"]
    threads = [names[lane["name"]] for lane in data["lanes"]]
    for lane, depth, name, own in zip(b["lane"], b["depth"], b["name"], b["self"]):
        key = (threads[lane], depth, names[name])
        selfs[key] = selfs.get(key, 0) + own
    assert selfs == {
        ("main", 0, "main"): 0,
        ("main", 1, "f"): 24,
        ("main", 1, "g"): 36,
        ("worker", 0, "run"): 0,
        ("worker", 1, "h"): 15,
    }


def test_a_chart_from_a_trace_file_keeps_every_interval(tmp_path) -> None:
    """A Chrome trace read back: each complete event is a box at its time."""
    events = [{"ph": "X", "name": "f", "ts": 10 * k, "dur": 4, "pid": 1, "tid": 1} for k in range(6)]
    events.append({"ph": "X", "name": "main", "ts": 0, "dur": 60, "pid": 1, "tid": 1})
    path = tmp_path / "six.trace.json"
    path.write_text(json.dumps({"traceEvents": events}))
    data = read_chart_payload(chart_html(fs.read(path), HtmlOptions(min_percent=0)))  # type: ignore[arg-type]
    assert list(chart_intervals(data).values()) == [
        [(0, 0, 60_000, "main")] + [(1, 10_000 * k, 10_000 * k + 4000, "f") for k in range(6)]
    ]


def test_min_percent_leaves_out_narrow_boxes_with_their_children() -> None:
    data = read_chart_payload(chart_html(six_calls(), HtmlOptions(min_percent=10)))  # 6 ns of 60
    kept = chart_intervals(data)
    assert [b[3] for b in kept["main"]] == ["main"] + ["g"] * 6 and [b[3] for b in kept["worker"]] == ["run", "h"]


def test_a_flame_graph_is_drawn_in_its_order() -> None:
    graph = fs.formats.folded.loads("m;z 1\nm;a 2\n")
    data = read_chart_payload(chart_html(as_chart(graph), HtmlOptions(min_percent=0)))
    assert not data["time"] and chart_intervals(data) == {"all": [(0, 0, 3, "m"), (1, 0, 1, "z"), (1, 1, 3, "a")]}
    with pytest.raises(fs.ArgumentError, match="not a differential"):
        as_chart(fs.Differential(graph, graph))


def test_cli_html_flamechart_and_charts_summed_for_graph_commands(tmp_path, capsys) -> None:
    from flamespace.cli import main

    path = tmp_path / "run.speedscope.json"
    fs.write(six_calls(), path, "speedscope")
    assert main(["html", "--flamechart", "--minwidth", "0", str(path), "-o", str(tmp_path / "c.html")]) == 0
    assert chart_intervals(read_chart_payload((tmp_path / "c.html").read_text()))["main"] == timeline(six_calls()).boxes(0)
    for command in (["top", str(path)], ["info", str(path)], ["filter", "--base", "main", str(path)]):
        assert main(command) == 0, command  # a chart is summed for commands that need a flame graph (they used to crash)


def test_an_empty_chart_writes_a_page_that_says_so() -> None:
    from flamespace.diagnostics import Diagnostics

    diagnostics = Diagnostics()
    out = io.StringIO()
    chart_html(FlameChart(fs.Metadata(unit="ns")), HtmlOptions(), out, diagnostics=diagnostics)
    assert diagnostics.empty and read_chart_payload(out.getvalue())["boxes"]["count"] == 0


def reference_boxes(chart: FlameChart, rewrite) -> dict:
    """Thread -> (depth, start, end, name, self) of every box, from the chart's per-sample
    intervals read the plain way: a box at depth d runs over consecutive stretches whose stacks
    agree on their d + 1 outer frames, with no gap and no stretch in no frame between; it ends
    where its last stretch ends, and each stretch's length is its innermost frame's self time."""
    per_thread = chart.intervals()
    origin = min(spans[0][0] for spans in per_thread.values()) if chart.time_scale() is not None and per_thread else 0
    out: dict = {}
    for thread, spans in per_thread.items():
        boxes: list = []
        open_at: dict = {}  # depth -> index in boxes
        previous, cursor = None, 0
        for start, end, stack_id in spans:
            start, end = start - origin, end - origin
            stack = rewrite(chart.stacks[stack_id])
            kept = previous is not None and start <= cursor and bool(stack)
            for depth, name in enumerate(stack or ()):
                if kept and previous is not None and len(previous) > depth and previous[: depth + 1] == stack[: depth + 1]:
                    boxes[open_at[depth]][2] = end
                else:
                    kept = False
                    open_at[depth] = len(boxes)
                    boxes.append([depth, start, end, name, 0])
            if stack:
                boxes[open_at[len(stack) - 1]][4] += end - start
            previous, cursor = (stack or None), end
        out[chart.threads[thread]] = [tuple(box) for box in boxes]
    return out


@pytest.mark.parametrize("seed", range(40))
def test_the_array_layout_draws_the_boxes_of_the_plain_per_sample_reading(seed: int) -> None:
    """Random charts (threads, gaps, ticks of several samples, stacks in no frame, rewritten
    stacks, time and non-time units, integer and float weights) against :func:`reference_boxes`."""
    import random

    rng = random.Random(seed)
    unit = rng.choice(["ns", "us", "ms", None])
    floats = rng.random() < 0.25
    chart = FlameChart(fs.Metadata(unit=unit))
    frames = "abcd"[: rng.randint(1, 4)]
    timestamp = rng.randint(0, 50)
    for _ in range(rng.randint(0, 120)):
        timestamp += rng.choice([0, 0, 1, 2, 5, 40])  # ticks of several samples, gaps
        stack = tuple(rng.choice(frames) for _ in range(rng.choice([0, 1, 2, 3, 3, 4, 6])))
        weight = rng.choice([1, 2, 3, 7]) * (rng.choice([0.5, 1.25]) if floats else 1)
        chart.append(timestamp * 1000, rng.choice(["main", "main", "worker", "io"]), stack, weight)
    dropped = frozenset(rng.sample(sorted(set(chart.stacks)), min(2, len(chart.stacks))) if rng.random() < 0.5 else [])

    def rewrite(stack):
        return None if stack in dropped else stack[1:] if rng_trim and stack[:1] == ("a",) else stack

    rng_trim = rng.random() < 0.3
    drawn = timeline(chart, rewrite)
    got = {
        lane: [
            (d, s, e, n, own)
            for (d, s, e, n), own in zip(drawn.boxes(k), [o for i, o in enumerate(drawn.self) if drawn.lane[i] == k])
        ]
        for k, lane in enumerate(drawn.lanes)
    }
    assert got == reference_boxes(chart, rewrite)
    for values in (drawn.start, drawn.value, drawn.self):  # Python numbers of the intervals' types, as before
        assert all(type(value) in (int, float) for value in values)
    if not floats:
        assert all(type(value) is int for value in drawn.start + drawn.value + drawn.self)
    assert drawn.depths == [
        max((d + 1 for d, lane in zip(drawn.depth, drawn.lane) if lane == k), default=0) for k in range(len(drawn.lanes))
    ]


def test_the_chart_page_does_not_depend_on_the_hash_seed(tmp_path) -> None:
    """Two processes with different string hashing write the same bytes (the colour table was
    once in a set's order)."""
    import os
    import subprocess
    import sys

    chart = FlameChart(fs.Metadata(unit="ns", metric="wall"))
    for i, stack in enumerate([("main", "a"), ("main", "b", "c"), ("main", "d"), ("worker", "e"), ("main", "a", "f")] * 3):
        chart.append(i * 10, "T1" if stack[0] == "main" else "T2", stack, 10)
    source = tmp_path / "chart.speedscope.json"
    fs.write(chart, str(source), format="speedscope")
    pages = []
    for seed in ("1", "2"):
        out = tmp_path / f"page{seed}.html"
        code = (
            "import sys; from flamespace.render.chart_html import chart_html; from flamespace.render.html import HtmlOptions; "
            "import flamespace as fs; chart_html(fs.read(sys.argv[1]), HtmlOptions(), sys.argv[2])"
        )
        subprocess.run(
            [sys.executable, "-c", code, str(source), str(out)], check=True, env={**os.environ, "PYTHONHASHSEED": seed}
        )
        pages.append(out.read_bytes())
    assert pages[0] == pages[1]
