"""Every thread's stack with its native frames (``record --pid --native``, ``dump --pid --native``).

For each thread: stop it (``_unwind.stop``: ``PTRACE_SEIZE`` + ``PTRACE_INTERRUPT``; the one thread
only, the others run on), read its registers, walk its native stack with the modules' unwind
tables, read its Python frames with the markers that say which C call of the evaluation loop runs
which of them, and let it go (``PTRACE_DETACH``): both stacks are of the same moment. Then name
the native frames and merge (:mod:`.merge`). The time threads spend stopped is counted
(:attr:`NativeStackReader.stopped_ns`): it is what ``--native`` costs the target.
"""

from __future__ import annotations

import errno
import os
import struct
import time

from .layouts import CSTACK_OWNER
from .merge import merge, python_runs
from .native import NativeModules
from .process import PERMISSION_HELP, AccessDenied, AttachError
from .stacks import COMPLETE, MAX_DEPTH, StackReader, ThreadStack

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .process import RemoteProcess

#: Deeper native stacks are cut (a loop in a corrupt stack).
MAX_NATIVE = 4096
#: The C unwinder's statuses (``_unwind.unwind``), as a user reads them.
UNWIND_ENDS = {
    1: "an address in no loaded module (generated code?)",
    2: "a function without unwind information",
    3: "unwind information the reader does not understand",
    4: "the stack could not be read",
    5: f"deeper than {MAX_NATIVE} frames",
    6: "a corrupt stack",
}
NO_MODULE = 1
#: 3.11's ``_PyInterpreterFrame.is_entry`` is the bool just before ``owner``.
_IS_ENTRY_BEFORE_OWNER = 1


def _unwinder():
    from . import _unwind

    return _unwind


class NativeStackReader(StackReader):
    """Reads the stacks of ``process`` with native frames; ``all_frames`` keeps the interpreter's call
    machinery and start-up frames (hidden by default: :mod:`.merge`)."""

    def __init__(self, process: RemoteProcess, lines: bool = True, all_frames: bool = False) -> None:
        super().__init__(process, lines)
        self.all_frames = all_frames
        self.modules = NativeModules(process)
        self._unwind = _unwinder()
        self._good_codes: set[int] = set()
        layout = process.layout
        self._entry = layout.frame_owner - _IS_ENTRY_BEFORE_OWNER if layout.minor == 11 else None
        self._span = max(
            layout.frame_previous + 8, layout.frame_code + 8, layout.frame_instr + layout.instr_size, layout.frame_owner + 1
        )
        #: Native stacks read, and how many ended before their outermost frame (with the first reason).
        self.native_stacks = 0
        self.native_cut = 0
        self.first_cut: str | None = None
        #: Stacks whose evaluation-loop frames and Python runs were not as many (matched from the outer end).
        self.mismatched = 0
        #: Threads stopped; the total time from asking a thread to stop to its stop (the target runs on, or waits
        #: for a CPU, meanwhile), and the total time threads were held stopped while read (what the target loses).
        self.stops = 0
        self.waited_ns = 0
        self.stopped_ns = 0
        #: Per thread: where it was blocked and its innermost Python frame at its last read, and that stack.
        self._blocked: dict[int, tuple[tuple[bytes, int, int], ThreadStack]] = {}
        #: Reads of a blocked thread answered from its previous read, without stopping it.
        self.reused = 0

    def _stack(self, state: bytes, address: int) -> ThreadStack:
        process = self.process
        native_id = process.native_id(state)
        if native_id is None:  # a thread we cannot name cannot be stopped: its Python frames only
            return super()._stack(state, address)
        still = self._still_blocked(native_id, state)
        if still is not None:
            return still
        asked = stopped = time.perf_counter_ns()
        pending, held = 0, True
        # one try from the stop on: whatever is raised, even Ctrl-C the moment stop() returns, lets the thread go
        # (with no signal then: one that came in those microseconds would be lost)
        try:
            try:
                registers, pending = self._unwind.stop(native_id)
            except OSError as exc:
                held = False
                if exc.errno == errno.EPERM and not traced_by_another(process.pid, native_id):
                    raise AccessDenied(
                        f"permission denied stopping a thread of process {process.pid} (ptrace): {PERMISSION_HELP}"
                    ) from None
                return super()._stack(state, address)  # it ended (ESRCH), or another tool traces it: no native frames
            stopped = time.perf_counter_ns()
            self.waited_ns += stopped - asked
            pcs, status = self._unwind.unwind(process.pid, registers, self.modules.tables(), MAX_NATIVE)
            # a module no stack ran through before: load it (the thread is still stopped) and walk again
            while status == NO_MODULE and self.modules.load_at(pcs[-1] if len(pcs) == 1 else pcs[-1] - 1):
                pcs, status = self._unwind.unwind(process.pid, registers, self.modules.tables(), MAX_NATIVE)
            walked, python_partial = self._python_frames(address, len(state))
        finally:
            if held:
                self._unwind.resume(native_id, pending)
                self.stopped_ns += time.perf_counter_ns() - stopped
                self.stops += 1
        frames, python_partial = self._named(walked, python_partial)  # names are read with the thread running again
        stack = self._merged(state, native_id, pcs, status, frames, python_partial)
        self._remember(native_id, state, stack)
        return stack

    def _still_blocked(self, native_id: int, state: bytes) -> ThreadStack | None:
        """The thread's previous stack, if it is blocked in the very system call (same arguments, stack pointer and
        address) it was blocked in then, with the same innermost Python frame at the same instruction: it has not
        moved, and is not interrupted for nothing (an idle worker of a server, at every tick)."""
        previous = self._blocked.get(native_id)
        if previous is None:
            return None
        where = self._where(native_id, state)
        if where is None or where != previous[0]:
            return None
        self.reused += 1
        old = previous[1]
        return ThreadStack(old.native_id, old.thread_id, old.frames, old.partial)

    def _remember(self, native_id: int, state: bytes, stack: ThreadStack) -> None:
        where = self._where(native_id, state)
        if where is None:
            self._blocked.pop(native_id, None)
        else:
            self._blocked[native_id] = (where, stack)

    def _where(self, native_id: int, state: bytes) -> tuple[bytes, int, int] | None:
        """(its /proc/PID/task/TID/syscall line, innermost Python frame's address and instruction) while the thread
        is blocked in a system call; None while it runs (or cannot be told)."""
        try:
            with open(f"/proc/{self.process.pid}/task/{native_id}/syscall", "rb") as file:
                blocked = file.read()
            if not blocked[:1].isdigit():
                return None  # 'running'
            frame = self.process.current_frame(state)
            if not frame:
                return (blocked, 0, 0)
            layout = self.process.layout
            data = self.process.read(frame, self._span)
        except OSError:
            return None
        instruction = struct.unpack_from("<i" if layout.instr_size == 4 else "<Q", data, layout.frame_instr)[0]
        return (blocked, frame, instruction)

    def _merged(
        self, state: bytes, native_id: int, pcs: list[int], status: int, frames: list[tuple[str, bool]], partial: str | None
    ) -> ThreadStack:
        self.native_stacks += 1
        if status != COMPLETE:
            self.native_cut += 1
            self.first_cut = self.first_cut or UNWIND_ENDS.get(status, f"status {status}")
        native = [self.modules.frame(pc, exact=index == 0) for index, pc in enumerate(pcs)]
        merged, surplus = merge(native, status == COMPLETE, python_runs(frames), self.all_frames, partial is None)
        if surplus and frames:
            self.mismatched += 1
        thread_id = struct.unpack_from("<Q", state, self.process.layout.tstate_thread_id)[0]
        return ThreadStack(native_id, thread_id, merged, partial)

    def _python_frames(self, state_address: int, size: int) -> tuple[list[tuple[int, int, bool]], str | None]:
        """The Python frames of the (stopped) thread whose state is at ``state_address``, innermost first as
        (code address, instruction, entry), and why they stop short (None: they don't). The state is read
        again: the one read before the thread was stopped may name a frame it has left since."""
        process, layout = self.process, self.process.layout
        try:
            address = process.current_frame(process.read(state_address, size))
        except OSError as exc:
            return [], f"its current frame: {exc}"
        frames: list[tuple[int, int, bool]] = []
        per_frame = layout.minor < 11
        while address and len(frames) < MAX_DEPTH:
            try:
                data = process.read(address, self._span)
                code = struct.unpack_from("<Q", data, layout.frame_code)[0] & ~layout.code_tag_bits  # 3.14+ tags it
                if layout.skip_owner >= 0 and data[layout.frame_owner] == CSTACK_OWNER:
                    if frames:
                        frames[-1] = (*frames[-1][:2], True)  # the frame inside a shim is where a C call entered
                    address = struct.unpack_from("<Q", data, layout.frame_previous)[0]
                    continue
                instruction = struct.unpack_from("<i" if layout.instr_size == 4 else "<Q", data, layout.frame_instr)[0]
                self._check_code(code)
                entry = per_frame or (self._entry is not None and bool(data[self._entry]))
                frames.append((code, instruction, entry))
            except (OSError, ValueError) as exc:
                return frames, f"a frame could not be read ({exc})"
            address = struct.unpack_from("<Q", data, layout.frame_previous)[0]
        if address:
            return frames, f"deeper than {MAX_DEPTH} frames"
        return frames, None

    def _named(self, walked: list[tuple[int, int, bool]], partial: str | None) -> tuple[list[tuple[str, bool]], str | None]:
        """The frames ``walked`` as (name, entry); those after one whose code object cannot be read are left out."""
        named = []
        for code, instruction, entry in walked:
            try:
                named.append((self._name(code, 0, instruction), entry))  # identity 0: read by address alone
            except (OSError, ValueError, UnicodeDecodeError) as exc:
                return named, partial or f"a code object could not be read ({exc})"
        return named, partial

    def _check_code(self, code: int) -> None:
        if code in self._good_codes:
            return
        process = self.process
        if code == 0 or process.pointer(code + process.layout.object_type) != process.code_type:
            raise ValueError(f"no code object at {code:#x}")
        self._good_codes.add(code)

    def problems(self) -> list[str]:
        """What the user should know about the native stacks read."""
        found = []
        if self.native_cut:
            found.append(
                f"{self.native_cut} of {self.native_stacks} native stacks ended before their outermost frame "
                f"(first: {self.first_cut}); the Python frames they did not reach are under '[native stack cut]'"
            )
        if self.mismatched:
            found.append(
                f"{self.mismatched} of {self.native_stacks} stacks had not as many evaluation-loop C frames as runs of "
                f"Python frames (a thread caught entering or leaving a call); matched from the outermost frame"
            )
        return found

    def labels(self) -> dict[str, str]:
        """The profile's headers about the native stacks: how long a thread took to stop, and was held stopped, on
        average (µs), and how many reads of blocked threads needed no stop."""
        stops = max(self.stops, 1)
        return {
            "native_stops": str(self.stops),
            "native_unstopped": str(self.reused),
            "native": "all frames" if self.all_frames else "yes",
            "native_wait_us": f"{self.waited_ns / stops / 1e3:.0f}",
            "native_stop_us": f"{self.stopped_ns / stops / 1e3:.0f}",
        }


def traced_by_another(pid: int, tid: int) -> bool:
    """Whether thread ``tid`` has a tracer already (gdb, strace, another profiler): ptrace refuses a second one."""
    try:
        with open(f"/proc/{pid}/task/{tid}/status", encoding="utf-8") as file:
            for line in file:
                if line.startswith("TracerPid:"):
                    return int(line.split()[1]) not in (0, os.getpid())
    except (OSError, ValueError):
        pass
    return False


def native_reader(process: RemoteProcess, lines: bool, native: str) -> NativeStackReader:
    """The reader of ``--native`` (``native`` 'yes') or ``--native-all`` ('all'); an :class:`AttachError` saying
    why native stacks cannot be read here."""
    if os.uname().machine not in ("x86_64", "amd64"):
        raise AttachError(f"--native reads native stacks on x86-64 Linux only, not on {os.uname().machine}")
    try:
        _unwinder()
    except ImportError as exc:
        raise AttachError(
            f"--native needs flamespace's C extension _unwind, which is not built ({exc}); reinstall flamespace where "
            f"a C compiler is available"
        ) from None
    return NativeStackReader(process, lines, all_frames=native == "all")


__all__ = ["NativeStackReader", "native_reader"]
