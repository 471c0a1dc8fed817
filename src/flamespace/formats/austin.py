"""Austin's output (https://github.com/P403n1x87/austin): its text format and MOJO (``austin -b``).

Text, one sample a line after ``# key: value`` headers (``austin``, ``interval``, ``mode``)::

    P<pid>;T<iid>:<tid>;file:function:line;...;file:function:line metric

The metric is time in microseconds (``wall`` and ``cpu`` modes), a memory delta in bytes
(``memory`` mode, negative for frees), or ``time,idle,memory`` (``full`` mode, ``-f``).
MOJO is the same samples as a stream of binary events with interned strings and frames
(the event numbering of austin-python's ``MojoEvents``, versions 1 to 3, and the
``STACK_REPEAT`` of later writers).

``metric`` picks what to add up: ``wall`` (time), ``cpu`` (time of samples not idle: the
``cpu`` mode, or ``full`` mode without its idle samples), ``alloc`` (memory deltas above 0),
``dealloc`` (freed bytes); ``auto`` takes the file's own (``alloc`` for ``memory`` mode).
Frames are named ``function (file:line)`` as our recorder names them; the process and
thread are left out (``threads=True`` keeps them as root frames ``P<pid>``, ``T<iid>:<tid>``,
as Austin's text has them). Samples without a Python frame are left out, as
austin2speedscope and austin2pprof leave them out.
"""

from __future__ import annotations

import sys

from .._record import Record, record
from ..core.metadata import Metadata
from ..core.vector import MAX_DIGITS, MAX_VALUE, FlameGraph
from ..diagnostics import Diagnostics
from ..errors import ArgumentError, InputError
from ._binary import error_at, peek, read_bytes
from ._io import bounded_lines
from ..core.python_frames import PythonFrames, is_line_number

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO
    from collections.abc import Iterator

    from .._types import Number, Stack

name = "austin"
extensions = (".austin", ".mojo")
description = "Austin text (austin -o) and MOJO binary (austin -b)"

#: Every metric an Austin sample can give, in the order of :func:`_columns`.
COLUMNS = ("wall", "cpu", "alloc", "dealloc")
METRICS = ("auto",) + COLUMNS
#: Which metrics each Austin mode has, the first being the one ``auto`` picks.
MODE_METRICS = {"wall": ("wall",), "cpu": ("cpu",), "memory": ("alloc", "dealloc"), "full": COLUMNS}
_SHOWN = 60


@record
class ReadOptions(Record):
    """How to read Austin output.

    ``skip_invalid``: skip malformed lines (counted) instead of failing.
    ``metric``: the value to add up: auto (the file's mode), wall, cpu, alloc or dealloc (a full-mode file has them all).
    ``threads``: keep the P<pid> and T<thread> root frames (they are left out by default).
    """

    skip_invalid: bool = False
    metric: str = "auto"
    threads: bool = False


def sniff(head: bytes) -> bool | None:
    """MOJO's magic bytes, an ``# austin:`` header, or a first sample ``P<pid>;T...``."""
    if head[:3] == b"MOJ":
        return len(head) < 4 or head[3] < 0x80  # a version number follows
    text = head.decode("utf-8", "replace").lstrip("\ufeff")
    lines = text.splitlines()
    if not text.endswith(("\n", "\r")):
        lines = lines[:-1]
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if line.startswith("#"):
            if line[1:].lstrip().startswith("austin:"):
                return True
            continue
        pid, _, rest = line.partition(";")
        return pid[:1] == "P" and pid[1:].isdigit() and rest[:1] == "T"
    return None


# -- choosing the value of a sample ------------------------------------------------------


def _metric(options: ReadOptions, mode: str, source: str) -> str:
    if options.metric not in METRICS:
        raise ArgumentError(f"metric must be one of {', '.join(METRICS)}, not {options.metric!r}")
    have = MODE_METRICS.get(mode)
    if have is None:
        raise InputError(f"unknown Austin mode {mode!r}; expected one of {', '.join(MODE_METRICS)}", source)
    if options.metric == "auto":
        return have[0]
    if options.metric not in have:
        raise ArgumentError(
            f"an Austin profile in {mode} mode has no {options.metric} metric (it has {', '.join(have)});"
            " record with austin -f for every metric"
        )
    return options.metric


def _unit(metric: str) -> str:
    return "bytes" if metric in ("alloc", "dealloc") else "us"


def _columns(time: int, idle: bool, memory: int) -> list[int]:
    """One sample's value of every metric: wall time, cpu time (not idle), bytes allocated, bytes freed."""
    return [time, 0 if idle else time, memory if memory > 0 else 0, -memory if memory < 0 else 0]


def _metadata(headers: dict[str, str], metric: str) -> Metadata:
    labels = {f"austin.{key}": value for key, value in headers.items() if key != "austin"}
    labels["profiler"] = "austin " + headers["austin"] if "austin" in headers else "austin"
    return Metadata(unit=_unit(metric), metric=metric, labels=labels)


# -- text --------------------------------------------------------------------------------


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Read Austin text or MOJO (told apart by MOJO's magic bytes)."""
    if peek(stream, 3) == b"MOJ":
        data = read_bytes(stream)
        assert data is not None
        return parse_mojo(data, options, source=source, diagnostics=diagnostics)
    return _parse_text(stream, options, source, diagnostics, stack_cache)


def _parse_text(
    stream: TextIO, options: ReadOptions, source: str, diagnostics: Diagnostics | None, stack_cache: dict[str, Stack] | None
) -> FlameGraph:
    headers: dict[str, str] = {}
    totals: dict[str, list[int]] = {}  # stack text -> [time, cpu time, alloc, dealloc]
    names = PythonFrames()
    metric: str | None = None
    lineno = 0
    for lineno, line in enumerate(bounded_lines(stream, source), 1):
        if line[:1] == "#" or line[:2] == "\ufeff#":
            field, colon, text = line.lstrip("\ufeff# \t").partition(":")
            if colon:
                headers.setdefault(field.strip(), text.strip())
            continue
        line = line.rstrip()
        if not line:
            continue
        cut = line.rfind(" ")
        values = line[cut + 1 :].split(",") if cut > 0 else []
        sums = _sample_values(values, headers)
        if sums is None or not line.startswith("P"):
            reason = _bad_line(line, cut, values, headers)
            if not options.skip_invalid:
                raise InputError(reason, source, lineno)
            if diagnostics is not None:
                diagnostics.skip(source, lineno, reason)
            continue
        if metric is None:
            headers.setdefault("mode", "full" if len(values) == 3 else "wall")
            metric = _metric(options, headers["mode"], source)
        stack_text = line[:cut]
        found = totals.get(stack_text)
        if found is None:
            totals[stack_text] = sums
        else:
            for k in range(4):
                found[k] += sums[k]
    if metric is None:
        metric = _metric(options, headers.get("mode", "wall"), source)
        if diagnostics is not None:
            diagnostics.warn(f"{source}: no Austin samples{' (empty input)' if not lineno else ''}; the profile is empty")
    column = COLUMNS.index(metric)
    stacks: dict[Stack, Number] = {}
    cache = stack_cache if stack_cache is not None else {}
    for text, sums in totals.items():
        value = sums[column]
        if not value:
            continue
        if not value < MAX_VALUE:  # each below it, their sum need not be
            raise InputError(
                f"the samples of {text[:60]!r} add up to {value:.3g}, beyond the {MAX_VALUE:g} a profile holds", source
            )
        key = ("\0austin threads\0" if options.threads else "\0austin\0") + text  # not a folded text
        stack = cache.get(key)
        if stack is None:
            stack = cache[key] = _text_stack(text, names, options.threads)
        if stack:
            stacks[stack] = stacks.get(stack, 0) + value
    return FlameGraph._trusted(stacks, _metadata(headers, metric))


def _sample_values(values: list[str], headers: dict[str, str]) -> list[int] | None:
    """[wall, cpu, alloc, dealloc] of one sample; None if its metrics are malformed."""
    read = [_metric_value(v) for v in values]
    numbers = [number for number in read if number is not None]
    if len(numbers) < len(read):
        return None
    mode = headers.get("mode")
    if len(numbers) == 3 and mode in (None, "full"):
        time, idle, memory = numbers
        if time < 0 or idle not in (0, 1):
            return None
        return _columns(time, bool(idle), memory)
    if len(numbers) != 1 or mode == "full":
        return None
    (number,) = numbers
    if mode == "memory":
        return _columns(0, False, number)
    return _columns(number, False, 0) if number >= 0 else None


def _metric_value(text: str) -> int | None:
    """The int a metric field holds (ASCII digits, a '-' for freed memory) if its magnitude is below MAX_VALUE; None otherwise."""
    digits = text[1:] if text[:1] == "-" else text
    if not (digits.isascii() and digits.isdigit()) or len(digits) > MAX_DIGITS:
        return None
    number = int(text)
    return number if abs(number) < MAX_VALUE else None


def _bad_line(line: str, cut: int, values: list[str], headers: dict[str, str]) -> str:
    shown = line if len(line) <= _SHOWN else line[: _SHOWN - 3] + "..."
    if not line.startswith("P"):
        return f"expected an Austin sample 'P<pid>;T<thread>;file:function:line;... metric', found {shown!r}"
    big = next((v for v in values if v.lstrip("-").isascii() and v.lstrip("-").isdigit() and _metric_value(v) is None), None)
    if big is not None:
        return f"metric {big[:20]}... is out of range; metrics must be below {MAX_VALUE:g}"
    if headers.get("mode") == "full" or len(values) == 3:
        note = " (mojo2austin writes full-mode text with one metric: read the MOJO file itself)" if len(values) == 1 else ""
        return f"expected time,idle,memory (full mode) after the last space, found {line[cut + 1 :]!r:.60}{note}"
    return f"expected one integer metric after the last space, found {line[cut + 1 :] if cut > 0 else 'none'!r:.60}"


def _text_stack(text: str, names: PythonFrames, threads: bool) -> Stack:
    parts = text.split(";")
    intern = sys.intern
    frames = parts[2:] if len(parts) > 1 and parts[1][:1] == "T" else parts[1:]
    stack = tuple(intern(_text_frame(frame, names)) for frame in frames)
    if threads and stack:
        return tuple(map(intern, parts[: len(parts) - len(frames)])) + stack
    return stack


def _text_frame(frame: str, names: PythonFrames) -> str:
    """``file:function:line`` (the file may hold colons) as ``function (file:line)``."""
    head, colon, line = frame.rpartition(":")
    file, colon2, function = head.rpartition(":")
    if not colon or not colon2 or not is_line_number(line):
        return frame
    return names(function, file, int(line))


# -- MOJO --------------------------------------------------------------------------------

_METADATA, _STACK, _FRAME, _INVALID, _FRAME_REF, _KERNEL, _GC, _IDLE = 1, 2, 3, 4, 5, 6, 7, 8
_TIME, _MEMORY, _STRING, _STRING_REF, _STACK_REPEAT = 9, 10, 11, 12, 13
_UNKNOWN = "<unknown>"


class _Mojo:
    """A cursor over MOJO bytes: signed varints (6 bits, a sign bit and a continuation bit
    in the first byte, 7 bits after) and NUL-terminated UTF-8 strings."""

    def __init__(self, data: bytes, source: str) -> None:
        self.data = data
        self.pos = 0
        self.source = source

    def fail(self, message: str, at: int | None = None) -> InputError:
        return error_at(message, self.pos if at is None else at, self.source)

    def int(self) -> int:
        data, pos = self.data, self.pos
        try:
            byte = data[pos]
        except IndexError:
            raise self.fail("the MOJO stream ends inside an event (truncated file?)") from None
        pos += 1
        number = byte & 0x3F
        negative = byte & 0x40
        shift = 6
        while byte & 0x80:
            try:
                byte = data[pos]
            except IndexError:
                raise self.fail("the MOJO stream ends inside a number (truncated file?)") from None
            pos += 1
            number |= (byte & 0x7F) << shift
            shift += 7
            if shift > 70:
                raise self.fail("a number longer than 64 bits")
        self.pos = pos
        return -number if negative else number

    def str(self) -> str:
        end = self.data.find(b"\0", self.pos)
        if end < 0:
            raise self.fail("the MOJO stream ends inside a string (truncated file?)")
        text = self.data[self.pos : end].decode("utf-8", "replace")
        self.pos = end + 1
        return text


def parse_mojo(
    data: bytes, options: ReadOptions = ReadOptions(), *, source: str = "<input>", diagnostics: Diagnostics | None = None
) -> FlameGraph:
    """Read the MOJO binary format (``austin -b``)."""
    if not data.startswith(b"MOJ"):
        raise error_at("not a MOJO file: it does not start with 'MOJ'", 0, source)
    reader = _Mojo(data, source)
    reader.pos = 3
    version = reader.int()
    if not 1 <= version <= 3:
        raise reader.fail(f"MOJO version {version} is not supported (versions 1 to 3 are)", 3)
    headers: dict[str, str] = {}
    names = PythonFrames()
    totals: dict[tuple[tuple[str, ...], tuple[str, ...]], list[int]] = {}
    for head, frames, time, idle, memory in _mojo_samples(reader, version, headers, names):
        if not frames:
            continue
        key = (head if options.threads else (), frames)
        found = totals.get(key)
        sample = _columns(time, idle, memory)
        if found is None:
            totals[key] = sample
        else:
            for k in range(4):
                found[k] += sample[k]
    metric = _metric(options, headers.get("mode", "wall"), source)
    if not totals and diagnostics is not None:
        diagnostics.warn(f"{source}: no Austin samples; the profile is empty")
    column = COLUMNS.index(metric)
    stacks: dict[Stack, Number] = {}
    for (head, frames), sums in totals.items():
        if sums[column]:
            stack = head + frames
            stacks[stack] = stacks.get(stack, 0) + sums[column]
    return FlameGraph._trusted(stacks, _metadata(headers, metric))


def _is_native(frame: str) -> bool:
    """A frame of native code (austinp), which a repeated stack does not carry over."""
    split = frame.rpartition(" (")[2]
    return bool(split) and frame.endswith(")") and not (".py" in split or split.startswith("<"))


def _mojo_samples(
    reader: _Mojo, version: int, headers: dict[str, str], names: PythonFrames
) -> Iterator[tuple[tuple[str, ...], tuple[str, ...], int, bool, int]]:
    """(process and thread frames, frames, time, idle, memory) of each sample, in stream order."""
    data = reader.data
    size = len(data)
    strings: dict[tuple[int, int], str] = {}
    frames: dict[tuple[int, int], str] = {}
    last: dict[tuple[int, str], list[str]] = {}
    pid = -1
    thread = ""
    head: tuple[str, ...] = ()
    current: list[str] | None = None
    time = memory = 0
    idle = False
    intern = sys.intern

    def lookup(index: int, at: int) -> str:
        if index == 1 and (pid, 1) not in strings:
            return _UNKNOWN
        found = strings.get((pid, index))
        if found is None:
            raise reader.fail(f"a frame refers to string {index}, which was not defined before", at)
        return found

    while reader.pos < size:
        at = reader.pos
        event = data[at]
        reader.pos = at + 1
        if event == _FRAME_REF:
            ref = reader.int()
            frame = frames.get((pid, ref))
            if frame is None or current is None:
                raise reader.fail(
                    f"a sample refers to frame {ref}, which was not defined before"
                    if current is not None
                    else "a frame outside a sample",
                    at,
                )
            current.append(frame)
        elif event == _STACK:
            if current is not None:
                last[(pid, thread)] = current
                yield head, tuple(current), time, idle, memory
            pid = reader.int()
            iid = reader.int() if version >= 3 else None
            thread = reader.str()
            hexadecimal = 0 < len(thread) <= 16 and all(
                c in "0123456789abcdefABCDEF" for c in thread
            )  # a 64-bit id, else kept as it is
            tid = str(int(thread, 16)) if hexadecimal else thread
            head = (intern(f"P{pid}"), intern(f"T{iid}:{tid}" if iid is not None else f"T{tid}"))
            current = []
            time = memory = 0
            idle = False
        elif event == _TIME or event == _MEMORY:
            value = reader.int()
            if current is None:
                raise reader.fail("a metric outside a sample", at)
            if event == _TIME:
                if value < 0:
                    raise reader.fail(f"a negative time ({value})", at)
                time = value
            else:
                memory = value
        elif event == _FRAME:
            key = reader.int()
            file_index, scope_index, line = reader.int(), reader.int(), reader.int()
            if version >= 2:
                reader.int(), reader.int(), reader.int()  # line end, column, column end
            file, function = lookup(file_index, at), lookup(scope_index, at)
            frames[(pid, key)] = intern(names(function, file if file != _UNKNOWN else "", line))
        elif event == _STRING:
            key = reader.int()
            strings[(pid, key)] = reader.str()
        elif event == _IDLE:
            idle = True
        elif event == _METADATA:
            key_text = reader.str()
            headers[key_text] = reader.str()
        elif event in (_INVALID, _GC):
            pass  # markers austin-python does not draw either
        elif event == _KERNEL:
            reader.str()
        elif event == _STRING_REF:
            reader.int()
        elif event == _STACK_REPEAT:
            if current is None:
                raise reader.fail("a repeated stack outside a sample", at)
            previous = list(last.get((pid, thread), ()))
            while previous and _is_native(previous[-1]):
                previous.pop()
            current[:0] = previous
        else:
            raise reader.fail(
                f"unknown MOJO event {event} (expected 1 to 13; asyncio task events of newer Austin versions are not read)", at
            )
    if current is not None:
        yield head, tuple(current), time, idle, memory


__all__ = ["METRICS", "ReadOptions", "extensions", "name", "parse", "parse_mojo", "sniff"]
