"""The speedscope and Chrome readers' array operations give exactly what their per-event
reading gives (the readers they replaced, kept for small traces and odd input: the reference
here): the same samples, threads, stacks, weights of the same types, metadata, diagnostics and
errors, on random traces with nesting, equal times, unclosed begins, several threads and
processes, and bad events."""

from __future__ import annotations

import io
import json
import random
from collections import Counter
from typing import Any, Callable

import contextlib

import pytest

from flamespace.core.chart import FlameChart
from flamespace.core.metadata import Metadata
from flamespace.diagnostics import Diagnostics
from flamespace.errors import InputError
from flamespace.formats import _nesting, chrome, speedscope

CASES = 300


def _outcome(read: Callable[..., Any], text: str, **options: Any) -> tuple[Any, ...]:
    """Everything a read shows: the chart's samples (with their weights' types), threads, stacks, metadata, diagnostics; or the error."""
    diagnostics = Diagnostics()
    try:
        chart = read(io.StringIO(text), source="trace.json", diagnostics=diagnostics, **options)
    except InputError as exc:
        return ("error", str(exc), exc.args)
    samples = [(*sample, type(sample.weight)) for sample in chart.samples()]
    return (samples, chart.threads, chart.stacks, chart.metadata, diagnostics.messages())


def per_event(parse: Callable[..., Any]) -> Callable[..., Any]:
    """``parse`` reading event by event, as it reads traces under ``_nesting.ARRAYS_FROM`` events."""

    def read(*args: Any, **options: Any) -> Any:
        saved, _nesting.ARRAYS_FROM = _nesting.ARRAYS_FROM, 10**9
        try:
            return parse(*args, **options)
        finally:
            _nesting.ARRAYS_FROM = saved

    return read


def _times(rng: random.Random, count: int, floats: bool) -> list[Any]:
    """Times in order, often equal (ties), as ints or as floats."""
    now, times = rng.choice([0, 5, 1000]), []
    for _ in range(count):
        now += rng.choice([0, 0, 1, 2, 7, 100])
        times.append(now + rng.choice([0.25, 0.5, 0.001]) if floats else now)
    return times


def _evented_events(rng: random.Random, frames: int, count: int, floats: bool) -> list[Any]:
    """Open and close events nested at random (all closed at the end)."""
    events, open_frames = [], []
    for at in _times(rng, count, floats):
        if open_frames and (rng.random() < 0.45 or len(open_frames) > 6):
            events.append({"type": "C", "at": at, "frame": open_frames.pop()})
        else:
            open_frames.append(rng.randrange(frames))
            events.append({"type": "O", "at": at, "frame": open_frames[-1]})
    last = events[-1]["at"] if events else 0
    events.extend({"type": "C", "at": last + rng.choice([0, 3]), "frame": frame} for frame in reversed(open_frames))
    return events


def _speedscope_document(rng: random.Random) -> dict:
    names = ["main", "f", "g", "f"]  # two frames of one name: one stack
    frames = [{"name": name} for name in names] + [{"name": "h", "file": "/src/m.py", "line": 3}]
    profiles = []
    floats = rng.random() < 0.3
    for k in range(rng.randint(1, 3)):
        if rng.random() < 0.2:
            count = rng.randint(0, 6)
            profiles.append(
                {
                    "type": "sampled",
                    "name": "s",
                    "unit": "nanoseconds",
                    "startValue": 0,
                    "samples": [[rng.randrange(len(frames)) for _ in range(rng.randint(0, 3))] for _ in range(count)],
                    "weights": [rng.choice([0, 1, 2.5, 7]) for _ in range(count)],
                }
            )
        else:
            events = _evented_events(rng, len(frames), rng.randint(0, 40), floats)
            profiles.append(
                {
                    "type": "evented",
                    "name": rng.choice(["main", "worker", ""]),
                    "unit": "nanoseconds",
                    "startValue": events[0]["at"] if events else 0,
                    "endValue": 0,
                    "events": events,
                }
            )
    return {"$schema": speedscope.SCHEMA, "shared": {"frames": frames}, "profiles": profiles}


def _mangle(rng: random.Random, events: list[Any], fields: list[str]) -> None:
    """One event made bad (a field's value changed or removed), sometimes."""
    if events and rng.random() < 0.3:
        event = rng.choice(events)
        field = rng.choice(fields)
        if rng.random() < 0.3:
            event.pop(field, None)
        else:
            event[field] = rng.choice([-1, 10**30, "x", None, True, 2.0, float("nan"), [1]])


@pytest.fixture(params=["arrays", "shallow"])
def depth(request: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The readers with arrays, also for these small traces; and with nesting deeper than one
    frame left to the loops (Chrome's cut) and per-event reading."""
    monkeypatch.setattr(_nesting, "ARRAYS_FROM", 0)
    if request.param == "shallow":
        monkeypatch.setattr(_nesting, "MAX_DEPTH", 1)


@pytest.mark.parametrize("seed", range(CASES))
def test_speedscope_reader_equals_the_per_event_reader(seed: int, depth: None) -> None:
    rng = random.Random(seed)
    document = _speedscope_document(rng)
    for profile in document["profiles"]:
        _mangle(rng, profile.get("events", []), ["type", "at", "frame"])
    text = json.dumps(document)
    assert _outcome(speedscope.parse, text) == _outcome(per_event(speedscope.parse), text)
    wanted = speedscope.ReadOptions(profile="0")
    assert _outcome(speedscope.parse, text, options=wanted) == _outcome(per_event(speedscope.parse), text, options=wanted)


def _chrome_events(rng: random.Random) -> list[Any]:
    """X and B/E events on a few threads of a few processes, nested at random, some spans
    running past their parent's end, some begins never ended, thread and process names."""
    names = ["main", "f (/src/m.py:3)", "g", "f"]
    floats = rng.random() < 0.3
    events: list[Any] = []
    threads = [(rng.choice([1, 2, "p"]), rng.choice([1, 7, "t", None])) for _ in range(rng.randint(1, 3))]
    for pid, tid in threads:
        if rng.random() < 0.5:
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": rng.choice(["main", "w"])}})
        if rng.random() < 0.3:
            events.append({"ph": "M", "name": "process_name", "pid": pid, "args": {"name": "python"}})
    begun: dict = {thread: [] for thread in threads}
    for ts in _times(rng, rng.randint(0, 40), floats):
        pid, tid = thread = rng.choice(threads)
        roll = rng.random()
        if roll < 0.3:
            events.append(
                {"ph": "X", "name": rng.choice(names), "ts": ts, "dur": rng.choice([0, 1, 3, 50, 0.5]), "pid": pid, "tid": tid}
            )
        elif roll < 0.65 or not begun[thread]:
            begun[thread].append(ts)
            events.append({"ph": "B", "name": rng.choice(names), "ts": ts, "pid": pid, "tid": tid})
        elif roll < 0.97:
            begun[thread].pop()
            events.append({"ph": "E", "ts": ts, "pid": pid, "tid": tid})
        else:
            events.append({"ph": rng.choice(["i", "C", "s"]), "name": "other", "ts": ts, "pid": pid, "tid": tid})
    last = max([event["ts"] for event in events if "ts" in event], default=0)
    for (pid, tid), open_spans in begun.items():
        for _ in open_spans:
            if rng.random() < 0.9:
                events.append({"ph": "E", "ts": last, "pid": pid, "tid": tid})
    _mangle(rng, events, ["ph", "ts", "dur", "name", "pid", "tid"])
    return events


@pytest.mark.parametrize("seed", range(CASES))
def test_chrome_reader_equals_the_per_event_reader(seed: int, depth: None) -> None:
    rng = random.Random(seed)
    events = _chrome_events(rng)
    document: Any = {"traceEvents": events} if rng.random() < 0.8 else events
    if isinstance(document, dict) and rng.random() < 0.2:
        document["flamespace"] = {"unit": rng.choice(["ns", "us", "ms", "samples"]), "metric": "wall", "labels": {"a": 1}}
    text = json.dumps(document)
    for skip in (False, True):
        options = chrome.ReadOptions(skip_invalid=skip)
        assert _outcome(chrome.parse, text, options=options) == _outcome(per_event(chrome.parse), text, options=options)


@pytest.mark.parametrize("seed", range(40))
def test_charts_written_by_the_writers_read_back_as_the_per_event_readers_read_them(seed: int, depth: None) -> None:
    """Random charts (several threads, equal times, gaps, nesting) through each writer."""
    rng = random.Random(seed)
    chart = FlameChart(Metadata(unit="ns", metric="wall"))
    now = 0
    frames = ["main", "f (m.py:3)", "g", "h"]
    for _ in range(rng.randint(0, 60)):
        now += rng.choice([0, 0, 5, 40])
        stack = tuple(rng.choice(frames) for _ in range(rng.randint(1, 5)))
        chart.append(now, rng.choice(["main", "worker", "io"]), stack, rng.choice([1, 3, 40]))
    for module, read in ((speedscope, per_event(speedscope.parse)), (chrome, per_event(chrome.parse))):
        text = io.StringIO()
        module.dump(chart, text)
        assert _outcome(module.parse, text.getvalue()) == _outcome(read, text.getvalue())


def test_the_random_traces_reach_every_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The random documents reach the array readers (most), and their fallbacks (else the tests above test little)."""
    monkeypatch.setattr(_nesting, "ARRAYS_FROM", 0)
    seen: Counter = Counter()
    for module, name in ((chrome, "_span_arrays"), (chrome, "_nested_stretches"), (speedscope, "_evented_arrays")):

        def counted(*args: Any, _function: Any = getattr(module, name), _name: str = name) -> Any:
            found = _function(*args)
            seen[_name, found is not None] += 1  # read with arrays, or left to the fallback
            return found

        monkeypatch.setattr(module, name, counted)
    for seed in range(100):
        rng = random.Random(seed)
        chrome.parse(io.StringIO(json.dumps(_chrome_events(rng))), chrome.ReadOptions(skip_invalid=True))
        with contextlib.suppress(InputError):
            speedscope.parse(io.StringIO(json.dumps(_speedscope_document(rng))))
    for name in ("_span_arrays", "_nested_stretches", "_evented_arrays"):
        assert seen[name, True] >= 40 and seen[name, False] >= 3, (name, seen)


@pytest.mark.parametrize("arrays_from", [0, 10**9])
def test_a_list_as_pid_or_tid_is_an_input_error_naming_the_event(arrays_from: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_nesting, "ARRAYS_FROM", arrays_from)
    events = [
        {"ph": "X", "name": "f", "ts": 0, "dur": 5, "pid": 1, "tid": 1},
        {"ph": "X", "name": "g", "ts": 1, "dur": 2, "pid": [1], "tid": 1},
    ]
    with pytest.raises(InputError, match=r"thread \(pid, tid\)"):
        chrome.parse(io.StringIO(json.dumps(events)), options=chrome.ReadOptions())
