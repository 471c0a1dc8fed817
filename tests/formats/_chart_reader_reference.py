"""The speedscope and Chrome readers as they were before they read with array operations: one
Python step (and a tuple of frame names) per event. Kept as the reference the array readers
must equal exactly (tests/formats/test_chart_readers.py)."""

from __future__ import annotations

import json
import sys
from operator import itemgetter
from typing import Any, Dict, List, Optional, TextIO, Tuple

from flamespace.core.chart import FlameChart
from flamespace.core.metadata import Metadata
from flamespace.core.python_frames import PythonFrames, split_frame
from flamespace.core.units import TIME_UNITS
from flamespace.diagnostics import Diagnostics
from flamespace.errors import InputError
from flamespace.formats import _json
from flamespace.formats.chrome import ReadOptions as ChromeOptions, _scale
from flamespace.formats.speedscope import (
    _UNITS, ReadOptions, _chosen, _evented, _frame_names, _metadata, _ns, _profile_name, _sampled, _start_value,
    _thread_name,
)

Stack = Tuple[str, ...]
Number = Any
Span = Tuple[int, int, str]


def speedscope_parse(stream: TextIO, options: ReadOptions = ReadOptions(), *, source: str = "<stream>",
                     diagnostics: Optional[Diagnostics] = None) -> FlameChart:
    """The file's profiles as one flame chart, a thread each, in time order (its ``graph()`` adds them up)."""


    try:
        document = json.load(stream)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg} (column {exc.colno})", source, exc.lineno) from None
    except RecursionError:
        raise InputError("not a speedscope file: JSON nested too deeply", source) from None
    if not isinstance(document, dict) or not isinstance(document.get("profiles"), list):
        raise InputError("not a speedscope file: expected an object with a 'profiles' list", source)
    frames = _frame_names(document, source)
    units = set()
    profiles = document["profiles"]
    for index, profile in enumerate(profiles):
        if not isinstance(profile, dict):
            raise InputError(f"profiles[{index}] is not an object", source)
    chosen = _chosen(profiles, options.profile, source)
    if options.profile is None and len(profiles) > 1 and diagnostics is not None:
        names = ", ".join(_profile_name(profile, index) for index, profile in enumerate(profiles[:5]))
        more = f" and {len(profiles) - 5} more" if len(profiles) > 5 else ""
        diagnostics.warn(f"{source}: read the file's {len(profiles)} profiles ({names}{more}) as one thread each; "
                         "a flame graph adds them up; pick one with --profile NAME|INDEX")
    for index in chosen:
        unit_name = profiles[index].get("unit", "none")
        if not isinstance(unit_name, str):
            raise InputError(f"profiles[{index}].unit is {unit_name!r:.60}, not a unit name", source)
        units.add(unit_name)
    if len(units) > 1:
        raise InputError(f"profiles use different units ({', '.join(sorted(units))}); cannot add them", source)
    unit = _UNITS.get(units.pop(), None) if units else None
    scale = TIME_UNITS.get(unit) if unit else None
    origin = min((_start_value(profiles[index], f"profiles[{index}]", source) for index in chosen), default=0)
    samples: List[Tuple[int, str, Stack, Number]] = []
    threads: Dict[str, int] = {}
    for index in chosen:
        profile = profiles[index]
        where = f"profiles[{index}]"
        thread = _thread_name(profile, index, threads)
        kind = profile.get("type")
        if kind == "sampled":
            stretches = _sampled(profile, frames, where, source)
        elif kind == "evented":
            stretches = _evented(profile, frames, where, source)
        else:
            raise InputError(f"{where} has type {kind!r}; expected 'sampled' or 'evented'", source)
        for stack, end, weight in stretches:
            if weight > 0:
                samples.append((_ns(end - origin, scale, where, source), thread, stack, weight))
    samples.sort(key=itemgetter(0))  # stable: each thread's samples keep their order
    chart = FlameChart(_metadata(document, unit))
    for sample in samples:
        chart.append(*sample)
    return chart



def chrome_parse(stream: TextIO, options: ChromeOptions = ChromeOptions(), *, source: str = "<input>",
                 diagnostics: Optional[Diagnostics] = None) -> FlameChart:
    document = _json.load(stream, source, "a Chrome trace", diagnostics)
    if document is None:
        return FlameChart(Metadata(unit="ns", metric="wall"))
    if isinstance(document, dict):
        events = _json.field(document, "traceEvents", list, "", source)
        where = "traceEvents"
    elif isinstance(document, list):
        events, where = document, ""
    else:
        raise InputError("not a Chrome trace: expected an object with 'traceEvents' or a list of events", source)
    return _chart(events, where, options, source, diagnostics, document if isinstance(document, dict) else {})


def _chart(events: List[Any], where: str, options: ChromeOptions, source: str, diagnostics: Optional[Diagnostics], document: Dict[str, Any]) -> FlameChart:
    spans: Dict[Tuple[Any, Any], List[Span]] = {}
    begun: Dict[Tuple[Any, Any], List[Tuple[int, str]]] = {}
    thread_names: Dict[Tuple[Any, Any], str] = {}
    process_names: Dict[Any, str] = {}
    names = PythonFrames()
    frame_names: Dict[str, str] = {}

    def frame(text: str) -> str:
        found = frame_names.get(text)
        if found is None:
            split = split_frame(text)
            found = frame_names[text] = sys.intern(names(*split) if split else text)
        return found

    for index, event in enumerate(events):
        path = f"{where}[{index}]"
        try:
            if not isinstance(event, dict):
                raise InputError(f"{path} is not an event object", source)
            phase = event.get("ph")
            if phase not in ("X", "B", "E", "M"):
                continue
            thread = (event.get("pid"), event.get("tid"))
            if phase == "M":
                args = event.get("args")
                label = args.get("name") if isinstance(args, dict) else None
                if isinstance(label, str):
                    if event.get("name") == "thread_name":
                        thread_names[thread] = label
                    elif event.get("name") == "process_name":
                        process_names[thread[0]] = label
                continue
            start = round(_json.number(event.get("ts"), f"{path}.ts", source) * 1000)
            if phase == "E":
                opened = begun.get(thread)
                if not opened:
                    raise InputError(f"{path} ends a span on thread {thread[1]!r} that was never begun", source)
                began, label = opened.pop()
                if start < began:
                    raise InputError(f"{path} ends at {start / 1000:g} us, before its span began ({began / 1000:g} us)", source)
                spans.setdefault(thread, []).append((began, start, label))
                continue
            label = event.get("name")
            if not isinstance(label, str):
                raise InputError(f"{path}.name is {label!r:.60}, not a string", source)
            if phase == "B":
                begun.setdefault(thread, []).append((start, frame(label)))
            else:
                duration = round(_json.number(event.get("dur", 0), f"{path}.dur", source, minimum=0) * 1000)
                spans.setdefault(thread, []).append((start, start + duration, frame(label)))
        except InputError as exc:
            if not options.skip_invalid:
                raise
            if diagnostics is not None:
                diagnostics.skip(source, None, exc.args[0] if exc.args else str(exc))
    for thread, open_spans in begun.items():
        if open_spans:
            reason = f"{len(open_spans)} spans begun on thread {thread[1]!r} never end"
            if not options.skip_invalid:
                raise InputError(reason + " (truncated trace?)", source)
            if diagnostics is not None:
                diagnostics.skip(source, None, reason)
    samples: List[Tuple[int, str, Stack, int]] = []
    for thread, thread_spans in spans.items():
        label = thread_names.get(thread) or f"{thread[0]}:{thread[1]}"
        for begin, end, frames in _segments(thread_spans):
            samples.append((end, label, frames, end - begin))
    samples.sort(key=lambda sample: sample[0])
    origin = min((end - weight for end, _, _, weight in samples), default=0)
    labels = {"profiler": "viztracer" if "viztracer_metadata" in document else "chrome trace"}
    if process_names:
        labels["processes"] = ", ".join(sorted(set(process_names.values())))
    metadata, scale = Metadata(unit="ns", metric="wall", labels=labels), 1.0
    ours = document.get("flamespace")
    if isinstance(ours, dict) and isinstance(ours.get("labels"), dict):  # written by us: the profile's own metadata and unit
        unit, metric = ours.get("unit"), ours.get("metric")
        unit = unit if isinstance(unit, str) else None
        metadata = Metadata(unit=unit, metric=metric if isinstance(metric, str) else None,
                            labels={str(k): str(v) for k, v in ours["labels"].items()})
        scale = _scale(unit)
    chart = FlameChart(metadata)
    for end, label, frames, weight in samples:
        chart.append(end - origin, label, frames, weight if scale == 1.0 else _json.unscaled(weight / scale))
    if not samples and diagnostics is not None and events:
        diagnostics.warn(f"{source}: the trace has no spans (X, or B and E events); the profile is empty")
    return chart


def _segments(spans: List[Span]) -> List[Tuple[int, int, Stack]]:
    """(start, end, stack) of every stretch of time where the open spans stay the same.

    Spans sorted by start, the longer first, nest: one that starts inside another is its child,
    cut at the parent's end if it runs past it. Of two spans with the same start and end, the
    one that ended later in the file is the outer: an end event or a complete event is written
    when its call returns, the inner call's first.
    """
    order = sorted(range(len(spans)), key=lambda k: (spans[k][0], -spans[k][1], -k))
    spans[:] = [spans[k] for k in order]
    out: List[Tuple[int, int, Stack]] = []
    open_ends: List[int] = []
    open_names: List[str] = []
    cursor = 0

    def close_until(time: int) -> None:
        nonlocal cursor
        while open_ends and open_ends[-1] <= time:
            end = open_ends[-1]
            if end > cursor:
                out.append((cursor, end, tuple(open_names)))
                cursor = end
            open_ends.pop()
            open_names.pop()

    for start, end, label in spans:
        close_until(start)
        if open_ends:
            end = min(end, open_ends[-1])
            if start > cursor:
                out.append((cursor, start, tuple(open_names)))
        cursor = start
        open_ends.append(end)
        open_names.append(label)
    close_until(sys.maxsize)
    return out


