"""The ``trace`` recorder: every call and return, from the C extension ``_tracer``.

The events come from a profile hook (every version), the interpreter's frame evaluation
function (3.11.4+, the default on 3.11 for Python frames: the interpreter stays specialised)
or sys.monitoring callbacks (3.12+, the default there), all in C; they stream to an unlinked
file in $TMPDIR (memory holds a chunk per thread), and ``stop()`` reads them back into a call
tree per thread, in C too.

Runs inside the traced program (like the other recorders it imports little: ``threading``
only for the profile backend, which installs its hook in new threads through it,
which the program's threads need anyway, and the C extension). ``stop()`` turns each
thread's call tree (built in C, see ``_tracer.c``) into per-stack totals named as the sampler
names frames, ``function (file:line)``, with the line where the function starts (a tracer
sees calls, not the line that runs). What the totals become is :mod:`.tracer`'s business.

Frames of the profiler itself are left out: a call of code in ``private_files`` (this module,
the launcher's bootstrap) drops its whole subtree; a call of ``root_cut`` code (the bootstrap
frames that run the program) starts the stacks afresh below it; at the root, frames of
``hidden_files`` (``runpy`` for ``-m``) are skipped, and so are C functions called by a
``root_cut`` frame or a skipped one (``exec``) or, when there are ``root_cut`` frames, by the
frame that started tracing (the bootstrap's own calls).
"""

from __future__ import annotations

import os
import sys
import time

from .naming import FrameNamer
from .raw import RawRecording

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Collection

#: Events kept at most (16 bytes each, in the event file on disk: 50 million is 800 MB; in
#: memory the tracer keeps one 128 KiB chunk per thread); later ones are counted, not kept.
DEFAULT_MAX_EVENTS = 50_000_000
#: Calls nested deeper than this are folded into their caller at this depth (their time is its
#: exclusive time), so that deep recursion cannot make stacks of quadratic size.
DEFAULT_MAX_DEPTH = 1000
#: The raw recording's kind (one of raw.KINDS).
KIND = "trace"
#: How the tracer hears of calls: "profile" (the PyEval_SetProfile hook, every version),
#: "monitoring" (sys.monitoring callbacks, PEP 669, 3.12+) or "frame" (the interpreter's frame
#: evaluation function, PEP 523, 3.11.4+; Python frames only: no builtins, no lines).
#: Which is cheaper where: docs/performance.md.
BACKENDS = ("profile", "monitoring", "frame")
#: The C tracer's number for each backend (its ``start``).
_BACKEND_NUMBERS = {"profile": 0, "monitoring": 1, "frame": 2}
#: sys.monitoring's tool id for profilers.
_TOOL = 2

_HIDDEN = None  # a node inside a dropped subtree


def available(line_times: bool = False) -> str | None:
    """None if the tracer works here, else why not (the event file's directory; ``line_times``
    needs the C extension, which the pure-Python fallback stands in for otherwise)."""
    if line_times and extension_problem() is not None:
        return f"time per line needs the C extension: {extension_problem()}"
    directory = event_directory()
    if not os.path.isdir(directory) or not os.access(directory, os.W_OK | os.X_OK):
        return f"the tracer streams its events to a file in {directory}, which is not a writable directory (set TMPDIR to one)"
    return None


def extension_problem() -> str | None:
    """None if the C extension is built, else why not (the pure-Python fallback is used)."""
    try:
        from . import _tracer  # noqa: F401
    except ImportError as exc:
        return f"the C extension flamespace.collect._tracer is not built ({exc}); reinstall flamespace with a C compiler"
    return None


def _extension() -> Any:
    """The C tracer, or its pure-Python stand-in where the extension is not built."""
    try:
        from . import _tracer
    except ImportError:
        from . import _pytracer

        return _pytracer
    return _tracer


def event_directory() -> str:
    """Where the event files go: $TMPDIR, else /tmp."""
    return os.environ.get("TMPDIR") or "/tmp"


_forks = [0]  # forks made by this process (after_in_parent), counted from the first start()


def _watch_forks() -> None:
    """Count this process's forks (os.register_at_fork cannot be undone: registered once)."""
    if not getattr(_watch_forks, "done", False):
        os.register_at_fork(after_in_parent=_count_fork)
        _watch_forks.done = True  # type: ignore[attr-defined]


def _count_fork() -> None:
    _forks[0] += 1


def backends_here() -> tuple[str, ...]:
    """The backends this interpreter has, the cheapest first (docs/performance.md). The frame
    backend needs 3.11.4+ (before, the interpreter ran a class's ``__getitem__`` without asking
    the frame evaluation function, CPython gh-104405, so those calls would be missed) and Linux
    (it pauses where a deep stack would overflow the C stack, whose bounds it asks glibc)."""
    if extension_problem() is not None:
        return ("profile",)
    version = sys.version_info
    frame = (3, 11, 4) <= version < (3, 12) and sys.platform == "linux"  # its C stack guard needs glibc's bounds
    return (*(("monitoring",) if version >= (3, 12) else ()), *(("frame",) if frame else ()), "profile")


def backend_problem(backend: str, builtins: bool = False, lines: bool = False) -> str | None:
    """None if ``backend`` works here and records what is asked, else why not."""
    if backend not in BACKENDS:
        return f"no tracer backend {backend!r}; the backends are {', '.join(BACKENDS)}"
    if backend not in backends_here():
        return (
            f"the {backend} backend is not available here (this interpreter has {', '.join(backends_here())}: "
            f"monitoring is Python 3.12+, frame 3.11.4+ on Linux, both need the C extension)"
        )
    if backend == "frame" and (builtins or lines):
        return "the frame backend sees Python frames only: builtins and line times need the profile or monitoring backend"
    return None


def default_backend(builtins: bool = False, lines: bool = False) -> str:
    """The cheapest backend here that records what is asked (the frame backend: no builtins,
    no lines)."""
    return next(name for name in backends_here() if name != "frame" or not (builtins or lines))


def _monitoring_callbacks(builtins: bool, lines: bool) -> dict[int, Any]:
    """sys.monitoring event -> the C callback of ``_tracer`` that records it."""
    _tracer = _extension()
    events = sys.monitoring.events  # type: ignore[attr-defined]  # 3.12+ (checked as 3.9 code)
    callbacks = {
        events.PY_START: _tracer.on_start,
        events.PY_RESUME: _tracer.on_start,
        events.PY_THROW: _tracer.on_start,
        events.PY_RETURN: _tracer.on_return,
        events.PY_YIELD: _tracer.on_return,
        events.PY_UNWIND: _tracer.on_return,
    }
    if builtins:
        callbacks.update(
            {events.CALL: _tracer.on_c_call, events.C_RETURN: _tracer.on_c_return, events.C_RAISE: _tracer.on_c_return}
        )
    if lines:
        callbacks[events.LINE] = _tracer.on_line
    return callbacks


def _thread_started(frame: Any, event: str, arg: Any) -> None:
    """threading's profile hook: the first event of a new thread installs the C hook there
    (recording the call it came with), or, when tracing has stopped meanwhile, removes itself."""
    _tracer = _extension()
    if not _tracer.install_thread(_thread_name(), frame.f_code if event == "call" else None):
        sys.setprofile(None)


def _clear_threading_hook() -> None:
    """Remove the profile backend's hook from threading (only where threading was imported)."""
    threading = sys.modules.get("threading")
    if threading is not None and getattr(threading, "_profile_hook", None) is _thread_started:
        threading.setprofile(None)


def _thread_name() -> str:
    """The calling thread's name, without importing ``threading`` (2-3 ms in the traced child):
    a program that has not imported it runs in its main thread."""
    threading = sys.modules.get("threading")
    return threading.current_thread().name if threading is not None else "MainThread"


def _threading_codes() -> tuple[Collection[Any], Collection[Any], Collection[Any]]:
    """threading's bootstrap code objects (every thread's stack starts there), those whose calls
    other than ``run`` are its bookkeeping, and its bookkeeping after run(); empty where the
    program never imported ``threading`` (then no thread of its ran)."""
    threading = sys.modules.get("threading")
    if threading is None:
        return (), (), ()
    thread = threading.Thread
    return (
        {thread._bootstrap.__code__, thread._bootstrap_inner.__code__},
        {thread._bootstrap_inner.__code__},
        {thread._delete.__code__},
    )


class TraceRecorder:
    """The ``trace`` :class:`~.protocol.Recorder`: every call and return of Python functions
    (and of C functions with ``builtins``) in this thread and threads started after ``start()``,
    whichever the backend (the monitoring and frame backends hear of every thread and leave
    out those that ran before)."""

    def __init__(
        self,
        builtins: bool = False,
        max_events: int = DEFAULT_MAX_EVENTS,
        threads: bool = False,
        lines: bool = True,
        chart: bool = False,
        line_times: bool = False,
        max_depth: int = DEFAULT_MAX_DEPTH,
        event_dir: str | None = None,
        hidden_files: Collection[str] = (),
        root_cut: Collection[Any] = (),
        private_files: Collection[str] = (),
        forks_traced: bool = False,
        backend: str | None = None,
        keep_event_file: bool = False,
    ) -> None:
        self.builtins, self.max_events, self.threads, self.lines, self.chart = builtins, max_events, threads, lines, chart
        self.line_times, self.max_depth, self.event_dir = line_times, max_depth, event_dir
        self.forks_traced = forks_traced
        self.keep_event_file = keep_event_file
        self.backend = backend or default_backend(builtins, line_times)
        problem = backend_problem(self.backend, builtins, line_times)
        if problem is not None:
            raise ValueError(problem)
        self._forks_before = 0
        self.hidden_files = set(hidden_files)
        self.root_cut = set(root_cut)
        self.private_files = {__file__, *private_files}
        self._start_ns = 0

    def start(self) -> TraceRecorder:
        _tracer = _extension()
        if _tracer.active():
            raise RuntimeError("the tracer is already running in this process")
        _watch_forks()
        self._forks_before = _forks[0]
        if self.backend == "monitoring":
            return self._start_monitoring()
        if self.backend == "frame":  # every thread's frames: nothing to install per thread
            self._start_ns = _tracer.now()
            _tracer.start(
                False, False, self.max_events, _thread_name(), self._event_path(), _BACKEND_NUMBERS["frame"], self.keep_event_file
            )
            return self
        import threading

        previous = getattr(threading, "_profile_hook", None)  # threading.getprofile() is 3.10+
        threading.setprofile(_thread_started)  # first: this call is not traced
        self._start_ns = _tracer.now()
        try:
            _tracer.start(
                self.builtins,
                self.line_times,
                self.max_events,
                _thread_name(),
                self._event_path(),
                _BACKEND_NUMBERS["profile"],
                self.keep_event_file,
            )
        except BaseException:
            threading.setprofile(previous)
            raise
        return self

    def _start_monitoring(self) -> TraceRecorder:
        """Start with sys.monitoring callbacks: every thread's events, no hook per thread."""
        _tracer = _extension()
        monitoring = sys.monitoring  # type: ignore[attr-defined]  # 3.12+ (checked as 3.9 code)
        try:
            monitoring.use_tool_id(_TOOL, "flamespace trace")
        except ValueError:
            raise RuntimeError(
                f"another profiler ({monitoring.get_tool(_TOOL)}) uses sys.monitoring's profiler tool id"
            ) from None
        callbacks = _monitoring_callbacks(self.builtins, self.line_times)
        try:
            self._start_ns = _tracer.now()
            _tracer.start(
                self.builtins,
                self.line_times,
                self.max_events,
                _thread_name(),
                self._event_path(),
                _BACKEND_NUMBERS["monitoring"],
                self.keep_event_file,
            )
            events = 0
            for event, callback in callbacks.items():
                monitoring.register_callback(_TOOL, event, callback)
                events |= event
            monitoring.set_events(_TOOL, events)
        except BaseException:
            self._stop_monitoring()
            if _tracer.active():
                _tracer.stop()
            raise
        return self

    def _stop_monitoring(self) -> None:
        monitoring = sys.monitoring  # type: ignore[attr-defined]  # 3.12+ (checked as 3.9 code)
        monitoring.set_events(_TOOL, 0)
        for event in _monitoring_callbacks(self.builtins, self.line_times):
            monitoring.register_callback(_TOOL, event, None)
        monitoring.free_tool_id(_TOOL)

    def stop(self) -> RawRecording:
        _tracer = _extension()
        if self.backend == "monitoring":
            self._stop_monitoring()
        _clear_threading_hook()
        (stream, threads, entries, recorded, dropped, end_ns, write_errno, forked, pauses, paused_ns, lost_at, _) = _tracer.stop()
        notes = []
        if lost_at:
            notes.append(_lost_file_note(lost_at - self._start_ns, dropped, self.keep_event_file))
        if pauses:
            notes.append(
                f"a call stack grew too deep for the frame backend's C stack {pauses:,} time"
                f"{'s' if pauses > 1 else ''}: tracing paused for {paused_ns / 1e6:,.1f} ms in all until "
                f"those calls returned, and the calls made meanwhile (in every thread) are not recorded "
                f"(their time is their callers'); the profile backend (--backend profile) traces deep "
                f"recursion without pausing"
            )
        forks = _forks[0] - self._forks_before
        if forks and not self.forks_traced and not forked:
            notes.append(
                f"the program forked {forks} child process{'es' if forks > 1 else ''} while traced: their calls "
                f"are not in this trace (trace with --subprocesses to give each its own)"
            )
        if forked:
            notes.append(
                f"this process (pid {os.getpid()}) was forked from the traced one after tracing began: its "
                f"own calls are not recorded (trace it with --subprocesses to give each forked child a trace)"
            )
        elif write_errno and not lost_at:
            notes.append(
                f"the event file could not be written ({os.strerror(write_errno)}): recording stopped "
                f"{(end_ns - self._start_ns) / 1e9:.3f} s into the trace; {dropped:,} events were dropped, "
                f"{recorded:,} kept; the profile covers the run up to that point"
            )
        if _extension().__name__.endswith("_pytracer"):
            notes.append(
                f"{extension_problem()}: traced by the pure-Python fallback, which costs about ten times "
                f"the C tracer per call and keeps the events in memory ({_tracer.MAX_EVENTS:,} at most)"
            )
        if dropped and not forked and not write_errno and not lost_at:
            notes.append(
                f"the trace reached its bound of {recorded:,} events (--max-events) and stopped recording "
                f"{(end_ns - self._start_ns) / 1e9:.3f} s in: {dropped:,} later events were dropped; the "
                f"profile covers the run up to that point"
            )
        return self._raw(stream, threads, entries, recorded, dropped, end_ns, notes)

    def _event_path(self) -> str:
        """Where the C tracer streams its events: a new file, unlinked as soon as it is open."""
        directory = self.event_dir or event_directory()
        return os.path.join(directory, f".flamespace-trace-{os.getpid()}-{time.monotonic_ns()}.events")

    def forked(self) -> TraceRecorder:
        """The recorder of a forked child: the parent's events go, tracing goes on afresh."""
        _tracer = _extension()
        if _tracer.active():
            if self.backend == "monitoring":
                self._stop_monitoring()
            _tracer.stop()  # in a child: drops the parent's events, never touches its file
        _clear_threading_hook()
        return self.start()

    def _raw(
        self,
        stream: Any,
        threads: list[tuple[str, int]],
        entries: list[Any],
        recorded: int,
        dropped: int,
        end_ns: int,
        notes: list[str],
    ) -> RawRecording:
        names = self._entry_names(entries)
        exclusive: dict[tuple[str, ...], int] = {}
        calls: dict[tuple[str, ...], int] = {}
        longest: dict[tuple[str, ...], int] = {}
        line_totals: dict[str, list[int]] = {}
        chart_parts = []
        deep = 0
        namer = FrameNamer(lines=True)
        cuts = self._cuts()
        for (name, _), analysis in zip(threads, stream.analyse(end_ns, self.chart, self.max_depth, self.line_times)):
            parents, keys, n_calls, _, n_exclusive, n_longest, times, nodes, weights, line_stats, n_deep = analysis
            deep += n_deep
            root = (name,) if self.threads else ()
            stacks = [
                stack if stack is not None and len(stack) > len(root) else None  # no frame of its own: left out
                for stack in self._stacks(parents, keys, entries, names, root, cuts)
            ]
            for node, stack in enumerate(stacks):
                if stack is None:
                    continue
                exclusive[stack] = exclusive.get(stack, 0) + n_exclusive[node]
                calls[stack] = calls.get(stack, 0) + n_calls[node]
                if n_longest[node] > longest.get(stack, -1):
                    longest[stack] = n_longest[node]
            if self.chart:
                chart_parts.append((name, stacks, times, nodes, weights))
            for node, line, ns, hits in line_stats:
                entry, stack = entries[keys[node]], stacks[node]
                if stack is None or isinstance(entry, str) or len(stack) == len(root):
                    continue  # ours, a C function, or no frame of its own (a root_cut frame)
                totals = line_totals.setdefault(namer.location(entry, line or entry.co_firstlineno), [0, 0])
                totals[0] += ns
                totals[1] += hits
        if deep:
            notes.append(
                f"{deep:,} calls nested deeper than {self.max_depth:,} frames were folded into their caller "
                f"at that depth (--max-depth)"
            )
        if stream.lost:  # the program's threads closed its descriptor between stop() and the analysis
            notes.append(_lost_file_note(None, recorded, self.keep_event_file))
        raw = RawRecording(KIND, exclusive, self._start_ns, end_ns - self._start_ns, events=recorded)
        raw.calls, raw.longest, raw.dropped = calls, longest, dropped
        raw.notes = notes
        if self.line_times:
            raw.lines = {location: (ns, hits) for location, (ns, hits) in line_totals.items()}
        if self.chart:
            raw.chart = _chart(chart_parts, self._start_ns)
        return raw

    def _entry_names(self, entries: list[Any]) -> list[str]:
        namer = FrameNamer(lines=self.lines)
        return [entry if isinstance(entry, str) else namer.location(entry, entry.co_firstlineno) for entry in entries]

    def _cuts(self) -> tuple[Collection[Any], Collection[Any], Collection[Any]]:
        """The code at which stacks start (``root_cut``, and threading's bootstrap for the backends
        that hear of a thread from its first call), the code whose calls other than ``run`` are
        threading's bookkeeping, and threading's bookkeeping after run(): for :meth:`_stacks`."""
        bootstrap, thread_starts, thread_ends = _threading_codes()
        if self.backend == "profile":  # its hook is installed by threading right before run(): nothing to cut
            bootstrap, thread_starts = (), ()
        return {*self.root_cut, *bootstrap}, thread_starts, thread_ends

    def _stacks(
        self,
        parents: list[int],
        keys: list[int],
        entries: list[Any],
        names: list[str],
        root: tuple[str, ...],
        cuts: tuple[Collection[Any], Collection[Any], Collection[Any]],
    ) -> list[tuple[str, ...] | None]:
        """The stack (root first) of every node; None inside a dropped subtree, the bare root
        for a node whose own time belongs to no frame (a ``root_cut`` frame)."""
        stacks: list[tuple[str, ...] | None] = []
        cut_nodes = set()
        private, hidden = self.private_files, self.hidden_files
        cut, thread_starts, thread_ends = cuts
        for node, (parent, key) in enumerate(zip(parents, keys)):
            base = root if parent < 0 else stacks[parent]
            if base is None:
                stacks.append(_HIDDEN)
                continue
            entry = entries[key]
            is_code = not isinstance(entry, str)
            if (
                parent >= 0 and entries[keys[parent]] in thread_starts and not (is_code and entry.co_name == "run")
            ) or entry in thread_ends:
                stacks.append(_HIDDEN)  # threading's bookkeeping around run()
            elif is_code and entry in cut:
                cut_nodes.add(node)
                stacks.append(root)
            elif is_code and entry.co_filename in private:
                stacks.append(_HIDDEN)
            elif len(base) == len(root) and (
                (is_code and entry.co_filename in hidden) or (not is_code and (parent in cut_nodes or (parent < 0 and cut)))
            ):
                if is_code:
                    cut_nodes.add(node)  # its own C calls (exec) are skipped at the root too
                stacks.append(base)  # skipped at the root: runpy's frames, the bootstrap's own C calls (exec)
            else:
                stacks.append(base + (names[key],))
        return stacks


def _lost_file_note(lost_ns: int | None, events: int, reopenable: bool) -> str:
    """What a warning says when the program closed the event file's descriptor (or gave its number
    to a file of its own) and the file could not be reopened: the trace is empty, and why."""
    when = "after tracing stopped" if lost_ns is None else f"by {lost_ns / 1e9:.3f} s into the trace"
    cause = (
        "its file could not be reopened"
        if reopenable
        else "this in-process trace keeps no name to reopen its file by (`flamespace trace` does)"
    )
    return (
        f"the program closed the tracer's event file descriptor, or gave its number to a file of its own "
        f"(os.closerange, a daemon closing its descriptors), {when}, and {cause}: its {events:,} events are "
        f"lost and the trace is empty; no file of the program's was written"
    )


def _chart(parts: list[Any], start_ns: int) -> Any:
    """A FlameChart (ns, per thread) of the stretches ``analyse`` gave, in time order.

    A trace has millions of stretches: the chart keeps the analysis' bytes and makes its
    columns with array operations where it is used (FlameChart.from_segments), never a
    Python object per stretch, and this process imports no numpy for it."""
    from array import array

    from ..core.chart import FlameChart

    stack_ids: dict[tuple[str, ...], int] = {}
    stack_list: list[tuple[str, ...]] = []
    threads: list[str] = []
    segments: list[tuple[bytes, bytes, bytes, bytes]] = []
    for name, stacks, times, nodes, weights in parts:
        threads.append(name)
        ids = array("q")  # node -> stack id; -1: no frame of its own, left out
        for stack in stacks:
            if not stack:
                ids.append(-1)
                continue
            sid = stack_ids.get(stack)
            if sid is None:
                sid = stack_ids[stack] = len(stack_list)
                stack_list.append(stack)
            ids.append(sid)
        segments.append((times or b"", nodes or b"", weights or b"", ids.tobytes()))
    return FlameChart.from_segments(stack_list, threads, segments, start_ns)


__all__ = [
    "BACKENDS",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_EVENTS",
    "KIND",
    "TraceRecorder",
    "available",
    "default_backend",
    "event_directory",
    "extension_problem",
]
