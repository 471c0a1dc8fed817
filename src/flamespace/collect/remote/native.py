"""The native code a process runs: its modules' unwind tables and function names, for ``--native``.

Each executable mapping of ``/proc/PID/maps`` is a module: its ELF file (read the first time a stack runs
through it, the interpreter's when attaching; through ``/proc/PID/map_files``, so a deleted or replaced
file still reads as the process loaded it) gives
the C unwinder (``_unwind.c``) its ``.eh_frame_hdr`` search table, and its symbol tables
(``.symtab`` where the file keeps one, else ``.dynsym``) name the functions. The vDSO, which the
kernel maps without a file, is read from the process's memory (a thread stopped in
``clock_gettime`` is there). A library loaded after attaching (``ctypes.CDLL``, an import) is
found when an address falls in no known module: the maps are read again, at most once a second.
"""

from __future__ import annotations

import bisect
import os
import re
import struct
import time

from ...core.python_frames import format_frame

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .process import RemoteProcess

PT_LOAD, PT_GNU_EH_FRAME = 1, 0x6474E550
SHT_SYMTAB, SHT_DYNSYM = 2, 11
STT_FUNC, STT_GNU_IFUNC = 2, 10
#: The interpreter's evaluation loop: one C frame of it runs one Python frame (3.9, 3.10) or a run of them (3.11+).
EVAL_FUNCTIONS = frozenset({"_PyEval_EvalFrameDefault"})
#: GCC's suffixes for parts and clones of a function (``.cold`` is the same frame; the others are named as theirs).
_CLONE_SUFFIX = re.compile(r"(\.(cold|part|isra|constprop|lto_priv|localalias|prop)(\.\d+)?)+$")
#: Reading the maps again when an address is in no module: not more often than this (s).
REFRESH_SECONDS = 1.0


class NativeFrame:
    """One native frame named: ``name`` (as a profile frame: ``function (module)``), ``function``, ``module``
    (the file's base name), ``interpreter`` (in the Python executable or libpython) and ``eval`` (an
    evaluation-loop frame, which stands for Python frames)."""

    __slots__ = ("name", "function", "module", "interpreter", "eval")

    def __init__(self, function: str, module: str, interpreter: bool) -> None:
        self.function, self.module, self.interpreter = function, module, interpreter
        self.eval = interpreter and function in EVAL_FUNCTIONS
        self.name = format_frame(function, module, None)


class _Module:
    """One ELF file as the process maps it: the bytes, where its unwind tables are, its functions."""

    def __init__(self, data: bytes, base: int, path: str, interpreter: bool) -> None:
        self.data, self.base, self.path, self.interpreter = data, base, path, interpreter
        self.delta, self.hdr = _eh_frame_hdr(data)
        self._starts: list[int] | None = None
        self._ends: list[int] = []
        self._names: list[str] = []
        self.name = os.path.basename(path)

    def function(self, vaddr: int) -> str | None:
        if self._starts is None:
            self._starts, self._ends, self._names = _functions(self.data)
        at = bisect.bisect_right(self._starts, vaddr) - 1
        if at < 0 or vaddr >= self._ends[at]:
            return None
        return self._names[at]


class NativeModules:
    """The modules of process ``process``: :meth:`tables` for the C unwinder, :meth:`frame` to name an address."""

    def __init__(self, process: RemoteProcess) -> None:
        self.process = process
        self.pid = process.pid
        self._files: dict[tuple[str, int], _Module | None] = {}
        self._rows: list[tuple[int, int, str, int, int, str]] = []
        self._mapped: list[tuple[int, int, int, str]] = []  # executable mappings: start, end, inode, path
        self._tables: list[tuple[int, int, int, bytes, int, int]] = []
        self._ranges: list[tuple[int, int, _Module]] = []
        self._starts: list[int] = []
        self._frames: dict[int, NativeFrame] = {}
        self._read_at = 0.0
        self._interpreter_files = {process.binary, _readlink(f"/proc/{self.pid}/exe")}
        self.refresh()
        for start, _end, _inode, path in self._mapped:  # on every stack: read now, not while a thread waits stopped
            if path in self._interpreter_files:
                self.load_at(start)

    def tables(self) -> list[tuple[int, int, int, bytes, int, int]]:
        """(start, end, load bias, file bytes, delta, .eh_frame_hdr address) of each executable mapping, by start."""
        return self._tables

    def refresh(self, force: bool = True) -> bool:
        """Read the maps again (``force``, or when the last read is more than a second old); whether it did."""
        now = time.monotonic()
        if not force and now - self._read_at < REFRESH_SECONDS:
            return False
        self._read_at = now
        try:
            with open(f"/proc/{self.pid}/maps", encoding="utf-8", errors="replace") as file:
                self._rows = _parse_maps(file.read())
        except OSError:
            return False
        self._mapped = sorted(
            (start, end, inode, path)
            for start, end, perms, _offset, inode, path in self._rows
            if "x" in perms and path and (not path.startswith("[") or path == "[vdso]")
        )
        self._rebuild()
        return True

    def load_at(self, pc: int) -> bool:
        """Load the module mapped at ``pc`` if it is not yet (modules are read when a stack first runs through
        them: a process may map hundreds); whether a module was loaded. Reads the maps again (at most once a
        second) for an address in none."""
        for attempt in range(2):
            at = bisect.bisect_right(self._mapped, (pc, 1 << 64)) - 1
            if at >= 0 and pc < self._mapped[at][1]:
                start, end, inode, path = self._mapped[at]
                key = _key(path, inode, start)
                if key in self._files:
                    return False  # loaded already, or not an ELF file we can read
                self._files[key] = self._module(start, end, path)
                self._rebuild()
                return self._files[key] is not None
            if attempt == 0 and not self.refresh(force=False):
                return False
        return False

    def _rebuild(self) -> None:
        ranges = []
        for start, end, inode, path in self._mapped:
            module = self._files.get(_key(path, inode, start))
            if module is not None:
                ranges.append((start, end, module))
        self._ranges = ranges
        self._starts = [start for start, _end, _module in ranges]
        self._tables = [(start, end, module.base, module.data, module.delta, module.hdr) for start, end, module in ranges]
        self._frames.clear()

    def _module(self, start: int, end: int, path: str) -> _Module | None:
        data = self._file_bytes(start, end, path)
        if data is None or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            return None
        try:
            if path == "[vdso]":
                base = start - (_first_load(data) & ~0xFFF)
            else:
                base = _load_base(self._rows, path, data)
            return _Module(data, base, path, path in self._interpreter_files)
        except (struct.error, ValueError, IndexError):
            return None

    def _file_bytes(self, start: int, end: int, path: str) -> bytes | None:
        if path == "[vdso]":
            try:
                return self.process.read(start, end - start)
            except OSError:
                return None
        for candidate in (f"/proc/{self.pid}/map_files/{start:x}-{end:x}", f"/proc/{self.pid}/root{path}", path):
            try:
                with open(candidate, "rb") as file:
                    return file.read()
            except OSError:
                continue
        return None

    def frame(self, pc: int, exact: bool) -> NativeFrame:
        """The frame at ``pc``: ``exact`` for the address a thread stopped at, else a return address (the
        call is the instruction before it)."""
        key = pc if exact else pc - 1
        frame = self._frames.get(key)
        if frame is None and self.load_at(key):
            frame = self._frames.get(key)
        if frame is None:
            at = bisect.bisect_right(self._starts, key) - 1
            if at >= 0 and key < self._ranges[at][1]:
                module = self._ranges[at][2]
                function = module.function(key - module.base)
                name = _CLONE_SUFFIX.sub("", function) if function else "??"
                frame = NativeFrame(name, module.name, module.interpreter)
            else:
                frame = NativeFrame("??", "[unknown]", False)
            self._frames[key] = frame
        return frame


def _key(path: str, inode: int, start: int) -> tuple[str, int]:
    """A module's file: its path and inode (the vDSO, which has neither, by its address)."""
    return (path, inode if path != "[vdso]" else start)


def _readlink(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return ""


def _parse_maps(text: str) -> list[tuple[int, int, str, int, int, str]]:
    """``/proc/PID/maps`` as (start, end, permissions, file offset, inode, path) rows."""
    rows = []
    for line in text.splitlines():
        parts = line.split(None, 5)
        if len(parts) < 5:
            continue
        start, end = (int(x, 16) for x in parts[0].split("-"))
        path = parts[5].strip() if len(parts) > 5 else ""
        if path.endswith(" (deleted)"):
            path = path[: -len(" (deleted)")]
        rows.append((start, end, parts[1], int(parts[2], 16), int(parts[4]), path))
    return rows


def _program_headers(data: bytes) -> list[tuple[int, int, int, int]]:
    """(type, file offset, virtual address, file size) of each program header."""
    phoff = struct.unpack_from("<Q", data, 32)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    headers = []
    for index in range(phnum):
        kind, _flags, offset, vaddr, _paddr, filesz = struct.unpack_from("<IIQQQQ", data, phoff + index * phentsize)
        headers.append((kind, offset, vaddr, filesz))
    return headers


def _first_load(data: bytes) -> int:
    loads = [vaddr for kind, _offset, vaddr, _size in _program_headers(data) if kind == PT_LOAD]
    return min(loads) if loads else 0


def _load_base(rows: list, path: str, data: bytes) -> int:
    """What to add to the file's addresses for the process's (0 for a fixed-address executable)."""
    if struct.unpack_from("<H", data, 16)[0] == 2:  # ET_EXEC
        return 0
    starts = [start for start, _end, _perms, offset, _inode, mapped in rows if mapped == path and offset == 0]
    if not starts:
        raise ValueError(f"{path} has no mapping of its start")
    return min(starts) - (_first_load(data) & ~0xFFF)


def _eh_frame_hdr(data: bytes) -> tuple[int, int]:
    """(delta, address) of the file's .eh_frame_hdr: file offset = address - delta. (0, 0) without one."""
    headers = _program_headers(data)
    for kind, _offset, vaddr, _size in headers:
        if kind != PT_GNU_EH_FRAME:
            continue
        for load, offset, start, size in headers:
            if load == PT_LOAD and start <= vaddr < start + size:
                return start - offset, vaddr
    return 0, 0


def _functions(data: bytes) -> tuple[list[int], list[int], list[str]]:
    """The file's functions sorted by address: starts, ends and names (``.symtab`` and ``.dynsym`` together)."""
    shoff = struct.unpack_from("<Q", data, 40)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 58)
    sections = []
    for index in range(shnum):
        _name, kind, _flags, _addr, offset, size, link = struct.unpack_from("<IIQQQQI", data, shoff + index * shentsize)
        sections.append((kind, offset, size, link))
    found: dict[int, tuple[int, str]] = {}
    for kind, offset, size, link in sections:
        if kind not in (SHT_SYMTAB, SHT_DYNSYM) or link >= len(sections):
            continue
        strings = sections[link][1]
        for name_at, info, _other, index, value, length in struct.iter_unpack(
            "<IBBHQQ", data[offset : offset + size - size % 24]
        ):
            if info & 0xF not in (STT_FUNC, STT_GNU_IFUNC) or value == 0 or index == 0:
                continue
            if value in found and found[value][0] >= length:
                continue
            end = data.find(b"\0", strings + name_at)
            found[value] = (length, data[strings + name_at : end].decode(errors="replace"))
    starts = sorted(found)
    # a symbol of no size (some assembly) runs to the next one
    ends = [start + found[start][0] if found[start][0] else following for start, following in zip(starts, starts[1:] + [1 << 64])]
    names = [found[start][1] for start in starts]
    return starts, ends, names


__all__ = ["EVAL_FUNCTIONS", "NativeFrame", "NativeModules"]
