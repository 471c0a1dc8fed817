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
    options allow it (sampling modes without --threads, --async, --subprocesses, on Linux)."""
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
        return RemoteRecorder(process, self.options, reader=reader)

    def _run(self) -> None:
        recorder = self.recorder
        assert recorder is not None
        try:
            raise_priority()
            self.raw = recorder.run()
            if recorder.ended == "duration":
                self._stop_child()
        except BaseException as exc:  # said by finish(): the thread must not die in silence
            self.failure = exc

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
        labels = {"sampler": "outside"}
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


#: The niceness the sampling thread asks for (a thread's own: the program and our other threads keep
#: theirs). Allowed to root and to CAP_SYS_NICE; refused to others, who sample at their own niceness.
SAMPLER_NICE = -10


def raise_priority() -> bool:
    """Ask the kernel to schedule the calling thread (the sampler) ahead of ordinary work, where this
    user may (Linux's niceness is a thread's own): True if it did. Fails safe: without the privilege
    nothing changes."""
    try:
        os.setpriority(os.PRIO_PROCESS, 0, SAMPLER_NICE)  # 0: the calling thread, on Linux
    except (OSError, AttributeError):
        return False
    return True


__all__ = ["DEADLINE_NOTE", "OutsideSampler", "available", "outside_wanted", "raise_priority"]
