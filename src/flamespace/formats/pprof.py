"""pprof's profile.proto (https://github.com/google/pprof/blob/main/proto/profile.proto), gzipped or plain.

Reading: one sample type is added up, as ``go tool pprof`` shows one: ``sample_type`` names
it (``cpu``, ``alloc_space``, ... or its index); by default the profile's
``default_sample_type``, else the last, as pprof does. A location's lines are its inlined
calls (the last line is the caller the others were inlined into); each becomes a frame.
Frames with a file are named ``function (file:line)`` as our recorder names Python
frames (``--strip lines`` merges lines); locations without symbols are their address.

Writing: a flame graph becomes one sample per stack, one function and location per frame
(``function (file:line)`` split back into its parts), gzipped as pprof writes it, with the
profile's metric and unit as the sample type and its labels as ``key: value`` comments
(``go tool pprof`` shows them; this reader reads them back as labels). It opens in ``go tool pprof`` and Pyroscope.
"""

from __future__ import annotations

import sys

from .._record import Record, record
from ..core.differential import Differential
from ..core.metadata import Metadata
from ..core.vector import FlameGraph
from ..diagnostics import Diagnostics
from ..errors import ArgumentError, InputError
from ._binary import error_at, read_all_bytes
from ._protobuf import (
    BYTES,
    VARINT,
    WireError,
    encode_bytes,
    encode_int,
    encode_packed,
    fields,
    repeated_varints,
    signed,
    varint,
)
from ..core.python_frames import PythonFrames, split_frame

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from .._types import Number, Profile, Stack

name = "pprof"
extensions = (".pprof", ".pb")
description = "pprof profile.proto (go tool pprof, Pyroscope, austin2pprof), gzipped or plain"

#: pprof's unit names and ours.
_UNITS = {
    "nanoseconds": "ns",
    "microseconds": "us",
    "milliseconds": "ms",
    "seconds": "s",
    "bytes": "bytes",
    "count": "count",
    "ns": "ns",
    "us": "us",
    "\u03bcs": "us",
    "\u00b5s": "us",
    "ms": "ms",
    "s": "s",  # austin2pprof writes "μs"
}
_UNIT_NAMES = {
    "ns": "nanoseconds",
    "us": "microseconds",
    "ms": "milliseconds",
    "s": "seconds",
    "bytes": "bytes",
    "samples": "count",
    "count": "count",
}


#: Comments our writer adds to keep the profile's unit and metric exactly (pprof's sample type cannot say "none").
_OURS = "flamespace."


@record
class ReadOptions(Record):
    """How to read a pprof profile.

    ``skip_invalid``: skip bad samples (counted) instead of failing.
    ``sample_type``: the name (cpu, alloc_space, ...) or index of the value to add up; by default the
    profile's default_sample_type, else the last, as pprof does.
    """

    skip_invalid: bool = False
    sample_type: str = ""


@record
class WriteOptions(Record):
    """``gzip``: compress, as pprof's own files are."""

    gzip: bool = True


def sniff(head: bytes) -> bool | None:
    """A Profile message starts with field 1 (sample_type) or 2 (sample), both length-delimited.

    Checked further: the sample_type's first field is a varint, so text that happens to start
    with 0x0a or 0x12 (a newline, a DC2) is not taken for pprof.
    """
    if head[:1] not in (b"\x0a", b"\x12"):
        return None if not head else False
    if len(head) < 4:
        return None
    try:
        size, pos = varint(head, 1)
        if head[0] == 0x0A:  # ValueType: type (field 1) and unit (field 2), varints
            return 0 < size <= 24 and head[pos] in (0x08, 0x10)
        return 0 < size and head[pos] in (0x08, 0x0A, 0x10, 0x12, 0x1A)  # Sample fields 1-3
    except (WireError, IndexError):
        return False


# -- reading -------------------------------------------------------------------------------


class _Profile:
    """The parts of a Profile message a flame graph needs, decoded."""

    def __init__(self) -> None:
        self.sample_types: list[tuple[int, int]] = []
        self.samples: list[tuple[int, int]] = []  # where each Sample message is
        self.locations: dict[int, tuple[int, int, list[tuple[int, int]]]] = {}  # id -> mapping, address, [(function, line)]
        self.functions: dict[int, tuple[int, int, int]] = {}  # id -> name, system name, file
        self.mappings: dict[int, int] = {}  # id -> file
        self.strings: list[str] = []
        self.default_sample_type = 0
        self.period_type: tuple[int, int] = (0, 0)
        self.period = 0
        self.duration = 0
        self.comments: list[int] = []
        self.source = "<input>"


def _decode(data: bytes) -> _Profile:
    profile = _Profile()
    for number, wire, value, end in fields(data, 0, len(data)):
        if number == 2 and wire == BYTES:
            profile.samples.append((value, end))
        elif number == 4 and wire == BYTES:
            location_id, parts = _location(data, value, end)
            profile.locations[location_id] = parts
        elif number == 5 and wire == BYTES:
            function_id, function = _function(data, value, end)
            profile.functions[function_id] = function
        elif number == 6 and wire == BYTES:
            profile.strings.append(data[value:end].decode("utf-8", "replace"))
        elif number in (1, 11) and wire == BYTES:
            pair = _ints(data, value, end, 2)
            if number == 1:
                profile.sample_types.append((pair[0], pair[1]))
            else:
                profile.period_type = (pair[0], pair[1])
        elif number == 3 and wire == BYTES:
            mapping = _ints(data, value, end, 5)
            profile.mappings[mapping[0]] = mapping[4]
        elif number == 12 and wire == VARINT:
            profile.period = signed(value)
        elif number == 10 and wire == VARINT:
            profile.duration = signed(value)
        elif number == 13:
            repeated_varints(data, wire, value, end, profile.comments)
        elif number == 14 and wire == VARINT:
            profile.default_sample_type = value
    return profile


def _ints(data: bytes, pos: int, end: int, count: int) -> list[int]:
    """Varint fields 1..count of a small message (others skipped)."""
    values = [0] * count
    for number, wire, value, _ in fields(data, pos, end):
        if number <= count and wire == VARINT:
            values[number - 1] = value
    return values


def _location(data: bytes, pos: int, end: int) -> tuple[int, tuple[int, int, list[tuple[int, int]]]]:
    location_id = mapping = address = 0
    lines: list[tuple[int, int]] = []
    for number, wire, value, stop in fields(data, pos, end):
        if number == 4 and wire == BYTES:
            line = _ints(data, value, stop, 2)
            lines.append((line[0], signed(line[1])))
        elif wire == VARINT and number in (1, 2, 3):
            if number == 1:
                location_id = value
            elif number == 2:
                mapping = value
            else:
                address = value
    return location_id, (mapping, address, lines)


def _function(data: bytes, pos: int, end: int) -> tuple[int, tuple[int, int, int]]:
    values = _ints(data, pos, end, 4)
    return values[0], (values[1], values[2], values[3])


def _sample(data: bytes, pos: int, end: int) -> tuple[list[int], list[int]]:
    locations: list[int] = []
    values: list[int] = []
    for number, wire, value, stop in fields(data, pos, end):
        if number == 1:
            repeated_varints(data, wire, value, stop, locations)
        elif number == 2:
            repeated_varints(data, wire, value, stop, values)
    return locations, values


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    data = read_all_bytes(stream)
    return parse_bytes(data, options, source=source, diagnostics=diagnostics)


def parse_bytes(
    data: bytes, options: ReadOptions = ReadOptions(), *, source: str = "<input>", diagnostics: Diagnostics | None = None
) -> FlameGraph:
    """Read an ungzipped profile.proto message."""
    if not data:
        if diagnostics is not None:
            diagnostics.warn(f"{source}: empty input; the profile is empty")
        return FlameGraph._trusted({}, Metadata(labels={"profiler": "pprof"}))
    try:
        profile = _decode(data)
        profile.source = source
        return _graph(data, profile, options, source, diagnostics)
    except WireError as exc:
        raise error_at(f"not a valid pprof profile: {exc}", exc.offset, source) from None


def _string(profile: _Profile, index: int, what: str) -> str:
    if not 0 <= index < len(profile.strings):
        raise InputError(
            f"not a valid pprof profile: {what} is string {index}, but the string table has {len(profile.strings)}",
            profile.source,
        )
    return profile.strings[index]


def _pick(profile: _Profile, options: ReadOptions, source: str) -> int:
    types = [_string(profile, t, "a sample type") for t, _ in profile.sample_types]
    if not types:
        raise InputError("not a valid pprof profile: it has no sample_type", source)
    wanted = options.sample_type
    if not wanted:
        if profile.default_sample_type:
            default = _string(profile, profile.default_sample_type, "the default sample type")
            if default in types:
                return types.index(default)
        return len(types) - 1
    if wanted in types:
        return types.index(wanted)
    if wanted.isdigit() and int(wanted) < len(types):
        return int(wanted)
    raise ArgumentError(f"{source} has no sample type {wanted!r}; it has {', '.join(types)}")


def _graph(data: bytes, profile: _Profile, options: ReadOptions, source: str, diagnostics: Diagnostics | None) -> FlameGraph:
    column = _pick(profile, options, source)
    type_index, unit_index = profile.sample_types[column]
    metric = profile.strings[type_index]
    unit_name = _string(profile, unit_index, "a sample unit")
    names = PythonFrames()
    frame_cache: dict[int, tuple[str, ...]] = {}
    single: dict[int, str] = {}  # locations of one line (no inlining): most of them
    intern = sys.intern

    def location_frames(location_id: int) -> tuple[str, ...]:
        found = frame_cache.get(location_id)
        if found is not None:
            return found
        location = profile.locations.get(location_id)
        if location is None:
            raise InputError(f"a sample refers to location {location_id}, which the profile does not define", source)
        mapping, address, lines = location
        frames: list[str] = []
        for function_id, line in reversed(lines):  # the last line is the outermost caller
            function = profile.functions.get(function_id)
            if function is None:
                raise InputError(
                    f"location {location_id} refers to function {function_id}, which the profile does not define", source
                )
            function_name = _string(profile, function[0], "a function name") or _string(profile, function[1], "a system name")
            file = _string(profile, function[2], "a file name")
            frames.append(intern(names(function_name or "[unknown]", file, line if line > 0 else None)))
        if not frames:
            mapped = _string(profile, profile.mappings.get(mapping, 0), "a mapping's file")
            frames.append(intern(f"{mapped.rpartition('/')[2]}+0x{address:x}" if mapped else f"0x{address:x}"))
        found = frame_cache[location_id] = tuple(frames)
        if len(found) == 1:
            single[location_id] = found[0]
        return found

    stacks: dict[Stack, Number] = {}
    stack_of: dict[tuple[int, ...], Stack] = {}
    for index, (start, end) in enumerate(profile.samples):
        location_ids, values = _sample(data, start, end)
        if len(values) != len(profile.sample_types):
            reason = f"sample {index} has {len(values)} values for {len(profile.sample_types)} sample types"
            if not options.skip_invalid:
                raise error_at(reason, start, source)
            if diagnostics is not None:
                diagnostics.skip(source, None, reason)
            continue
        value = signed(values[column])
        if value <= 0:
            if value < 0:
                reason = f"sample {index} has the negative value {value} (a difference of profiles?)"
                if not options.skip_invalid:
                    raise error_at(reason + "; flame graphs hold values >= 0", start, source)
                if diagnostics is not None:
                    diagnostics.skip(source, None, reason)
            continue
        key = tuple(location_ids)
        stack = stack_of.get(key)
        if stack is None:
            try:
                stack = tuple([single[location_id] for location_id in reversed(location_ids)])
            except KeyError:
                stack = tuple(frame for location_id in reversed(location_ids) for frame in location_frames(location_id))
            stack_of[key] = stack
        stacks[stack] = stacks.get(stack, 0) + value
    labels = {"profiler": "pprof"}
    if profile.period:
        period_type = _string(profile, profile.period_type[0], "the period type")
        period_unit = _string(profile, profile.period_type[1], "the period unit")
        labels["pprof.period"] = f"{profile.period} {period_unit}".strip() + (f" of {period_type}" if period_type else "")
    if profile.duration:
        labels["pprof.duration_ns"] = str(profile.duration)
    written: dict[str, str] = {}  # "key: value" comments, as our writer writes labels
    others = []
    for comment in (_string(profile, c, "a comment") for c in profile.comments):
        label, colon, text = comment.partition(": ")
        if colon and label and not any(char.isspace() for char in label):
            written[label] = text
        else:
            others.append(comment)
    if others:
        labels["pprof.comments"] = "; ".join(others)
    unit: str | None = _UNITS.get(unit_name, unit_name or None)
    if unit == "count" and metric == "samples":
        unit = "samples"
    metric_name: str | None = metric or None
    if f"{_OURS}unit" in written:  # written by us: the profile's own metadata, exactly
        unit, metric_name = written.pop(f"{_OURS}unit") or None, written.pop(f"{_OURS}metric", "") or None
        labels = written
    else:
        labels.update(written)
    if not profile.samples and diagnostics is not None:
        diagnostics.warn(f"{source}: the pprof profile has no samples; the profile is empty")
    return FlameGraph._trusted(stacks, Metadata(unit=unit, metric=metric_name, labels=labels))


# -- writing -------------------------------------------------------------------------------


def dump(profile: Profile, stream: TextIO, options: WriteOptions = WriteOptions()) -> None:
    """Write ``profile`` as profile.proto; float values are rounded to whole units (pprof's are int64)."""
    data = encode(profile)
    if options.gzip:
        import gzip

        data = gzip.compress(data, mtime=0)
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        stream.flush()
        buffer.write(data)
        buffer.flush()
    else:  # a text stream of our own: undecodable bytes travel as surrogates
        stream.write(data.decode("utf-8", "surrogateescape"))


def _int64(value: Number, stack: Stack) -> int:
    """A sample's value as pprof holds it (a signed 64-bit int); ArgumentError past that, rather
    than a value cut to its low 64 bits (2**64 + 1 was written as 1)."""
    whole = int(round(value))
    if whole >= 2**63:
        raise ArgumentError(
            f"the value of stack {';'.join(stack)[:60]!r} is {value:.3g}, more than pprof's 64-bit "
            "sample values hold (2**63 - 1); write it as folded or flamespace-json"
        )
    return whole


def encode(profile: Profile, *, time_ns: int | None = None, duration_ns: int | None = None, period: int | None = None) -> bytes:
    """The profile.proto bytes of ``profile`` (not gzipped). ``time_ns`` (Unix time) and
    ``duration_ns`` say when it was recorded (Pyroscope files a pushed profile under its
    time); ``period`` is the mean interval between samples, in the profile's unit."""
    if isinstance(profile, Differential):
        raise ArgumentError("pprof cannot hold a differential profile; write each side on its own")
    metadata = profile.metadata
    strings: dict[str, int] = {"": 0}

    def string(text: str) -> int:
        found = strings.get(text)
        if found is None:
            found = strings[text] = len(strings)
        return found

    out = bytearray()
    sample_type = bytearray()
    encode_int(1, string(metadata.metric or "samples"), sample_type)
    encode_int(2, string(_UNIT_NAMES.get(metadata.unit or "samples", metadata.unit or "count")), sample_type)
    encode_bytes(1, bytes(sample_type), out)
    locations: dict[str, int] = {}
    tail = bytearray()  # locations and functions, written after the samples
    for stack, value in profile.sorted_items():
        ids = []
        for frame in reversed(stack):  # pprof lists the leaf first
            location_id = locations.get(frame)
            if location_id is None:
                location_id = locations[frame] = len(locations) + 1
                split = split_frame(frame)
                function_name, file, line = split if split else (frame, "", None)
                function = bytearray()
                encode_int(1, location_id, function)
                encode_int(2, string(function_name), function)
                encode_int(3, string(function_name), function)
                encode_int(4, string(file), function)
                encode_bytes(5, bytes(function), tail)
                line_message = bytearray()
                encode_int(1, location_id, line_message)
                encode_int(2, line or 0, line_message)
                location = bytearray()
                encode_int(1, location_id, location)
                encode_bytes(4, bytes(line_message), location)
                encode_bytes(4, bytes(location), tail)
            ids.append(location_id)
        sample = bytearray()
        encode_packed(1, ids, sample)
        encode_packed(2, [_int64(value, stack)], sample)
        encode_bytes(2, bytes(sample), out)
    out += tail
    labels = dict(metadata.labels)
    for text in list(strings):
        encode_bytes(6, text.encode("utf-8", "surrogateescape"), out)
    comments = [f"{key}: {value}" for key, value in sorted(labels.items())]
    comments += [f"{_OURS}unit: {metadata.unit or ''}", f"{_OURS}metric: {metadata.metric or ''}"]  # exactly, None included
    start = len(strings)
    for comment in comments:
        encode_bytes(6, comment.encode("utf-8", "surrogateescape"), out)
    if comments:
        encode_packed(13, list(range(start, start + len(comments))), out)
    if time_ns is not None:
        encode_int(9, time_ns, out)
    if duration_ns is not None:
        encode_int(10, duration_ns, out)
    if period is not None:
        encode_bytes(11, bytes(sample_type), out)  # period_type: the sample type
        encode_int(12, period, out)
    return bytes(out)


__all__ = ["ReadOptions", "WriteOptions", "dump", "encode", "extensions", "name", "parse", "parse_bytes", "sniff"]
