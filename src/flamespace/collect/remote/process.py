"""A running CPython process, read from outside: where its runtime is, which Python it is, its threads.

:func:`attach` finds ``_PyRuntime`` (a symbol of ``libpython3.X.so`` where the process maps
one, else of its executable), tells the version (3.13+: the debug offsets; 3.11, 3.12:
``Py_Version``; 3.9, 3.10: the library's name and the version string in it), takes the
:class:`~.layouts.Layout` and checks it against the process (see :mod:`.layouts`). Every
problem a user can act on is an :class:`AttachError` whose message says what to do.
"""

from __future__ import annotations

import errno
import os
import re
import struct

from ...errors import FlamespaceError
from .elf import ElfFile, NotElf, load_base, parse_maps
from .layouts import (
    DEBUG_MINORS,
    DEBUG_OFFSETS_SIZE,
    Layout,
    debug_layout,
    debug_offsets,
    debug_version,
    offsets_problem,
    table_layout,
)


#: The Pythons this reader knows (3.9 to 3.15: tables up to 3.12, the process's debug offsets from 3.13).
OLDEST, NEWEST = 9, DEBUG_MINORS[-1]
#: Threads and frames beyond these are a sign of a wrong read (a loop), not of a program.
MAX_THREADS = 4096
#: glibc's ``struct pthread`` keeps the thread's kernel id here on x86-64 (tried first on 3.9, 3.10).
GLIBC_TID_OFFSET = 0x2D0
#: Reads of the thread states that try again to find that offset when it is not known yet (a thread
#: starting at attach has no pthread_t); beyond, the C library is not one whose layout fits (musl).
CALIBRATION_TRIES = 100
#: The types and singletons :mod:`.objects` tells objects apart by (where the symbol table has them).
OBJECT_SYMBOLS = (
    "PyLong_Type",
    "PyFloat_Type",
    "PyBool_Type",
    "PyTuple_Type",
    "PyDict_Type",
    "PyCell_Type",
    "PyModule_Type",
    "PyType_Type",
    "_Py_NoneStruct",
    "_Py_TrueStruct",
    "_Py_FalseStruct",
)
_LIBPYTHON = re.compile(r"/libpython3\.(\d+)t?[^/]*\.so[^/]*$")
_EXECUTABLE = re.compile(r"python3\.(\d+)t?$")

PERMISSION_HELP = (
    "run flamespace as the same user as the target with ptrace allowed (sudo sysctl "
    "kernel.yama.ptrace_scope=0), or as root (sudo flamespace ...); in a container, start it with "
    "--cap-add SYS_PTRACE"
)


class AttachError(FlamespaceError):
    """A process that cannot be read, with what to do about it."""


class NoSuchProcess(AttachError):
    pass


class NotPython(AttachError):
    pass


class UnsupportedPython(AttachError):
    pass


class AccessDenied(AttachError):
    pass


class ProcessGone(AttachError):
    """The process ended while it was read."""


def _memory():
    try:
        from . import _remote
    except ImportError as exc:  # built without a C compiler
        raise AttachError(
            f"reading another process needs flamespace's C extension _remote, which is not built ({exc}); "
            f"reinstall flamespace where a C compiler is available"
        ) from None
    return _remote


class RemoteProcess:
    """A CPython process being read: ``pid``, ``version`` (e.g. ``3.12.1``), ``layout``, and reads
    of its memory. Made by :func:`attach`."""

    def __init__(self, pid: int, version: str, layout: Layout, runtime: int, symbols: dict[str, int], binary: str) -> None:
        self.pid, self.version, self.layout, self.runtime, self.binary = pid, version, layout, runtime, binary
        self.code_type = symbols["PyCode_Type"]
        self.unicode_type = symbols.get("PyUnicode_Type")
        self.bytes_type = symbols.get("PyBytes_Type")
        #: The addresses of the symbols read (types and singletons: :mod:`.objects` tells objects apart by them).
        self.symbols = symbols
        self._memory = _memory()
        self._tid_offset: int | None = None  # 3.9, 3.10: where pthread_t's struct keeps the kernel id
        self._calibrations_left = CALIBRATION_TRIES if layout.tstate_native_thread_id is None else 0  # 3.11+ say it
        self.interpreter = 0
        tstate = self.layout.tstate_native_thread_id
        self._tstate_span = (
            max(
                layout.tstate_next,
                layout.tstate_interp,
                layout.tstate_thread_id,
                tstate or 0,
                layout.tstate_frame or 0,
                layout.tstate_cframe or 0,
            )
            + 8
        )

    # -- memory ---------------------------------------------------------------------------

    def read(self, address: int, size: int) -> bytes:
        """``size`` bytes at ``address``; :class:`ProcessGone` if the process has ended, OSError otherwise."""
        try:
            return self._memory.read(self.pid, address, size)
        except OSError as exc:
            if exc.errno == errno.ESRCH:
                raise ProcessGone(f"process {self.pid} has exited") from None
            if exc.errno == errno.EPERM:
                raise AccessDenied(f"permission denied reading process {self.pid}'s memory: {PERMISSION_HELP}") from None
            raise

    def pointer(self, address: int) -> int:
        value: int = struct.unpack("<Q", self.read(address, 8))[0]
        return value

    def alive(self) -> bool:
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return os.path.exists(f"/proc/{self.pid}/task") and _state(self.pid) not in ("Z", "X")

    def walk(self, frame: int, max_depth: int) -> tuple[list[tuple[int, int, int]], int, int]:
        """The C walker's (frames, status, errno) from ``frame`` (see ``_remote.walk``): each frame's code
        address, instruction and the code object's identity."""
        layout = self.layout
        fields = (layout.code_name, layout.code_filename, layout.code_firstlineno)
        return self._memory.walk(self.pid, frame, layout.walk_layout(), layout.object_type, self.code_type, max_depth, fields)

    # -- threads --------------------------------------------------------------------------

    def thread_states(self) -> list[tuple[int, bytes]]:
        """Each thread state's address and first bytes, newest thread first (the main thread is last)."""
        layout = self.layout
        self.interpreter = self.pointer(self.runtime + layout.interpreters_head)
        if self.interpreter == 0:
            return []  # not initialised yet, or finalised
        states: list[tuple[int, bytes]] = []
        address = self.pointer(self.interpreter + layout.interp_threads_head)
        while address and len(states) < MAX_THREADS:
            data = self.read(address, self._tstate_span)
            states.append((address, data))
            address = _word(data, layout.tstate_next)
        if self._tid_offset is None and self._calibrations_left:
            self.calibrate_tids(states)  # 3.9, 3.10 (a no-op after): until the threads have told their kernel ids
        return states

    def gil_holder(self) -> int | None:
        """The address of the thread state that holds the GIL now (None: nobody holds it). Read after
        :meth:`thread_states` (which finds the interpreter)."""
        layout = self.layout
        if layout.gil_base == "runtime":
            base = self.runtime
        elif layout.gil_base == "pointer":
            base = self.pointer(self.interpreter + layout.gil_pointer)  # type: ignore[operator]  # set with 'pointer'
        else:
            base = self.interpreter
        if not base:
            return None
        locked = struct.unpack("<i", self.read(base + layout.gil_locked, 4))[0]
        return self.pointer(base + layout.gil_holder) if locked else None

    def current_frame(self, state: bytes) -> int:
        """The address of the thread's innermost frame (0: none)."""
        layout = self.layout
        if layout.tstate_frame is not None:
            return _word(state, layout.tstate_frame)
        cframe = _word(state, layout.tstate_cframe)  # type: ignore[arg-type]  # set where tstate_frame is not
        return self.pointer(cframe + layout.cframe_current) if cframe else 0  # type: ignore[operator]

    def native_id(self, state: bytes) -> int | None:
        """The thread's kernel id (what /proc/PID/task lists): read on 3.11+, through glibc's thread
        struct on 3.9 and 3.10 (its offset found by :meth:`calibrate_tids`)."""
        layout = self.layout
        if layout.tstate_native_thread_id is not None:
            return _word(state, layout.tstate_native_thread_id)
        if self._tid_offset is None:
            return None
        try:
            return int(struct.unpack("<i", self.read(_word(state, layout.tstate_thread_id) + self._tid_offset, 4))[0])
        except OSError:
            return None

    def calibrate_tids(self, states: list[tuple[int, bytes]]) -> None:
        """3.9, 3.10: find where glibc keeps a thread's kernel id in the struct that ``pthread_t``
        points to: the offset at which every thread state's thread holds a distinct id of the
        process's threads (glibc's x86-64 offset first). Left unknown (threads by pthread id) if none fits,
        and tried again at the next reads of the thread states (up to :data:`CALIBRATION_TRIES` in all):
        a thread starting or ending at attach must not leave every later read without kernel ids."""
        if self.layout.tstate_native_thread_id is not None or not states or self._tid_offset is not None:
            return
        self._calibrations_left = max(self._calibrations_left - 1, 0)
        tasks = set(task_ids(self.pid))
        blocks = []
        for thread in (_word(data, self.layout.tstate_thread_id) for _address, data in states):
            if not thread:
                continue  # a thread state made for a thread not started yet: no pthread_t
            try:
                blocks.append(self.read(thread, 0x400))
            except OSError:
                continue  # a thread that has just ended
        candidates = [GLIBC_TID_OFFSET] + [offset for offset in range(0, 0x400, 4) if offset != GLIBC_TID_OFFSET]
        for offset in candidates:
            ids = [struct.unpack_from("<i", block, offset)[0] for block in blocks]
            if len(set(ids)) == len(ids) and all(i in tasks for i in ids) and self.pid in ids:
                self._tid_offset = offset
                return


def _word(data: bytes, offset: int) -> int:
    value: int = struct.unpack_from("<Q", data, offset)[0]
    return value


def task_ids(pid: int) -> list[int]:
    """The kernel ids of the process's threads ([] once it has gone)."""
    try:
        return [int(name) for name in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return []


def _state(pid: int) -> str:
    """The process's state letter from /proc/PID/stat ('' if it has gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            data = file.read()
    except OSError:
        return ""
    return data[data.rfind(b")") + 2 :][:1].decode()


def command_line(pid: int) -> list[str]:
    """The process's argv ([] if unreadable)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            return [part.decode(errors="replace") for part in file.read().split(b"\0") if part]
    except OSError:
        return []


# -- attaching ----------------------------------------------------------------------------


def attach(pid: int) -> RemoteProcess:
    """The Python process ``pid``, its layout checked; an :class:`AttachError` saying what is wrong otherwise."""
    if pid <= 0 or not os.path.exists(f"/proc/{pid}"):
        raise NoSuchProcess(f"no process with pid {pid}")
    if _state(pid) in ("Z", "X"):
        raise NoSuchProcess(f"process {pid} has exited (a zombie waiting for its parent)")
    name = _comm(pid)
    maps = _maps(pid)
    binary, elf = _python_binary(pid, maps, name)
    symbols = elf.symbols(("_PyRuntime", "PyCode_Type", "PyUnicode_Type", "PyBytes_Type", "Py_Version", *OBJECT_SYMBOLS))
    if "_PyRuntime" not in symbols or "PyCode_Type" not in symbols:
        raise NotPython(f"process {pid} ({name}) is not a CPython process: {binary} has no _PyRuntime symbol")
    base = load_base(maps, binary, elf)
    if base is None:
        raise NotPython(f"process {pid} ({name}): {binary} is not mapped")
    symbols = {key: value + base for key, value in symbols.items()}
    probe = RemoteProcess(pid, "?", table_layout(12), symbols["_PyRuntime"], symbols, binary)  # type: ignore[arg-type]  # reads only
    try:
        head = probe.read(symbols["_PyRuntime"], DEBUG_OFFSETS_SIZE)
    except AccessDenied:
        raise
    except (OSError, ProcessGone) as exc:
        if not probe.alive():
            raise NoSuchProcess(f"process {pid} has exited") from None
        raise UnsupportedPython(f"process {pid} ({name}): cannot read its runtime state ({exc})") from None
    version, layout = _version_and_layout(probe, head, binary, elf, symbols, name)
    process = RemoteProcess(pid, version, layout, symbols["_PyRuntime"], symbols, binary)
    _check(process, name)
    return process


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as file:
            return file.read().strip()
    except OSError:
        return "?"


def _maps(pid: int) -> list[tuple[int, int, int, str]]:
    try:
        with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as file:
            return parse_maps(file.read())
    except PermissionError:
        raise AccessDenied(f"permission denied reading process {pid}'s memory map: {PERMISSION_HELP}") from None
    except FileNotFoundError:
        raise NoSuchProcess(f"no process with pid {pid}") from None


def _python_binary(pid: int, maps: list[tuple[int, int, int, str]], name: str) -> tuple[str, ElfFile]:
    """The file that holds ``_PyRuntime``: a mapped libpython3.X, else the executable."""
    libraries = sorted({path for _s, _e, _o, path in maps if _LIBPYTHON.search(path)})
    try:
        executable = os.readlink(f"/proc/{pid}/exe")
    except PermissionError:
        raise AccessDenied(f"permission denied reading process {pid}'s executable: {PERMISSION_HELP}") from None
    except OSError:
        raise NoSuchProcess(f"process {pid} has exited") from None
    for path in (*libraries, executable):
        elf = _open_elf(pid, path, executable)
        if elf is not None and elf.symbols(("_PyRuntime",)):
            return path, elf
    raise NotPython(
        f"process {pid} ({name}) is not a Python process: neither {os.path.basename(executable)} nor "
        f"a libpython it maps has CPython's _PyRuntime"
    )


def _open_elf(pid: int, path: str, executable: str) -> ElfFile | None:
    """The ELF file at ``path`` as the process sees it (through /proc/PID/root for another mount namespace)."""
    candidates = [f"/proc/{pid}/exe"] if path == executable else []
    candidates += [f"/proc/{pid}/root{path}", path]
    for candidate in candidates:
        try:
            with open(candidate, "rb") as file:
                return ElfFile(file.read())
        except PermissionError:
            raise AccessDenied(f"permission denied reading {path} of process {pid}: {PERMISSION_HELP}") from None
        except (OSError, NotElf):
            continue
    return None


def _version_and_layout(
    probe: RemoteProcess, head: bytes, binary: str, elf: ElfFile, symbols: dict[str, int], name: str
) -> tuple[str, Layout]:
    pid = probe.pid
    number = debug_version(head)
    if number is not None:
        version, minor = hex_version(number), (number >> 16) & 0xFF
        offsets = debug_offsets(head)
        if offsets is None:
            raise UnsupportedPython(
                f"process {pid} ({name}) runs Python {version}: flamespace reads 3.{OLDEST} to "
                f"3.{NEWEST} (it knows the layout of the debug offsets of 3.{DEBUG_MINORS[0]} to 3.{NEWEST} only)"
            )
        if offsets.get("free_threaded"):
            raise UnsupportedPython(
                f"process {pid} ({name}) runs a free-threaded Python {version}, which flamespace "
                f"cannot read yet (only builds with the GIL)"
            )
        problem = offsets_problem(offsets)
        if problem is not None:
            raise UnsupportedPython(f"process {pid} ({name}) runs Python {version} whose debug offsets make no sense: {problem}")
        return version, debug_layout(offsets)
    if "Py_Version" in symbols:  # 3.11, 3.12
        number = struct.unpack("<I", probe.read(symbols["Py_Version"], 4))[0]
        version, minor = hex_version(number), (number >> 16) & 0xFF
    else:  # 3.9, 3.10: the file's name, and the version string it holds
        match = _LIBPYTHON.search(binary) or _EXECUTABLE.search(os.path.basename(binary))
        if match is None:
            raise UnsupportedPython(
                f"process {pid} ({name}): cannot tell which Python {binary} is (no Py_Version, "
                f"no version in its name); flamespace reads 3.{OLDEST} to 3.{NEWEST}"
            )
        minor = int(match.group(1))
        found = elf.version_strings(f"3.{minor}.")
        version = found[0] if found else f"3.{minor}"
    if minor < OLDEST:
        raise UnsupportedPython(f"process {pid} ({name}) runs Python {version}: flamespace reads 3.{OLDEST} to 3.{NEWEST}")
    if minor >= DEBUG_MINORS[0]:
        raise UnsupportedPython(
            f"process {pid} ({name}) runs Python {version} but its _PyRuntime has no debug offsets "
            f"(no 'xdebugpy' cookie): an unusual build flamespace cannot read"
        )
    layout = table_layout(minor)
    assert layout is not None  # OLDEST <= minor < DEBUG_MINORS[0]: a table
    return version, layout


def hex_version(number: int) -> str:
    """``3.12.1`` from PY_VERSION_HEX (``0x030C01F0``); ``3.13.0rc2`` for a release candidate."""
    major, minor, micro, level, serial = (
        number >> 24,
        (number >> 16) & 0xFF,
        (number >> 8) & 0xFF,
        (number >> 4) & 0xF,
        number & 0xF,
    )
    suffix = {0xA: "a", 0xB: "b", 0xC: "rc"}.get(level)
    return f"{major}.{minor}.{micro}" + (f"{suffix}{serial}" if suffix else "")


def _check(process: RemoteProcess, name: str) -> None:
    """Refuse a layout that does not fit: thread states must point back to the interpreter, and
    (3.11+) hold ids of the process's threads."""
    pid, layout = process.pid, process.layout
    wrong = (
        f"process {pid} ({name}) runs Python {process.version}, whose memory does not match flamespace's layout "
        f"for 3.{layout.minor} (from {layout.source})"
    )
    problem: str | None = None
    for _attempt in range(3):  # threads come and go while we look: a mismatch must persist
        try:
            states = process.thread_states()
        except ProcessGone:
            raise NoSuchProcess(f"process {pid} has exited") from None
        except OSError as exc:
            problem = f"a read failed ({exc})"
        else:
            problem = _layout_problem(process, states)
            if problem is None:
                return  # 3.9, 3.10: thread_states() has looked for the kernel ids' offset already
    raise UnsupportedPython(f"{wrong}: {problem}")


def _layout_problem(process: RemoteProcess, states: list[tuple[int, bytes]]) -> str | None:
    layout = process.layout
    if process.interpreter == 0:
        return None  # starting or ending: nothing to check, nothing to read either
    tasks: set[int] = set(task_ids(process.pid))
    named = 0
    for address, data in states:
        if _word(data, layout.tstate_interp) != process.interpreter:
            return f"the thread state at {address:#x} does not point back to the interpreter"
        if layout.tstate_native_thread_id is None:
            continue
        native = process.native_id(data)
        if native == 0:
            continue  # made for a thread not running yet (threading's start): its id is set when it runs
        if native not in tasks:
            return f"the thread state at {address:#x} names thread {native}, not one of the process's"
        named += 1
    if layout.tstate_native_thread_id is not None and states and not named:
        return "no thread state names one of the process's threads"
    return None


__all__ = [
    "AccessDenied",
    "AttachError",
    "NoSuchProcess",
    "NotPython",
    "ProcessGone",
    "RemoteProcess",
    "UnsupportedPython",
    "attach",
    "command_line",
    "hex_version",
    "task_ids",
]
