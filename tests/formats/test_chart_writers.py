"""The speedscope and Chrome writers of flame charts: array operations, the same bytes as the
per-event writers they replaced (kept here as the oracle), and the pieces they are made of."""

from __future__ import annotations

import io
import json
import pickle
import random
from typing import Any

import numpy
import pytest

from flamespace.core.chart import FlameChart, interval_arrays, intervals
from flamespace.core.metadata import Metadata
from flamespace.formats import chrome, speedscope

# -- the oracle: the writers of one Python object per event, as they were -----------------


def oracle_events(samples, stacks, table) -> dict[str, Any]:
    """speedscope's evented profile of one thread's (timestamp, stack id, weight) samples in ns."""
    events: list[dict[str, Any]] = []
    open_stack: tuple = ()
    open_ids: list[int] = []
    start_value = cursor = 0

    def close(keep, at):
        while len(open_ids) > keep:
            events.append({"type": "C", "at": at, "frame": open_ids.pop()})

    for k, (start, end, stack_id) in enumerate(intervals(samples, 1.0)):
        if not k:
            start_value = cursor = start
        elif start > cursor and open_stack:
            close(0, cursor)
            open_stack = ()
        stack = stacks[stack_id]
        common = 0
        while common < min(len(stack), len(open_stack)) and stack[common] == open_stack[common]:
            common += 1
        close(common, start)
        for frame in stack[common:]:
            open_ids.append(table(frame))
            events.append({"type": "O", "at": start, "frame": open_ids[-1]})
        open_stack = stack
        cursor = end
    close(0, cursor)
    return {"start": start_value, "end": cursor, "events": events}


def oracle_speedscope(chart: FlameChart) -> str:
    table = speedscope._FrameTable()
    profiles = []
    for thread_id, samples in chart.per_thread().items():
        timeline = oracle_events(samples, chart.stacks, table)
        profiles.append(
            {
                "type": "evented",
                "name": chart.threads[thread_id] or "thread",
                "unit": "nanoseconds",
                "startValue": timeline["start"],
                "endValue": timeline["end"],
                "events": timeline["events"],
            }
        )
    metadata = chart.metadata or Metadata()
    document = {
        "$schema": speedscope.SCHEMA,
        "shared": {"frames": table.frames},
        "profiles": profiles,
        "name": metadata.labels.get("command", "flamespace profile"),
        "activeProfileIndex": 0,
        "exporter": metadata.labels.get("profiler", "flamespace"),
        "flamespace": {"unit": metadata.unit, "metric": metadata.metric, "labels": dict(metadata.labels)},
    }
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False) + "\n"


def oracle_chrome(chart: FlameChart) -> str:
    metadata = chart.metadata or Metadata()
    per_thread: dict[str, list] = {}
    for timestamp, thread_id, stack_id, weight in zip(*chart.columns()):
        per_thread.setdefault(chart.threads[thread_id], []).append((timestamp, stack_id, round(weight)))
    table = speedscope._FrameTable()
    events: list[dict[str, Any]] = [
        {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": metadata.labels.get("command", "flamespace")}}
    ]
    for tid, (thread, samples) in enumerate(per_thread.items(), 1):
        events.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": tid, "args": {"name": thread}})
        timeline = oracle_events(samples, chart.stacks, table)
        frames = list(table.index)
        for event in timeline["events"]:
            record = {"ph": "B" if event["type"] == "O" else "E", "ts": event["at"] / 1000, "pid": 1, "tid": tid}
            if event["type"] == "O":
                record["name"] = frames[event["frame"]]
            events.append(record)
    document = {
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "flamespace": {"unit": metadata.unit, "metric": metadata.metric, "labels": dict(metadata.labels)},
    }
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False) + "\n"


# -- charts to write -----------------------------------------------------------------------

FRAMES = ["main (app.py:1)", "work (app.py:9)", "parse", "100% done", 'quote " and \\', "ünïcode (ü.py:3)", "{x}"]


def random_chart(rng: random.Random, floats: bool = False) -> FlameChart:
    """A chart in ns: threads (two of one name), gaps, samples of one time, an empty stack,
    negative times, overlaps; float weights now and then when asked."""
    chart = FlameChart(Metadata(unit="ns", metric="wall", labels={"command": "app %s"}))
    stacks = [tuple(rng.choice(FRAMES) for _ in range(rng.randint(0, 5))) for _ in range(8)]
    threads = ["MainThread", "worker", "worker", ""]
    now = {thread: rng.randint(-3000, 3000) for thread in range(len(threads))}
    for _ in range(rng.randint(1, 120)):
        thread = rng.randrange(len(threads))
        weight: Any = rng.choice([0, 1, rng.randint(1, 2000), rng.randint(1, 10**6)])
        if floats and rng.random() < 0.2:
            weight += 0.25
        now[thread] += rng.choice([0, int(weight), int(weight) + rng.randint(1, 5000), -rng.randint(0, 50)])
        chart.append(now[thread], threads[thread], rng.choice(stacks), weight)
    return chart


def write(module, chart) -> str:
    out = io.StringIO()
    module.dump(chart, out)
    return out.getvalue()


@pytest.mark.parametrize("seed", range(60))
def test_the_writers_give_the_bytes_of_the_per_event_writers(seed):
    chart = random_chart(random.Random(seed), floats=seed % 3 == 0)
    assert write(speedscope, chart) == oracle_speedscope(chart)
    assert write(chrome, chart) == oracle_chrome(chart)


def test_a_chart_of_int64_columns_writes_as_the_same_chart_of_lists():
    chart = random_chart(random.Random(7))
    columns = [numpy.array(column, dtype=numpy.int64) for column in chart.columns()]
    same = FlameChart.from_columns(chart.stacks, chart.threads, *columns, metadata=chart.metadata)
    assert isinstance(same.columns()[3], type(chart.columns()[0]))  # int weights: an array, not a list
    assert write(speedscope, same) == write(speedscope, chart) == oracle_speedscope(chart)
    assert write(chrome, same) == write(chrome, chart)


def test_many_distinct_changes_take_the_sorting_path():
    """More stacks than the table of changes may hold beside the steps: numpy.unique's way."""
    chart = FlameChart(Metadata(unit="ns"))
    for k in range(400):
        chart.append(10 * (k + 1), "t", tuple(f"f{j}" for j in range(k % 37 + 1)) + (f"leaf{k}",), 10)
    assert (len(chart.stacks) + 1) ** 2 > 4 * 2 * len(chart) + (1 << 16)
    assert write(speedscope, chart) == oracle_speedscope(chart)


def test_distinct_is_numpy_unique_either_way():
    rng = numpy.random.default_rng(3)
    keys = rng.integers(0, 50, 1000)
    expected = numpy.unique(keys, return_index=True, return_inverse=True)
    for size in (50, 10**8):  # the table, and sorting
        for got, want in zip(speedscope._distinct(keys, size), expected):
            assert got.tolist() == want.reshape(-1).tolist()


@pytest.mark.parametrize("scale", [1.0, 1000.0, None, 2.5])
def test_interval_arrays_place_samples_as_intervals_does(scale):
    rng = random.Random(11)
    for _ in range(400):
        n = rng.randint(0, 25)
        pool = [rng.randint(-50, 200) for _ in range(4)]
        times = (
            sorted(rng.choice(pool + [rng.randint(-50, 200)]) for _ in range(n))
            if rng.random() < 0.6
            else [rng.randint(-50, 200) for _ in range(n)]
        )
        weights = [rng.randint(0, 40) for _ in range(n)]
        starts, ends = interval_arrays(numpy.array(times, dtype=numpy.int64), numpy.array(weights, dtype=numpy.int64), scale)
        expected = [(start, end) for start, end, _ in intervals(list(zip(times, [0] * n, weights)), scale)]
        got = list(zip(starts.tolist(), ends.tolist()))
        assert got == expected
        assert [tuple(map(type, pair)) for pair in got] == [tuple(map(type, pair)) for pair in expected]


def test_microsecond_texts_are_the_floats_reprs():
    values = numpy.array([0, 1, 10, 999, 1000, 1001, 123456, 10**12 + 7, 10**15 - 1, 987654321012345], dtype=numpy.int64)
    values = numpy.concatenate([values, numpy.random.default_rng(5).integers(0, 10**15, 5000)])
    one, arguments = chrome._microseconds(values)
    assert ",".join([one] * len(values)) % tuple(arguments) == ",".join(repr(v / 1000) for v in values.tolist())
    for outside in ([-1, 5, -1500], [10**15, 2**62]):  # negative or 16 digits: repr itself
        one, arguments = chrome._microseconds(numpy.array(outside, dtype=numpy.int64))
        assert ",".join([one] * len(outside)) % tuple(arguments) == ",".join(repr(v / 1000) for v in outside)


def segments_of(rows_per_thread, node_stacks):
    return [
        (
            numpy.array([t for t, _, _ in rows], dtype=numpy.int64).tobytes(),
            numpy.array([n for _, n, _ in rows], dtype=numpy.int64).tobytes(),
            numpy.array([w for _, _, w in rows], dtype=numpy.int64).tobytes(),
            numpy.array(stacks, dtype=numpy.int64).tobytes(),
        )
        for rows, stacks in zip(rows_per_thread, node_stacks)
    ]


@pytest.mark.parametrize("node_stacks", [[[0, -1, 1, 2], [2, -1, 0]], [[0, -1, 1, 2]], [[0, 1, 2]]])
def test_a_chart_from_segments_is_the_chart_of_its_stretches_with_a_stack(node_stacks):
    """Two threads, one (made in place), one whose stretches all have a stack."""
    rng = random.Random(2)
    stacks = [("a",), ("a", "b"), ("c",)]
    threads = ["main", "worker"][: len(node_stacks)]  # per thread: node -> stack id (-1: none)
    rows_per_thread = []
    for nodes in node_stacks:
        at, rows = 1000, []
        for _ in range(50):
            at += rng.choice([0, 5, 17])  # equal times across threads: the first thread's first
            rows.append((at, rng.randrange(len(nodes)), rng.randint(1, 9)))
        rows_per_thread.append(rows)
    chart = FlameChart.from_segments(stacks, threads, segments_of(rows_per_thread, node_stacks), 1000, Metadata(unit="ns"))
    expected = sorted(
        (
            (t - 1000, thread, stacks[node_stacks[thread][n]], w)
            for thread, rows in enumerate(rows_per_thread)
            for t, n, w in rows
            if node_stacks[thread][n] >= 0
        ),
        key=lambda row: row[0],
    )  # stable: ties keep the threads' order
    pickled = pickle.loads(pickle.dumps(chart))  # as the traced process sends it: still bytes
    assert "_timestamps" not in vars(pickled)
    for each in (chart, pickled, pickle.loads(pickle.dumps(chart))):  # the last: made, then pickled
        assert [(s.timestamp, threads.index(s.thread), s.stack, s.weight) for s in each.samples()] == expected
    assert type(chart.columns()[3]).__name__ == "array"  # int64 weights, no Python object each
    chart.append(10**6, "main", ("a",), 0.5)  # a weight that is no int: the weights become a list
    assert list(chart.samples())[-1].weight == 0.5 and len(chart) == len(expected) + 1


def test_an_empty_chart_from_segments():
    chart = FlameChart.from_segments([], ["main"], segments_of([[]], [[]]), 0, Metadata(unit="ns"))
    assert len(chart) == 0 and chart.thread_columns() == []
    assert json.loads(write(speedscope, chart))["profiles"] == []


def test_thread_columns_are_per_thread_in_order_of_first_sample():
    chart = random_chart(random.Random(4))
    expected = {thread: samples for thread, samples in chart.per_thread().items()}
    got = chart.thread_columns()
    assert [thread for thread, *_ in got] == list(expected)
    for thread, times, stack_ids, weights in got:
        assert list(zip(times.tolist(), stack_ids.tolist(), weights.tolist())) == expected[thread]


def appended(metadata, samples) -> FlameChart:
    """The chart ``append`` makes of these samples, one at a time (the oracle of merged and relabelled)."""
    chart = FlameChart(metadata)
    for sample in samples:
        chart.append(*sample)
    return chart


def same_chart(got: FlameChart, expected: FlameChart) -> None:
    assert got.stacks == expected.stacks and got.threads == expected.threads
    assert [list(column) for column in got.columns()] == [list(column) for column in expected.columns()]
    assert [tuple(map(type, sample)) for sample in got.samples()] == [tuple(map(type, s)) for s in expected.samples()]


@pytest.mark.parametrize("seed", range(20))
def test_merged_and_relabelled_are_the_charts_append_makes(seed):
    rng = random.Random(seed)
    one, other = random_chart(rng, floats=seed % 4 == 0), random_chart(rng)
    if seed % 5 == 0:
        one = FlameChart.from_columns(one.stacks + [("unused",)], one.threads, *one.columns(), metadata=one.metadata)
    same_chart(one.merged(other), appended(one.metadata, sorted([*one.samples(), *other.samples()], key=lambda s: s[0])))
    shift, root, suffix = rng.randint(-(10**6), 10**6), ("process 7",), " (7)"
    same_chart(
        one.relabelled(shift, root, suffix),
        appended(one.metadata, [(t + shift, thread + suffix, root + stack, w) for t, thread, stack, w in one.samples()]),
    )
    same_chart(FlameChart().merged(FlameChart()), FlameChart())


def test_relabelled_refuses_times_beyond_64_bits():
    chart = appended(Metadata(unit="ns"), [(2**62, "t", ("a",), 1)])
    with pytest.raises(OverflowError):
        chart.relabelled(2**62)
