"""flamespace's own JSON: every value exactly and all metadata, so a profile written and read back is the same.

Other formats lose something (folded text drops labels; pprof keeps whole numbers; speedscope
has no differential). This one keeps ints as ints and floats as Python's ``repr`` (which reads
back to the same float), every label, the unit and metric, the two sides of a differential and
a flame chart's samples in time order. One document::

    {"format": "flamespace", "version": 1, "kind": "graph" | "differential" | "chart",
     "frames": ["main", "work", ...],              # every frame name once
     "stacks": [[0, 1], [0], ...],                 # each a list of frame indices, root first
     ...kind's fields...}

- ``graph``: ``"metadata"`` and ``"values"`` (one number per stack).
- ``differential``: ``"before"`` and ``"after"``, each ``{"metadata": ..., "values": [...]}``
  (one number per stack, 0 where that side has none).
- ``chart``: ``"metadata"``, ``"threads"`` (names) and ``"samples"``: four lists of one length,
  ``"time"`` (ns from the chart's start), ``"thread"`` (index), ``"stack"`` (index), ``"weight"``.

``"metadata"`` is ``{"unit": str|null, "metric": str|null, "labels": {str: str}}``. Strings are
written with ASCII escapes, so frame names that are not valid UTF-8 (kept as lone surrogates)
come back unchanged and the file is valid JSON for any reader.
"""

from __future__ import annotations

from .._record import Record, record
from ..core.chart import FlameChart
from ..core.differential import Differential
from ..core.metadata import Metadata
from ..core.vector import MAX_VALUE, FlameGraph, below_max
from ..errors import ArgumentError, InputError
from . import _json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from .._types import Number, Stack
    from ..diagnostics import Diagnostics

name = "flamespace-json"
extensions = (".flamespace.json",)
description = "flamespace's own lossless JSON (exact values, all metadata, differentials and charts)"
reference = "flamespace"
charts = True  # keeps time order
VERSION = 1
KINDS = ("graph", "differential", "chart")


@record
class ReadOptions(Record):
    """How to read flamespace JSON.

    ``skip_invalid``: accepted for every reader; a document is read whole or refused.
    """

    skip_invalid: bool = False


@record
class WriteOptions(Record):
    """How to write flamespace JSON.

    ``indent``: spaces per level of indentation (0: the document on one line).
    """

    indent: int = 0


def sniff(head: bytes) -> bool | str | None:
    """True if the document starts with ``{"format": "flamespace"`` (as :func:`dump` writes it)."""
    text = head.lstrip()
    if not text:
        return None
    if not text.startswith(b"{"):
        return "does not start with '{'"
    body = text[1:].lstrip()
    key = b'"format"'
    if key.startswith(body):
        return None  # too short to tell
    if body.startswith(key):
        value = body[len(key) :].lstrip()
        if value[:1] == b":":
            value = value[1:].lstrip()
            if value.startswith(b'"flamespace"'):
                return True
            if b'"flamespace"'.startswith(value):
                return None
        elif not value:
            return None
    return 'its first key is not "format": "flamespace"'


# -- reading -------------------------------------------------------------------------------


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph | Differential | FlameChart:
    """The profile the document holds: a FlameGraph, a Differential or a FlameChart, values exact."""
    document = _json.load(stream, source, "flamespace JSON", diagnostics)
    if document is None:
        return FlameGraph()
    if not isinstance(document, dict) or document.get("format") != "flamespace":
        raise InputError('not flamespace JSON: expected an object with "format": "flamespace"', source)
    version = document.get("version")
    if version != VERSION:
        raise InputError(f"version is {version!r:.30}; this flamespace reads version {VERSION}", source)
    kind = document.get("kind")
    if kind not in KINDS:
        raise InputError(f"kind is {kind!r:.30}; expected one of {', '.join(KINDS)}", source)
    frames = _json.field(document, "frames", list, "", source)
    for i, frame in enumerate(frames):
        if not isinstance(frame, str):
            raise InputError(f"frames[{i}] is {frame!r:.60}, not a string", source)
    stacks = _stacks(_json.field(document, "stacks", list, "", source), frames, source)
    if kind == "graph":
        return _graph(document, stacks, "", source)
    if kind == "differential":
        before = _graph(_json.field(document, "before", dict, "", source), stacks, "before", source)
        after = _graph(_json.field(document, "after", dict, "", source), stacks, "after", source)
        return Differential(before, after)
    return _chart(document, stacks, source)


def _stacks(rows: list[Any], frames: list[str], source: str) -> list[Stack]:
    stacks: list[Stack] = []
    seen: dict[Stack, int] = {}
    for i, row in enumerate(rows):
        if not isinstance(row, list):
            raise InputError(f"stacks[{i}] is {row!r:.60}, not a list of frame indices", source)
        for k, index in enumerate(row):
            if type(index) is not int or not 0 <= index < len(frames):
                raise InputError(f"stacks[{i}][{k}] is {index!r:.60}, not the index of a frame (there are {len(frames)})", source)
        stack = tuple([frames[index] for index in row])
        if stack in seen:
            raise InputError(f"stacks[{i}] repeats stacks[{seen[stack]}]", source)
        seen[stack] = i
        stacks.append(stack)
    return stacks


def _metadata(document: dict[str, Any], path: str, source: str) -> Metadata:
    where = f"{path}.metadata" if path else "metadata"
    found = _json.field(document, "metadata", dict, path, source)
    unit, metric, labels = found.get("unit"), found.get("metric"), found.get("labels", {})
    for key, value in (("unit", unit), ("metric", metric)):
        if value is not None and not isinstance(value, str):
            raise InputError(f"{where}.{key} is {value!r:.60}, not a string or null", source)
    if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
        raise InputError(f"{where}.labels must be an object of strings", source)
    return Metadata(unit=unit, metric=metric, labels=labels)


def _values(document: dict[str, Any], key: str, count: int, path: str, source: str, minimum: float = -MAX_VALUE) -> list[Number]:
    values = _json.field(document, key, list, path, source)
    where = f"{path}.{key}" if path else key
    if len(values) != count:
        raise InputError(f"{where} has {len(values)} numbers for {count} stacks", source)
    return [_json.number(value, f"{where}[{i}]", source, minimum) for i, value in enumerate(values)]


def _graph(document: dict[str, Any], stacks: list[Stack], path: str, source: str) -> FlameGraph:
    values = _values(document, "values", len(stacks), path, source)
    where = f"{path}.values" if path else "values"
    for i, value in enumerate(values):
        if value < 0:
            raise InputError(f"{where}[{i}] is {value!r}; a flame graph's values are not negative", source)
    return FlameGraph._trusted({s: v for s, v in zip(stacks, values) if v}, _metadata(document, path, source))


def _chart(document: dict[str, Any], stacks: list[Stack], source: str) -> FlameChart:
    from array import array

    threads = _json.field(document, "threads", list, "", source)
    for i, thread in enumerate(threads):
        if not isinstance(thread, str):
            raise InputError(f"threads[{i}] is {thread!r:.60}, not a string", source)
    samples = _json.field(document, "samples", dict, "", source)
    times = _json.field(samples, "time", list, "samples", source)
    count = len(times)
    for i, time in enumerate(times):
        if type(time) is not int or not -(2**63) <= time < 2**63:
            raise InputError(f"samples.time[{i}] is {time!r:.60}, not an integer of nanoseconds", source)
        if i and time < times[i - 1]:
            raise InputError(f"samples.time[{i}] is {time}, before the sample it follows ({times[i - 1]})", source)
    columns = []
    for key, size in (("thread", len(threads)), ("stack", len(stacks))):
        column = _json.field(samples, key, list, "samples", source)
        if len(column) != count:
            raise InputError(f"samples.{key} has {len(column)} entries for {count} times", source)
        for i, index in enumerate(column):
            if type(index) is not int or not 0 <= index < size:
                raise InputError(f"samples.{key}[{i}] is {index!r:.60}, not the index of one of the {size} {key}s", source)
        columns.append(column)
    weights = _values(samples, "weight", count, "samples", source, minimum=0)  # docs/commands.md: weights are not negative
    return FlameChart.from_columns(
        stacks,
        threads,
        array("q", times),
        array("l", columns[0]),
        array("l", columns[1]),
        weights,
        _metadata(document, "", source),
    )


# -- writing -------------------------------------------------------------------------------


def _metadata_object(metadata: Metadata | None) -> dict[str, Any]:
    metadata = metadata or Metadata()
    return {"unit": metadata.unit, "metric": metadata.metric, "labels": dict(metadata.labels)}


class _Frames:
    """Frame names interned to indices, in order of first use."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def stack(self, stack: Stack) -> list[int]:
        index = self.index
        return [index.setdefault(frame, len(index)) for frame in stack]


def _check_value(value: Number, stack: Stack) -> Number:
    if type(value) is not int and type(value) is not float:  # numpy numbers, bools, Fractions: say so
        raise ArgumentError(f"stack {stack!r} has the value {value!r}, not an int or float")
    return below_max(value, stack)


def dump(profile: FlameGraph | Differential | FlameChart, stream: TextIO, options: WriteOptions = WriteOptions()) -> None:
    """Write ``profile`` as one JSON document (see the module docstring)."""
    import json

    frames = _Frames()
    document: dict[str, Any] = {"format": "flamespace", "version": VERSION}
    if isinstance(profile, FlameChart):
        times, thread_ids, stack_ids, weights = profile.columns()
        document["kind"] = "chart"
        document["metadata"] = _metadata_object(profile.metadata)
        stacks = profile.stacks
        document["threads"] = list(profile.threads)
        document["samples"] = {
            "time": list(times),
            "thread": list(thread_ids),
            "stack": list(stack_ids),
            "weight": [_check_value(w, stacks[s]) for w, s in zip(weights, stack_ids)],
        }
    elif isinstance(profile, Differential):
        rows = profile.rows()
        stacks = [stack for stack, _, _ in rows]
        document["kind"] = "differential"
        document["before"] = {
            "metadata": _metadata_object(profile.before.metadata),
            "values": [_check_value(b, s) for s, b, _ in rows],
        }
        document["after"] = {
            "metadata": _metadata_object(profile.after.metadata),
            "values": [_check_value(a, s) for s, _, a in rows],
        }
    else:
        pairs = profile.sorted_items()
        stacks = [stack for stack, _ in pairs]
        document["kind"] = "graph"
        document["metadata"] = _metadata_object(profile.metadata)
        document["values"] = [_check_value(v, s) for s, v in pairs]
    stack_rows = [frames.stack(stack) for stack in stacks]
    document["frames"] = list(frames.index)
    document["stacks"] = stack_rows
    ordered = {key: document[key] for key in ("format", "version", "kind", "frames", "stacks")}
    ordered.update((key, value) for key, value in document.items() if key not in ordered)
    json.dump(ordered, stream, indent=options.indent or None, separators=(",", ": ") if options.indent else (",", ":"))
    stream.write("\n")


def loads(text: str, options: ReadOptions = ReadOptions()) -> FlameGraph | Differential | FlameChart:
    """Parse flamespace JSON held in a string."""
    import io

    return parse(io.StringIO(text), options)


def dumps(profile: FlameGraph | Differential | FlameChart, options: WriteOptions = WriteOptions()) -> str:
    """flamespace JSON of ``profile`` as a string."""
    import io

    out = io.StringIO()
    dump(profile, out, options)
    return out.getvalue()


__all__ = ["ReadOptions", "WriteOptions", "charts", "dump", "dumps", "extensions", "loads", "name", "parse", "sniff"]
