"""Sampling a program the launcher started from outside it (``record --sampler outside``).

The in-process sampler (:mod:`.engine`) reads stacks through the interpreter, so it needs the
GIL: on a loaded machine the thread that holds it is taken off the CPU for milliseconds, and
the sample waits (docs/statistics.md, "The recorder under load"). From outside, the launcher
reads the child's memory (:mod:`.remote`, as ``record --pid`` and py-spy do), GIL or not.

How a run goes: the child (``_bootstrap``) starts, writes one line to ``ready`` and waits on
``go``; the launcher attaches, starts sampling in a thread of its own, then answers ``o`` and
the child runs the program (``site`` first), so its whole start-up is sampled. If the child
cannot be read and the sampler was ``auto``, the answer is ``i``: the child starts the
in-process sampler as always. At ``--duration``'s end the launcher marks the run stopped on
purpose (the file :data:`DEADLINE_NOTE` in the run's directory) and sends the child SIGINT.

The recording is the one the engine makes: the same schedule (uniform intervals within
``JITTER``, a late tick does not delay the next), each thread's sample weighted with the wall
(or CPU) time since its previous one, the same quality figures; frames are named and cut as
the engine does (the launcher's frames and ``runpy``'s are left out).
"""

from __future__ import annotations

import os
import sys
import threading
import time

from ..errors import FlamespaceError
from ._bootstrap import DEADLINE_NOTE  # the child looks for it: its SIGINT is then no Ctrl-C of the user's

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .options import SamplerOptions
    from .raw import RawRecording
    from .remote.recorder import RemoteRecorder

#: The child's answers: sampled from outside, or record yourself.
OUTSIDE, INSIDE = b"o", b"i"


def outside_wanted(options: Any, subprocesses: bool) -> bool:
    """Whether to try sampling from outside: ``outside`` asked (checked), or ``auto`` where the
    options allow it (sampling modes without --async or --subprocesses, on Linux). Threads are named
    as threading names them from outside too, so --threads and timelines go outside."""
    sampler = getattr(options, "sampler", None)
    if sampler not in ("auto", "outside"):
        return False
    if sampler == "outside":
        if subprocesses:
            raise FlamespaceError(
                "--subprocesses needs the sampler inside each program (a process's children are recorded by the "
                "hook they start with): use --sampler inside (or auto)"
            )
        if not available():
            raise FlamespaceError("--sampler outside reads the program's memory (process_vm_readv): Linux only")
        return True
    return not subprocesses and options.inside_only() is None and available()


def available() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        from .remote import _remote  # noqa: F401
    except ImportError:
        return False
    return True


class OutsideSampler:
    """The launcher's side of one run sampled from outside: the hand-shake pipes, the recorder and its thread.

    ``required``: ``--sampler outside`` was asked (a child that cannot be read is an error), else ``auto``
    (the child samples itself then)."""

    def __init__(self, options: SamplerOptions, program_dirs: list[str], required: bool) -> None:
        self.options = options
        self.program_dirs = program_dirs
        self.required = required
        self._ready_read, self._ready_write = os.pipe()
        self._go_read, self._go_write = os.pipe()
        self.recorder: RemoteRecorder | None = None
        self.raw: RawRecording | None = None
        self.failure: BaseException | None = None
        self.fallback: str | None = None  # why auto fell back to the in-process sampler
        self.pid = 0
        self.deadline_note = ""
        self.priority = "normal"  # what raise_priority() got for the sampling thread
        self._cost_mark = (0, 0)  # the sampling thread's CPU time and the recording's elapsed ns at the last check
        self._thread: threading.Thread | None = None

    def child_config(self) -> dict[str, int]:
        """What the child's bootstrap gets: the descriptors it says it is ready on and waits on."""
        return {"ready": self._ready_write, "go": self._go_read}

    def pass_fds(self) -> tuple[int, int]:
        return (self._ready_write, self._go_read)

    def start(self, pid: int, out_dir: str) -> bool:
        """Attach to the started child ``pid`` and sample it; True when sampling from outside, False when
        ``auto`` fell back (the child records itself). Raises FlamespaceError when ``outside`` was asked
        and the child cannot be read. Call once the child runs (after Popen)."""
        os.close(self._ready_write)
        os.close(self._go_read)
        self.pid, self.deadline_note = pid, os.path.join(out_dir, DEADLINE_NOTE)
        if not _read_line(self._ready_read):  # the child ended before its bootstrap ran (no profile: said later)
            self.close()
            return False
        try:
            self.recorder = self._recorder(pid)
        except Exception as exc:  # AttachError and the reader's own failures alike
            if self.required:
                self.close()
                raise FlamespaceError(f"--sampler outside: cannot read the program: {exc}") from None
            self.fallback = str(exc)
            self._answer(INSIDE)
            return False
        self._thread = threading.Thread(target=self._run, name="flamespace-outside-sampler", daemon=True)
        self._thread.start()
        self._answer(OUTSIDE)
        return True

    def _recorder(self, pid: int) -> RemoteRecorder:
        from . import _bootstrap
        from .remote.process import attach
        from .remote.recorder import RemoteRecorder
        from .remote.stacks import StackReader

        process = attach(pid)
        import runpy

        reader = StackReader(
            process,
            lines=self.options.lines,
            program_dirs=self.program_dirs,
            launcher_files=(_bootstrap.__file__,),
            hidden_files=(runpy.__file__, "<frozen runpy>"),
        )
        reader.threads()  # a first read, so that a layout that does not fit fails here, not in every tick
        recorder = RemoteRecorder(process, self.options, reader=reader)
        recorder.program_span = True  # the clock starts with the program, not with the hand-shake
        return recorder

    def _run(self) -> None:
        recorder = self.recorder
        assert recorder is not None
        try:
            self.priority = raise_priority() if RAISE_PRIORITY else "normal"
            self._cost_mark = (time.thread_time_ns(), 0)
            if self.priority == "realtime":
                recorder.on_progress = (COST_CHECK_SECONDS, self._check_cost)
            self.raw = recorder.run()
            if recorder.ended == "duration":
                self._stop_child()
        except BaseException as exc:  # said by finish(): the thread must not die in silence
            self.failure = exc

    def _check_cost(self, _quality: object, elapsed_ns: int) -> None:
        """Called by the recorder in its own thread: a real-time sampler that costs more than
        :data:`MAX_REALTIME_SHARE` of a CPU goes back to ordinary scheduling."""
        last_cpu, last_elapsed = self._cost_mark
        if elapsed_ns - last_elapsed < COST_CHECK_SECONDS * 1e9:
            return  # the first report comes at the first tick: judge whole windows only
        cpu = time.thread_time_ns()
        self._cost_mark = (cpu, elapsed_ns)
        if (cpu - last_cpu) / (elapsed_ns - last_elapsed) > MAX_REALTIME_SHARE:
            lower_priority()
            self.priority = "normal (real-time cost too much CPU)"
            assert self.recorder is not None
            self.recorder.on_progress = None

    def _stop_child(self) -> None:
        """--duration has passed: mark the run stopped on purpose, then stop the program as Ctrl-C would."""
        import signal

        try:
            with open(self.deadline_note, "w"):
                pass
            os.kill(self.pid, signal.SIGINT)
        except OSError:  # it has just ended
            pass

    def figures(self) -> tuple[int, int, int] | None:
        """(samples, ticks, elapsed ns) so far, for record's status line."""
        recorder = self.recorder
        if recorder is None or recorder.quality.ticks == 0:
            return None
        quality = recorder.quality
        return quality.samples, quality.ticks, recorder.clock.now_ns() - recorder._start_ns

    def finish(self, argv: list[str]) -> tuple[RawRecording, list[str], dict[str, str]]:
        """Once the child has ended: the recording (its ``argv`` as the program saw it), problems, labels."""
        recorder, thread = self.recorder, self._thread
        assert recorder is not None and thread is not None
        recorder.stop()
        thread.join()
        self.close()
        if self.failure is not None or self.raw is None:
            raise FlamespaceError(f"the sampler outside the program failed: {self.failure!r}")
        raw = self.raw
        raw.argv, raw.deadline = tuple(argv), recorder.ended == "duration"
        labels = {"sampler": "outside", "sampler_priority": self.priority}
        if recorder.partial:
            labels["partial_stacks"] = str(recorder.partial)
        return raw, recorder.problems(), labels

    def _answer(self, word: bytes) -> None:
        try:
            os.write(self._go_write, word)
        except OSError:  # the child has ended: said when its profile is missing
            pass
        self.close()

    def close(self) -> None:
        for fd in (self._ready_read, self._go_write):
            try:
                os.close(fd)
            except OSError:
                pass


def _read_line(fd: int) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        try:
            chunk = os.read(fd, 4096)
        except InterruptedError:
            continue
        if not chunk:
            break
        data += chunk
    return data


#: Whether the sampling thread asks for priority (benchmarks/bench_rate.py turns it off to measure what it gives).
RAISE_PRIORITY = True
#: How often (s) a real-time sampler checks what it costs.
COST_CHECK_SECONDS = 0.5
#: The real-time priority the sampling thread asks for where this user may (root, CAP_SYS_NICE or an
#: RLIMIT_RTPRIO): SCHED_FIFO's lowest. A sleeping real-time thread is run the moment it wakes, ahead of
#: every ordinary task, however loaded the machine: the rate asked is kept (docs/statistics.md).
REALTIME_PRIORITY = 1
#: A real-time sampler that uses more than this share of a CPU (a program of many threads and deep
#: stacks at a high rate) goes back to ordinary scheduling: it must not starve the program or the machine.
MAX_REALTIME_SHARE = 0.25
#: Otherwise, the scheduler slice (ns) the sampling thread asks for: Linux 6.12 and later let any thread
#: ask for a short slice (sched_setattr's runtime for SCHED_OTHER), which lets it run sooner when it wakes.
SHORT_SLICE_NS = 100_000
#: sched_setattr's system call number, by machine (no wrapper in the C library or in os).
_SCHED_SETATTR = {"x86_64": 314, "aarch64": 274}


def raise_priority() -> str:
    """Ask the kernel to run the calling thread (the sampler) as soon as it wakes: real-time priority
    where this user may, else a short slice; what it got, for the profile's metadata (``realtime``,
    ``short slice`` or ``normal``). Fails safe: without privileges or on an older kernel nothing changes.
    Only this thread changes (Linux schedules threads); RESET_ON_FORK keeps it from any child."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO | os.SCHED_RESET_ON_FORK, os.sched_param(REALTIME_PRIORITY))
        return "realtime"
    except (OSError, AttributeError):
        pass
    return "short slice" if _short_slice(SHORT_SLICE_NS) else "normal"


def lower_priority() -> None:
    """Back to ordinary scheduling (from :func:`raise_priority`'s real-time)."""
    try:
        os.sched_setscheduler(0, os.SCHED_OTHER | os.SCHED_RESET_ON_FORK, os.sched_param(0))
    except (OSError, AttributeError):
        pass


def _short_slice(runtime_ns: int) -> bool:
    number = _SCHED_SETATTR.get(os.uname().machine)
    if number is None:
        return False
    import ctypes
    import struct

    # struct sched_attr (linux/sched/types.h): size, policy, flags, nice, priority, runtime, deadline, period
    attr = struct.pack("=IIQiIQQQ", 48, 0, 0, os.getpriority(os.PRIO_PROCESS, 0), 0, runtime_ns, 0, 0)
    try:
        return ctypes.CDLL(None, use_errno=True).syscall(number, 0, ctypes.create_string_buffer(attr, 48), 0) == 0
    except (OSError, AttributeError):
        return False


__all__ = ["DEADLINE_NOTE", "OutsideSampler", "available", "lower_priority", "outside_wanted", "raise_priority"]
