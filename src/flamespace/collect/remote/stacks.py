"""Every thread's Python stack in a :class:`~.process.RemoteProcess`, as frame names.

Names are those of flamespace's own sampler (``function (file:line)``, paths shortened the same
way: :mod:`flamespace.core.python_frames`), so a profile recorded from outside compares with one
recorded inside. Code objects are read once and kept by address and identity (their name, file name
and first line, read with each frame): a module's code object is freed once it has run, and a
function's made later often takes its address, which at a program's start-up is the rule.

A read can fail at any time (the program runs on, frames are freed, the process exits): a
thread whose stack could not be read to its end keeps the frames read so far and is marked
``partial``; the caller counts those.
"""

from __future__ import annotations

import os
import struct

from ...core.python_frames import PathShortener, format_frame, short_path
from .lines import line_of
from .process import ProcessGone

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from .process import RemoteProcess

#: Deeper stacks than this are cut (recursion past it is a sign of a bad read, or of a crash to come).
MAX_DEPTH = 2048
#: Longest string or line table read (code names and file names are far shorter).
MAX_STRING = 4096
MAX_TABLE = 1 << 20
#: How many times a stack cut short by the program's changes is read again (each read is a few µs).
REREADS = 2
#: How a walk can end (the C walker's status).
COMPLETE, READ_FAILED, NOT_CODE, TOO_DEEP = 0, 1, 2, 3


class ThreadStack:
    """One thread's stack at one moment: ``native_id`` (its kernel id, None where unknown),
    ``thread_id`` (its pthread id), ``frames`` (names, root first), ``partial`` (why the stack
    was cut short, or None) and ``holds_gil`` (None where the GIL was not read)."""

    __slots__ = ("native_id", "thread_id", "frames", "partial", "holds_gil", "launcher_missing")

    def __init__(
        self, native_id: int | None, thread_id: int, frames: tuple[str, ...], partial: str | None, holds_gil: bool | None = None
    ) -> None:
        self.native_id, self.thread_id, self.frames, self.partial = native_id, thread_id, frames, partial
        self.holds_gil = holds_gil
        #: A program the launcher started (launcher files given) whose walk met no launcher frame: for its
        #: main thread, a walk cut short by a frame pushed or popped under it (or the interpreter's end).
        self.launcher_missing = False


class _Code:
    __slots__ = ("function", "file", "first_line", "table", "role")

    def __init__(self, function: str, file: str, first_line: int, table: bytes, role: int = 0) -> None:
        self.function, self.file, self.first_line, self.table = function, file, first_line, table
        self.role = role  # PROGRAM, LAUNCHER or HIDDEN (see StackReader)


#: What a code object's frames are to the stacks read: the program's, the launcher's (the stack starts
#: below the innermost such frame), or hidden at the root of a stack (runpy under ``-m``).
PROGRAM, LAUNCHER, HIDDEN = 0, 1, 2


class StackReader:
    """Reads the stacks of ``process``; ``lines=False`` names frames without line numbers.

    For a program flamespace started (``record --sampler outside``), as the in-process sampler
    names and cuts its stacks: ``program_dirs`` (files under them are named relative to them),
    ``launcher_files`` (a stack starts below the innermost frame of these files: the launcher's
    ``_bootstrap``) and ``hidden_files`` (frames of these at the root of a stack are left out:
    ``runpy``)."""

    def __init__(
        self,
        process: RemoteProcess,
        lines: bool = True,
        program_dirs: Sequence[str] = (),
        launcher_files: Collection[str] = (),
        hidden_files: Collection[str] = (),
    ) -> None:
        self.process = process
        self.lines = lines
        self.shorten = PathShortener(cwd=_cwd(process.pid), program_dirs=program_dirs)
        self.roles = {**dict.fromkeys(hidden_files, HIDDEN), **dict.fromkeys(launcher_files, LAUNCHER)}
        self._codes: dict[tuple[int, int], _Code] = {}
        self._names: dict[tuple[int, int, int], str] = {}

    def threads(self, gil: bool = False) -> list[ThreadStack]:
        """Every thread's stack now (the main thread last, as CPython lists them); with ``gil``, which
        one holds the GIL. Raises :class:`~.process.ProcessGone` once the process has ended."""
        process = self.process
        try:
            states = process.thread_states()
            holder = process.gil_holder() if gil and states else None
        except OSError as exc:
            if not process.alive():
                raise ProcessGone(f"process {process.pid} has exited") from None
            raise _Unreadable(f"the thread list: {exc}") from None
        stacks = []
        for address, data in states:
            stack = self._stack(data, address)
            if stack.partial is not None or (stack.launcher_missing and stack.native_id == process.pid):
                stack = self._again(address, data, stack)
            if gil:
                stack.holds_gil = address == holder
            stacks.append(stack)
        return stacks

    def _again(self, address: int, data: bytes, first: ThreadStack) -> ThreadStack:
        """A thread's stack read again (up to :data:`REREADS` times), from its thread state: the program runs on while it is read, and
        a frame pushed or popped (a module's code freed once it has run) under the walk cuts it short. The
        second read is kept where it is whole (a started program's main thread: down to the launcher)."""
        for _ in range(REREADS):
            try:
                again = self._stack(self.process.read(address, len(data)), address)
            except OSError:
                return first
            if again.partial is None and not (again.launcher_missing and again.native_id == self.process.pid):
                return again
        return first

    def _stack(self, state: bytes, address: int) -> ThreadStack:
        """The stack of the thread whose state (read at ``address``) is ``state``."""
        process = self.process
        thread_id = struct.unpack_from("<Q", state, process.layout.tstate_thread_id)[0]
        native_id = process.native_id(state)
        partial: str | None = None
        try:
            frame = process.current_frame(state)
        except OSError as exc:
            return ThreadStack(native_id, thread_id, (), f"its current frame: {exc}")
        walked, status, error = process.walk(frame, MAX_DEPTH) if frame else ([], COMPLETE, 0)
        if status == READ_FAILED:
            partial = f"a frame could not be read ({os.strerror(error)})"
        elif status == NOT_CODE:
            partial = "a frame held no code object (freed while read)"
        elif status == TOO_DEEP:
            partial = f"deeper than {MAX_DEPTH} frames"
        names = []
        roles = self.roles
        launcher_missing = bool(roles)
        for code, instruction, identity in walked:  # innermost first
            try:
                if roles and self._code(code, identity).role == LAUNCHER:
                    partial, launcher_missing = None, False  # the rest is the launcher's: the program's stack is whole
                    break
                names.append(self._name(code, identity, instruction))
            except (OSError, ValueError, UnicodeDecodeError) as exc:
                partial = partial or f"a code object could not be read ({exc})"
                break
        if roles:
            while names and self._codes[walked[len(names) - 1][::2]].role == HIDDEN:
                names.pop()
        names.reverse()
        stack = ThreadStack(native_id, thread_id, tuple(names), partial)
        stack.launcher_missing = launcher_missing
        return stack

    def _name(self, code: int, identity: int, instruction: int) -> str:
        key = (code, identity, instruction if self.lines else 0)
        name = self._names.get(key)
        if name is None:
            info = self._code(code, identity)
            line = self._line(info, code, instruction) if self.lines else None
            name = self._names[key] = format_frame(info.function, info.file, line)
        return name

    def _line(self, info: _Code, code: int, instruction: int) -> int | None:
        layout = self.process.layout
        if layout.instr_kind == "pointer":
            offset = instruction - (code + layout.code_adaptive)  # type: ignore[operator]  # set for pointers
        elif layout.instr_kind == "lasti-units":
            offset = instruction * 2
        else:
            offset = instruction
        return line_of(layout.lines, info.table, info.first_line, offset)

    def _code(self, address: int, identity: int) -> _Code:
        info = self._codes.get((address, identity))
        if info is None:
            process, layout = self.process, self.process.layout
            span = (
                max(
                    layout.code_filename,
                    layout.code_name,
                    layout.code_qualname or 0,
                    layout.code_linetable,
                    layout.code_firstlineno,
                )
                + 8
            )
            data = process.read(address, span)
            word = lambda offset: struct.unpack_from("<Q", data, offset)[0]  # noqa: E731
            function = self.string(word(layout.code_qualname if layout.code_qualname is not None else layout.code_name))
            file = self.string(word(layout.code_filename))
            first_line = struct.unpack_from("<i", data, layout.code_firstlineno)[0]
            table = self.bytes(word(layout.code_linetable)) if self.lines else b""
            role = self.roles.get(file, PROGRAM)
            info = self._codes[address, identity] = _Code(function, short_path(self.shorten, file), first_line, table, role)
        return info

    def string(self, address: int) -> str:
        """The str object at ``address`` (compact ones: every name and file name CPython makes)."""
        process, layout = self.process, self.process.layout
        head = self._head(address, layout.unicode_compact_size, process.unicode_type, "str")
        length = struct.unpack_from("<q", head, layout.unicode_length)[0]
        state = struct.unpack_from("<I", head, layout.unicode_state)[0]
        kind, compact, ascii = (state >> 2) & 7, (state >> 5) & 1, (state >> 6) & 1
        if not compact or kind not in (1, 2, 4) or not 0 <= length <= MAX_STRING:
            raise ValueError(f"an unreadable str at {address:#x}")
        start = address + (layout.unicode_ascii_size if ascii else layout.unicode_compact_size)
        data = process.read(start, length * kind) if length else b""
        return data.decode({1: "latin-1", 2: "utf-16-le", 4: "utf-32-le"}[kind])

    def _head(self, address: int, size: int, expected_type: int | None, what: str) -> bytes:
        """The first ``size`` bytes of the object at ``address``, refused unless its type pointer is
        ``expected_type`` (when the symbol table gave it): a stale pointer reads as garbage, not as a name."""
        head = self.process.read(address, size)
        if expected_type is not None and struct.unpack_from("<Q", head, self.process.layout.object_type)[0] != expected_type:
            raise ValueError(f"no {what} at {address:#x}")
        return head

    def bytes(self, address: int) -> bytes:
        """The bytes object at ``address`` (a line table)."""
        process, layout = self.process, self.process.layout
        head = self._head(address, layout.bytes_data, process.bytes_type, "bytes")
        size = struct.unpack_from("<q", head, layout.bytes_size)[0]
        if not 0 <= size <= MAX_TABLE:
            raise ValueError(f"a line table of {size} bytes at {address:#x}")
        return process.read(address + layout.bytes_data, size) if size else b""


class _Unreadable(OSError):
    """The thread list could not be read this time (the process runs on)."""


def _cwd(pid: int) -> str | None:
    """The process's working directory (paths under it are shown relative to it, as record does)."""
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None


__all__ = ["ThreadStack", "StackReader"]
