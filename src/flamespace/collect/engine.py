"""The sampling engine: a thread that reads every Python thread's stack at random times.

Intervals are drawn uniformly within :data:`JITTER` of the mean, so sampling cannot fall into
lock-step with periodic work, and they are laid on a schedule kept however late a sample came
(a sample less than one interval late does not delay the next), so the rate asked is the rate
taken wherever the sampler keeps up at all. Each sample of a thread is weighted by the time that passed since
that thread's previous sample — wall time in ``wall`` mode, the thread's own CPU time in
``cpu`` mode — so a late sample still accounts for exactly the time it stands for. The
whole gap goes to the stack the late sample sees: right when the sampler was late because
that code kept the CPU or the GIL (the common case on a busy machine), wrong by up to the
gap where the program moved to other code meanwhile; ``longest_gap_ms`` in the metadata
says how large that can be (bounding or splitting the weight did worse: docs/performance.md,
"Accuracy under CPU load").

Known bias of any in-process sampler: the sampling thread needs the GIL, so a thread
that holds the GIL in a long C call cannot be sampled until the call returns; the time is
then attributed to whatever it runs next. A thread that wants the GIL normally waits a
whole switch interval (5 ms) before it asks for it, so samples would drift to the points
where threads let the GIL go (the start of a sleep, say). The engine's sleep (``_waiter.c``)
asks for the GIL within microseconds of each due time and leaves the program's switch
interval alone otherwise; without the C extension, it lowers the switch interval for the
run instead. Late samples are counted in the quality metadata.

This module imports only what a bare interpreter has loaded anyway (``sys``, ``time``,
``threading``): it runs inside the profiled program from its first line.
Its options (:class:`~.options.SamplerOptions`, checked when made) are in :mod:`.options`,
the public API in :mod:`.sampler`; what the engine hands over,
and its :class:`~.raw.Quality`, in :mod:`.raw`.
"""

from __future__ import annotations

import sys
import threading

from ..core.python_frames import IDLE_FRAME
from .clock import Clock
from .naming import FrameNamer
from .raw import MAX_TRUSTED_MISSED_SHARE, MIN_TRUSTED_SAMPLES, Quality, RawRecording
from .sink import Sink

try:
    from _random import Random
except ImportError:  # not CPython
    from random import Random  # type: ignore[assignment]  # the Python-level subclass of the same class

try:
    from ._waiter import Waiter as _Waiter
except ImportError:  # built without a C compiler: the sampler lowers the switch interval instead
    _Waiter = None  # type: ignore[assignment,misc]  # an optional C extension: None when absent

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import CodeType, FrameType
    from typing import Callable, TypeVar
    from collections.abc import Collection, Mapping

    from ..core.vector import FlameGraph, Stack
    from .options import SamplerOptions

    E = TypeVar("E", bound="Engine")

#: With the C waiter (_waiter.c), the switch interval (µs) for the sampler's own request of
#: the GIL when a sample is due: it is taken that soon after, whatever the program runs.
#: 20 µs was no more accurate and cost a 4-thread program more (docs/performance.md).
GRAB_MICROSECONDS = 200
#: Without it, the GIL switch interval is at most this share of the mean sampling interval
#: for the whole run (and not below the floor, in seconds): a sample waits at most that long
#: for the GIL, which bounds how far samples drift to the next point where a thread releases
#: it. Lower means more accurate shares but more GIL hand-overs between a program's own
#: threads (docs/performance.md: 0.05 cost a 4-thread program 8% at 100 Hz).
SWITCH_INTERVAL_SHARE = 0.25
SWITCH_INTERVAL_FLOOR = 0.0002
#: Each interval is the mean times a uniform draw from 1 - JITTER to 1 + JITTER. A spread of a
#: whole mean interval puts the sample at an even phase of any cycle up to that long (a 10 ms
#: cycle at 100 Hz is not aliased), and its small variance keeps time weights from adding noise:
#: exponential intervals (a Poisson process) doubled the variance of a share, since each sample's
#: weight, its interval, varies as much as its mean (docs/statistics.md ("The recorder under load")).
JITTER = 0.5


class _ThreadState:
    """What the sampler knows of one thread. ``thread`` is its ``threading.Thread`` (None while
    the threading module does not list it): the sampler checks it every tick, see Engine.sample."""

    __slots__ = ("thread", "native_id", "name", "last_wall", "last_cpu", "born_since_start", "last_stack", "sampled")

    def __init__(
        self,
        thread: threading.Thread | None,
        native_id: int | None,
        name: str,
        last_wall: int,
        last_cpu: int | None,
        born_since_start: bool,
    ) -> None:
        self.thread = thread
        self.native_id = native_id
        self.name = name
        self.last_wall = last_wall
        self.last_cpu = last_cpu
        self.born_since_start = born_since_start
        self.last_stack: Stack | None = None  # where its previous sample saw it (see Engine.halt)
        self.sampled = False  # counted in Quality.threads


def listed_thread(ident: int) -> threading.Thread | None:
    """The ``threading.Thread`` of ``ident``, or None for a thread the threading module does
    not know (started with ``_thread``). A thread that has started but not yet added itself to
    ``threading._active`` (``Thread.start`` runs it first; it adds itself after
    ``_started.set()``, which can hand the GIL over) is found among the starting ones."""
    thread: threading.Thread | None = threading._active.get(ident)  # type: ignore[attr-defined]  # private, not in typeshed: no lock, no copy
    if thread is None:
        for starting in list(getattr(threading, "_limbo", ())):  # a copy: other threads change it
            if getattr(starting, "_ident", None) == ident:
                return starting
    return thread


def thread_name(ident: int) -> str:
    """What stacks call a thread with ``threads=True``: its name, or ``Thread <ident>`` for a
    thread the threading module does not know (started with ``_thread``)."""
    thread = listed_thread(ident)
    return thread.name if thread is not None else f"Thread {ident}"


class Engine:
    """Samples every Python thread of this process from a background thread.

    ``options`` say what to record (:class:`~.options.SamplerOptions`, checked when made;
    default ``SamplerOptions()``), plus ``root_cut`` (code objects at which stacks start: frames of a
    launcher below them are left out), ``hidden_files`` (files whose frames are dropped
    from the root of a stack, such as ``runpy``) and ``on_interval=(seconds, callback)``,
    which hands the flame graph of each interval to ``callback`` and starts afresh, and
    ``on_progress=(seconds, callback)``, which hands the running :class:`~.raw.Quality` and the
    elapsed ns to ``callback`` about every ``seconds`` (from the sampling thread: keep it short).
    ``clock`` and ``sample()`` let tests drive the weighting without threads or timing.
    ``bystanders_run_only``: threads that were there before ``start()``, other than the one that
    called it, count only while they run, as in cpu mode (an in-process profile: a notebook's
    history thread or a pool's idle workers only wait, and would fill a wall profile).
    """

    def __init__(
        self,
        options: SamplerOptions | None = None,
        *,
        clock: Clock | None = None,
        sink: Sink | None = None,
        namer: FrameNamer | None = None,
        root_cut: Collection[CodeType] = (),
        hidden_files: Collection[str] = (),
        on_interval: tuple[float, Callable[[FlameGraph], None]] | None = None,
        on_deadline: Callable[[], None] | None = None,
        on_progress: tuple[float, Callable[[Quality, int], None]] | None = None,
        bystanders_run_only: bool = False,
    ) -> None:
        if options is None:
            from .options import SamplerOptions

            options = SamplerOptions()
        self.options = options
        # the options the sampling loop reads, as attributes of its own (the loop's fast path)
        self.mode, self.rate, self.weight, self.idle = options.mode, options.rate, options.weight, options.idle
        self.threads, self.root, self.duration, self.seed = options.threads, options.root, options.duration, options.seed
        self.clock = clock or Clock()
        self.sink = sink or Sink(timeline=options.timeline)
        self.namer = namer or FrameNamer(lines=options.lines)
        self.root_cut = root_cut
        self.hidden_files = frozenset(hidden_files)
        self.asyncio = options.asyncio
        self._async_stacks = None
        if options.asyncio:
            from .asyncstacks import AsyncStacks

            self._async_stacks = AsyncStacks()
        self.quality = Quality()
        self.on_interval = on_interval
        self.on_deadline = on_deadline
        self.on_progress = on_progress
        self._measure_cpu = options.mode == "cpu" or options.idle
        self._bystanders_run_only = bystanders_run_only
        self._states: dict[int, _ThreadState] = {}
        self._thread: threading.Thread | None = None
        self._sleep = _Sleep.best()
        self._start_ns = self._last_tick_ns = 0
        self._starter: tuple[int, int] | None = None  # (ident, native id) of the thread that called start()
        self._past_deadline = False  # the sampler stopped at the deadline: nothing after it is recorded
        self.lock = threading.Lock()  # held while a sample is recorded; readers of the sink take it

    @property
    def root_cut(self) -> Collection[CodeType]:
        return self._root_cut

    @root_cut.setter
    def root_cut(self, codes: Collection[CodeType]) -> None:
        self._root_cut = frozenset(codes)
        # code -> True: a frame of the profiler starting or stopping (drop the tick);
        # False: a launcher frame where the program's stack begins. One lookup per frame.
        self._frame_marks = {**dict.fromkeys(self._root_cut, False), **dict.fromkeys(_STARTING_OR_STOPPING, True)}

    # -- lifecycle -----------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._thread is not None

    @property
    def start_ns(self) -> int:
        return self._start_ns

    @property
    def elapsed_ns(self) -> int:
        return self._last_tick_ns - self._start_ns

    def start(self: E) -> E:
        if self._thread is not None:
            raise RuntimeError("this sampler is already running")
        self._sleep.prepare(self.rate)
        self._starter = (threading.get_ident(), threading.get_native_id())  # begin() runs in the sampler
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,), name="flamespace-sampler", daemon=True)
        self._thread.start()
        ready.wait()  # the clock starts when the sampler runs (see _run)
        return self

    def halt(self) -> None:
        """Stop the thread (joining it unless called from it) and restore the switch interval."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        if thread is not threading.current_thread():
            self._sleep.wake()
            thread.join()
        self._sleep.finish()
        if not self._past_deadline:
            self._last_tick(thread.ident)
        self.quality.duration_ns = self.elapsed_ns
        # After a deadline the time since the last tick is in no sample: a phase that ended the
        # recording lost it. It is a gap like any other: count it, or longest_gap_ns would not
        # bound the error at that end (after a last tick, this adds nothing).
        self.quality.longest_gap_ns = max(self.quality.longest_gap_ns, self.clock.now_ns() - self._last_tick_ns)

    def _last_tick(self, sampler: int | None) -> None:
        """One more tick as the recording stops, so the time since the previous tick is in the
        profile too: without it, the phase that ended the program lost up to a whole gap, and a
        sampler that a busy machine held up for 100 ms or more (it happens at load 15 on 2 cores)
        could leave a short program's last phase all but empty (the likely cause of a 0.1 s spin
        before os._exit once reading under 0.05 s in CI). A stall that spans a whole phase still
        hides it: the time goes to the stack seen before or after, as with any gap.
        Other threads are sampled as at any tick. The thread that stops the recording sees our
        own frames: its time since its previous sample goes to the stack that sample saw,
        which is where it was unless it moved on since (by at most the gap, which
        ``longest_gap_ms`` bounds, as for any late sample)."""
        frames = None
        try:
            frames = sys._current_frames()
            frames.pop(sampler, None)  # type: ignore[arg-type]  # None is in no frames dict
            with self.lock:
                self.sample(frames, self.clock.now_ns(), stopping=threading.get_ident())
        except Exception as exc:  # never let the profiler break the program it watches
            self.quality.error(f"{type(exc).__name__}: {exc}")
        del frames

    def forked(self: E) -> E:
        """An unstarted engine with these settings and nothing recorded, for the child of a
        ``fork``: the sampling thread does not survive it, and what the parent recorded
        before it is the parent's. The child has no ``duration`` of its own."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.sink = Sink(timeline=self.sink.chart is not None)
        twin.quality = Quality()
        twin.duration = twin.on_deadline = twin.on_progress = None  # the parent's run reports its own progress
        twin._states = {}
        twin._past_deadline = False
        twin._thread = None
        twin._sleep, twin.lock = _Sleep.best(), threading.Lock()
        return twin

    def raw(self) -> RawRecording:
        """What was recorded so far, as the hand-off :func:`~.recording.merge` consumes
        (the sink's own totals and chart: take it after :meth:`halt`)."""
        sink = self.sink
        return RawRecording("sampler", sink.totals, self.start_ns, self.elapsed_ns, self.quality, sink.chart)

    def begin(self) -> None:
        """Start the clock and take each existing thread's CPU baseline (``start`` calls it)."""
        now = self.clock.now_ns()
        self._start_ns = self._last_tick_ns = now
        self._states.clear()
        for ident in sys._current_frames():
            self._states[ident] = self._new_state(ident, now, born_since_start=False)

    # -- the loop ------------------------------------------------------------------------

    def _run(self, ready: threading.Event) -> None:
        # The clock starts here, not in start(): a new thread waits for the GIL a whole
        # switch interval, and longer for a CPU on a busy machine (up to 19 ms with 4 CPU
        # hogs on 2 cores, 33 ms with 8). Started before, the first sample's weight was all of that
        # start-up, charged to wherever the program was by then (often its first sleep,
        # where it let the GIL go). start() waits, GIL released, until the clock runs.
        try:
            _leave_signals_to_other_threads()
            draw = Random(self.seed).random if self.seed is not None else Random().random
            self.begin()
        finally:
            ready.set()
        mean_ns = 1e9 / self.rate
        clock, sleep, quality = self.clock, self._sleep.wait, self.quality
        deadline = None if self.duration is None else self._start_ns + int(self.duration * 1e9)
        every_ns = None if self.on_interval is None else int(self.on_interval[0] * 1e9)
        next_interval = None if every_ns is None else self._start_ns + every_ns
        progress_ns, report = (0, None) if self.on_progress is None else (int(self.on_progress[0] * 1e9), self.on_progress[1])
        next_progress = self._start_ns
        own = threading.get_ident()
        low, spread = mean_ns * (1.0 - JITTER), mean_ns * 2.0 * JITTER
        due = clock.now_ns() + int(low + spread * draw())
        while True:
            if sleep(due - clock.now_ns()):
                break  # halt() woke us
            now = clock.now_ns()
            lateness = now - due
            if lateness > mean_ns:  # a whole interval behind: those ticks are lost, start afresh from now
                quality.late += 1
                quality.missed += int(lateness // mean_ns)
                due = now
            frames = None
            try:
                frames = sys._current_frames()
                frames.pop(own, None)
                with self.lock:
                    self.sample(frames, now)
            except Exception as exc:  # never let the profiler break the program it watches
                quality.error(f"{type(exc).__name__}: {exc}")
            del frames  # do not keep the program's frames (and their locals) alive
            if report is not None and now >= next_progress:
                next_progress = now + progress_ns
                try:
                    report(quality, now - self._start_ns)
                except Exception:  # progress is for show: the profile does not suffer, the reports stop
                    report = None
            if next_interval is not None and now >= next_interval:
                self._hand_over_interval()
                next_interval = now + every_ns  # type: ignore[operator]
            if deadline is not None and now >= deadline:
                self._past_deadline = True
                quality.duration_ns = self.elapsed_ns
                if self.on_deadline is not None:
                    self.on_deadline()
                break
            # from the due time, not from now: waking and taking the GIL cost 0.1-0.5 ms a tick even
            # on a quiet machine, and counting intervals from the late sample lost that every tick
            # (a third of the ticks at 1,000 Hz). A tick already due is taken at once.
            due += int(low + spread * draw())

    def _hand_over_interval(self) -> None:
        callback = self.on_interval[1]  # type: ignore[index]
        with self.lock:
            graph = self.sink.take()
        try:
            callback(graph)
        except Exception as exc:
            self.quality.error(f"handling a periodic profile: {type(exc).__name__}: {exc}")

    # -- one tick ------------------------------------------------------------------------

    def sample(self, frames: Mapping[int, FrameType], now: int, stopping: int | None = None) -> None:
        """Record one tick: the current frame of each thread, taken at ``now`` (ns). The thread
        ``stopping`` the recording (see :meth:`halt`) is charged where its previous sample saw it."""
        sink, states, quality = self.sink, self._states, self.quality
        timestamp = now - self._start_ns
        for ident in [i for i in states if i not in frames]:
            del states[ident]  # the thread has ended
        quality.ticks += 1
        quality.longest_gap_ns = max(quality.longest_gap_ns, now - self._last_tick_ns)
        by_count = self.weight == "samples"
        active = threading._active  # type: ignore[attr-defined]  # private, not in typeshed: no lock, no copy
        starting = getattr(threading, "_limbo", None)  # threads started and not yet in _active
        for ident, frame in frames.items():
            state = states.get(ident)
            if state is None:
                state = states[ident] = self._new_state(ident, self._last_tick_ns, born_since_start=True)
            elif active.get(ident) is not state.thread or (starting and state.thread is None):
                self._renew_state(ident, state)
            wall = now - state.last_wall
            state.last_wall = now
            bystander = self._is_bystander(ident, state)
            if self._measure_cpu or bystander:
                cpu = self._cpu_since_last(state)
                if cpu is None:
                    continue  # no CPU clock for this thread (not started through `threading`)
                running = cpu if self.mode == "cpu" or bystander else min(cpu, wall)
            else:
                running = wall
            idle = wall - running if self.idle and not bystander else 0  # options refuse idle with cpu mode
            if by_count:  # one count per sample, to whichever side had most of the interval
                running, idle = (0, 1) if idle > running else ((1, 0) if running > 0 else (0, 0))
            if running <= 0 and idle <= 0:
                continue
            stack = self.stack_of(frame, state.name, ident)
            if stack is None:
                if ident != stopping or state.last_stack is None:
                    continue  # only launcher frames: the program has not started or has ended
                stack = state.last_stack
            state.last_stack = stack
            if not state.sampled:
                state.sampled = True
                quality.threads += 1
            if running > 0:
                sink.add(stack, running, timestamp, state.name)
                quality.samples += 1
            if idle > 0:
                sink.add(stack + (IDLE_FRAME,), idle, timestamp, state.name)
                quality.samples += 1
        self._last_tick_ns = now

    def _new_state(self, ident: int, since: int, born_since_start: bool) -> _ThreadState:
        state = _ThreadState(None, None, "", since, None, born_since_start)
        self._renew_state(ident, state)
        return state

    def _renew_state(self, ident: int, state: _ThreadState) -> None:
        """Look the thread up again (name, native id, CPU baseline), keeping its wall clock.

        The sampler can see a thread before the threading module lists it (see
        :func:`listed_thread`; before it has even set its ident, in its first bytecodes).
        Known only by its ident then (``Thread <ident>``, no native id, so no CPU clock), it
        must not stay so: ``sample`` looks it up every tick until ``threading._active`` has it.
        The same check sees a new thread that took an ended one's ident between two ticks
        (pthread idents are reused at once).
        """
        thread = listed_thread(ident)
        if state.name and (thread is state.thread or thread is None):
            return  # no news; or a thread on its way out: threading has let it go, its last frames run
        native_id = getattr(thread, "native_id", None)
        # After a fork, Thread.native_id can still be the parent's: for the thread that forked
        # (the only one left), take the id it read itself, here or in start().
        if ident == threading.get_ident():
            native_id = threading.get_native_id()
        elif self._starter is not None and ident == self._starter[0]:
            native_id = self._starter[1]
        reused = state.thread is not None  # a listed thread replaced by another with its ident
        state.thread, state.name = thread, (thread.name if thread is not None else f"Thread {ident}")
        if native_id == state.native_id and not reused:
            return
        state.native_id, state.last_cpu = native_id, None
        if native_id is not None and (self._measure_cpu or self._is_bystander(ident, state)):
            # A thread there at the start is measured from now; one born since, from its birth.
            born = state.born_since_start or reused
            state.last_cpu = 0 if born else self.clock.thread_cpu_ns(native_id)

    def _is_bystander(self, ident: int, state: _ThreadState) -> bool:
        """A thread that was there before start(), not the one that called it (``bystanders_run_only``)."""
        return self._bystanders_run_only and not state.born_since_start and (self._starter is None or ident != self._starter[0])

    def _cpu_since_last(self, state: _ThreadState) -> int | None:
        if state.native_id is None:
            return None
        cpu = self.clock.thread_cpu_ns(state.native_id)
        if cpu is None:
            return None
        spent = cpu - (state.last_cpu or 0)
        state.last_cpu = cpu
        return max(spent, 0)

    def stack_of(self, frame: FrameType | None, thread_name: str, ident: int | None = None) -> Stack | None:
        """The stack of ``frame`` (of thread ``ident``), root first, as frame names under the
        configured roots (None if no frame of the program is left once the launcher's are cut)."""
        frames: list[FrameType] = []
        mark_of = self._frame_marks.get
        while frame is not None:
            mark = mark_of(frame.f_code)
            if mark is not None:
                if mark:
                    return None  # a tick that came as the profiler started or stopped: our own frames
                break
            frames.append(frame)
            frame = frame.f_back
        frames.reverse()
        if self._async_stacks is not None and ident is not None:
            frames = self._async_stacks.frames(frames, ident)
        if self.hidden_files:
            skip = 0
            while skip < len(frames) and frames[skip].f_code.co_filename in self.hidden_files:
                skip += 1
            del frames[:skip]
        if not frames:
            return None
        name = self.namer.name
        prefix = self.root + ((thread_name,) if self.threads else ())
        return prefix + tuple([name(f) for f in frames])


class SamplingRecorder(Engine):
    """The sampler as a :class:`~.protocol.Recorder` (what a profiled child runs): ``stop()``
    hands over a :class:`~.raw.RawRecording`; ``forked()`` is already recording."""

    def stop(self) -> RawRecording:
        self.halt()
        return self.raw()

    def forked(self) -> SamplingRecorder:
        return super().forked().start()


class _Sleep:
    """How the sampling thread sleeps until a sample is due, and how halt() wakes it.

    This one: a lock's timed acquire (the cheapest interruptible sleep), with the switch
    interval lowered for the whole run so the GIL comes back soon after a sample is due.
    :class:`_PunctualSleep` does better where the C extension is built.
    """

    def __init__(self) -> None:
        self._wake = threading.Lock()  # released by wake()
        self._saved: float | None = None

    @staticmethod
    def best() -> _Sleep:
        return _PunctualSleep() if _Waiter is not None else _Sleep()

    def prepare(self, rate: float) -> None:
        self._wake.acquire(blocking=False)
        self._saved = sys.getswitchinterval()
        # The sampler waits for the GIL up to one switch interval (5 ms by default): keep
        # that well under the mean sampling interval so samples are taken when due.
        sys.setswitchinterval(min(self._saved, max(SWITCH_INTERVAL_FLOOR, SWITCH_INTERVAL_SHARE / rate)))

    def wait(self, delay_ns: int) -> bool:
        """Sleep ``delay_ns``; True if woken by :meth:`wake` instead."""
        return self._wake.acquire(timeout=max(delay_ns, 0) / 1e9)

    def wake(self) -> None:
        self._wake.release()

    def finish(self) -> None:
        if self._saved is not None:
            sys.setswitchinterval(self._saved)
            self._saved = None


class _PunctualSleep(_Sleep):
    """Sleeps without the GIL and takes it back within :data:`GRAB_MICROSECONDS` of the due
    time, leaving the program's switch interval alone the rest of the time (_waiter.c)."""

    def __init__(self) -> None:
        self._waiter = _Waiter()

    def prepare(self, rate: float) -> None:
        self._waiter.reset()

    def wait(self, delay_ns: int) -> bool:
        return self._waiter.wait(delay_ns, GRAB_MICROSECONDS)

    def wake(self) -> None:
        self._waiter.stop()

    def finish(self) -> None:
        pass


_STARTING_OR_STOPPING = frozenset({Engine.start.__code__, Engine.halt.__code__})


def _leave_signals_to_other_threads() -> None:
    """Block signals in the sampling thread. A signal sent to the process goes to any thread
    that does not block it; Python runs the handler in the main thread, but only wakes it if
    the signal landed there. Landing here, a Ctrl-C or SIGTERM could wait as long as the
    main thread waits (on a lock, say)."""
    try:
        import _signal

        _signal.pthread_sigmask(_signal.SIG_BLOCK, _signal.valid_signals())
    except (ImportError, AttributeError, OSError):  # not POSIX
        pass


__all__ = ["Engine", "IDLE_FRAME", "MAX_TRUSTED_MISSED_SHARE", "MIN_TRUSTED_SAMPLES", "Quality", "SamplingRecorder"]
