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

import os
import sys

from .._record import Record, record
from ..core.differential import Differential
from ..core.metadata import Metadata
from ..core.vector import FlameGraph
from ..diagnostics import Diagnostics
from ..errors import ArgumentError, InputError
from ._binary import error_at, read_all_bytes
from ._pprof_wire import fast_decode, fast_samples, fast_sum
from ._protobuf import WireError, encode_bytes, encode_int, encode_packed, signed, varint
from ..core.python_frames import PythonFrames, split_frame
from ..core.stacks import split as split_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any, TextIO

    from .._types import Number, Profile, Stack
    from ._pprof_wire import Label, Row

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
    """The parts of a Profile message a flame graph needs, decoded (:mod:`._pprof_wire`)."""

    def __init__(self, data: bytes) -> None:
        (
            self.sample_types,
            self.samples,  # where each Sample message is: (start, end)
            self.locations,  # id -> mapping, address, [(function, line)]
            self.functions,  # id -> name, system name, file
            self.mappings,  # id -> file
            self.strings,
            self.default_sample_type,
            self.period_type,
            self.period,
            self.duration,
            self.comments,
            self.time_nanos,
        ) = fast_decode(data)
        self.source = "<input>"


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
    """Read an ungzipped profile.proto message. Sample labels (Go's pprof labels, Pyroscope's
    ``tag_wrapper``) are not kept, as a flame graph has no place for them: the samples count
    without them, and ``diagnostics`` gets a note saying how many carried which labels."""
    read = read_labelled(data, options, source=source, diagnostics=diagnostics, split=False)
    return read.parts[0][1]


@record
class Labelled(Record):
    """A pprof profile read by :func:`read_labelled`: a flame graph per distinct set of sample
    labels (``{}`` for the samples without any), and the window pprof gives (0 when it gives none)."""

    parts: Sequence[tuple[Mapping[str, str], FlameGraph]]
    time_ns: int = 0
    duration_ns: int = 0


#: The most distinct sample label sets :func:`read_labelled` splits one profile into (a label
#: unique to each request, such as a span id, would make a window a sample).
MAX_LABEL_SETS = 1000


def read_labelled(
    data: bytes,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    split: bool = True,
) -> Labelled:
    """An ungzipped profile.proto message, its samples split by their sample labels (``split``;
    else one flame graph of every sample, and a note of the labels it leaves out). A label's value
    is its string, or its number and unit (``1024 bytes``); a key given twice in a sample holds its
    values joined by '|'. More than :data:`MAX_LABEL_SETS` sets is an InputError."""
    if not data:
        if diagnostics is not None:
            diagnostics.warn(f"{source}: empty input; the profile is empty")
        return Labelled([({}, FlameGraph._trusted({}, Metadata(labels={"profiler": "pprof"})))])
    try:
        profile = _Profile(data)
        profile.source = source
        parts = _graphs(data, profile, options, source, diagnostics, split)
    except WireError as exc:
        raise error_at(f"not a valid pprof profile: {exc}", exc.offset, source) from None
    return Labelled(parts, profile.time_nanos, profile.duration)


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


#: The frame namer the reads share while what it names paths by stays (a server reads thousands of
#: profiles of the same functions; naming each takes microseconds), and the most names it keeps.
_NAMES: list[tuple[tuple[str, ...], PythonFrames]] = []
_MAX_NAMES = 1 << 18


def _frame_names() -> PythonFrames:
    """A :class:`PythonFrames` shared by the reads while the directories it shortens paths against
    (the working directory, the program's: ``set_program_dirs``) are the same and it holds fewer
    than :data:`_MAX_NAMES` names; else a new one."""
    from ..core import python_frames

    key = (os.getcwd(), *python_frames._program_dirs)
    if _NAMES and _NAMES[0][0] == key and len(_NAMES[0][1]._cache) < _MAX_NAMES:
        return _NAMES[0][1]
    names = PythonFrames()
    _NAMES[:] = [(key, names)]
    return names


class _NotText(Exception):
    """A frame that a stack text cannot hold as it is (';', a line break, or nothing)."""


class _Stacks:
    """Location ids (leaf first) -> the stack, as a text (``a;b;c``, what the store and the folded
    writer key by: no frame tuple is made) while every frame can be joined so, else as frames."""

    def __init__(self, profile: _Profile, source: str) -> None:
        self.profile = profile
        self.source = source
        self.names = _frame_names()
        self.frame_cache: dict[int, tuple[str, ...]] = {}
        self.text_cache: dict[int, str] = {}

    def frames(self, location_id: int) -> tuple[str, ...]:
        """A location's frames, root first (its last line is the outermost caller)."""
        found = self.frame_cache.get(location_id)
        if found is not None:
            return found
        profile, source = self.profile, self.source
        location = profile.locations.get(location_id)
        if location is None:
            raise InputError(f"a sample refers to location {location_id}, which the profile does not define", source)
        mapping, address, lines = location
        frames: list[str] = []
        for function_id, line in reversed(lines):
            function = profile.functions.get(function_id)
            if function is None:
                raise InputError(
                    f"location {location_id} refers to function {function_id}, which the profile does not define", source
                )
            function_name = _string(profile, function[0], "a function name") or _string(profile, function[1], "a system name")
            file = _string(profile, function[2], "a file name")
            frames.append(sys.intern(self.names(function_name or "[unknown]", file, line if line > 0 else None)))
        if not frames:
            mapped = _string(profile, profile.mappings.get(mapping, 0), "a mapping's file")
            frames.append(sys.intern(f"{mapped.rpartition('/')[2]}+0x{address:x}" if mapped else f"0x{address:x}"))
        found = self.frame_cache[location_id] = tuple(frames)
        return found

    def text(self, location_ids: tuple[int, ...]) -> str:
        """The stack text of a sample's locations; :class:`_NotText` when a frame cannot be joined."""
        cache = self.text_cache
        try:  # every location seen before: one join in C
            return ";".join(map(cache.__getitem__, reversed(location_ids)))
        except KeyError:
            pass
        for location_id in reversed(location_ids):  # root first, as the errors name them
            if location_id not in cache:
                frames = self.frames(location_id)
                text = ";".join(frames)
                if text.count(";") != len(frames) - 1 or "\n" in text or "\r" in text or not all(frames):
                    raise _NotText
                cache[location_id] = text
        return ";".join(map(cache.__getitem__, reversed(location_ids)))

    def fill(self) -> None:
        """The text of every location that has one (for the C loop); one that is undefined, names
        what is not there or cannot be joined is left out, for the sample that uses it to say so."""
        for location_id in self.profile.locations:
            if location_id not in self.text_cache:
                try:
                    self.text((location_id,))
                except (InputError, _NotText):
                    pass

    def stack(self, location_ids: tuple[int, ...]) -> Stack:
        return tuple(frame for location_id in reversed(location_ids) for frame in self.frames(location_id))


def _graphs(
    data: bytes, profile: _Profile, options: ReadOptions, source: str, diagnostics: Diagnostics | None, split: bool
) -> list[tuple[Mapping[str, str], FlameGraph]]:
    column = _pick(profile, options, source)
    type_index, unit_index = profile.sample_types[column]
    metric = profile.strings[type_index]
    unit_name = _string(profile, unit_index, "a sample unit")
    groups, labelled, as_texts = _sum_samples(data, profile, column, options, source, diagnostics, split)
    metadata = _metadata(profile, metric, unit_name)
    if not profile.samples and diagnostics is not None:
        diagnostics.warn(f"{source}: the pprof profile has no samples; the profile is empty")
    if labelled and diagnostics is not None and not split:
        diagnostics.warn(
            f"{source}: {labelled[0]:,} of {len(profile.samples):,} samples carry pprof sample labels "
            f"({', '.join(labelled[1])}), which a flame graph does not keep: they are counted without them"
        )
    parts: list[tuple[Mapping[str, str], FlameGraph]] = []
    for raw, stacks in groups.items():
        graph = (
            FlameGraph.from_texts(stacks, metadata=metadata, checked=False) if as_texts else FlameGraph._trusted(stacks, metadata)
        )
        parts.append((_sample_labels(profile, raw), graph))
    return parts


def _sum_samples(
    data: bytes, profile: _Profile, column: int, options: ReadOptions, source: str, diagnostics: Diagnostics | None, split: bool
) -> tuple[dict[tuple[Label, ...], dict[Any, Number]], tuple[int, list[str]] | None, bool]:
    """The samples' values summed by stack, per distinct set of sample labels (``split``; else all
    in the set ``()``); how many samples had labels and their keys (None when none had); and
    whether the stacks are texts (else frame tuples).

    The common samples (no labels, a positive value, every location's text known) are summed by
    the C loop (``sum_texts``); it stops at any other, which :meth:`_Sums.take` reads as the
    pure-Python loop does, so messages, notes and their order are the same either way."""
    sums = _Sums(profile, column, options, source, diagnostics, split)
    where = profile.samples
    index = 0
    if fast_sum is not None:
        sums.stacks.fill()
        while index < len(where) and sums.as_texts:
            deferred: list[int] = []
            stop = fast_sum(
                data, where, index, column, len(profile.sample_types), sums.stacks.text_cache, sums.everything, deferred
            )
            todo = deferred + ([stop] if stop < len(where) else [])
            sums.take_all(data, todo)
            index = stop + 1
    sums.take_all(data, range(index, len(where)))
    groups = sums.groups
    if not sums.everything and len(groups) > 1:
        del groups[()]
    labelled = (sums.with_labels, [_label_key(profile, key) for key in sums.keys]) if sums.with_labels else None
    return groups, labelled, sums.as_texts


class _Sums:
    """The reader's loop over samples, one at a time: sums by stack per label set."""

    def __init__(
        self, profile: _Profile, column: int, options: ReadOptions, source: str, diagnostics: Diagnostics | None, split: bool
    ) -> None:
        self.profile, self.column, self.options, self.source = profile, column, options, source
        self.diagnostics, self.split = diagnostics, split
        self.stacks = _Stacks(profile, source)
        self.make: Callable[[tuple[int, ...]], Any] = self.stacks.text
        self.as_texts = True
        self.stack_of: dict[tuple[int, ...], Any] = {}
        self.everything: dict[Any, Number] = {}
        self.groups: dict[tuple[Label, ...], dict[Any, Number]] = {(): self.everything}
        self.with_labels = 0
        self.keys: dict[int, None] = {}

    def take_all(self, data: bytes, indices: Sequence[int]) -> None:
        """Decode and take the samples at ``indices`` (in order); a malformed one ends in its WireError."""
        where = self.profile.samples
        rows, failure = fast_samples(data, [where[i] for i in indices])
        for index, row in zip(indices, rows):
            self.take(index, row)
        if failure is not None:
            raise WireError(failure[1], failure[2])

    def take(self, index: int, row: Row) -> None:
        location_ids, values, labels = row
        count, source, diagnostics = len(self.profile.sample_types), self.source, self.diagnostics
        if len(values) != count:
            reason = f"sample {index} has {len(values)} values for {count} sample types"
            if not self.options.skip_invalid:
                raise error_at(reason, self.profile.samples[index][0], source)
            if diagnostics is not None:
                diagnostics.skip(source, None, reason)
            return
        value = values[self.column]
        if value >= 1 << 63:  # signed(): int64 on the wire
            value -= 1 << 64
        if value <= 0:
            if value < 0:
                reason = f"sample {index} has the negative value {value} (a difference of profiles?)"
                if not self.options.skip_invalid:
                    raise error_at(reason + "; flame graphs hold values >= 0", self.profile.samples[index][0], source)
                if diagnostics is not None:
                    diagnostics.skip(source, None, reason)
            return
        key = self.stack_of.get(location_ids)
        if key is None:
            try:
                key = self.make(location_ids)
            except _NotText:
                self._to_tuples()
                key = self.make(location_ids)
            self.stack_of[location_ids] = key
        counts = self.everything
        if labels:
            self.with_labels += 1
            self.keys.update(dict.fromkeys(label[0] for label in labels))
            if self.split:
                counts = self._group(tuple(sorted(labels)))
        counts[key] = counts.get(key, 0) + value

    def _to_tuples(self) -> None:
        """From here on frame tuples: a frame a text cannot hold. The texts so far split back exactly."""
        self.make, self.as_texts = self.stacks.stack, False
        self.stack_of = {ids: split_text(text) for ids, text in self.stack_of.items()}
        for label_set, summed in self.groups.items():
            self.groups[label_set] = {split_text(text): total for text, total in summed.items()}
        self.everything = self.groups[()]

    def _group(self, label_set: tuple[Label, ...]) -> dict[Any, Number]:
        found = self.groups.get(label_set)
        if found is None:
            if len(self.groups) > MAX_LABEL_SETS:
                raise InputError(
                    f"the samples carry more than {MAX_LABEL_SETS:,} distinct sets of sample labels "
                    "(a label unique to each request?); each set would be a profile of its own",
                    self.source,
                )
            found = self.groups[label_set] = {}
        return found


def _label_key(profile: _Profile, index: int) -> str:
    """A sample label's key for a note: the string, or its index when the table lacks it."""
    return profile.strings[index] if 0 <= index < len(profile.strings) else f"string {index}"


def _sample_labels(profile: _Profile, raw: tuple[Label, ...]) -> dict[str, str]:
    """A sample's labels as text: a string label's value, or a numeric one's number and unit."""
    found: dict[str, str] = {}
    for key, text, number, unit in raw:
        name = _string(profile, key, "a sample label's key")
        if text:
            value = _string(profile, text, "a sample label's value")
        else:
            value = str(signed(number))
            unit_name = _string(profile, unit, "a sample label's unit") if unit else ""
            value = f"{value} {unit_name}" if unit_name else value
        found[name] = f"{found[name]}|{value}" if name in found and found[name] != value else value
    return found


def _metadata(profile: _Profile, metric: str, unit_name: str) -> Metadata:
    """The profile's unit, metric and labels (its period, duration and comments)."""
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
    return Metadata(unit=unit, metric=metric_name, labels=labels)


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


__all__ = [
    "MAX_LABEL_SETS",
    "Labelled",
    "ReadOptions",
    "WriteOptions",
    "dump",
    "encode",
    "extensions",
    "name",
    "parse",
    "parse_bytes",
    "read_labelled",
    "sniff",
]
