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
from ..core.chart import LATEST_NS, FlameChart
from ..core.differential import Differential
from ..core.metadata import Metadata
from ..core.units import TIME_UNITS
from ..core.vector import FlameGraph
from ..core.python_frames import PythonFrames, split_frame
from ..core.vector import MAX_VALUE
from ..diagnostics import Diagnostics
from ..errors import ArgumentError, InputError
from . import _json
from . import _nesting
from ._limits import FrameBudget
from ._nesting import open_stacks, used_stacks

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from .._types import Stack

    Span = tuple[int, int, str]  # start ns, end ns, frame
    # A trace's spans: the threads' (pid, tid) in the order their first span ends, the names of
    # threads and processes, the frames, and the spans' columns (thread, start ns, end ns, frame,
    # the order spans ended in), numpy arrays.
    _Spans = tuple[list[tuple[Any, Any]], dict[tuple[Any, Any], str], dict[Any, str], list[str], tuple[Any, Any, Any, Any, Any]]

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


def sniff(head: bytes) -> bool | None:
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
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
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


def _chart(
    events: list[Any], where: str, options: ReadOptions, source: str, diagnostics: Diagnostics | None, document: dict[str, Any]
) -> FlameChart:
    had_events, arrays = bool(events), len(events) >= _nesting.ARRAYS_FROM
    read = _span_arrays(events, options, source, diagnostics) if arrays else None  # empties events when it reads them
    if read is None:  # small, or out of the ordinary: event by event, which names a bad event
        spans, thread_names, process_names = _read_events(events, where, options, source, diagnostics)
    else:
        thread_keys, thread_names, process_names, frames, columns = read
    labels = {"profiler": "viztracer" if "viztracer_metadata" in document else "chrome trace"}
    if process_names:
        labels["processes"] = ", ".join(sorted(set(process_names.values())))
    metadata, scale = Metadata(unit="ns", metric="wall", labels=labels), 1.0
    ours = document.get("flamespace")
    if isinstance(ours, dict) and isinstance(ours.get("labels"), dict):  # written by us: the profile's own metadata and unit
        unit, metric = ours.get("unit"), ours.get("metric")
        unit = unit if isinstance(unit, str) else None
        metadata = Metadata(
            unit=unit,
            metric=metric if isinstance(metric, str) else None,
            labels={str(k): str(v) for k, v in ours["labels"].items()},
        )
        scale = _scale(unit)
    if not arrays:
        chart = _sample_chart(spans, thread_names, metadata, scale, FrameBudget(source))
    else:
        if read is None:
            thread_keys, frames, columns = _span_columns(spans)
        thread_ids, begins, ends, nodes, stacks = _stretches(columns, len(thread_keys), frames, FrameBudget(source))
        weights: Any = ends - begins
        if scale != 1.0:  # a profile of another unit, written by us
            from .speedscope import _objects

            weights = _objects([[_json.unscaled(weight / scale) for weight in weights.tolist()]])
        names = [thread_names.get(thread) or f"{thread[0]}:{thread[1]}" for thread in thread_keys]
        origin = int(begins.min()) if len(begins) else 0
        chart = FlameChart.in_time_order(stacks, names, ends - origin, thread_ids, nodes, weights, metadata)
    if not len(chart) and diagnostics is not None and had_events:
        diagnostics.warn(f"{source}: the trace has no spans (X, or B and E events); the profile is empty")
    return chart


def _sample_chart(
    spans: dict[tuple[Any, Any], list[Span]],
    thread_names: dict[tuple[Any, Any], str],
    metadata: Metadata,
    scale: float,
    budget: FrameBudget,
) -> FlameChart:
    """The chart of a small trace's spans, a sample at a time (no numpy)."""
    samples: list[tuple[int, str, Stack, int]] = []
    for thread, thread_spans in spans.items():
        label = thread_names.get(thread) or f"{thread[0]}:{thread[1]}"
        for begin, end, frames in _segments(thread_spans, budget):
            samples.append((end, label, frames, end - begin))
    samples.sort(key=lambda sample: sample[0])
    origin = min((end - weight for end, _, _, weight in samples), default=0)
    chart = FlameChart(metadata)
    for end, label, frames, weight in samples:
        chart.append(end - origin, label, frames, weight if scale == 1.0 else _json.unscaled(weight / scale))
    return chart


#: The phases read, by code.
_PHASES = {"X": 1, "B": 2, "E": 3, "M": 4}


def _span_arrays(events: list[Any], options: ReadOptions, source: str, diagnostics: Diagnostics | None) -> _Spans | None:
    """The spans of a trace with array operations on the lists of the events' fields that json
    made (no object made per event); None for anything out of the ordinary (a bad event,
    times beyond 2**53 ns, thread ids that are neither ints nor strings), which
    :func:`_read_events` then reads event by event."""
    import numpy
    from collections import defaultdict
    from itertools import compress, count, repeat

    if not events or set(map(type, events)) != {dict}:
        return None
    try:
        codes = numpy.fromiter(
            map(_PHASES.get, [event.get("ph") for event in events], repeat(0)), dtype=numpy.int8, count=len(events)
        )
        thread_names: dict[tuple[Any, Any], str] = {}
        process_names: dict[Any, str] = {}
        for event in compress(events, (codes == 4).tolist()):
            args = event.get("args")
            label = args.get("name") if isinstance(args, dict) else None
            if isinstance(label, str):
                if event.get("name") == "thread_name":
                    thread_names[(event.get("pid"), event.get("tid"))] = label
                elif event.get("name") == "process_name":
                    process_names[event.get("pid")] = label
    except TypeError:  # an unhashable phase or id
        return None
    chosen = (codes >= 1) & (codes <= 3)
    spanning = list(compress(events, chosen.tolist()))
    codes = codes[chosen]
    n = len(spanning)
    is_complete, is_begin = codes == 1, codes == 2
    named = is_complete | is_begin
    names = [event.get("name") for event in compress(spanning, named.tolist())]
    if names and set(map(type, names)) != {str}:
        return None
    starts = _nanoseconds([event.get("ts") for event in spanning], -MAX_VALUE)
    durations = _nanoseconds([event.get("dur", 0) for event in compress(spanning, is_complete.tolist())], 0)
    pids, tids = [event.get("pid") for event in spanning], [event.get("tid") for event in spanning]
    if starts is None or durations is None or not set(map(type, pids)) | set(map(type, tids)) <= {int, str, type(None)}:
        return None
    pid_codes: dict[Any, int] = defaultdict(count().__next__)
    tid_codes: dict[Any, int] = defaultdict(count().__next__)
    pid_column = numpy.fromiter(map(pid_codes.__getitem__, pids), dtype=numpy.int64, count=n)
    tid_column = numpy.fromiter(map(tid_codes.__getitem__, tids), dtype=numpy.int64, count=n)
    del pids, tids
    keys, threads = numpy.unique(pid_column * len(tid_codes) + tid_column, return_inverse=True)
    threads = threads.reshape(-1)
    pid_values, tid_values = list(pid_codes), list(tid_codes)
    label_codes: dict[str, int] = defaultdict(count().__next__)
    labels: Any = numpy.full(n, -1, dtype=numpy.int64)
    labels[named] = numpy.fromiter(map(label_codes.__getitem__, names), dtype=numpy.int64, count=len(names))
    del names
    python_frames = PythonFrames()
    frames = [_frame(text, python_frames) for text in label_codes]
    # Begin/end pairs: per thread, an end closes the latest begin still open (a stack per thread),
    # found as the begin just before it among the thread's events at its depth.
    paired = numpy.flatnonzero(codes >= 2)
    by_thread = paired[numpy.argsort(threads[paired], kind="stable")]
    step = numpy.where(codes[by_thread] == 2, 1, -1)
    depth = numpy.cumsum(step)
    thread_of = threads[by_thread]
    first: Any = numpy.ones(len(by_thread), dtype=bool)
    first[1:] = thread_of[1:] != thread_of[:-1]
    starts_at = numpy.flatnonzero(first)
    depth -= numpy.repeat(depth[starts_at] - step[starts_at], numpy.diff(numpy.append(starts_at, len(by_thread))))
    if (depth < 0).any():  # an end of nothing
        return None
    level = depth + (step < 0)
    order = by_thread[numpy.lexsort((numpy.arange(len(by_thread)), level, thread_of))]
    closing = numpy.flatnonzero(codes[order] == 3)
    ended, begun = order[closing], order[closing - 1]
    if (codes[begun] != 2).any() or (starts[ended] < starts[begun]).any():
        return None
    del spanning
    events.clear()  # read: the events' objects go (most of the document's memory) before the spans are nested
    open_left: Any = numpy.ones(n, dtype=bool)
    open_left[begun] = False
    open_left &= is_begin
    if open_left.any():
        _unended(
            open_left,
            is_begin,
            threads,
            [tid_values[key % len(tid_codes)] for key in keys.tolist()],
            options,
            source,
            diagnostics,
        )
    complete = numpy.flatnonzero(is_complete)
    span_thread = numpy.concatenate([threads[complete], threads[ended]])
    span_start = numpy.concatenate([starts[complete], starts[begun]])
    span_end = numpy.concatenate([starts[complete] + durations, starts[ended]])
    span_label = numpy.concatenate([labels[complete], labels[begun]])
    span_order = numpy.concatenate([complete, ended])  # when each was added: where it ended
    first_span: Any = numpy.full(len(keys), n, dtype=numpy.int64)
    numpy.minimum.at(first_span, span_thread, span_order)
    ranked = numpy.argsort(first_span, kind="stable")[: int((first_span < n).sum())]
    rank: Any = numpy.empty(len(keys), dtype=numpy.int64)
    rank[ranked] = numpy.arange(len(ranked))
    thread_keys = [(pid_values[key // len(tid_codes)], tid_values[key % len(tid_codes)]) for key in keys[ranked].tolist()]
    return thread_keys, thread_names, process_names, frames, (rank[span_thread], span_start, span_end, span_label, span_order)


def _nanoseconds(values: list[Any], minimum: float) -> Any:
    """``round(value * 1000)`` of each of ``values`` (microseconds) as int64, exactly as in
    Python: None if one is no number in [minimum, MAX_VALUE) or the products pass 2**53."""
    import numpy

    if not set(map(type, values)) <= {int, float}:
        return None
    try:
        times = numpy.array(values, dtype=numpy.float64)
    except OverflowError:
        return None
    if not ((times >= minimum) & (numpy.abs(times) < 2.0**53 / 1000)).all():  # also NaN
        return None
    return numpy.rint(times * 1000).astype(numpy.int64)


def _unended(
    open_left: Any,
    is_begin: Any,
    threads: Any,
    tids: list[Any],
    options: ReadOptions,
    source: str,
    diagnostics: Diagnostics | None,
) -> None:
    """Refuse (or with ``skip_invalid``, report) begins never ended, per thread in the order of their first begin."""
    import numpy

    begins = numpy.flatnonzero(is_begin)
    first: Any = numpy.full(len(tids), len(is_begin), dtype=numpy.int64)
    numpy.minimum.at(first, threads[begins], begins)
    left = numpy.bincount(threads[open_left], minlength=len(tids))
    for thread in numpy.argsort(first, kind="stable").tolist():
        if left[thread]:
            _unended_on(int(left[thread]), tids[thread], options, source, diagnostics)


def _unended_on(count: int, tid: Any, options: ReadOptions, source: str, diagnostics: Diagnostics | None) -> None:
    reason = f"{count} spans begun on thread {tid!r} never end"
    if not options.skip_invalid:
        raise InputError(reason + " (truncated trace?)", source)
    if diagnostics is not None:
        diagnostics.skip(source, None, reason)


def _frame(text: str, names: PythonFrames) -> str:
    """The frame of a span's name: ``function (file:line)`` named as our recorder names Python frames."""
    split = split_frame(text)
    return sys.intern(names(*split) if split else text)


def _read_events(
    events: list[Any], where: str, options: ReadOptions, source: str, diagnostics: Diagnostics | None
) -> tuple[dict[tuple[Any, Any], list[Span]], dict[tuple[Any, Any], str], dict[Any, str]]:
    """The spans of a trace read event by event, per thread (pid, tid) in the order their first
    span ends, and the names of threads and processes; each bad event refused (or skipped with
    ``skip_invalid``) naming its place."""
    spans: dict[tuple[Any, Any], list[Span]] = {}
    begun: dict[tuple[Any, Any], list[tuple[int, str]]] = {}
    thread_names: dict[tuple[Any, Any], str] = {}
    process_names: dict[Any, str] = {}
    frame_names: dict[str, str] = {}
    python_frames = PythonFrames()

    def frame(text: str) -> str:
        found = frame_names.get(text)
        if found is None:
            found = frame_names[text] = _frame(text, python_frames)
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
            if isinstance(thread[0], (list, dict)) or isinstance(thread[1], (list, dict)):
                raise InputError(f"{path} has the thread (pid, tid) {thread!r:.60}; expected numbers or strings", source)
            if phase == "M":
                args = event.get("args")
                label = args.get("name") if isinstance(args, dict) else None
                if isinstance(label, str):
                    if event.get("name") == "thread_name":
                        thread_names[thread] = label
                    elif event.get("name") == "process_name":
                        process_names[thread[0]] = label
                continue
            ts = _json.number(event.get("ts"), f"{path}.ts", source)
            start = _json.nanoseconds(ts, 1000, f"{path}.ts", source, "us")
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
                dur = _json.number(event.get("dur", 0), f"{path}.dur", source, minimum=0)
                duration = _json.nanoseconds(dur, 1000, f"{path}.dur", source, "us")
                _json.nanoseconds((start + duration) / 1000, 1000, f"{path}.ts + dur", source, "us")  # where it ends, too
                spans.setdefault(thread, []).append((start, start + duration, frame(label)))
        except InputError as exc:
            if not options.skip_invalid:
                raise
            if diagnostics is not None:
                diagnostics.skip(source, None, exc.args[0] if exc.args else str(exc))
    for thread, open_spans in begun.items():
        if open_spans:
            _unended_on(len(open_spans), thread[1], options, source, diagnostics)
    return spans, thread_names, process_names


def _span_columns(
    spans: dict[tuple[Any, Any], list[Span]],
) -> tuple[list[tuple[Any, Any]], list[str], tuple[Any, Any, Any, Any, Any]]:
    """:func:`_read_events`' spans as :func:`_span_arrays` gives them: threads, frames, columns."""
    import numpy

    frames = list(dict.fromkeys(label for thread_spans in spans.values() for _, _, label in thread_spans))
    frame_ids = {frame: k for k, frame in enumerate(frames)}
    rows = [
        (k, begin, end, frame_ids[label], order)
        for k, thread_spans in enumerate(spans.values())
        for order, (begin, end, label) in enumerate(thread_spans)
    ]
    columns = numpy.array(rows, dtype=object).reshape(-1, 5)
    return (
        list(spans),
        frames,
        (
            _integers(columns[:, 0]),
            _integers(columns[:, 1]),
            _integers(columns[:, 2]),
            _integers(columns[:, 3]),
            _integers(columns[:, 4]),
        ),
    )


def _stretches(
    columns: tuple[Any, Any, Any, Any, Any], thread_count: int, frames: list[str], budget: FrameBudget
) -> tuple[Any, Any, Any, Any, list[Stack]]:
    """(thread, start, end, node) of every stretch of time where a thread's open spans stay the
    same, threads one after another, and each node's stack.

    Spans sorted by start, the longer first, nest: one that starts inside another is its child,
    cut at the parent's end if it runs past it. Of two spans with the same start and end, the
    one that ended later in the file is the outer: an end event or a complete event is written
    when its call returns, the inner call's first. Spans that nest (none cut) are read with
    array operations (:func:`_nested_stretches`), others with one loop over the spans that makes
    no object per span but ints: the open stacks are nodes of a tree of frame indices.
    """
    import numpy
    from array import array

    threads, starts, ends, labels, orders = columns
    order = numpy.lexsort((-orders, -ends, starts, threads))
    nested = _nested_stretches(threads[order], starts[order], ends[order], labels[order], frames, budget)
    if nested is not None:
        return nested
    bounds: Any = numpy.searchsorted(threads[order], numpy.arange(thread_count + 1))
    out_threads, out_begins, out_ends, out_nodes = array("q"), array("q"), array("q"), array("q")
    children: list[dict[int, int]] = [{}]
    parent, label_of = [-1], [-1]  # per node of the tree; 0: no frame open
    for thread in range(thread_count):
        chosen = order[bounds[thread] : bounds[thread + 1]]
        before = len(out_ends)
        open_ends: list[int] = []
        open_nodes: list[int] = []
        cursor = 0
        for start, end, label in zip(
            starts[chosen].tolist() + [sys.maxsize], ends[chosen].tolist() + [0], labels[chosen].tolist() + [-1]
        ):
            while open_ends and open_ends[-1] <= start:
                node = open_nodes.pop()
                close = open_ends.pop()
                if close > cursor:
                    out_begins.append(cursor)
                    out_ends.append(close)
                    out_nodes.append(node)
                    cursor = close
            if label < 0:  # past the last span: all closed
                break
            top = 0
            if open_ends:
                top = open_nodes[-1]
                if end > open_ends[-1]:
                    end = open_ends[-1]
                if start > cursor:
                    out_begins.append(cursor)
                    out_ends.append(start)
                    out_nodes.append(top)
            cursor = start
            kids = children[top]
            child = kids.get(label)
            if child is None:
                child = kids[label] = len(parent)
                parent.append(top)
                label_of.append(label)
                children.append({})
            open_ends.append(end)
            open_nodes.append(child)
        out_threads.extend(array("q", [thread]) * (len(out_ends) - before))
    as_numpy = [
        numpy.frombuffer(column, dtype=numpy.int64) if len(column) else numpy.zeros(0, dtype=numpy.int64)
        for column in (out_threads, out_begins, out_ends, out_nodes)
    ]
    stack_ids, stacks = used_stacks(as_numpy[3], parent, label_of, frames, budget)
    return as_numpy[0], as_numpy[1], as_numpy[2], stack_ids, stacks


def _nested_stretches(
    threads: Any, starts: Any, ends: Any, labels: Any, frames: list[str], budget: FrameBudget
) -> tuple[Any, Any, Any, Any, list[Stack]] | None:
    """:func:`_stretches` of spans in its order that nest, as begin and end events of a stack
    (:func:`._nesting.open_stacks`): at one time, on one thread, the spans that end there close
    first (the innermost first), then those of some length open (in order), then each span of
    no length opens and closes (it parts its parent's stretch there, as the loop does). None
    when a span runs past its parent's end (or the nesting is too deep): the loop cuts it."""
    import numpy

    n = len(starts)
    position = numpy.arange(n)
    empty = starts == ends
    kind = numpy.concatenate([numpy.where(empty, 2, 1), numpy.where(empty, 2, 0)])
    tiebreak = numpy.concatenate([numpy.where(empty, 2 * position, position), numpy.where(empty, 2 * position + 1, -position)])
    order = numpy.lexsort((tiebreak, kind, numpy.concatenate([starts, ends]), numpy.concatenate([threads, threads])))
    opens = order < n
    span = numpy.where(opens, order, order - n)
    nested = open_stacks(opens, span, labels[span])
    if nested is None:
        return None
    tops, parents, node_frames = nested
    times = numpy.where(opens, starts[span], ends[span])
    keep = numpy.flatnonzero((tops[:-1] != 0) & (times[1:] > times[:-1]))  # from each event to the next while a span is open
    stack_ids, stacks = used_stacks(tops[keep], parents.tolist(), node_frames.tolist(), frames, budget)
    return threads[span[keep]], times[keep], times[keep + 1], stack_ids, stacks


def _scale(unit: str | None) -> float:
    """Nanoseconds of trace time per unit of weight, as the writer draws them (a unit that is not time: a microsecond)."""
    return TIME_UNITS.get(unit or "samples", 1000.0)


def _segments(spans: list[Span], budget: FrameBudget) -> list[tuple[int, int, Stack]]:
    """(start, end, stack) of every stretch of time where the open spans stay the same.

    A stack's tuple is made when its first stretch is, once however many stretches it has (a
    tuple per span would be quadratic in the depth), charged to the reading's ``budget``.

    Spans sorted by start, the longer first, nest: one that starts inside another is its child,
    cut at the parent's end if it runs past it. Of two spans with the same start and end, the
    one that ended later in the file is the outer: an end event or a complete event is written
    when its call returns, the inner call's first.
    """
    order = sorted(range(len(spans)), key=lambda k: (spans[k][0], -spans[k][1], -k))
    spans[:] = [spans[k] for k in order]
    out: list[tuple[int, int, Stack]] = []
    open_ends: list[int] = []
    open_names: list[str] = []
    open_stacks: list[Stack | None] = []  # the open stack's tuple at each depth, once made
    cursor = 0

    def top() -> Stack:
        stack = open_stacks[-1]
        if stack is None:
            stack = open_stacks[-1] = tuple(open_names)
            budget.charge(len(stack))
        return stack

    def close_until(time: int) -> None:
        nonlocal cursor
        while open_ends and open_ends[-1] <= time:
            end = open_ends[-1]
            if end > cursor:
                out.append((cursor, end, top()))
                cursor = end
            open_ends.pop()
            open_names.pop()
            open_stacks.pop()

    for start, end, label in spans:
        close_until(start)
        if open_ends:
            end = min(end, open_ends[-1])
            if start > cursor:
                out.append((cursor, start, top()))
        cursor = start
        open_ends.append(end)
        open_names.append(label)
        open_stacks.append(None)
    close_until(sys.maxsize)
    return out


# -- writing -------------------------------------------------------------------------------


def dump(profile: FlameGraph | Differential | FlameChart, stream: TextIO, options: WriteOptions = WriteOptions()) -> None:
    """Begin/end events per thread, in microseconds, through the speedscope writer's timeline."""
    import numpy

    from .speedscope import _FrameTable, _marker, _timeline

    if isinstance(profile, Differential):
        raise ArgumentError("a Chrome trace cannot hold a differential profile; write each side on its own")
    metadata = profile.metadata or Metadata()
    per_thread: list[tuple[str, Any, Any, Any]] = []  # (thread, times, stack ids, weights), threads by name
    stacks: list[Stack] = []
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
        rows = (
            [(s.thread, s.stack, s.weight) for s in profile.samples()]
            if isinstance(profile, FlameChart)
            else [("all", stack, value) for stack, value in profile.sorted_items()]
        )
        ids: dict[Stack, int] = {}
        now: dict[str, int] = {}
        samples: dict[str, list[tuple[int, int, int]]] = {}
        for thread, stack, weight in rows:
            duration = round(weight * scale)
            if duration <= 0:
                continue
            stack_id = ids.setdefault(stack, len(ids))
            if stack_id == len(stacks):
                stacks.append(stack)
            now[thread] = now.get(thread, 0) + duration
            if now[thread] >= LATEST_NS:  # its reader would refuse the trace: a chart's times end there
                raise ArgumentError(
                    f"thread {thread!r:.60}'s samples laid end to end span {now[thread]:.3g} ns, more than "
                    "the 2**62 ns a Chrome trace is read back with; write it as folded or flamespace-json"
                )
            samples.setdefault(thread, []).append((now[thread], stack_id, duration))
        for thread, rows_of_thread in samples.items():
            columns = numpy.array(rows_of_thread, dtype=object).reshape(-1, 3)
            per_thread.append((thread, *(_integers(columns[:, k]) for k in range(3))))
    table = _FrameTable()
    marker = _marker()
    events: list[Any] = [
        {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": metadata.labels.get("command", "flamespace")}}
    ]
    timelines: list[tuple[int, Any]] = []  # (tid, its speedscope._Timeline)
    for tid, (thread, times, stack_ids, weights) in enumerate(per_thread, 1):
        events.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": tid, "args": {"name": thread}})
        timeline = _timeline(thread, times, stack_ids, weights, stacks, table)
        if len(timeline.steps):
            events.append(f"{marker}{len(timelines)}")
            timelines.append((tid, timeline))
    import json

    document: dict[str, Any] = {"traceEvents": events, "displayTimeUnit": "ms"}
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
_FRACTIONS: list[str] = []


def _microseconds(values: Any) -> tuple[str, list[Any]]:
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
