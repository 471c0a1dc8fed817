"""A small protocol-buffers wire decoder and encoder, enough for profile.proto (pprof).

Hand-written rather than the ``protobuf`` package: no runtime dependency, no generated code
to keep in step, and every malformed input ends in :class:`WireError` with the byte offset
(the fuzz tests hold it to that). The tests check it against the official schema.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5
_MASK64 = (1 << 64) - 1


class WireError(Exception):
    """Malformed protobuf bytes; ``offset`` is where in the whole input."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


def varint(data: bytes, pos: int) -> tuple[int, int]:
    """(value, next position) of the unsigned varint at ``pos``."""
    try:
        byte = data[pos]
        if byte < 0x80:
            return byte, pos + 1
        result = byte & 0x7F
        shift = 7
        start = pos
        pos += 1
        while True:
            byte = data[pos]
            pos += 1
            result |= (byte & 0x7F) << shift
            if byte < 0x80:
                return result & _MASK64, pos
            shift += 7
            if shift >= 70:
                raise WireError("a varint longer than 10 bytes", start)
    except IndexError:
        raise WireError("the data ends inside a varint (truncated file?)", pos) from None


def signed(value: int) -> int:
    """An int64 field's value (two's complement in 64 bits)."""
    return value - (1 << 64) if value >= 1 << 63 else value


def fields(data: bytes, pos: int, end: int) -> Iterator[tuple[int, int, int, int]]:
    """(field number, wire type, value, end) of each field in ``data[pos:end]``.

    For a varint or fixed field, ``value`` is the number and ``end`` the next position; for a
    length-delimited one, ``value`` is where its bytes start and ``end`` where they end.
    """
    while pos < end:
        at = pos
        key, pos = varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise WireError("a field numbered 0", at)
        if wire == VARINT:
            value, pos = varint(data, pos)
            yield number, wire, value, pos
        elif wire == BYTES:
            size, pos = varint(data, pos)
            if pos + size > end:
                raise WireError(f"a field of {size} bytes runs past the end of its message (truncated file?)", at)
            yield number, wire, pos, pos + size
            pos += size
        elif wire == FIXED64 or wire == FIXED32:
            width = 8 if wire == FIXED64 else 4
            if pos + width > end:
                raise WireError("the data ends inside a fixed-width field (truncated file?)", at)
            yield number, wire, int.from_bytes(data[pos : pos + width], "little"), pos + width
            pos += width
        else:
            raise WireError(f"wire type {wire} (groups or garbage) where a field was expected", at)
    if pos != end:
        raise WireError("a field runs past the end of its message", pos)


def repeated_varints(data: bytes, wire: int, value: int, end: int, into: list[int]) -> None:
    """Append a repeated integer field's values: one (unpacked) or a packed run."""
    if wire == VARINT:
        into.append(value)
        return
    if wire != BYTES:
        raise WireError(f"wire type {wire} for a repeated integer field", value)
    pos = value
    append = into.append
    try:
        while pos < end:
            byte = data[pos]
            pos += 1
            if byte < 0x80:
                append(byte)
                continue
            number = byte & 0x7F
            shift = 7
            while True:  # inline: ids above 127 are the common case, and a call per value costs
                byte = data[pos]
                pos += 1
                number |= (byte & 0x7F) << shift
                if byte < 0x80:
                    break
                shift += 7
                if shift >= 70:
                    raise WireError("a varint longer than 10 bytes", pos)
            append(number & _MASK64)
    except IndexError:
        raise WireError("the data ends inside a varint (truncated file?)", pos) from None
    if pos != end:
        raise WireError("a packed field runs past its end", pos)


# -- encoding ------------------------------------------------------------------------------


def encode_varint(value: int, out: bytearray) -> None:
    value &= _MASK64
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def encode_int(number: int, value: int, out: bytearray) -> None:
    """A varint field, left out when zero (proto3's default)."""
    if value:
        encode_varint(number << 3 | VARINT, out)
        encode_varint(value, out)


def encode_bytes(number: int, payload: bytes, out: bytearray) -> None:
    encode_varint(number << 3 | BYTES, out)
    encode_varint(len(payload), out)
    out += payload


def encode_packed(number: int, values: list[int], out: bytearray) -> None:
    if values:
        payload = bytearray()
        for value in values:
            encode_varint(value, payload)
        encode_bytes(number, bytes(payload), out)


__all__ = [
    "WireError",
    "encode_bytes",
    "encode_int",
    "encode_packed",
    "encode_varint",
    "fields",
    "repeated_varints",
    "signed",
    "varint",
]
