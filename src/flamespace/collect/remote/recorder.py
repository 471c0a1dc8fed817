"""Sampling a running process from outside (``record --pid``): the schedule of the in-process
sampler (:mod:`..engine`), the stacks of :class:`~.stacks.StackReader`.

Intervals are drawn within ±50% of the mean and laid on a schedule (a late tick does not
delay the next); each thread's sample weighs the wall time since that thread's previous one.
The reader needs no GIL and nothing of the target's: a thread busy in C or holding the GIL is
read like any other (the in-process sampler must wait for the GIL).

Modes, as the in-process sampler's, from each thread's CPU clock as the kernel keeps it
(``/proc/PID/task/TID/schedstat``: ns on a CPU): ``wall`` counts every thread's wall time;
``cpu`` weighs a sample with the CPU time the thread used since its previous one; ``idle``
puts the rest of the wall time under an ``[idle]`` leaf. Where that clock cannot be read the
thread's state stands in (``/proc/PID/task/TID/stat``: R is on a CPU or ready for one). ``gil_only`` (``record --pid --gil``)
keeps only the samples of the thread that holds the GIL at the tick, as py-spy's ``--gil`` does.

The recording ends at ``duration``, at :meth:`RemoteRecorder.stop` (the CLI's Ctrl-C and
SIGTERM), or when the target exits; it is whole in every case.
"""

from __future__ import annotations

import os
import time

from ..clock import Clock
from ..engine import IDLE_FRAME, JITTER
from ..raw import Quality, RawRecording
from ..sink import Sink
from .process import ProcessGone, command_line
from .native_stacks import NativeStackReader, native_reader
from .stacks import StackReader

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from ..options import SamplerOptions
    from ..recording import Recording
    from .process import RemoteProcess
    from .stacks import ThreadStack

#: The root frame of a stack whose outer frames could not be read (the target changed under the read).
PARTIAL_FRAME = "[partial stack]"


class RemoteRecorder:
    """Samples ``process`` with ``options`` (a :class:`~..options.SamplerOptions`: rate, mode,
    weight, idle, lines, threads, timeline, duration, seed). :meth:`run` records until the
    duration, :meth:`stop` or the target's exit, then hands over the :class:`~..raw.RawRecording`.
    ``native``: 'yes' or 'all' for native frames (:mod:`.native_stacks`), None for Python frames only.
    ``on_progress=(seconds, callback(quality, elapsed_ns))`` reports as it goes."""

    def __init__(
        self,
        process: RemoteProcess,
        options: SamplerOptions,
        clock: Clock | None = None,
        on_progress: tuple[float, Callable[[Quality, int], None]] | None = None,
        gil_only: bool = False,
        native: str | None = None,
        reader: StackReader | None = None,
    ) -> None:
        self.process = process
        self.options = options
        self.gil_only, self.native = gil_only, native
        self.clock = clock or Clock()
        if reader is None:
            reader = (
                StackReader(process, lines=options.lines) if native is None else native_reader(process, options.lines, native)
            )
        self.reader = reader
        self.sink = Sink(timeline=options.timeline)
        self.quality = Quality()
        self.on_progress = on_progress
        #: Why the recording ended: 'duration', 'stopped' or 'exited'.
        self.ended = ""
        #: Thread samples whose outer frames could not be read, and the first reason.
        self.partial = 0
        self.first_partial: str | None = None
        #: The stacks of the last tick (``top --pid`` shows their threads).
        self.last_stacks: list[ThreadStack] = []
        self._stopping = False
        #: The recording spans the program's frames: from the last tick before the first that sees one to the
        #: last that sees one, when the target exits (a program the launcher started, held until the sampler
        #: runs: its launcher's frames are cut, and the interpreter's end has none).
        self.program_span = False
        self._waiting_for_frames = True
        self._last_frames: tuple[int, int] | None = None  # (ticks, ns) at the last tick that saw a frame
        self._last_wall: dict[int, int] = {}
        #: Each thread's CPU clock (ns) at its previous sample (cpu and idle modes); a thread born since
        #: the start is measured from its birth (0), one there at the start from then.
        self._last_cpu: dict[int, int] = {}
        self._start_ns = self._last_tick_ns = 0

    def stop(self) -> None:
        """End the recording at the next tick (safe from a signal handler)."""
        self._stopping = True

    def skip_gap(self) -> None:
        """Weigh nothing for the time since the last tick: the profiler itself was stopped (Ctrl-Z in
        ``top --pid``), so what the target did meanwhile was not seen by any tick."""
        now = self.clock.now_ns()
        self._last_tick_ns = now
        self._last_wall = dict.fromkeys(self._last_wall, now)

    def run(self) -> RawRecording:
        """Record, then return what was recorded (also after Ctrl-C: KeyboardInterrupt ends it)."""
        options, clock, quality = self.options, self.clock, self.quality
        from random import Random

        draw = Random(options.seed).random
        mean_ns = 1e9 / options.rate
        low, spread = mean_ns * (1.0 - JITTER), mean_ns * 2.0 * JITTER
        self.begin(clock.now_ns())
        deadline = None if options.duration is None else self._start_ns + int(options.duration * 1e9)
        progress_ns = 0 if self.on_progress is None else int(self.on_progress[0] * 1e9)
        next_progress = self._start_ns
        due = self._start_ns + int(low + spread * draw())
        try:
            while not self._stopping:
                wait = due - clock.now_ns()
                if deadline is not None and due > deadline:
                    wait = deadline - clock.now_ns()
                if wait > 0:
                    time.sleep(wait / 1e9)
                now = clock.now_ns()
                if deadline is not None and now >= deadline:
                    self.tick(now)
                    self.ended = "duration"
                    break
                lateness = now - due
                if lateness > mean_ns:
                    quality.late += 1
                    quality.missed += int(lateness // mean_ns)
                    due = now
                self.tick(now)
                if self.on_progress is not None and now >= next_progress:
                    next_progress = now + progress_ns
                    self.on_progress[1](quality, now - self._start_ns)
                due += int(low + spread * draw())
            else:
                self.ended = "stopped"
                self.tick(clock.now_ns())  # the time since the last tick counts too
        except KeyboardInterrupt:
            self.ended = "stopped"
        except ProcessGone:
            self.ended = "exited"
        if self.program_span and self.ended == "exited" and self._last_frames is not None:
            quality.ticks, self._last_tick_ns = self._last_frames  # what came after is the interpreter's end
        return self.finish(self.ended or "stopped")

    def begin(self, now: int) -> None:
        """Start the recording at ``now`` (ns): each thread's CPU clock from then (cpu and idle modes)."""
        if self.options.mode == "cpu" or self.options.idle:
            self._last_cpu = {tid: cpu for tid in _threads_of(self.process.pid) if (cpu := thread_cpu_ns(self.process.pid, tid))}
        self._start_ns = self._last_tick_ns = now

    def finish(self, ended: str) -> RawRecording:
        """End the recording (``ended``: why) at its last tick and hand it over."""
        self.ended = ended
        self.quality.duration_ns = self._last_tick_ns - self._start_ns
        return self.raw()

    def raw(self) -> RawRecording:
        return RawRecording(
            "sampler",
            self.sink.totals,
            self._start_ns,
            self._last_tick_ns - self._start_ns,
            self.quality,
            self.sink.chart,
            pid=self.process.pid,
            argv=tuple(command_line(self.process.pid)),
        )

    def tick(self, now: int) -> None:
        """One sample of every thread at ``now`` (ns); :class:`ProcessGone` once the target has ended."""
        quality = self.quality
        try:
            stacks = self.reader.threads(gil=self.gil_only)
        except ProcessGone:
            raise
        except OSError as exc:  # the thread list moved under the read: this tick is lost, the next may do
            quality.error(f"reading the threads: {exc}")
            return
        if self.program_span:
            if not any(stack.frames for stack in stacks):
                if self._waiting_for_frames:
                    self._start_ns = self._last_tick_ns = now  # the program has not started: neither has the recording
                    return
            else:
                self._waiting_for_frames = False
                self._last_frames = (quality.ticks + 1, now)
        quality.ticks += 1
        self.last_stacks = stacks
        quality.longest_gap_ns = max(quality.longest_gap_ns, now - self._last_tick_ns)
        seen = set()
        for stack in stacks:
            seen.add(stack.thread_id)
            self._record(stack, now)
        for gone in [key for key in self._last_wall if key not in seen]:
            del self._last_wall[gone]
        self._last_tick_ns = now

    def _record(self, stack: ThreadStack, now: int) -> None:
        options, quality = self.options, self.quality
        last = self._last_wall.get(stack.thread_id)
        if last is None:
            quality.threads += 1
            last = self._last_tick_ns  # a thread seen for the first time stands for the time since the last tick
        self._last_wall[stack.thread_id] = now
        wall = now - last
        running, idle = wall, 0
        if options.mode == "cpu" or options.idle:  # the CPU time since its previous tick, sampled or not (as the engine)
            cpu = self._cpu_since_last(stack.native_id)
            if cpu is None:  # no CPU clock for it: whether the kernel has it running now stands for the gap
                on_cpu = stack.native_id is None or thread_running(self.process.pid, stack.native_id)
                cpu = wall if on_cpu else 0
            running = cpu if options.mode == "cpu" else min(cpu, wall)
            idle = wall - running if options.idle else 0
        if not stack.frames or (self.gil_only and not stack.holds_gil):
            return  # no Python frame (starting, ending, or in C code called from no Python), or not the GIL's
        if options.weight == "samples":  # one count, to whichever side had most of the interval
            running, idle = (0, 1) if idle > running else ((1, 0) if running > 0 else (0, 0))
        frames = stack.frames
        if stack.partial is not None:
            self.partial += 1
            self.first_partial = self.first_partial or stack.partial
            frames = (PARTIAL_FRAME,) + frames
        name = stack.name
        full = options.root + ((name,) if options.threads else ()) + frames
        timestamp = now - self._start_ns
        if running > 0:
            self.sink.add(full, running, timestamp, name)
            quality.samples += 1
        if idle > 0:
            self.sink.add(full + (IDLE_FRAME,), idle, timestamp, name)
            quality.samples += 1

    def _cpu_since_last(self, native_id: int | None) -> int | None:
        if native_id is None:
            return None
        cpu = thread_cpu_ns(self.process.pid, native_id)
        if cpu is None:
            return None
        spent = cpu - self._last_cpu.get(native_id, 0)
        self._last_cpu[native_id] = cpu
        return max(spent, 0)

    def problems(self) -> list[str]:
        """What the user should know about this recording beyond the sampler's own figures."""
        found = []
        if isinstance(self.reader, NativeStackReader):
            found.extend(self.reader.problems())
        if self.partial:
            found.append(
                f"{self.partial} thread samples were cut short while the program changed under the read "
                f"(under '{PARTIAL_FRAME}'; first: {self.first_partial})"
            )
        return found

    def recording(self, raw: RawRecording, process_root: bool = False) -> Recording:
        """The :class:`~..recording.Recording` of ``raw`` (what :meth:`run` returned), as ``record`` makes one:
        the target's Python and how the recording ended in its metadata, this reader's problems with the sampler's.
        ``process_root``: the process (command and pid) as the root frame."""
        return self._merged([raw], self.labels(), process_root)

    def labels(self) -> dict[str, str]:
        """What the profile's metadata says of this recording: the target's Python, how it ended, what was read."""
        labels = {"target_python": self.process.version, "attached": "pid", "ended": self.ended or "stopped"}
        if self.gil_only:
            labels["gil"] = "holder only"
        if self.partial:
            labels["partial_stacks"] = str(self.partial)
        if isinstance(self.reader, NativeStackReader):
            labels.update(self.reader.labels())
        return labels

    def _merged(self, raws: list[RawRecording], labels: dict[str, str], roots: bool) -> Recording:
        from ..recording import merge

        recording = merge(raws, self.options, labels, roots=roots)
        recording.problems.extend(self.problems())
        return recording


def thread_cpu_ns(pid: int, tid: int) -> int | None:
    """The CPU time (ns) thread ``tid`` of process ``pid`` has used, from the kernel's scheduler
    statistics (the clock a thread's own ``CLOCK_THREAD_CPUTIME_ID`` reads, which another process
    cannot ask for); None where they cannot be read (no such thread, a kernel without them)."""
    try:
        with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as file:
            return int(file.read().split(None, 1)[0])
    except (OSError, ValueError, IndexError):
        return None


def _threads_of(pid: int) -> list[int]:
    try:
        return [int(name) for name in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return []


def thread_running(pid: int, tid: int) -> bool:
    """Whether the kernel has thread ``tid`` on a CPU or ready for one (state R)."""
    try:
        with open(f"/proc/{pid}/task/{tid}/stat", "rb") as file:
            data = file.read()
    except OSError:
        return False
    return data[data.rfind(b")") + 2 :][:1] == b"R"


#: The system calls a waiting thread is most often in, by number on x86-64 (elsewhere: "syscall N").
X86_64_SYSCALLS = {
    0: "read",
    1: "write",
    7: "poll",
    17: "pread64",
    23: "select",
    34: "pause",
    35: "nanosleep",
    42: "connect",
    43: "accept",
    44: "sendto",
    45: "recvfrom",
    46: "sendmsg",
    47: "recvmsg",
    61: "wait4",
    72: "fcntl",
    73: "flock",
    128: "rt_sigtimedwait",
    130: "rt_sigsuspend",
    202: "futex",
    230: "clock_nanosleep",
    232: "epoll_wait",
    247: "waitid",
    270: "pselect6",
    271: "ppoll",
    281: "epoll_pwait",
    288: "accept4",
    299: "recvmmsg",
    441: "epoll_pwait2",
}


def waiting_in(pid: int, tid: int) -> str | None:
    """The system call a waiting thread is in (``futex``: a lock, a condition or the GIL; ``clock_nanosleep``:
    ``time.sleep``; ``epoll_wait``, ``select``, ``read``: input), from /proc/PID/task/TID/syscall; None when
    it is in none, running, or that cannot be read."""
    try:
        with open(f"/proc/{pid}/task/{tid}/syscall", "rb") as file:
            first = file.read().split(maxsplit=1)[:1]
    except OSError:
        return None
    if not first or not first[0].isdigit():
        return None  # 'running', or -1: blocked outside a system call
    number = int(first[0])
    import platform

    name = X86_64_SYSCALLS.get(number) if platform.machine() == "x86_64" else None
    return name or f"syscall {number}"


__all__ = ["PARTIAL_FRAME", "RemoteRecorder", "thread_cpu_ns", "thread_running", "waiting_in"]
