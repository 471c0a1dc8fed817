"""Chrome's Trace Event JSON (chrome://tracing, Perfetto, VizTracer): a flame chart per thread.

Complete events (``"ph": "X"``, with ``ts`` and ``dur`` in microseconds) and begin/end
pairs (``B``/``E``) become nested spans on each thread (``pid``, ``tid``); every stretch of
time where a thread's stack stays the same is one sample of the chart, weighted by its
length in nanoseconds. Other events (instants, counters, flows, async) are not stacks and
are left out. ``thread_name`` metadata events name the threads.

A span that overlaps its parent's end is cut at the parent's end (the trace is then not
well nested; Perfetto draws it the same way). Names ``function (file:line)`` (VizTracer's)
are named as our recorder names Python frames; VizTracer's line is where the function
starts, not the line that was running, as a tracer sees calls, not lines.

Writing: a flame chart becomes begin/end events per thread (each sample covers the
``weight`` before its timestamp, as in the speedscope writer: gaps stay gaps), which
Perfetto and chrome://tracing open. A flame graph's stacks are laid end to end on one
thread. Weights in a time unit keep their length; other units (samples, bytes) are drawn
one unit to a microsecond.
"""

from __future__ import annotations

import sys

from .._record import Record, record
from ..core.chart import FlameChart
from ..core.differential import Differential
from ..core.metadata import Metadata
from ..core.units import TIME_UNITS
from ..core.vector import FlameGraph
from ..core.python_frames import PythonFrames, split_frame
from ..diagnostics import Diagnostics
from ..errors import ArgumentError, InputError
from . import _json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Optional, TextIO, Tuple, Union

    from .._types import Number, Stack

    Span = Tuple[int, int, str]  # start ns, end ns, frame

name = "chrome"
extensions = (".trace.json", ".trace", ".perfetto.json")
description = "Chrome Trace Event JSON (chrome://tracing, Perfetto, VizTracer): a flame chart per thread"
charts = True


@record
class ReadOptions(Record):
    skip_invalid: bool = False


@record
class WriteOptions(Record):
    """How to write a trace.

    ``header``: keep the profile's unit, metric and labels in a "flamespace" object, so the trace reads back as it was.
    """

    header: bool = True


def sniff(head: bytes) -> Optional[bool]:
    """An object with ``traceEvents``, or an array whose first event has a phase (``"ph"``)."""
    text = head.lstrip()
    if not text:
        return None
    if text[:1] == b"{":
        return b'"traceEvents"' in head
    if text[:1] == b"[":
        return b'"ph"' in head[:2048] and (b'"ts"' in head[:2048] or b'"name"' in head[:2048])
    return False


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Optional[Diagnostics] = None,
    stack_cache: Optional[Dict[str, Stack]] = None,
) -> FlameChart:
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


def _chart(events: List[Any], where: str, options: ReadOptions, source: str, diagnostics: Optional[Diagnostics], document: Dict[str, Any]) -> FlameChart:
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


def _scale(unit: Optional[str]) -> float:
    """Nanoseconds of trace time per unit of weight, as the writer draws them (a unit that is not time: a microsecond)."""
    return TIME_UNITS.get(unit or "samples", 1000.0)


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


# -- writing -------------------------------------------------------------------------------


def dump(profile: Union[FlameGraph, Differential, FlameChart], stream: TextIO, options: WriteOptions = WriteOptions()) -> None:
    """Begin/end events per thread, in microseconds, through the speedscope writer's timeline."""
    import numpy

    from .speedscope import _FrameTable, _marker, _timeline

    if isinstance(profile, Differential):
        raise ArgumentError("a Chrome trace cannot hold a differential profile; write each side on its own")
    metadata = profile.metadata or Metadata()
    per_thread: List[Tuple[str, Any, Any, Any]] = []  # (thread, times, stack ids, weights), threads by name
    stacks: List[Stack] = []
    unit = metadata.unit or "samples"
    scale = _scale(unit)
    if isinstance(profile, FlameChart) and unit == "ns":
        stacks = profile.stacks
        for thread_id, times, stack_ids, weights in profile.thread_columns(by_name=True):
            if weights.dtype == object:  # weights that are no ints: whole ns
                rounded: Any = numpy.empty(len(weights), dtype=object)
                rounded[:] = [round(weight) for weight in weights.tolist()]
                weights = _integers(rounded)
            per_thread.append((profile.threads[thread_id], times, stack_ids, weights))
    else:  # laid end to end, in time order for a chart
        rows = [(s.thread, s.stack, s.weight) for s in profile.samples()] if isinstance(profile, FlameChart) else [
            ("all", stack, value) for stack, value in profile.sorted_items()]
        ids: Dict[Stack, int] = {}
        now: Dict[str, int] = {}
        samples: Dict[str, List[Tuple[int, int, int]]] = {}
        for thread, stack, weight in rows:
            duration = round(weight * scale)
            if duration <= 0:
                continue
            stack_id = ids.setdefault(stack, len(ids))
            if stack_id == len(stacks):
                stacks.append(stack)
            now[thread] = now.get(thread, 0) + duration
            samples.setdefault(thread, []).append((now[thread], stack_id, duration))
        for thread, rows_of_thread in samples.items():
            columns = numpy.array(rows_of_thread, dtype=object).reshape(-1, 3)
            per_thread.append((thread, *(_integers(columns[:, k]) for k in range(3))))
    table = _FrameTable()
    marker = _marker()
    events: List[Any] = [
        {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": metadata.labels.get("command", "flamespace")}}]
    timelines: List[Tuple[int, Any]] = []  # (tid, its speedscope._Timeline)
    for tid, (thread, times, stack_ids, weights) in enumerate(per_thread, 1):
        events.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": tid, "args": {"name": thread}})
        timeline = _timeline(thread, times, stack_ids, weights, stacks, table)
        if len(timeline.steps):
            events.append(f"{marker}{len(timelines)}")
            timelines.append((tid, timeline))
    import json

    document: Dict[str, Any] = {"traceEvents": events, "displayTimeUnit": "ms"}
    if options.header:  # read back by parse (trace viewers ignore it)
        document["flamespace"] = {"unit": metadata.unit, "metric": metadata.metric, "labels": dict(metadata.labels)}
    text = json.dumps(document, separators=(",", ":"), ensure_ascii=False)  # json.dump takes the pure-Python encoder
    frames = [json.dumps(frame, ensure_ascii=False) for frame in table.index]
    for k, (tid, timeline) in enumerate(timelines):  # each thread's events streamed where its marker is
        before, _, text = text.partition(json.dumps(f"{marker}{k}", ensure_ascii=False))
        stream.write(before)
        end, begin = '{"ph":"E","ts":\x00,"pid":1,"tid":%d}' % tid, '{"ph":"B","ts":\x00,"pid":1,"tid":%d,"name":' % tid
        timeline.write(stream, lambda frame: end, lambda frame: begin + frames[frame] + "}", _microseconds)
    stream.write(text)
    stream.write("\n")


def _integers(values: Any) -> Any:
    """An object array of Python ints as int64 when they fit (the fast path), else as it is."""
    import numpy

    try:
        return values.astype(numpy.int64)
    except OverflowError:
        return values


#: The fractions of a microsecond as ``repr`` writes them after the point, by ns.
_FRACTIONS: List[str] = []


def _microseconds(values: Any) -> Tuple[str, List[Any]]:
    """``repr(ns / 1000)`` of each time of an array, as ``json`` writes the float (``12.345``,
    ``7.0``): the format of one (the same for every array) and the arguments of all. Made from the integers' digits, the
    whole microseconds and the fraction's text: the fraction is at most three digits, and a
    decimal of at most 15 significant digits is the shortest text of its float."""
    import numpy

    if values.dtype.kind != "i" or not len(values) or values.min() < 0 or values.max() >= 10**15:
        return "%s%s", [text for value in values.tolist() for text in (repr(value / 1000), "")]
    if not _FRACTIONS:
        _FRACTIONS.extend(repr(k / 1000)[1:] for k in range(1000))
    whole, part = numpy.divmod(values, 1000)
    arguments: Any = numpy.empty(2 * len(values), dtype=object)
    arguments[0::2] = whole.tolist()
    arguments[1::2] = numpy.array(_FRACTIONS, dtype=object)[part]
    return "%s%s", arguments.tolist()


__all__ = ["ReadOptions", "WriteOptions", "charts", "dump", "extensions", "name", "parse", "sniff"]
