"""CPython 3.15's sampling profiler (Tachyon: ``python -m profiling.sampling run|attach --binary``): its binary captures.

The file (format version 1, as 3.15's ``_remote_debugging`` module writes it) is a 64-byte
header, the samples, a string table, a frame table, an optional block of the run's statistics and
a 32-byte footer; its integers are written in the writer's byte order (the magic says which:
``HCAT`` little-endian, ``TACH`` big-endian), its variable-length ones as LEB128 varints (signed
ones zigzag-encoded).

- **Header**: magic, format version (u32), the Python's major, minor and micro (u8 each, one
  spare), the start time and the sampling interval (u64, µs), the number of samples (u32, then
  four spare bytes), of threads (u32), the string and frame tables' offsets (u64), the
  compression (u32: 0 none, 1 zstd) and a word of flags (u32: bits 0-2 the mode + 1, 0 when not
  recorded, of wall cpu gil all exception; bit 3 set when the capture features were recorded; bits 4
  and up those features: all threads, native, gc, opcodes, blocking).
- **Samples** (from byte 64 to the string table; one zstd frame when compressed): records of a
  thread id (u64), an interpreter id (u32), an encoding byte and its body. A thread's stack
  (frame indices, innermost first) is rebuilt from its previous one: ``0`` repeat the previous
  stack, ``count`` times (each a time delta and a status byte); ``1`` a full stack (delta, status,
  depth, indices); ``2`` keep the ``shared`` outermost frames and put ``new`` ones inside them;
  ``3`` pop ``pop`` innermost frames and push ``push`` new ones.
- **Strings**: each a varint length and UTF-8 bytes. **Frames**: file and function (string
  indices), line, end line, column, end column (zigzag; the end ones as deltas) and an opcode byte
  (255: none). A line of -1 or 0 marks a synthetic frame (``<GC>``, ``<native>``).
- **Statistics** (when the run recorded them): duration, achieved rate, error rate and missed
  samples (f64), a word of flags, then ``TACHSTAT``, its version and its size (u32).
- **Footer**: the number of strings and of frames (u32), the file's size (u64), 16 spare bytes.

A sample's time delta is the µs since its thread's previous sample (a thread's first: since the
header's start time), as 3.15's writer computes it; reading gives a flame chart of the samples at
their times (ns after the start), a lane per thread. Each sample counts 1 (unit ``samples``, as
Tachyon's own collapsed output counts them, so the chart's flame graph is what its replay gives;
the interval is the label ``interval_us``); frames are
named as flamespace names Python frames (``function (file:line)``), synthetic ones by their bare
name, and the profiler's own frames (``_sync_coordinator.py``) are left out as Tachyon's
collectors leave them out. ``threads``: a root frame per thread (``MainThread`` where the sample
says it is the main thread, else ``Thread <id>``).
"""

from __future__ import annotations

import struct
from array import array

from .._record import Record, record
from ..core.chart import LATEST_NS, FlameChart
from ..core.metadata import Metadata
from ..core.python_frames import PythonFrames
from ..errors import InputError
from ._binary import error_at, read_all_bytes
from ._limits import FrameBudget

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from .._types import Stack
    from ..diagnostics import Diagnostics

name = "tachyon"
extensions = (".bin",)
description = "CPython 3.15 profiling.sampling (Tachyon) binary captures (--binary)"
charts = True  # keeps time order: each sample's time
reference = "Lib/profiling/sampling/binary_collector.py and Modules/_remote_debugging/binary_io_*.c (CPython 3.15)"

MAGIC_LITTLE, MAGIC_BIG = b"HCAT", b"TACH"
FORMAT_VERSION = 1
HEADER_SIZE = 64
FOOTER_SIZE = 32
STATS_MAGIC = b"TACHSTAT"
#: Tachyon's writer and reader keep at most this many frames a stack.
MAX_DEPTH = 256
COMPRESSION = {0: "none", 1: "zstd"}
MODES = ("wall", "cpu", "gil", "all", "exception")
#: The sample's status bit that marks the process's main thread.
MAIN_THREAD_STATUS = 1 << 5
#: Files of frames that are the profiler's own (its script runner): left out, as Tachyon's collectors do.
INTERNAL_FILES = ("_sync_coordinator.py",)
REPEAT, FULL, SUFFIX, POP_PUSH = 0, 1, 2, 3
#: The latest sample time a chart takes (:data:`~flamespace.core.chart.LATEST_NS`), in µs after the capture's start.
LATEST_US = LATEST_NS // 1000


@record
class ReadOptions(Record):
    """How to read a Tachyon binary capture.

    ``skip_invalid``: on a damaged sample record, keep the samples before it (the rest cannot be
    decoded: each stack is stored as a change of the previous one) with a warning, instead of failing.
    ``threads``: a root frame per thread (``MainThread``, ``Thread <id>``).
    """

    skip_invalid: bool = False
    threads: bool = False


def sniff(head: bytes) -> bool | None:
    """Tachyon's magic in either byte order (another format version is claimed too: :func:`parse` then
    says which Python wrote it)."""
    if len(head) < 4:
        return None if MAGIC_LITTLE.startswith(head) or MAGIC_BIG.startswith(head) else False
    return head[:4] in (MAGIC_LITTLE, MAGIC_BIG)


@record
class Header(Record):
    """What the header and footer say (see the module's docstring)."""

    order: str
    python: str
    start_us: int
    interval_us: int
    samples: int
    threads: int
    strings_at: int
    frames_at: int
    compression: int
    mode: str | None
    strings: int
    frames: int


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameChart:
    """The capture's samples in time order, one count each (its ``graph()``: the counts by stack)."""
    data = read_all_bytes(stream)
    header = read_header(data, source)
    samples = _sample_bytes(data, header, source)
    strings = _strings(data, header, source)
    frames = _frames(data, header, strings, source)
    decoded = _decode_samples(samples, header, source, options.skip_invalid)
    if decoded.problem is not None and diagnostics is not None:
        kept = len(decoded.times_us)
        diagnostics.warn(f"{source}: {decoded.problem}; kept the {kept} samples before it, {header.samples - kept} lost")
    return _chart(decoded, frames, header, options, source, _stats(data, header))


def read_header(data: bytes, source: str) -> Header:
    """The header and footer of ``data``, checked against its size."""
    if len(data) < HEADER_SIZE + FOOTER_SIZE:
        raise error_at(f"a Tachyon capture is at least {HEADER_SIZE + FOOTER_SIZE} bytes; this one has {len(data)}", 0, source)
    magic = data[:4]
    if magic not in (MAGIC_LITTLE, MAGIC_BIG):
        raise error_at(f"not a Tachyon capture: its magic is {magic!r}, not {MAGIC_LITTLE!r}", 0, source)
    order = "<" if magic == MAGIC_LITTLE else ">"
    version = struct.unpack_from(order + "I", data, 4)[0]
    if version != FORMAT_VERSION:
        python = ".".join(str(part) for part in data[8:11])
        raise error_at(
            f"Tachyon's binary format version {version} (written by Python {python}); flamespace reads version {FORMAT_VERSION}",
            4,
            source,
        )
    start_us, interval_us, samples, _spare, threads, strings_at, frames_at, compression, flags = struct.unpack_from(
        order + "QQIIIQQII", data, 12
    )
    strings, frames, size = struct.unpack_from(order + "IIQ", data, len(data) - FOOTER_SIZE)
    if size != len(data):
        raise error_at(f"the footer says the file has {size} bytes, but it has {len(data)} (cut short?)", len(data) - 16, source)
    if not HEADER_SIZE <= strings_at <= frames_at <= len(data) - FOOTER_SIZE:
        raise error_at(f"the string table ({strings_at}) and frame table ({frames_at}) are not where tables can be", 40, source)
    if compression not in COMPRESSION:
        raise error_at(f"unknown compression {compression} (0: none, 1: zstd)", 56, source)
    mode = MODES[(flags & 7) - 1] if 1 <= flags & 7 <= len(MODES) else None  # the mode + 1; 0: not recorded
    return Header(
        order=order,
        python=".".join(str(part) for part in data[8:11]),
        start_us=start_us,
        interval_us=interval_us,
        samples=samples,
        threads=threads,
        strings_at=strings_at,
        frames_at=frames_at,
        compression=compression,
        mode=mode,
        strings=strings,
        frames=frames,
    )


def _sample_bytes(data: bytes, header: Header, source: str) -> bytes:
    raw = data[HEADER_SIZE : header.strings_at]
    if header.compression == 0:
        return raw
    return zstd_decompress(raw, source, HEADER_SIZE)


def zstd_decompress(raw: bytes, source: str, offset: int) -> bytes:
    """One zstd frame decompressed (Python 3.14's ``compression.zstd``, else the ``zstandard`` package),
    within the decompression limit gzip input has (:mod:`._limits`)."""
    from ._limits import GUNZIP_ENV, GUNZIP_FLOOR, GUNZIP_RATIO, from_environment

    fixed = from_environment(GUNZIP_ENV)
    limit = (fixed if fixed >= 0 else 1 << 62) if fixed is not None else max(GUNZIP_FLOOR, GUNZIP_RATIO * len(raw))
    try:
        out, complete = _zstd(raw, limit)
    except ImportError:
        raise InputError(
            "its samples are zstd-compressed: install the zstandard package (pip install zstandard; Python 3.14+ "
            "needs none), or record with --compression none",
            source,
        ) from None
    except Exception as exc:  # each library's own error type: a damaged frame
        raise error_at(f"the zstd-compressed samples cannot be decompressed ({exc})", offset, source) from None
    if len(out) > limit:
        raise error_at(f"the samples decompress to more than {limit} bytes (set {GUNZIP_ENV}=SIZE to read it)", offset, source)
    if not complete:
        raise error_at("the zstd-compressed samples end before their frame does (cut short?)", offset + len(raw), source)
    return out


def _zstd(raw: bytes, limit: int) -> tuple[bytes, bool]:
    """(up to ``limit`` + 1 bytes of the frame's content, whether the frame ended)."""
    try:
        from compression import zstd  # type: ignore[import-not-found,unused-ignore]  # Python 3.14+
    except ImportError:
        import io

        import zstandard  # type: ignore[import-not-found,unused-ignore]

        reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw), read_size=1 << 16)
        parts, total = [], 0
        while total <= limit:
            part = reader.read(1 << 20)
            if not part:
                break
            parts.append(part)
            total += len(part)
        return b"".join(parts), True  # zstandard raises on a frame cut short
    decompressor = zstd.ZstdDecompressor()
    out: bytes = decompressor.decompress(raw, max_length=limit + 1)
    return out, bool(decompressor.eof)


def _varint(data: bytes, at: int, source: str, base: int, what: str) -> tuple[int, int]:
    """The LEB128 varint at ``at`` and the offset after it (``base``: where ``data`` starts in the file)."""
    value = shift = 0
    start = at
    while True:
        if at >= len(data):
            raise error_at(f"{what}: a number runs past the end of its section", base + start, source)
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7
        if shift >= 64:
            raise error_at(f"{what}: a number longer than 64 bits", base + start, source)


def _zigzag(value: int) -> int:
    return (value >> 1) ^ -(value & 1)


def _strings(data: bytes, header: Header, source: str) -> list[str]:
    strings, at, end = [], header.strings_at, header.frames_at
    section = data[:end]
    for _ in range(header.strings):
        length, at = _varint(section, at, source, 0, "the string table")
        if at + length > end:
            raise error_at(f"a string of {length} bytes runs past the string table", at, source)
        strings.append(section[at : at + length].decode("utf-8", "replace"))
        at += length
    return strings


def _frames(data: bytes, header: Header, strings: list[str], source: str) -> list[tuple[str, str, int]]:
    """(function, file, line) of each frame of the frame table."""
    frames = []
    end = len(data) - FOOTER_SIZE
    section, at = data[:end], header.frames_at
    for _ in range(header.frames):
        start = at
        fields = []
        for _field in range(6):  # file, function, line, end line delta, column, end column delta
            value, at = _varint(section, at, source, 0, "the frame table")
            fields.append(value)
        if at >= end:
            raise error_at("the frame table ends inside a frame (its opcode byte)", at, source)
        at += 1  # the opcode
        file_index, function_index, line = fields[0], fields[1], _zigzag(fields[2])
        if file_index >= len(strings) or function_index >= len(strings):
            raise error_at(f"a frame names string {max(file_index, function_index)} of {len(strings)}", start, source)
        frames.append((strings[function_index], strings[file_index], line))
    return frames


@record
class Decoded(Record):
    """The samples of a capture in file order: each one's key (an index into ``keys``: thread id, is
    the main thread, frame indices innermost first) and its time (µs after the header's start);
    ``problem``: what ended decoding early (with ``skip_invalid``), else None."""

    keys: list[tuple[int, bool, tuple[int, ...]]]
    key_ids: array[int]
    times_us: array[int]
    problem: str | None


def _decode_samples(data: bytes, header: Header, source: str, skip_invalid: bool) -> Decoded:
    """Each sample's stack and time. A sample's time delta counts µs since its thread's previous
    sample (the thread's first: since the header's start time), as 3.15's writer computes it."""
    keys: list[tuple[int, bool, tuple[int, ...]]] = []
    key_of: dict[tuple[int, bool, tuple[int, ...]], int] = {}
    key_ids, times = array("l"), array("q")
    stacks: dict[tuple[int, int], tuple[int, ...]] = {}
    clocks: dict[tuple[int, int], int] = {}
    at = 0
    base = HEADER_SIZE if header.compression == 0 else 0
    where = "" if header.compression == 0 else " of the decompressed samples"
    thread_format = header.order + "QI"

    def add(thread: int, status: int, stack: tuple[int, ...]) -> None:
        key = (thread, bool(status & MAIN_THREAD_STATUS), stack)
        index = key_of.get(key)
        if index is None:
            index = key_of[key] = len(keys)
            keys.append(key)
        key_ids.append(index)

    def tick(thread_key: tuple[int, int], delta: int, delta_at: int) -> None:
        now = clocks.get(thread_key, 0) + delta
        if now > LATEST_US:
            raise error_at(
                f"a time delta of {delta} µs puts a sample {now / 3.6e9:.0f} hours after the capture's start"
                f" (more than a chart can hold: a damaged delta){where}",
                base + delta_at,
                source,
            )
        clocks[thread_key] = now
        times.append(now)

    try:
        while at < len(data):
            record_at = at
            if len(data) - at < 13:
                raise error_at(f"{len(data) - at} trailing bytes{where}, too few for a sample record", base + at, source)
            thread, interpreter = struct.unpack_from(thread_format, data, at)
            encoding = data[at + 12]
            at += 13
            key = (thread, interpreter)
            if key not in stacks and len(stacks) >= header.threads:
                raise error_at(f"more threads than the header's {header.threads}{where}", base + record_at, source)
            stack = stacks.setdefault(key, ())
            if encoding == REPEAT:
                repeats, at = _varint(data, at, source, base, "a repeat record")
                for _ in range(repeats):
                    delta_at = at
                    delta, at = _varint(data, at, source, base, "a repeat record")
                    if at >= len(data):
                        raise error_at(f"a repeat record ends before its status byte{where}", base + at, source)
                    tick(key, delta, delta_at)
                    add(thread, data[at], stack)
                    at += 1
                continue
            if encoding not in (FULL, SUFFIX, POP_PUSH):
                raise error_at(f"unknown stack encoding {encoding}{where}", base + record_at + 12, source)
            delta_at = at
            delta, at = _varint(data, at, source, base, "a sample record")
            if at >= len(data):
                raise error_at(f"a sample record ends before its status byte{where}", base + at, source)
            status = data[at]
            at += 1
            first, at = _varint(data, at, source, base, "a sample record")
            kept: tuple[int, ...] = ()
            if encoding == FULL:
                new = first
            else:
                second, at = _varint(data, at, source, base, "a sample record")
                if encoding == SUFFIX:
                    if first > len(stack):
                        raise error_at(
                            f"a stack shares {first} frames of a previous stack of {len(stack)}", base + record_at, source
                        )
                    kept, new = stack[len(stack) - first :] if first else (), second
                else:
                    kept, new = stack[first:], second
            if len(kept) + new > MAX_DEPTH:
                raise error_at(
                    f"a stack of {len(kept) + new} frames (Tachyon keeps at most {MAX_DEPTH})", base + record_at, source
                )
            pushed = []
            for _ in range(new):
                index, at = _varint(data, at, source, base, "a sample record")
                if index >= header.frames:
                    raise error_at(f"frame {index} of a table of {header.frames}{where}", base + at - 1, source)
                pushed.append(index)
            stack = stacks[key] = tuple(pushed) + tuple(kept)
            tick(key, delta, delta_at)
            add(thread, status, stack)
        if len(times) != header.samples:
            raise error_at(f"the header says {header.samples} samples, the records hold {len(times)}", 28, source)
    except InputError as exc:
        if not skip_invalid:
            raise
        return Decoded(keys=keys, key_ids=key_ids, times_us=times, problem=str(exc).removeprefix(f"{source}: "))
    return Decoded(keys=keys, key_ids=key_ids, times_us=times, problem=None)


def _chart(
    decoded: Decoded,
    frames: list[tuple[str, str, int]],
    header: Header,
    options: ReadOptions,
    source: str,
    stats: dict[str, str],
) -> FlameChart:
    """The samples in time order, one count each, a lane per thread (``MainThread``, ``Thread <id>``);
    ``stats``: the labels of the run's statistics block."""
    import numpy

    names = PythonFrames()
    named = [
        None if file.endswith(INTERNAL_FILES) else (function if file in ("", "~") or line <= 0 else names(function, file, line))
        for function, file, line in frames
    ]
    budget = FrameBudget(source)
    stacks: list[Stack] = []
    lanes: list[str] = []
    kept: Any = numpy.zeros(len(decoded.keys), dtype=bool)
    threads = set()
    for index, (thread, main, indices) in enumerate(decoded.keys):
        stack = tuple(name for name in (named[frame] for frame in reversed(indices)) if name is not None)
        lane = "MainThread" if main else f"Thread {thread}"
        if stack:  # Tachyon's collectors drop a sample with no frame left too
            kept[index] = True
            threads.add(thread)
            if options.threads:
                stack = (lane,) + stack
            budget.charge(len(stack))
        stacks.append(stack)
        lanes.append(lane)
    labels = {
        "profiler": "tachyon (profiling.sampling)",
        "target_python": header.python,
        "interval_us": str(header.interval_us),
        "threads": str(len(threads)),
        "compression": COMPRESSION[header.compression],
    }
    if header.mode is not None:
        labels["mode"] = header.mode
    labels.update(stats)
    metadata = Metadata(unit="samples", metric=header.mode or "wall", labels=labels)
    if not decoded.key_ids:
        return FlameChart(metadata)
    ids: Any = numpy.frombuffer(decoded.key_ids, dtype=numpy.dtype(f"i{decoded.key_ids.itemsize}"))
    wanted: Any = kept[ids]
    ids = ids[wanted]
    times: Any = numpy.frombuffer(decoded.times_us, dtype=numpy.int64)[wanted] * 1000  # µs to the chart's ns
    return FlameChart.in_time_order(stacks, lanes, times, ids, ids, numpy.ones(len(ids), dtype=numpy.int64), metadata)


def _stats(data: bytes, header: Header) -> dict[str, str]:
    """The run's recorded duration and achieved rate, where the capture has its statistics block."""
    end = len(data) - FOOTER_SIZE
    if end < 16 or data[end - 16 : end - 8] != STATS_MAGIC:
        return {}
    version, size = struct.unpack_from(header.order + "II", data, end - 8)
    if version != 1 or size != 56 or end - size < header.frames_at:
        return {}
    duration, rate = struct.unpack_from(header.order + "dd", data, end - size)
    return {"duration_s": f"{duration:.3f}", "rate_achieved": f"{rate:.1f}"}


__all__ = ["FORMAT_VERSION", "Header", "ReadOptions", "extensions", "name", "parse", "read_header", "sniff", "zstd_decompress"]
