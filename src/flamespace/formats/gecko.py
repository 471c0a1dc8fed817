"""The Firefox Profiler's processed profile format, as CPython's ``profiling.sampling`` (3.15) and samply write it.

A profile has ``threads``; each has ``samples`` (``stack``, ``time`` in ms, optional
``weight``), a ``stackTable`` (``frame``, ``prefix``: each stack is a frame on top of its
prefix stack), a ``frameTable`` (``func``, ``line``) and a ``funcTable`` (``name``,
``fileName``, ``lineNumber``) whose strings index ``shared.stringArray`` (or, in older
files, the thread's own ``stringArray`` or ``stringTable``). Tables are columns, or
``{"schema": ..., "data": rows}`` in older versions.

Reading gives a flame chart: each thread's samples in time order, each weighing its
``weight`` (1 when there is none: unit ``samples``; ``tracing-ms`` weights are ms, ``bytes``
bytes). Frames with a file are named ``function (file:line)``, as our recorder names Python
frames (CPython writes only the file's base name); others keep their name.

Writing: a flame chart or graph becomes one thread per chart thread (one for a graph)
with the tables above, which the Firefox Profiler opens (https://profiler.firefox.com,
"Load a profile from file"). Times are written as ``tracing-ms``; the profile's unit,
metric and labels go in ``meta.flamespace``, so this reader gives back what was written.
"""

from __future__ import annotations

import sys

from .._record import Record, record
from ..core.chart import LATEST_NS, FlameChart
from ..core.differential import Differential
from ..core.metadata import Metadata
from ..core.python_frames import PythonFrames, split_frame
from ..core.units import TIME_UNITS
from ..core.vector import MAX_VALUE, FlameGraph
from ..diagnostics import Diagnostics
from ..errors import ArgumentError, InputError
from . import _json
from ._limits import FrameBudget
from ._nesting import wanted_stacks
from ._options import ReadOptions as ReadOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from .._types import Number, Stack

name = "gecko"
extensions = (".gecko.json", ".profile.json")
description = "Firefox Profiler processed profile (CPython 3.15 profiling.sampling, samply)"
charts = True

#: The weight types of samples and our units.
_WEIGHT_UNITS = {"samples": "samples", "tracing-ms": "ms", "bytes": "bytes"}
#: The processed-profile version we write (the one CPython's profiling.sampling writes).
PREPROCESSED_VERSION = 57
GECKO_VERSION = 32


@record
class WriteOptions(Record):
    """``interval``: the sampling interval in ms written in ``meta`` (the Profiler's default sample duration)."""

    interval: float = 1.0


def sniff(head: bytes) -> bool | None:
    text = head.lstrip()
    if not text:
        return None
    return text[:1] == b"{" and b'"meta"' in head and (b'"preprocessedProfileVersion"' in head or b'"stackTable"' in head)


def _table(thread: dict[str, Any], key: str, columns: tuple[str, ...], path: str, source: str) -> dict[str, list[Any]]:
    """A table's columns, from either layout; missing optional columns are lists of None."""
    table = _json.field(thread, key, dict, path, source)
    where = f"{path}.{key}"
    if "schema" in table and "data" in table:  # older layout: rows, and a schema naming their positions
        schema, rows = table["schema"], table["data"]
        if not isinstance(schema, dict) or not isinstance(rows, list):
            raise InputError(f"{where} has a malformed schema or data", source)
        out: dict[str, list[Any]] = {}
        for column in columns:
            at = schema.get(column)
            out[column] = [row[at] if isinstance(row, list) and type(at) is int and 0 <= at < len(row) else None for row in rows]
        return out
    length = None
    out = {}
    for column in columns:
        values = table.get(column)
        if values is None:
            continue
        if not isinstance(values, list):
            raise InputError(f"{where}.{column} is not a list", source)
        if length is not None and len(values) != length:
            raise InputError(f"{where}.{column} has {len(values)} entries, other columns {length}", source)
        length = len(values)
        out[column] = values
    for column in columns:
        if column not in out:
            out[column] = [None] * (length or 0)
    return out


def _index(value: Any, size: int, path: str, source: str) -> int:
    if type(value) is not int or not 0 <= value < size:
        raise InputError(f"{path} is {value!r:.60}, not an index below {size}", source)
    return value


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameChart:
    document = _json.load(stream, source, "a Firefox Profiler profile", diagnostics)
    if document is None:
        return FlameChart(Metadata(unit="samples", labels={"profiler": "gecko"}))
    if not isinstance(document, dict):
        raise InputError("not a Firefox Profiler profile: expected an object with 'meta' and 'threads'", source)
    meta = document.get("meta")
    if not isinstance(meta, dict):
        meta = {}
    threads = _json.field(document, "threads", list, "", source)
    shared = document.get("shared")
    shared_strings = shared.get("stringArray") if isinstance(shared, dict) else None
    names = PythonFrames()
    samples: list[tuple[float, str, Stack, Number]] = []
    budget = FrameBudget(source)  # the frames of the stacks made, all threads together
    units = set()
    weight_types = set()
    for number, thread in enumerate(threads):
        path = f"threads[{number}]"
        if not isinstance(thread, dict):
            raise InputError(f"{path} is not an object", source)
        raw = thread.get("samples")
        if isinstance(raw, dict) and "schema" in raw and "stackTable" not in thread:
            raise InputError(
                "this is Firefox's raw Gecko profile, not a processed one: load it in the Firefox Profiler and save it from there",
                source,
            )
        strings = shared_strings if isinstance(shared_strings, list) else thread.get("stringArray", thread.get("stringTable"))
        if not isinstance(strings, list):
            raise InputError(f"{path} has no string table (shared.stringArray or {path}.stringArray)", source)
        sample_table = _table(thread, "samples", ("stack", "time", "weight", "timeDeltas"), path, source)
        weight_type = raw.get("weightType", "samples") if isinstance(raw, dict) else "samples"
        weight_type = weight_type if isinstance(weight_type, str) else "samples"
        weight_types.add(weight_type)
        units.add(_WEIGHT_UNITS.get(weight_type, weight_type))
        stacks, stack_count = _thread_stacks(thread, strings, names, path, source, sample_table["stack"], budget)
        thread_name = thread.get("name")
        label = thread_name if isinstance(thread_name, str) else f"thread {number}"
        tid = thread.get("tid")
        label = f"{label} ({tid})" if tid is not None and str(tid) not in label else label
        times = sample_table["time"]
        if all(t is None for t in times) and any(d is not None for d in sample_table["timeDeltas"]):
            times, now = [], 0.0
            for k, delta in enumerate(sample_table["timeDeltas"]):
                now += _json.number(delta, f"{path}.samples.timeDeltas[{k}]", source)
                times.append(now)
        for k, stack_index in enumerate(sample_table["stack"]):
            if stack_index is None:
                continue  # a sample where no stack was taken
            try:
                stack = stacks[_index(stack_index, stack_count, f"{path}.samples.stack[{k}]", source)]
                time = _json.number(times[k] if times[k] is not None else 0, f"{path}.samples.time[{k}]", source)
                _json.nanoseconds(time, 1_000_000, f"{path}.samples.time[{k}]", source, "ms")  # a chart holds it
                weight = sample_table["weight"][k]
                weight = 1 if weight is None else _json.number(weight, f"{path}.samples.weight[{k}]", source, minimum=0)
            except InputError as exc:
                if not options.skip_invalid:
                    raise
                if diagnostics is not None:
                    diagnostics.skip(source, None, exc.args[0] if exc.args else str(exc))
                continue
            if weight > 0 and stack:
                samples.append((time, label, stack, weight))
    if len(units) > 1:
        raise InputError(f"threads weigh samples in different units ({', '.join(sorted(units))}); cannot add them", source)
    samples.sort(key=lambda sample: sample[0])
    origin = samples[0][0] if samples else 0.0
    labels = {"profiler": str(meta.get("importedFrom") or meta.get("product") or "gecko")}
    interval = meta.get("interval")
    if isinstance(interval, (int, float)) and not isinstance(interval, bool):
        labels["gecko.interval_ms"] = f"{_json.number(interval, 'meta.interval', source):g}"
    metadata = Metadata(unit=units.pop() if units else "samples", labels=labels)
    ours = meta.get("flamespace")
    scale = 1.0
    if isinstance(ours, dict) and isinstance(ours.get("labels"), dict):  # written by us: the profile's own metadata
        unit, metric = ours.get("unit"), ours.get("metric")
        unit = unit if isinstance(unit, str) else None
        metadata = Metadata(
            unit=unit,
            metric=metric if isinstance(metric, str) else None,
            labels={str(k): str(v) for k, v in ours["labels"].items()},
        )
        written_type, written_scale = _weights(unit)
        if weight_types <= {written_type}:
            scale = written_scale
    chart = FlameChart(metadata)
    for time, label, stack, weight in samples:
        if scale != 1.0:
            weight = _json.unscaled(weight / scale)
            if weight >= MAX_VALUE:
                raise InputError(
                    f"a sample of thread {label!r} weighs {weight:g} {metadata.unit}, more than a profile can hold", source
                )
        chart.append(round((time - origin) * 1_000_000), label, stack, weight)
    if not samples and diagnostics is not None:
        diagnostics.warn(f"{source}: the profile has no samples; it is empty")
    return chart


def _thread_stacks(
    thread: dict[str, Any],
    strings: list[Any],
    names: PythonFrames,
    path: str,
    source: str,
    sampled: list[Any],
    budget: FrameBudget,
) -> tuple[dict[int, Stack], int]:
    """The stacks of the thread's stackTable that samples name (``sampled``: the samples' stack
    column), root first, by index, and the table's length; every entry of the table is checked.
    Only those: a tuple for each entry of a table 100,000 deep would be quadratic in its depth."""
    functions = _table(thread, "funcTable", ("name", "fileName", "lineNumber"), path, source)
    frames = _table(thread, "frameTable", ("func", "line"), path, source)
    table = _table(thread, "stackTable", ("frame", "prefix"), path, source)
    size = len(strings)

    def string(index: Any, where: str) -> str:
        text = strings[_index(index, size, where, source)]
        if not isinstance(text, str):
            raise InputError(f"{where} names string {index}, which is not a string", source)
        return text

    function_names: list[tuple[str, str | None, Any]] = []
    for k, name_index in enumerate(functions["name"]):
        file_index = functions["fileName"][k]
        function_names.append(
            (
                string(name_index, f"{path}.funcTable.name[{k}]"),
                string(file_index, f"{path}.funcTable.fileName[{k}]") if file_index is not None else None,
                functions["lineNumber"][k],
            )
        )
    frame_names: list[str] = []
    for k, function_index in enumerate(frames["func"]):
        function, file, first_line = function_names[
            _index(function_index, len(function_names), f"{path}.frameTable.func[{k}]", source)
        ]
        line = frames["line"][k]
        if line is None:
            line = first_line
        frame_names.append(
            sys.intern(names(function, file, line if type(line) is int and line > 0 else None) if file else function)
        )
    frame_of: list[str] = []
    prefix_of: list[int] = []
    for k, frame_index in enumerate(table["frame"]):
        frame_of.append(frame_names[_index(frame_index, len(frame_names), f"{path}.stackTable.frame[{k}]", source)])
        prefix = table["prefix"][k]  # a prefix comes before the stacks that extend it (no cycles)
        prefix_of.append(-1 if prefix is None else _index(prefix, k, f"{path}.stackTable.prefix[{k}]", source))
    wanted = sorted({index for index in sampled if type(index) is int and 0 <= index < len(frame_of)})
    return wanted_stacks(wanted, prefix_of, frame_of, {-1: ()}, budget), len(frame_of)


# -- writing -------------------------------------------------------------------------------


def dump(profile: FlameGraph | Differential | FlameChart, stream: TextIO, options: WriteOptions = WriteOptions()) -> None:
    if isinstance(profile, Differential):
        raise ArgumentError("the Firefox Profiler format cannot hold a differential profile; write each side on its own")
    metadata = profile.metadata or Metadata()
    strings: dict[str, int] = {}

    def string(text: str) -> int:
        found = strings.get(text)
        if found is None:
            found = strings[text] = len(strings)
        return found

    if isinstance(profile, FlameChart):
        per_thread: dict[str, list[tuple[float, Stack, Number]]] = {}
        for timestamp, thread, stack, weight in profile.samples():
            if not -LATEST_NS < timestamp < LATEST_NS:  # its reader would refuse the file
                raise ArgumentError(
                    f"a sample of thread {thread!r:.60} is at {timestamp} ns, past the 2**62 ns a chart's "
                    "times hold when read back; write it as flamespace-json"
                )
            per_thread.setdefault(thread, []).append((timestamp / 1_000_000, stack, weight))
    else:
        per_thread = {"all": [(float(k), stack, value) for k, (stack, value) in enumerate(profile.sorted_items())]}
    weight_type, scale = _weights(metadata.unit)
    threads = [_thread(label, rows, string, weight_type, scale, tid) for tid, (label, rows) in enumerate(per_thread.items(), 1)]
    document = {
        "meta": {
            "interval": options.interval,
            "startTime": 0,
            "processType": 0,
            "product": metadata.labels.get("command", "flamespace"),
            "stackwalk": 0,
            "version": GECKO_VERSION,
            "preprocessedProfileVersion": PREPROCESSED_VERSION,
            "symbolicated": True,
            "categories": [{"name": "Other", "color": "grey", "subcategories": ["Other"]}],
            "markerSchema": [],
            "importedFrom": metadata.labels.get("profiler", "flamespace"),
            "flamespace": {
                "unit": metadata.unit,
                "metric": metadata.metric,
                "labels": dict(metadata.labels),
            },  # read back exactly
        },
        "libs": [],
        "threads": threads,
        "pages": [],
        "shared": {"stringArray": list(strings), "sources": {"length": 0, "uuid": [], "filename": []}},
    }
    import json

    json.dump(document, stream, separators=(",", ":"), ensure_ascii=False)
    stream.write("\n")


def _weights(unit: str | None) -> tuple[str, float]:
    """The Firefox Profiler's weight type for a unit, and what one unit is in it (times are written in ms)."""
    if unit in (None, "samples", "bytes"):
        return ("bytes" if unit == "bytes" else "samples"), 1.0
    return "tracing-ms", TIME_UNITS.get(unit or "", 1e6) / 1e6  # a unit that is not time: one to a millisecond


def _thread(
    label: str, rows: list[tuple[float, Stack, Number]], string: Any, weight_type: str, scale: float, tid: int
) -> dict[str, Any]:
    functions: dict[tuple[str, str], int] = {}
    frames: dict[str, int] = {}
    stacks: dict[tuple[int | None, int], int] = {}
    func_table: dict[str, list[Any]] = {
        k: [] for k in ("name", "isJS", "relevantForJS", "resource", "fileName", "lineNumber", "columnNumber")
    }
    frame_table: dict[str, list[Any]] = {
        k: []
        for k in (
            "address",
            "category",
            "subcategory",
            "func",
            "innerWindowID",
            "implementation",
            "optimizations",
            "line",
            "column",
            "inlineDepth",
            "nativeSymbol",
        )
    }
    stack_table: dict[str, list[Any]] = {"frame": [], "category": [], "subcategory": [], "prefix": []}
    sample_stacks: list[int] = []
    times: list[float] = []
    weights: list[Number] = []
    for time, stack, weight in rows:
        prefix: int | None = None
        for frame in stack:
            frame_index = frames.get(frame)
            if frame_index is None:
                split = split_frame(frame)
                function, file, line = split if split else (frame, "", None)
                function_index = functions.get((function, file))
                if function_index is None:
                    function_index = functions[(function, file)] = len(func_table["name"])
                    for key, value in (
                        ("name", string(function)),
                        ("isJS", bool(file)),
                        ("relevantForJS", False),
                        ("resource", -1),
                        ("fileName", string(file) if file else None),
                        ("lineNumber", line),
                        ("columnNumber", None),
                    ):
                        func_table[key].append(value)
                frame_index = frames[frame] = len(frame_table["func"])
                for key, value in (
                    ("address", -1),
                    ("category", 0),
                    ("subcategory", 0),
                    ("func", function_index),
                    ("innerWindowID", 0),
                    ("implementation", None),
                    ("optimizations", None),
                    ("line", line),
                    ("column", None),
                    ("inlineDepth", 0),
                    ("nativeSymbol", None),
                ):
                    frame_table[key].append(value)
            stack_key = (prefix, frame_index)
            stack_index = stacks.get(stack_key)
            if stack_index is None:
                stack_index = stacks[stack_key] = len(stack_table["frame"])
                for column, value in (("frame", frame_index), ("category", 0), ("subcategory", 0), ("prefix", prefix)):
                    stack_table[column].append(value)
            prefix = stack_index
        if prefix is None:
            continue  # the Firefox Profiler has no empty stack
        sample_stacks.append(prefix)
        times.append(time)
        written = weight * scale if weight_type == "tracing-ms" else weight
        if not (written < MAX_VALUE and (written / scale if weight_type == "tracing-ms" else written) < MAX_VALUE):
            # scaled to ms and back (floats), a weight just below MAX_VALUE can reach it: its reader would refuse the file
            raise ArgumentError(
                f"a sample of thread {label!r:.60} weighs {weight:.3g}, which as written reads back as not "
                f"below {MAX_VALUE:g}; write it as flamespace-json"
            )
        weights.append(written)
    lengths = {
        "funcTable": len(func_table["name"]),
        "frameTable": len(frame_table["func"]),
        "stackTable": len(stack_table["frame"]),
    }
    return {
        "name": label,
        "isMainThread": tid == 1,
        "processType": "default",
        "processName": "flamespace",
        "pid": "1",
        "tid": tid,
        "processStartupTime": 0,
        "processShutdownTime": None,
        "registerTime": 0,
        "unregisterTime": None,
        "pausedRanges": [],
        "samples": {
            "stack": sample_stacks,
            "time": times,
            "weight": weights,
            "weightType": weight_type,
            "length": len(sample_stacks),
        },
        "stackTable": {**stack_table, "length": lengths["stackTable"]},
        "frameTable": {**frame_table, "length": lengths["frameTable"]},
        "funcTable": {**func_table, "length": lengths["funcTable"]},
        "resourceTable": {"lib": [], "name": [], "host": [], "type": [], "length": 0},
        "nativeSymbols": {"libIndex": [], "address": [], "name": [], "functionSize": [], "length": 0},
        "markers": {"data": [], "name": [], "startTime": [], "endTime": [], "phase": [], "category": [], "length": 0},
    }


__all__ = ["ReadOptions", "WriteOptions", "charts", "dump", "extensions", "name", "parse", "sniff"]
