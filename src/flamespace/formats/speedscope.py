"""speedscope's JSON file format (https://www.speedscope.app/file-format-schema.json).

Writing: a :class:`FlameChart` in nanoseconds becomes one *evented* profile per thread,
so speedscope's "Time Order" view shows the real timeline, gaps included (a thread that
slept in cpu mode shows as a gap); other charts become *sampled* profiles in time order;
a :class:`FlameGraph` becomes one sampled profile with one sample per stack. The
profile's metadata travels in a top-level ``"flamespace"`` object (speedscope ignores it).

Reading: a flame chart with a thread per profile (``profile`` picks one by name or index),
weights in the file's unit, time order kept: an evented profile's stretches between events
each become a sample of the stack open then (so a function that ran in six separate
intervals is six boxes of a flame chart; its ``graph()`` gives each stack its self time),
a sampled profile's samples are laid end to end from its ``startValue``. A reader that wants
a flame graph sums the chart over time and threads, and the diagnostics say so when there
are several profiles. Files this module wrote come back with their metadata.
"""

from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING, Any, Callable, TextIO
from collections.abc import Iterator

from .._record import Record, record
from ..core.chart import LATEST_NS, FlameChart, interval_arrays
from ..core.differential import Differential
from ..core.metadata import Metadata
from ..core.python_frames import PythonFrames, split_frame
from ..core.units import TIME_UNITS
from ..core.vector import MAX_VALUE, FlameGraph
from ..diagnostics import Diagnostics
from ..errors import ArgumentError, InputError
from . import _json, _nesting
from ._limits import FrameBudget
from ._nesting import open_stacks, used_stacks

if TYPE_CHECKING:
    from .._types import Number, Stack

name = "speedscope"
extensions = (".speedscope.json", ".speedscope")
charts = True  # keeps time order: FlameCharts are written as timelines
reference = "speedscope"
SCHEMA = "https://www.speedscope.app/file-format-schema.json"

#: speedscope's weight units and ours.
_UNITS = {"nanoseconds": "ns", "microseconds": "us", "milliseconds": "ms", "seconds": "s", "bytes": "bytes", "none": "samples"}
_UNIT_NAMES = {ours: theirs for theirs, ours in _UNITS.items()}


@record
class ReadOptions(Record):
    """How to read a speedscope file.

    ``skip_invalid``: accepted for every reader; a document is read whole or refused.
    ``profile``: read only this profile of the file, by its name or its index (0 is the first); by default every profile, added up.
    """

    skip_invalid: bool = False
    profile: str | None = None


@record
class WriteOptions(Record):
    header: bool = True  # write the "flamespace" metadata object
    name: str | None = None  # the profile group's name (default: the recorded command)


def sniff(head: bytes) -> bool | None:
    text = head.lstrip()
    if not text:
        return None
    if not text.startswith(b"{"):
        return False
    return b"speedscope.app/file-format-schema" in head or b'"shared"' in head and b'"profiles"' in head


# -- reading -------------------------------------------------------------------------------


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<stream>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameChart:
    """The file's profiles as one flame chart, a thread each, in time order (its ``graph()`` adds them up)."""
    import json  # here, not at start-up: every command reads folded input through this registry

    text = stream.read()  # what json.load does
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg} (column {exc.colno})", source, exc.lineno) from None
    except RecursionError:
        raise InputError("not a speedscope file: JSON nested too deeply", source) from None
    except ValueError:  # json's int() of a number of more than sys.get_int_max_str_digits() digits
        raise _json.long_number(text, "a speedscope file", source) from None
    del text
    if not isinstance(document, dict) or not isinstance(document.get("profiles"), list):
        raise InputError("not a speedscope file: expected an object with a 'profiles' list", source)
    frames = _frame_names(document, source)
    budget = FrameBudget(source)  # the frames of the stacks made, all profiles together
    units = set()
    profiles = document["profiles"]
    for index, profile in enumerate(profiles):
        if not isinstance(profile, dict):
            raise InputError(f"profiles[{index}] is not an object", source)
    chosen = _chosen(profiles, options.profile, source)
    if options.profile is None and len(profiles) > 1 and diagnostics is not None:
        names = ", ".join(_profile_name(profile, index) for index, profile in enumerate(profiles[:5]))
        more = f" and {len(profiles) - 5} more" if len(profiles) > 5 else ""
        diagnostics.warn(
            f"{source}: read the file's {len(profiles)} profiles ({names}{more}) as one thread each; "
            "a flame graph adds them up; pick one with --profile NAME|INDEX"
        )
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
    arrays = (
        sum(len(events) for events in (profiles[index].get("events") for index in chosen) if isinstance(events, list))
        >= _nesting.ARRAYS_FROM
    )
    samples: list[tuple[int, str, Stack, Number]] = []  # read event by event
    stacks: list[Stack] = []
    thread_names: list[str] = []
    parts: list[tuple[Any, Any, Any]] = []  # read with arrays: per profile (ns times, stack ids into stacks, weights)
    threads: dict[str, int] = {}
    for index in chosen:
        profile = profiles[index]
        where = f"profiles[{index}]"
        thread = _thread_name(profile, index, threads)
        thread_names.append(thread)
        kind = profile.get("type")
        if kind not in ("sampled", "evented"):
            raise InputError(f"{where} has type {kind!r}; expected 'sampled' or 'evented'", source)
        part = _evented_arrays(profile, frames, origin, scale, stacks, budget) if kind == "evented" and arrays else None
        if part is None:  # small, sampled, or an evented profile the arrays refused: event by event, which names a bad one
            stretches = (
                _sampled(profile, frames, where, source)
                if kind == "sampled"
                else _evented(profile, frames, where, source, budget)
            )
            rows = [
                (_ns(end - origin, scale, where, source), thread, stack, weight) for stack, end, weight in stretches if weight > 0
            ]
            if not arrays:
                samples.extend(rows)
                continue
            part = _columns(rows, stacks)
        parts.append(part)
    if not arrays:
        samples.sort(key=itemgetter(0))  # stable: each thread's samples keep their order
        chart = FlameChart(_metadata(document, unit))
        for sample in samples:
            chart.append(*sample)
        return chart
    import numpy

    lengths = [len(part[0]) for part in parts]
    weight_parts = [part[2] for part in parts]
    return FlameChart.in_time_order(
        stacks,
        thread_names,
        numpy.concatenate([part[0] for part in parts] or [numpy.zeros(0, dtype=numpy.int64)]),
        numpy.repeat(numpy.arange(len(parts)), lengths),
        numpy.concatenate([part[1] for part in parts] or [numpy.zeros(0, dtype=numpy.intp)]),
        numpy.concatenate(weight_parts)
        if weight_parts and all(w.dtype != object for w in weight_parts)
        else _objects(weight_parts),
        _metadata(document, unit),
    )


def _columns(rows: list[tuple[int, str, Stack, Number]], stacks: list[Stack]) -> tuple[Any, Any, Any]:
    """Samples read event by event as a profile's part of the arrays (their stacks appended to
    ``stacks``); weights as int64 when all are ints that fit, else as the Python numbers."""
    import numpy

    times = numpy.array([row[0] for row in rows], dtype=numpy.int64)
    ids = numpy.arange(len(stacks), len(stacks) + len(rows))
    stacks.extend(row[2] for row in rows)
    weights = [row[3] for row in rows]
    if all(type(weight) is int for weight in weights):
        try:
            return times, ids, numpy.array(weights, dtype=numpy.int64)
        except OverflowError:
            pass
    return times, ids, _objects([weights])


def _objects(parts: list[Any]) -> Any:
    """The numbers of ``parts`` (lists or arrays) one after another as an object array of Python numbers."""
    import numpy

    values: Any = numpy.empty(sum(len(part) for part in parts), dtype=object)
    values[:] = [number for part in parts for number in (part if isinstance(part, list) else part.tolist())]
    return values


def _evented_arrays(
    profile: dict[str, Any], frames: list[str], origin: Number, scale: float | None, stacks: list[Stack], budget: FrameBudget
) -> tuple[Any, Any, Any] | None:
    """:func:`_evented`'s stretches as arrays (ns times, ids of stacks appended to ``stacks``,
    weights), made with array operations on the lists of the events' fields that json made (no
    object made per event); None for anything out of the ordinary (an error, times of
    both ints and floats, huge numbers, nesting deeper than _nesting.MAX_DEPTH), which
    :func:`_evented` then reads event by event."""
    import numpy

    events = profile.get("events")
    start = profile.get("startValue", 0)
    if type(events) is not list or not events or not _is_number(start) or type(origin) is int and not -(2**62) < origin < 2**62:
        return None
    try:
        kinds = [event["type"] for event in events]
        ats = [event["at"] for event in events]
        indices = [event["frame"] for event in events]
    except (TypeError, KeyError):
        return None
    events.clear()  # the events' objects go (most of the document's memory), those of their fields stay

    def refused() -> tuple[Any, Any, Any] | None:
        """None, the events given back as :func:`_evented` reads them (their three fields)."""
        events[:] = [{"type": kind, "at": at, "frame": frame} for kind, at, frame in zip(kinds, ats, indices)]
        return None

    at_types = set(map(type, ats))
    if (
        not (at_types == {int} or at_types == {float})
        or set(map(type, indices)) != {int}
        or set(map(type, kinds)) != {str}
        or not set(kinds) <= {"O", "C"}
    ):
        return refused()
    try:
        at = numpy.array(ats, dtype=numpy.int64 if int in at_types else numpy.float64)
        frame_ids = numpy.array(indices, dtype=numpy.int64)
    except OverflowError:
        return refused()
    if at_types == {int} and not ((at > -(2**62)) & (at < 2**62)).all():  # differences from the origin stay in int64
        return refused()
    if not ((at > -MAX_VALUE) & (at < MAX_VALUE)).all() or ats[0] < start or (at[1:] < at[:-1]).any():
        return refused()
    if not ((frame_ids >= 0) & (frame_ids < len(frames))).all():
        return refused()
    nested = open_stacks(numpy.fromiter(map("O".__eq__, kinds), dtype=bool, count=len(kinds)), frame_ids, frame_ids)
    if nested is None:
        return refused()
    tops, parents, node_frames = nested
    keep = (tops[:-1] != 0) & (at[1:] > at[:-1])  # a stretch from each event to the next while a frame is open
    ends, weights = at[1:][keep], (at[1:] - at[:-1])[keep]
    scaled = ends - origin
    if scale is not None:
        scaled = scaled * scale
    if not ((scaled >= -LATEST_NS) & (scaled <= LATEST_NS)).all():
        return refused()
    times = scaled if scaled.dtype.kind == "i" else numpy.rint(scaled).astype(numpy.int64)
    first = len(stacks)
    stack_ids, used = used_stacks(tops[:-1][keep], parents.tolist(), node_frames.tolist(), frames, budget)
    stacks.extend(used)
    return times, stack_ids + first, weights if weights.dtype.kind == "i" else weights.astype(object)


def _start_value(profile: dict[str, Any], where: str, source: str) -> Number:
    start: Number = profile.get("startValue", 0)
    if not _is_number(start):
        raise InputError(f"{where}.startValue is {start!r:.60}, not a number between -{MAX_VALUE:g} and {MAX_VALUE:g}", source)
    return start


def _thread_name(profile: dict[str, Any], index: int, seen: dict[str, int]) -> str:
    """The profile's name as the chart's thread (``profile N`` if it has none; a repeated name gets `` [N]``)."""
    name = profile.get("name")
    name = name if isinstance(name, str) and name else f"profile {index}"
    if name in seen:
        name = f"{name} [{index}]"
    seen[name] = index
    return name


def _ns(value: Number, scale: float | None, where: str, source: str) -> int:
    """A time from the profiles' earliest start in the chart's ns (weights that are no time: as they are)."""
    scaled = value * scale if scale is not None else value
    if not -LATEST_NS <= scaled <= LATEST_NS:  # also NaN and infinities (a huge value times a scale)
        raise InputError(f"{where} spans {value:g} of its unit, more than a chart holds (2**62 ns)", source)
    return round(scaled)


def _profile_name(profile: dict[str, Any], index: int) -> str:
    name = profile.get("name")
    return f"{index}: {name}" if isinstance(name, str) else str(index)


def _chosen(profiles: list[dict[str, Any]], wanted: str | None, source: str) -> list[int]:
    """Indices of the profiles to read: all, or the one named (by name first, else by index) ``wanted``."""
    if wanted is None:
        return list(range(len(profiles)))
    wanted = str(wanted)  # the API may give an index as an int
    named = [i for i, profile in enumerate(profiles) if profile.get("name") == wanted]
    if len(named) > 1:
        raise InputError(f"{len(named)} profiles are named {wanted!r}; pick one by index ({', '.join(map(str, named))})", source)
    if named:
        return named
    if wanted.isdigit() and wanted.isascii() and int(wanted) < len(profiles):
        return [int(wanted)]
    have = ", ".join(_profile_name(profile, index) for index, profile in enumerate(profiles)) or "none"
    raise InputError(f"no profile named {wanted!r} and no profile of that index (the profiles: {have})", source)


def _frame_names(document: dict[str, Any], source: str) -> list[str]:
    shared = document.get("shared")
    frames = shared.get("frames") if isinstance(shared, dict) else None
    if not isinstance(frames, list):
        raise InputError("not a speedscope file: expected 'shared.frames' to be a list", source)
    names = []
    python_frames = PythonFrames()
    for index, frame in enumerate(frames):
        if not isinstance(frame, dict) or not isinstance(frame.get("name"), str):
            raise InputError(f"shared.frames[{index}] has no name", source)
        names.append(_display_name(frame, python_frames))
    return names


def _display_name(frame: dict[str, Any], python_frames: PythonFrames) -> str:
    """``name (file:line)`` as our sampler names frames (core.python_frames); the bare name if no file is given."""
    name: str = frame["name"]
    file, line = frame.get("file"), frame.get("line")
    if not file or not isinstance(file, str) or f"({file}" in name:
        return name
    return python_frames(name, file, line if type(line) is int and line > 0 else None)


def _is_number(value: object) -> bool:
    """A JSON number of magnitude below :data:`MAX_VALUE`: ``json`` also reads NaN, Infinity and
    ints of any size, which speedscope's schema does not allow and sums cannot hold."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and -MAX_VALUE < value < MAX_VALUE


def _check_frame(index: object, frames: list[str], where: str, source: str) -> int:
    """``index`` if it is the index of a frame: an int in range (a negative one would wrap in Python)."""
    if type(index) is not int or not 0 <= index < len(frames):
        raise InputError(f"{where} is {index!r:.60}, not the index of a frame (shared.frames has {len(frames)})", source)
    return index


def _stack(indices: Any, frames: list[str], where: str, source: str) -> Stack:
    if not isinstance(indices, list):
        raise InputError(f"{where} is {indices!r:.60}, not a list of frame indices", source)
    for k, index in enumerate(indices):
        _check_frame(index, frames, f"{where}[{k}]", source)
    return tuple(frames[i] for i in indices)


def _sampled(profile: dict[str, Any], frames: list[str], where: str, source: str) -> Iterator[tuple[Stack, Number, Number]]:
    """(stack, end, weight) of each sample, laid end to end from the profile's start (samples keep no time of their own)."""
    samples, weights = profile.get("samples"), profile.get("weights")
    if not isinstance(samples, list) or not isinstance(weights, list) or len(samples) != len(weights):
        raise InputError(f"{where}: 'samples' and 'weights' must be lists of the same length", source)
    at = _start_value(profile, where, source)
    for i, (indices, weight) in enumerate(zip(samples, weights)):
        if not _is_number(weight) or weight < 0:
            raise InputError(f"{where}.weights[{i}] is {weight!r:.60}, not a non-negative number below {MAX_VALUE:g}", source)
        at += weight
        yield _stack(indices, frames, f"{where}.samples[{i}]", source), at, weight


def _evented(
    profile: dict[str, Any], frames: list[str], where: str, source: str, budget: FrameBudget
) -> Iterator[tuple[Stack, Number, Number]]:
    """(stack, end, length) of every stretch between consecutive events while a frame is open: the open stack's own time."""
    events = profile.get("events")
    if not isinstance(events, list):
        raise InputError(f"{where}: 'events' must be a list", source)
    open_frames: list[int] = []
    open_stacks: list[Stack | None] = []  # the open stack's tuple at each depth, once made (not once a stretch)
    last_at = _start_value(profile, where, source)
    for i, event in enumerate(events):
        place = f"{where}.events[{i}]"
        try:
            kind, at, frame = event["type"], event["at"], event["frame"]
        except (TypeError, KeyError):
            raise InputError(f"{place} needs 'type', 'at' and 'frame'", source) from None
        if not _is_number(at):
            raise InputError(f"{place}.at is {at!r:.60}, not a number between -{MAX_VALUE:g} and {MAX_VALUE:g}", source)
        if at < last_at:
            raise InputError(f"{place}: time {at!r} goes backwards (previous {last_at!r})", source)
        if open_frames and at > last_at:
            stack = open_stacks[-1]
            if stack is None:
                stack = open_stacks[-1] = tuple(frames[f] for f in open_frames)
                budget.charge(len(stack))
            yield stack, at, at - last_at
        last_at = at
        if kind == "O":
            open_frames.append(_check_frame(frame, frames, f"{place}.frame", source))
            open_stacks.append(None)
        elif kind == "C":
            if not open_frames or open_frames[-1] != frame:
                raise InputError(f"{place} closes frame {frame!r}, which is not the innermost open frame", source)
            open_frames.pop()
            open_stacks.pop()
        else:
            raise InputError(f"{place} has type {kind!r}; expected 'O' or 'C'", source)
    if open_frames:
        raise InputError(f"{where}: {len(open_frames)} frames are never closed", source)


def _metadata(document: dict[str, Any], unit: str | None) -> Metadata:
    ours = document.get("flamespace")
    if isinstance(ours, dict):
        labels = ours.get("labels")
        if not isinstance(labels, dict):
            labels = {}
        own_unit, metric = ours.get("unit", unit), ours.get("metric")
        return Metadata(
            unit=own_unit if isinstance(own_unit, str) else unit,
            metric=metric if isinstance(metric, str) else None,
            labels={str(k): str(v) for k, v in labels.items()},
        )
    return Metadata(unit=unit)


# -- writing -------------------------------------------------------------------------------


class _FrameTable:
    """Interns frame names into speedscope's shared frame list, splitting ``name (file:line)``."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.frames: list[dict[str, Any]] = []

    def __call__(self, frame: str) -> int:
        found = self.index.get(frame)
        if found is None:
            found = self.index[frame] = len(self.frames)
            self.frames.append(_split_frame(frame))
        return found


def _split_frame(frame: str) -> dict[str, Any]:
    split = split_frame(frame)
    if split is None:
        return {"name": frame}
    function, file, line = split
    return {"name": function, "file": file, "line": line} if line is not None else {"name": function, "file": file}


def dump(profile: FlameGraph | FlameChart | Differential, stream: TextIO, options: WriteOptions = WriteOptions()) -> None:
    if isinstance(profile, Differential):
        raise ArgumentError("speedscope cannot hold a differential profile; write each side on its own")
    metadata = profile.metadata or Metadata()
    table = _FrameTable()
    unit_name = _UNIT_NAMES.get(metadata.unit or "samples", "none")
    timelines: list[_Timeline] = []
    if isinstance(profile, FlameChart) and unit_name == "nanoseconds":
        timelines = [
            _timeline(profile.threads[thread_id] or "thread", times, stack_ids, weights, profile.stacks, table)
            for thread_id, times, stack_ids, weights in profile.thread_columns()
        ]
        marker = _marker()
        profiles = [
            {
                "type": "evented",
                "name": timeline.name,
                "unit": "nanoseconds",
                "startValue": timeline.start_value,
                "endValue": timeline.end_value,
                "events": f"{marker}{k}",
            }
            for k, timeline in enumerate(timelines)
        ]
    elif isinstance(profile, FlameChart):
        profiles = list(_chart_profiles(profile, table, unit_name))
    else:
        profiles = [_graph_profile(profile, table, unit_name)]
    document: dict[str, Any] = {
        "$schema": SCHEMA,
        "shared": {"frames": table.frames},
        "profiles": profiles,
        "name": options.name or metadata.labels.get("command", "flamespace profile"),
        "activeProfileIndex": 0,
        "exporter": metadata.labels.get("profiler", "flamespace"),
    }
    if options.header:
        document["flamespace"] = {"unit": metadata.unit, "metric": metadata.metric, "labels": dict(metadata.labels)}
    import json

    text = json.dumps(document, separators=(",", ":"), ensure_ascii=False)  # dumps: C encoder; dump: pure Python
    for k, timeline in enumerate(timelines):  # each profile's events streamed where its marker is
        before, _, text = text.partition(json.dumps(f"{marker}{k}", ensure_ascii=False))
        stream.write(before)
        stream.write("[")
        timeline.write(
            stream, '{"type":"C","at":\x00,"frame":%d}'.__mod__, '{"type":"O","at":\x00,"frame":%d}'.__mod__, _number_texts
        )
        stream.write("]")
    stream.write(text)
    stream.write("\n")


def _graph_profile(graph: FlameGraph, table: _FrameTable, unit_name: str) -> dict[str, Any]:
    rows = graph.sorted_items()
    total = _readable_span(sum(value for _, value in rows), unit_name, "all")
    return {
        "type": "sampled",
        "name": "all",
        "unit": unit_name,
        "startValue": 0,
        "endValue": total,
        "samples": [[table(f) for f in stack] for stack, _ in rows],
        "weights": [value for _, value in rows],
    }


def _readable_span(total: Number, unit_name: str, thread: str) -> Number:
    """``total``, the end of a sampled profile's weights laid end to end, if the reader can take it
    back into a chart (:data:`LATEST_NS`); ArgumentError, rather than a file its reader refuses, if not."""
    scale = TIME_UNITS.get(_UNITS.get(unit_name) or "", 1.0)
    if not total * scale <= LATEST_NS:
        raise ArgumentError(
            f"thread {thread!r:.60}'s samples laid end to end span {total:.3g} {unit_name}, more than "
            "the 2**62 ns a speedscope file is read back with; write it as folded or flamespace-json"
        )
    return total


def _chart_profiles(chart: FlameChart, table: _FrameTable, unit_name: str) -> Iterator[dict[str, Any]]:
    """One sampled profile per thread (weights that are no time in ns), in the order threads first appear."""
    for thread_id, samples in chart.per_thread().items():
        yield {
            "type": "sampled",
            "name": chart.threads[thread_id] or "thread",
            "unit": unit_name,
            "startValue": 0,
            "endValue": _readable_span(sum(w for _, _, w in samples), unit_name, chart.threads[thread_id]),
            "samples": [[table(f) for f in chart.stacks[s]] for _, s, _ in samples],
            "weights": [w for _, _, w in samples],
        }


def _marker() -> str:
    """A string no profile holds, to stand in the document for an event list written on its own."""
    import secrets

    return f"\x00flamespace-events-{secrets.token_hex(8)}-"


def _number_texts(values: Any) -> tuple[str, list[Any]]:
    """JSON's text of each number of an array (int64, or objects: Python's ints and floats,
    whose ``str`` is what ``json`` writes): the format of one, and the arguments of all."""
    return "%s", values.tolist()


#: Steps written at a time: the text of this many is in memory at once.
_CHUNK = 1 << 16


class _Timeline:
    """One thread's flame chart as open and close events (speedscope's evented profile, Chrome's
    begin/end events), kept as arrays rather than an object per event: at ``at[k]`` the
    stack changes as ``changes[steps[k]]`` says, (frames closed, innermost first; frames
    opened, outermost first), as indices into the writer's frame table. A long trace has
    millions of steps but few kinds of change, so each change's text is made once, as a
    ``%`` format that a whole chunk of steps is written through at once."""

    def __init__(
        self, name: str, start_value: Number, end_value: Number, at: Any, steps: Any, changes: list[tuple[list[int], list[int]]]
    ) -> None:
        self.name, self.start_value, self.end_value = name, start_value, end_value
        self.at, self.steps, self.changes = at, steps, changes

    def write(
        self,
        stream: TextIO,
        close: Callable[[int], str],
        open: Callable[[int], str],
        times: Callable[[Any], tuple[str, list[Any]]],
    ) -> None:
        """The events, comma-separated: ``close`` and ``open`` give the text of an event that
        closes or opens a frame (by its index in the table), with ``\\x00`` for the time;
        ``times`` gives the ``%`` format of one time (the same for every array) and the
        arguments of an array of them."""
        import numpy

        one, _ = times(self.at[:0])
        texts: Any = numpy.empty(len(self.changes), dtype=object)
        counts: Any = numpy.empty(len(self.changes), dtype=numpy.intp)  # events per change: each writes the time
        for k, (closed, opened) in enumerate(self.changes):
            text = ",".join([close(frame) for frame in closed] + [open(frame) for frame in opened])
            texts[k], counts[k] = text.replace("%", "%%").replace("\x00", one), len(closed) + len(opened)
        for first in range(0, len(self.steps), _CHUNK):
            steps = self.steps[first : first + _CHUNK]
            if first:
                stream.write(",")
            _, arguments = times(numpy.repeat(self.at[first : first + _CHUNK], counts[steps]))
            stream.write(",".join(texts[steps]) % tuple(arguments))


def _distinct(keys: Any, size: int) -> tuple[Any, Any, Any]:
    """``numpy.unique(keys, return_index=True, return_inverse=True)`` of keys below ``size``:
    without sorting them when a table of ``size`` entries is small beside the keys."""
    import numpy

    if size > 4 * len(keys) + (1 << 16):
        kinds, first, inverse = numpy.unique(keys, return_index=True, return_inverse=True)
        return kinds, first, inverse.reshape(-1)
    first = numpy.full(size, len(keys), dtype=numpy.intp)
    numpy.minimum.at(first, keys, numpy.arange(len(keys)))
    kinds = numpy.flatnonzero(first < len(keys))
    index: Any = numpy.empty(size, dtype=numpy.intp)
    index[kinds] = numpy.arange(len(kinds))
    return kinds, first[kinds], index[keys]


def _timeline(name: str, times: Any, stack_ids: Any, weights: Any, stacks: list[Stack], table: _FrameTable) -> _Timeline:
    """The events of one thread's samples in ns (numpy arrays), each sample where
    :func:`~flamespace.core.chart.interval_arrays` places it: a gap between two samples
    closes every frame. Frames go into ``table`` in the order they are first opened."""
    import numpy

    starts, ends = interval_arrays(times, weights, 1.0)
    n = len(starts)
    if not n:
        return _Timeline(name, 0, 0, starts, numpy.zeros(0, dtype=numpy.intp), [])
    if not (-LATEST_NS < starts.min() and ends.max() < LATEST_NS):  # its reader would refuse the file
        raise ArgumentError(
            f"thread {name!r:.60}'s samples run from {starts.min():.3g} to {ends.max():.3g} ns, past the "
            "2**62 ns a chart's times hold when read back; write it as flamespace-json"
        )
    stack_ids = numpy.asarray(stack_ids, dtype=numpy.int64)
    gap: Any = numpy.zeros(n, dtype=bool)
    numpy.greater(starts[1:], ends[:-1], out=gap[1:])
    where = numpy.cumsum(gap)  # step k opens sample k; a gap takes a step of its own before it
    where += numpy.arange(n)
    before: Any = numpy.full(n + int(gap.sum()) + 1, -1, dtype=numpy.int64)  # the stack open before the step (-1: none)
    after: Any = numpy.full(len(before), -1, dtype=numpy.int64)  # and after it
    at = numpy.empty(len(before), dtype=starts.dtype)
    after[where], at[where] = stack_ids, starts
    before[where[1:]] = stack_ids[:-1]
    gaps = numpy.flatnonzero(gap)
    before[where[gaps]] = -1
    before[where[gaps] - 1], at[where[gaps] - 1] = stack_ids[gaps - 1], ends[gaps - 1]
    before[-1], at[-1] = stack_ids[-1], ends[-1]
    start_value, end_value = starts[:1].tolist()[0], ends[-1:].tolist()[0]
    del starts, ends, gap, gaps, where
    moved = before != after
    if not moved.all():
        before, after, at = before[moved], after[moved], at[moved]
    del moved
    keys = before
    keys += 1
    keys *= len(stacks) + 1
    keys += after
    keys += 1
    del before, after
    kinds, first, steps = _distinct(keys, (len(stacks) + 1) ** 2)
    order = numpy.argsort(first)  # the changes in the order they first happen: so are frames first opened
    rank: Any = numpy.empty(len(order), dtype=numpy.intp)
    rank[order] = numpy.arange(len(order))
    changes: list[tuple[list[int], list[int]]] = []
    for kind in kinds[order].tolist():
        old_id, new_id = divmod(kind, len(stacks) + 1)
        old, new = stacks[old_id - 1] if old_id else (), stacks[new_id - 1] if new_id else ()
        common, limit = 0, min(len(old), len(new))
        while common < limit and old[common] == new[common]:
            common += 1
        changes.append(([table(frame) for frame in reversed(old[common:])], [table(frame) for frame in new[common:]]))
    steps = rank[steps]
    empty = numpy.array([not closed and not opened for closed, opened in changes], dtype=bool)
    if empty.any():  # between an empty stack and none: no event
        keep = ~empty[steps]
        at, steps = at[keep], steps[keep]
    return _Timeline(name, start_value, end_value, at, steps, changes)


__all__ = ["ReadOptions", "WriteOptions", "charts", "dump", "extensions", "name", "parse", "sniff"]
