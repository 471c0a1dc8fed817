"""Where an ELF file's symbols are in a running process: ``_PyRuntime``, ``PyCode_Type``, ``Py_Version``.

A small reader of 64-bit little-endian ELF (x86-64, aarch64 Linux): the file's type (a PIE or
shared library is loaded at a base address, an ``ET_EXEC`` executable where it says), its first
loaded segment's address, and its symbol tables (``.dynsym``, which stripped builds keep, and
``.symtab`` where there is one). The target's mappings (``/proc/PID/maps``) give the base.
"""

from __future__ import annotations

import re
import struct

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

ET_EXEC = 2
PT_LOAD = 1
SHT_SYMTAB, SHT_DYNSYM = 2, 11
#: A version number at the end of a string: 3.9.18, 3.10.0rc2, 3.9.18+.
_VERSION = re.compile(rb"(3\.\d+\.\d+(?:(?:a|b|rc)\d+)?\+?)\0")


class NotElf(ValueError):
    """The file is no 64-bit little-endian ELF file."""


class ElfFile:
    """The symbols (name -> value) of the ELF file ``data`` asks for, its type and first load address."""

    def __init__(self, data: bytes) -> None:
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            raise NotElf("not a 64-bit little-endian ELF file")
        self.data = data
        (self.type,) = struct.unpack_from("<H", data, 16)
        phoff, shoff = struct.unpack_from("<QQ", data, 32)
        phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", data, 54)
        loads = []
        for index in range(phnum):
            kind, _flags, _offset, vaddr = struct.unpack_from("<IIQQ", data, phoff + index * phentsize)
            if kind == PT_LOAD:
                loads.append(vaddr)
        self.first_load = min(loads) if loads else 0
        self._sections: list[tuple[int, int, int, int]] = []  # (type, offset, size, link)
        for index in range(shnum):
            _name, kind, _flags, _addr, offset, size, link = struct.unpack_from("<IIQQQQI", data, shoff + index * shentsize)
            self._sections.append((kind, offset, size, link))

    @property
    def relocated(self) -> bool:
        """Loaded at a base address (a PIE executable or a shared library), not where its addresses say."""
        return self.type != ET_EXEC

    def symbols(self, names: Iterable[str]) -> dict[str, int]:
        """The value of each of ``names`` found in the symbol tables (missing names are left out)."""
        wanted = {name.encode() for name in names}
        found: dict[str, int] = {}
        for kind, offset, size, link in self._sections:
            if kind not in (SHT_SYMTAB, SHT_DYNSYM) or link >= len(self._sections):
                continue
            strings, strings_size = self._sections[link][1], self._sections[link][2]
            table = self.data[strings : strings + strings_size]
            if not any(b"\0" + name + b"\0" in table for name in wanted if name.decode() not in found):
                continue  # none of the missing names is in this table (a full .symtab is long to walk)
            for entry in range(offset, offset + size - 23, 24):
                name_at, _info, _other, _index, value, _size = struct.unpack_from("<IBBHQQ", self.data, entry)
                if value == 0 or name_at == 0:
                    continue
                end = self.data.find(b"\0", strings + name_at)
                name = self.data[strings + name_at : end]
                if name in wanted:
                    found[name.decode()] = value
            if len(found) == len(wanted):
                break
        return found

    def version_strings(self, prefix: str) -> list[str]:
        """Version numbers such as ``3.9.18`` that begin with ``prefix`` (e.g. ``3.9.``) and end a string of
        the file, most frequent first: CPython's ``PY_VERSION`` is one (the linker may have merged it into
        the end of a longer string, such as the build directory's ``.../Python-3.9.18``)."""
        wanted = prefix.encode()
        counts: dict[str, int] = {}
        at = self.data.find(wanted)
        while at >= 0:  # bytes.find, not a regular expression: the file is tens of MB
            match = _VERSION.match(self.data, at) if at == 0 or self.data[at - 1] not in b"0123456789." else None
            if match is not None:
                version = match.group(1).decode()
                counts[version] = counts.get(version, 0) + 1
            at = self.data.find(wanted, at + 1)
        return sorted(counts, key=lambda version: -counts[version])


def parse_maps(text: str) -> list[tuple[int, int, int, str]]:
    """``/proc/PID/maps`` as (start, end, file offset, path) rows (path '' for anonymous memory)."""
    rows = []
    for line in text.splitlines():
        parts = line.split(None, 5)
        if len(parts) < 5:
            continue
        start, end = (int(x, 16) for x in parts[0].split("-"))
        rows.append((start, end, int(parts[2], 16), parts[5] if len(parts) > 5 else ""))
    return rows


def load_base(maps: list[tuple[int, int, int, str]], path: str, elf: ElfFile) -> int | None:
    """What to add to ``elf``'s symbol values for their addresses in the process (0 for a fixed
    executable); None when ``path`` is not mapped."""
    starts = [start for start, _end, offset, mapped in maps if mapped == path and offset == 0]
    if not starts:
        return None
    if not elf.relocated:
        return 0
    return min(starts) - (elf.first_load & ~0xFFF)


__all__ = ["ElfFile", "NotElf", "load_base", "parse_maps"]
