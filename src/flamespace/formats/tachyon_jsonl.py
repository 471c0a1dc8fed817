"""CPython 3.15's sampling profiler (Tachyon: ``python -m profiling.sampling ... --jsonl``): its JSON Lines summary.

One JSON object a line, each with ``type``, ``v`` (0) and ``run_id``: a ``meta`` record first
(``sample_interval_usec``, ``mode``), then ``string_table`` records (``strings``: ``str_id``,
``value``), ``frame_table`` records (``frames``: ``frame_id``, ``path_str_id``, ``func_str_id``,
``line``; a line of 0 marks a synthetic frame), ``agg`` records (``kind`` ``frame``, ``entries``:
``frame_id``, ``self``, ``cumulative`` sample counts, and ``samples_total``) and an ``end`` record
last (``samples_total``); records of other types and unknown fields are ignored, as the format
asks (Lib/profiling/sampling/jsonl_collector.py).

**The file holds no stacks**: only each frame's own (``self``) and inclusive (``cumulative``)
counts. This reader makes the one profile those numbers give without guessing: each frame as a
stack of its own, with its ``self`` samples (their sum is the run's samples, so shares and
comparisons by function hold); the result says so with the label ``stacks: none (per-function
self samples)`` and a warning. For a flame graph, capture with ``--binary`` (or ``--collapsed``).
Frames are named as flamespace names Python frames (``function (file:line)``).
"""

from __future__ import annotations

import json

from ..core.python_frames import PythonFrames
from ..core.vector import FlameGraph
from ..errors import InputError
from ._io import bounded_lines
from ._options import ReadOptions as ReadOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from .._types import Stack
    from ..diagnostics import Diagnostics

name = "tachyon-jsonl"
extensions = (".jsonl",)
description = "CPython 3.15 profiling.sampling (Tachyon) JSONL summaries (--jsonl: per-function counts, no stacks)"
reference = "Lib/profiling/sampling/jsonl_collector.py (CPython 3.15)"
SCHEMA_VERSION = 0
NO_STACKS = "none (per-function self samples)"


def sniff(head: bytes) -> bool | None:
    """A first line that is a ``meta`` record with a ``run_id`` and ``sample_interval_usec``."""
    first, newline, _ = head.lstrip().partition(b"\n")
    if not first.startswith(b"{"):
        return False
    if not newline and len(head) < 4096:
        return None if b'"type"' not in first or b'"meta"' in first else False
    try:
        record = json.loads(first)
    except ValueError:
        return False
    return isinstance(record, dict) and record.get("type") == "meta" and "run_id" in record and "sample_interval_usec" in record


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Each frame's own samples, as one-frame stacks (the file has no stacks: see the module's docstring)."""
    reader = _Reader(source, options.skip_invalid)
    for number, line in enumerate(bounded_lines(stream, source), 1):
        if line.strip():
            reader.record(line, number)
    return reader.graph(diagnostics)


class _Reader:
    def __init__(self, source: str, skip_invalid: bool) -> None:
        self.source, self.skip_invalid = source, skip_invalid
        self.meta: dict[str, Any] | None = None
        self.strings: dict[int, str] = {}
        self.frames: dict[int, tuple[int, int, int]] = {}
        self.self_counts: dict[int, int] = {}
        self.total: int | None = None
        self.ended = False
        self.skipped = 0
        self.first_skip = ""

    def fail(self, number: int, message: str) -> InputError:
        return InputError(f"line {number}: {message}", self.source)

    def record(self, line: str, number: int) -> None:
        try:
            self._record(line, number)
        except InputError as exc:
            if not self.skip_invalid or number == 1:
                raise
            self.skipped += 1
            self.first_skip = self.first_skip or str(exc)

    def _record(self, line: str, number: int) -> None:
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise self.fail(number, f"not JSON ({exc})") from None
        if not isinstance(record, dict) or not isinstance(record.get("type"), str):
            raise self.fail(number, "a record must be an object with a 'type'")
        kind = record["type"]
        if number == 1 or self.meta is None:
            if kind != "meta":
                raise self.fail(number, f"the first record must be 'meta', not {kind!r}")
            if record.get("v") != SCHEMA_VERSION:
                raise self.fail(number, f"schema version {record.get('v')!r}; flamespace reads version {SCHEMA_VERSION}")
            self.meta = record
            return
        if self.ended:
            raise self.fail(number, f"a {kind!r} record after the 'end' record")
        if kind == "string_table":
            for entry in self._entries(record, "strings", number):
                self.strings[self._int(entry, "str_id", number)] = self._str(entry, "value", number)
        elif kind == "frame_table":
            for entry in self._entries(record, "frames", number):
                path, function = self._int(entry, "path_str_id", number), self._int(entry, "func_str_id", number)
                self.frames[self._int(entry, "frame_id", number)] = (path, function, self._int(entry, "line", number))
        elif kind == "agg" and record.get("kind") == "frame":
            for entry in self._entries(record, "entries", number):
                frame_id = self._int(entry, "frame_id", number)
                self.self_counts[frame_id] = self.self_counts.get(frame_id, 0) + self._int(entry, "self", number)
        elif kind == "end":
            self.total = self._int(record, "samples_total", number)
            self.ended = True

    def _entries(self, record: dict[str, Any], field: str, number: int) -> list[dict[str, Any]]:
        entries = record.get(field)
        if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
            raise self.fail(number, f"'{field}' must be a list of objects")
        return entries

    def _int(self, entry: dict[str, Any], field: str, number: int) -> int:
        value = entry.get(field)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << 63:
            raise self.fail(number, f"'{field}' must be a non-negative integer, not {value!r:.40}")
        return value

    def _str(self, entry: dict[str, Any], field: str, number: int) -> str:
        value = entry.get(field)
        if not isinstance(value, str):
            raise self.fail(number, f"'{field}' must be a string, not {value!r:.40}")
        return value

    def graph(self, diagnostics: Diagnostics | None) -> FlameGraph:
        if self.meta is None:
            raise InputError("empty: no 'meta' record", self.source)
        names = PythonFrames()
        values: dict[tuple[str, ...], int] = {}
        for frame_id, count in self.self_counts.items():
            if not count:
                continue
            frame = self.frames.get(frame_id)
            if frame is None or frame[0] not in self.strings or frame[1] not in self.strings:
                raise InputError(f"the counts name frame {frame_id}, which the frame and string tables do not hold", self.source)
            file, function, line = self.strings[frame[0]], self.strings[frame[1]], frame[2]
            stack = (function if file in ("", "~") or line <= 0 else names(function, file, line),)
            values[stack] = values.get(stack, 0) + count
        counted = sum(values.values())
        if diagnostics is not None:
            diagnostics.warn(
                f"{self.source}: Tachyon's JSONL keeps per-function counts, not stacks: each function is its own root"
            )
            if self.skipped:
                diagnostics.warn(
                    f"{self.source}: skipped {self.skipped} records that could not be read (first: {self.first_skip})"
                )
            if not self.ended:
                diagnostics.warn(f"{self.source}: no 'end' record: the file may be cut short")
            elif self.total is not None and self.total != counted:
                diagnostics.warn(f"{self.source}: the 'end' record counts {self.total} samples, the frames' own counts {counted}")
        mode = self.meta.get("mode")
        labels = {"profiler": "tachyon (profiling.sampling)", "stacks": NO_STACKS}
        interval = self.meta.get("sample_interval_usec")
        if isinstance(interval, int):
            labels["interval_us"] = str(interval)
        if isinstance(mode, str):
            labels["mode"] = mode
        return FlameGraph(values, unit="samples", metric=mode if isinstance(mode, str) else "wall", labels=labels)


__all__ = ["NO_STACKS", "ReadOptions", "extensions", "name", "parse", "sniff"]
