"""Line numbers from another Python's line tables: the three formats of 3.9 to 3.13.

The sampler reads a frame's code object and its last instruction; the line is where the table
puts that instruction (CPython's ``PyCode_Addr2Line``, written again here because the target's
format is not the reader's: Objects/lnotab_notes.txt and InternalDocs/locations.md describe them).
"""

from __future__ import annotations


def line_of(kind: str, table: bytes, first_line: int, offset: int) -> int | None:
    """The line of the instruction at ``offset`` (bytes into the code, from 0) by the table of ``kind``
    (``lnotab``, ``linetable`` or ``locations``); None where the table says it has none or ``offset`` is
    before the code (a frame that has not started)."""
    if offset < 0:
        return first_line
    if kind == "lnotab":
        return _lnotab_line(table, first_line, offset)
    if kind == "linetable":
        return _linetable_line(table, first_line, offset)
    return _locations_line(table, first_line, offset // 2)


def _lnotab_line(table: bytes, line: int, offset: int) -> int:
    """3.9's co_lnotab: pairs of (bytes forward, lines forward as a signed byte)."""
    address = 0
    for index in range(0, len(table) - 1, 2):
        address += table[index]
        if address > offset:
            break
        delta = table[index + 1]
        line += delta - 256 if delta >= 128 else delta
    return line


def _linetable_line(table: bytes, line: int, offset: int) -> int | None:
    """3.10's co_linetable: pairs of (bytes covered, lines forward as a signed byte; -128: no line)."""
    end = 0
    for index in range(0, len(table) - 1, 2):
        start, end = end, end + table[index]
        delta = table[index + 1]
        here: int | None = None
        if delta != 128:
            line += delta - 256 if delta > 128 else delta
            here = line
        if start <= offset < end:
            return here
    return None


def _locations_line(table: bytes, line: int, unit: int) -> int | None:
    """3.11+'s location table: entries of a first byte (1, a 4-bit code, a 3-bit length in code
    units minus 1) and the code's varints; only the line is decoded."""
    index, address, size = 0, 0, len(table)
    while index < size:
        first = table[index]
        index += 1
        code, length = (first >> 3) & 15, (first & 7) + 1
        here: int | None = line
        if code == 15:  # no location
            here = None
        elif code == 14:  # long form: line delta, end line delta, column, end column
            delta, index = _signed_varint(table, index)
            line += delta
            here = line
            for _ in range(3):
                _, index = _varint(table, index)
        elif code == 13:  # no column: line delta
            delta, index = _signed_varint(table, index)
            line += delta
            here = line
        elif code >= 10:  # one line: line delta (code - 10), column, end column
            line += code - 10
            here = line
            index += 2
        else:  # short form: same line, one byte of columns
            index += 1
        if address <= unit < address + length:
            return here
        address += length
    return None


def _varint(table: bytes, index: int) -> tuple[int, int]:
    byte = table[index] if index < len(table) else 0
    index += 1
    value, shift = byte & 63, 0
    while byte & 64 and index < len(table):
        byte = table[index]
        index += 1
        shift += 6
        value |= (byte & 63) << shift
    return value, index


def _signed_varint(table: bytes, index: int) -> tuple[int, int]:
    value, index = _varint(table, index)
    return (-(value >> 1) if value & 1 else value >> 1), index


__all__ = ["line_of"]
