"""pprof's wire decoding: the Profile message's tables, and its samples, as plain tuples.

Two implementations with one contract: the C one (``_pprof.c``, the reader's hot loop: a
window of 2,000 stacks is decoded in well under a millisecond) and this pure-Python one, used
when the extension is not built and held to give exactly the same values and the same
:class:`WireError` (message and offset) on any bytes (tests/formats/test_pprof_wire.py fuzzes
both). Field numbers: https://github.com/google/pprof/blob/main/proto/profile.proto.
"""

from __future__ import annotations

from ._protobuf import BYTES, VARINT, WireError, fields, repeated_varints, signed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    #: A location: (mapping id, address, [(function id, line)]), lines as pprof lists them (innermost first).
    Location = tuple[int, int, list[tuple[int, int]]]
    #: A sample label: (key, str, num, num_unit), strings as indices into the string table.
    Label = tuple[int, int, int, int]
    #: A sample: (location ids, leaf first; values, unsigned as on the wire; labels).
    Row = tuple[tuple[int, ...], list[int], list[Label]]
    #: Where a sample failed to decode: (its index, the message, the offset).
    Failure = tuple[int, str, int]
    #: :func:`decode`'s answer: sample_types [(type, unit)], samples [(start, end)], locations {id: Location},
    #: functions {id: (name, system name, file)}, mappings {id: file}, strings, default_sample_type,
    #: period_type (type, unit), period, duration_nanos, comments, time_nanos.
    Decoded = tuple[
        list[tuple[int, int]],
        list[tuple[int, int]],
        dict[int, Location],
        dict[int, tuple[int, int, int]],
        dict[int, int],
        list[str],
        int,
        tuple[int, int],
        int,
        int,
        list[int],
        int,
    ]


def decode(data: bytes) -> Decoded:
    """The Profile message's tables; samples only as where they are (:func:`samples` decodes them)."""
    sample_types: list[tuple[int, int]] = []
    sample_at: list[tuple[int, int]] = []
    locations: dict[int, Location] = {}
    functions: dict[int, tuple[int, int, int]] = {}
    mappings: dict[int, int] = {}
    strings: list[str] = []
    comments: list[int] = []
    default_sample_type = period = duration = time_nanos = 0
    period_type = (0, 0)
    for number, wire, value, end in fields(data, 0, len(data)):
        if number == 2 and wire == BYTES:
            sample_at.append((value, end))
        elif number == 4 and wire == BYTES:
            location_id, location = _location(data, value, end)
            locations[location_id] = location
        elif number == 5 and wire == BYTES:
            function = _ints(data, value, end, 4)
            functions[function[0]] = (function[1], function[2], function[3])
        elif number == 6 and wire == BYTES:
            strings.append(data[value:end].decode("utf-8", "replace"))
        elif number in (1, 11) and wire == BYTES:
            pair = _ints(data, value, end, 2)
            if number == 1:
                sample_types.append((pair[0], pair[1]))
            else:
                period_type = (pair[0], pair[1])
        elif number == 3 and wire == BYTES:
            mapping = _ints(data, value, end, 5)
            mappings[mapping[0]] = mapping[4]
        elif number == 12 and wire == VARINT:
            period = signed(value)
        elif number == 10 and wire == VARINT:
            duration = signed(value)
        elif number == 9 and wire == VARINT:
            time_nanos = signed(value)
        elif number == 13:
            repeated_varints(data, wire, value, end, comments)
        elif number == 14 and wire == VARINT:
            default_sample_type = value
    return (
        sample_types,
        sample_at,
        locations,
        functions,
        mappings,
        strings,
        default_sample_type,
        period_type,
        period,
        duration,
        comments,
        time_nanos,
    )


def _ints(data: bytes, pos: int, end: int, count: int) -> list[int]:
    """Varint fields 1..count of a small message (others skipped)."""
    values = [0] * count
    for number, wire, value, _ in fields(data, pos, end):
        if number <= count and wire == VARINT:
            values[number - 1] = value
    return values


def _location(data: bytes, pos: int, end: int) -> tuple[int, Location]:
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


def samples(data: bytes, where: list[tuple[int, int]]) -> tuple[list[Row], Failure | None]:
    """The samples at ``where``, decoded in order up to the first that is malformed, and that one's
    failure (None when all decode): a reader checks the samples before it in order, as it would
    have one at a time, and then reports it."""
    rows: list[Row] = []
    for index, (start, end) in enumerate(where):
        try:
            rows.append(_sample(data, start, end))
        except WireError as exc:
            return rows, (index, str(exc), exc.offset)
    return rows, None


def _sample(data: bytes, pos: int, end: int) -> Row:
    locations: list[int] = []
    values: list[int] = []
    labels: list[Label] = []
    for number, wire, value, stop in fields(data, pos, end):
        if number == 1:
            repeated_varints(data, wire, value, stop, locations)
        elif number == 2:
            repeated_varints(data, wire, value, stop, values)
        elif number == 3 and wire == BYTES:
            label = _ints(data, value, stop, 4)
            labels.append((label[0], label[1], label[2], label[3]))
    return tuple(locations), values, labels


def _native() -> tuple[Callable[[bytes], Decoded], Callable[[bytes, list[tuple[int, int]]], tuple[list[Row], Failure | None]]]:
    """The C decoder's two functions, or the pure-Python ones when the extension is not built."""
    try:
        from . import _pprof
    except ImportError:  # pragma: no cover - a build without the extension
        return decode, samples
    _pprof.set_error(WireError)
    return _pprof.decode, _pprof.samples


fast_decode, fast_samples = _native()


def _native_sum() -> (
    Callable[[bytes, list[tuple[int, int]], int, int, int, dict[int, str], dict[Any, Any], list[int]], int] | None
):
    """The C loop that sums the common samples by stack text (pprof.py's fast path), or None."""
    try:
        from . import _pprof
    except ImportError:  # pragma: no cover - a build without the extension
        return None
    return _pprof.sum_texts


fast_sum = _native_sum()

__all__ = ["decode", "fast_decode", "fast_samples", "fast_sum", "samples"]
