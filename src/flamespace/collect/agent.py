"""The continuous-profiling agent: the sampler runs for as long as the service does, and every
window (default 10 s) the samples of that window become one profile per label set, pushed to a
Pyroscope-compatible server (:mod:`.push`) by a thread of its own.

The sampling thread only swaps the window's tables at its end (a few dict operations); encoding
pprof, gzip and HTTP happen in the pushing thread, which the sampler leaves out of the profile.
While the server is down, at most ``queue`` windows wait (the oldest dropped first, counted);
a failed push is tried again after a doubling delay (1 s up to 30 s) or when a new window
comes, whichever is first; ``stop()`` pushes the last, partial window and what
waits, within ``flush_timeout`` seconds. Labels: :mod:`.labels`.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import deque

from .._record import Record, factory, record
from ..errors import ArgumentError
from .clock import Clock
from .engine import Engine
from .labels import RESERVED, TABLE, LabelTable
from .options import SamplerOptions
from .push import PROTOCOLS, PushError, Series, check_server, prepare, requests_of, send
from .sink import Sink

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import CodeType, FrameType
    from typing import Any, Callable
    from collections.abc import Collection, Iterable, Mapping

    from .._types import LabelSet, Number, Stack
    from .push import Request
    from .target import Target

#: The agent's sampling mode: on-CPU time where threads have CPU clocks (what Pyroscope's Python
#: clients record, ``process_cpu``: a service's idle threads do not fill it), else wall time.
DEFAULT_MODE = "cpu" if Clock.supports_thread_cpu() else "wall"
#: The longest wait between two tries of a push while the server is down, in seconds.
MAX_BACKOFF = 30.0
#: While ``stop()`` flushes, how long to wait between two tries of a failing push, in seconds.
FLUSH_RETRY = 0.5
#: Pyroscope's profile type (the ``__name__`` label) of each sampling mode.
PROFILE_TYPES = {"cpu": "process_cpu", "wall": "wall"}


@record
class AgentOptions(Record):
    """What the agent records and where it pushes.

    ``server``: the base URL (``http://127.0.0.1:4040``; ``user:password@`` in it goes as basic
    auth). ``labels``: on every profile (``service_name`` names the service: default, the
    program's name). ``window``: seconds per profile. ``rate``: samples per second. ``mode``:
    ``cpu`` or ``wall``. ``protocol``: ``connect`` (Pyroscope's push API) or ``ingest`` (the
    older ``/ingest``). ``queue``: windows kept while the server is down (60 windows of 10 s:
    10 minutes). ``retry``: seconds before a failed push is tried again, doubled at each failure
    up to 30 s (and tried again when a new window comes). ``flush_timeout``: how long ``stop()`` may spend pushing what is left.
    ``request_timeout``: seconds per HTTP request. ``token``: sent as a Bearer header.
    """

    server: str
    labels: Mapping[str, str] = factory(dict)
    window: float = 10.0
    rate: float = 100.0
    mode: str = DEFAULT_MODE
    protocol: str = "connect"
    queue: int = 60
    retry: float = 1.0
    flush_timeout: float = 5.0
    request_timeout: float = 10.0
    token: str | None = None
    lines: bool = True

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "server", check_server(self.server))
        except ValueError as exc:
            raise ArgumentError(str(exc)) from None
        problem = self._problem()
        if problem is not None:
            raise ArgumentError(problem)
        object.__setattr__(self, "labels", dict(self.labels))
        self.sampler_options()  # the sampler's own checks (rate, mode)

    def _problem(self) -> str | None:
        if not 0 < self.window < float("inf"):
            return f"the window must be a positive number of seconds, not {self.window:g}"
        if self.protocol not in PROTOCOLS:
            return f"unknown protocol {self.protocol!r}; choose one of {', '.join(PROTOCOLS)}"
        if self.queue < 1:
            return f"the queue must hold at least 1 window, not {self.queue}"
        if self.flush_timeout < 0 or self.request_timeout <= 0 or self.retry <= 0:
            return "the timeouts must be positive numbers of seconds"
        given: Iterable[tuple[object, object]] = self.labels.items()  # from callers that type-check or not
        for name, value in given:
            if not isinstance(name, str) or not name or not isinstance(value, str):
                return f"labels are non-empty names with string values, not {name!r}={value!r}"
            if name in RESERVED and name != "service_name":
                return f"the label {name!r} is the profile type, set by the agent from the mode"
        return None

    def sampler_options(self) -> SamplerOptions:
        return SamplerOptions(mode=self.mode, rate=self.rate, lines=self.lines)


@record
class AgentStats(Record):
    """What the agent did so far. ``windows``: profiles made (one a label set and window);
    ``pushed``: accepted by the server; ``dropped``: left out while the server was down (the
    queue was full: oldest first); ``rejected``: refused by the server (a 4xx: not retried);
    ``unsent``: still waiting when the agent stopped; ``failures``: requests that failed and were
    retried; ``last_error``: the last failure's message."""

    windows: int = 0
    pushed: int = 0
    dropped: int = 0
    rejected: int = 0
    unsent: int = 0
    failures: int = 0
    last_error: str | None = None


class Window:
    """One window's profiles (its label sets' totals) and when it was recorded (Unix ns)."""

    __slots__ = ("start_ns", "end_ns", "tables", "requests", "sent")

    def __init__(self, start_ns: int, end_ns: int, tables: dict[LabelSet, dict[Stack, Number]]) -> None:
        self.start_ns, self.end_ns, self.tables = start_ns, end_ns, tables
        self.requests: list[Request] | None = None  # encoded once, in the pushing thread
        self.sent = 0  # requests of it the server took (ingest sends one a label set)

    def profiles(self) -> int:
        return len(self.tables)


class LabelledSink(Sink):
    """A sink with one table of totals per label set: the engine points ``totals`` at the table
    of the thread it samples (:meth:`use`) just before it adds that thread's stack."""

    def __init__(self) -> None:
        super().__init__(timeline=False)
        self.tables: dict[LabelSet, dict[Stack, Number]] = {(): self.totals}
        self.current: LabelSet = ()

    def use(self, labels: LabelSet) -> None:
        if labels != self.current:
            self.current = labels
            table = self.tables.get(labels)
            if table is None:
                table = self.tables[labels] = {}
            self.totals = table

    def take_tables(self) -> dict[LabelSet, dict[Stack, Number]]:
        """Every label set's totals so far (the empty ones left out), starting afresh."""
        tables = {labels: totals for labels, totals in self.tables.items() if totals}
        self.totals, self.current = {}, ()
        self.tables = {(): self.totals}
        return tables


class AgentEngine(Engine):
    """The sampler with labelled totals, a window handed over every ``window`` seconds, and
    threads of its own (the pushing thread) left out of the samples."""

    sink: LabelledSink

    def __init__(
        self,
        options: SamplerOptions,
        window: float,
        on_window: Callable[[Window], None],
        table: LabelTable = TABLE,
        **engine_options: Any,
    ) -> None:
        # the engine hands each interval to _hand_over_interval, which this class makes a Window
        super().__init__(options, sink=LabelledSink(), on_interval=(window, on_window), **engine_options)  # type: ignore[arg-type]
        self.table = table
        self.on_window = on_window
        self.excluded: set[int] = set()
        self._labels_seen: dict[int, LabelSet] = {}  # each thread's labels at its last sample
        self._window_start = 0

    def begin(self) -> None:
        super().begin()
        self._window_start = time.time_ns()

    def sample(self, frames: Mapping[int, FrameType], now: int, stopping: int | None = None) -> None:
        if self.excluded:
            frames = {ident: frame for ident, frame in frames.items() if ident not in self.excluded}
        super().sample(frames, now, stopping)

    def stack_of(self, frame: FrameType | None, thread_name: str, ident: int | None = None) -> Stack | None:
        """The stack, with the sink pointed at the thread's labels; when there is no stack (the
        thread stopping the recording, charged where its previous sample saw it: see
        :meth:`Engine.sample`), at the labels of that sample."""
        stack = super().stack_of(frame, thread_name, ident)
        if ident is not None:
            if stack is not None:
                labels = self._labels_seen[ident] = self.table.of_thread(ident)
            else:
                labels = self._labels_seen.get(ident, ())
            self.sink.use(labels)
        return stack

    def _hand_over_interval(self) -> None:
        window = self.take_window()
        try:
            self.on_window(window)
        except Exception as exc:
            self.quality.error(f"handling a window: {type(exc).__name__}: {exc}")

    def take_window(self) -> Window:
        """The window since the last one, starting the next afresh."""
        with self.lock:
            tables = self.sink.take_tables()
            for ident in [i for i in self._labels_seen if i not in self._states]:
                del self._labels_seen[ident]  # ended threads
        end = time.time_ns()
        window, self._window_start = Window(self._window_start, end, tables), end
        return window


class Outbox:
    """The windows waiting to be pushed, at most ``limit`` (the one being sent among them): a new
    one pushes the oldest out, but not one on its way to the server (it may arrive)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.items: deque[Window] = deque()
        self.sending: Window | None = None
        self.changed = threading.Condition()

    def put(self, window: Window) -> list[Window]:
        """Queue ``window``; the windows it pushed out."""
        with self.changed:
            self.items.append(window)
            out = []
            while len(self.items) > self.limit:
                index = 1 if self.items[0] is self.sending else 0
                out.append(self.items[index])
                del self.items[index]
            self.changed.notify_all()
        return out


class Agent:
    """Samples this process and pushes a profile per label set and window (module docstring).

    ``on_event(message)`` hears, from the pushing thread, when the server fails, windows are
    dropped, and the server is back: the CLI writes these to stderr; the library never prints.
    ``transport(server, request, timeout, token)`` replaces HTTP (tests).
    """

    def __init__(
        self,
        options: AgentOptions,
        *,
        service: str | None = None,
        on_event: Callable[[str], None] | None = None,
        transport: Callable[[str, Request, float, str | None], None] = send,
        root_cut: Collection[CodeType] = (),
        hidden_files: Collection[str] = (),
        table: LabelTable = TABLE,
    ) -> None:
        self.options = options
        self.sampler_options = options.sampler_options()
        labels = dict(options.labels)
        labels.setdefault("service_name", service or default_service())
        self.static = labels
        self.on_event = on_event
        self.transport = transport
        self.engine = AgentEngine(
            self.sampler_options, options.window, self._window_done, table, root_cut=root_cut, hidden_files=hidden_files
        )
        self.outbox = Outbox(options.queue)
        self._stats = {"windows": 0, "pushed": 0, "dropped": 0, "rejected": 0, "failures": 0}
        self._last_error: str | None = None
        self._failing = False
        self._closing = False
        self._deadline = 0.0
        self._pusher: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------

    def start(self) -> Agent:
        if self._pusher is not None:
            raise RuntimeError("this agent is already running")
        if self._closing:
            raise RuntimeError("this agent has been stopped; an agent runs once: make a new one")
        prepare()
        self._pusher = threading.Thread(target=self._push_loop, name="flamespace-agent-push", daemon=True)
        self._pusher.start()
        assert self._pusher.ident is not None  # started
        self.engine.excluded.add(self._pusher.ident)
        self.engine.start()
        return self

    def stop(self, timeout: float | None = None) -> AgentStats:
        """Stop sampling, push the last window and what waits (within ``timeout``, default the
        options' ``flush_timeout``) and stop the pushing thread; what was done."""
        pusher = self._pusher
        if pusher is None:
            return self.stats()
        if self.engine.running:
            self.engine.halt()
            self._window_done(self.engine.take_window())
        wait = self.options.flush_timeout if timeout is None else timeout
        with self.outbox.changed:
            self._closing = True
            self._deadline = time.monotonic() + wait
            self.outbox.changed.notify_all()
        pusher.join(wait + 0.5)
        self._pusher = None
        return self.stats()

    @property
    def running(self) -> bool:
        return self._pusher is not None

    def stats(self) -> AgentStats:
        with self.outbox.changed:
            unsent = sum(w.profiles() for w in self.outbox.items)
            return AgentStats(**self._stats, unsent=unsent, last_error=self._last_error)

    def labels_of(self, window_labels: LabelSet) -> LabelSet:
        """A profile's full label set: the profile type, the static labels, the block's."""
        merged = {**self.static, **dict(window_labels), "__name__": PROFILE_TYPES[self.options.mode]}
        return tuple(sorted(merged.items()))

    # -- the sampling thread's side --------------------------------------------------------

    def _window_done(self, window: Window) -> None:
        if not window.tables:
            return
        self._stats["windows"] += window.profiles()
        out = self.outbox.put(window)
        if out:
            lost = sum(w.profiles() for w in out)
            self._stats["dropped"] += lost
            self._tell(
                f"the server is unreachable and {self.options.queue} windows wait: dropped the oldest "
                f"({lost} profile{'s' * (lost != 1)}; {self._stats['dropped']} dropped so far)"
            )

    # -- the pushing thread ----------------------------------------------------------------

    def _push_loop(self) -> None:
        delay = 0.0
        outbox = self.outbox
        while True:
            with outbox.changed:
                while not outbox.items and not self._closing:
                    outbox.changed.wait()
                if not outbox.items or (self._closing and time.monotonic() >= self._deadline):
                    return
                window = outbox.sending = outbox.items[0]
            try:
                self._push(window)
            except Exception as exc:  # a PushError, or a profile that cannot be encoded: never stop pushing
                with outbox.changed:
                    outbox.sending = None
                self._last_error = str(exc)
                if not isinstance(exc, PushError) or exc.permanent:
                    self._stats["rejected"] += window.profiles() - window.sent
                    self._tell(f"the server refused a profile, which is left out: {exc}")
                    self._remove(window)
                    continue
                self._stats["failures"] += 1
                delay = min(max(delay * 2, self.options.retry), MAX_BACKOFF)
                if not self._failing:
                    self._failing = True
                    self._tell(f"cannot push: {exc}; keeping up to {self.options.queue} windows, retrying")
                self._pause(delay)
                continue
            delay = 0.0
            self._remove(window)
            if self._failing:
                self._failing = False
                self._tell("the server is back: pushing the windows kept meanwhile")

    def _push(self, window: Window) -> None:
        if window.requests is None:
            series = [self._series(labels, totals) for labels, totals in sorted(window.tables.items())]
            window.requests = requests_of(self.options.protocol, series, window.start_ns, window.end_ns, self.options.rate)
        while window.sent < len(window.requests):
            timeout = self.options.request_timeout
            if self._closing:
                timeout = max(min(timeout, self._deadline - time.monotonic()), 0.05)
            self.transport(self.options.server, window.requests[window.sent], timeout, self.options.token)
            window.sent += 1
            if self.options.protocol == "ingest":
                self._stats["pushed"] += 1
        if self.options.protocol == "connect":
            self._stats["pushed"] += window.profiles()

    def _series(self, labels: LabelSet, totals: dict[Stack, Number]) -> Series:
        from ..core.metadata import Metadata
        from ..core.vector import FlameGraph

        full = self.labels_of(labels)
        metadata = Metadata(unit=self.sampler_options.unit, metric=self.options.mode, labels=dict(full))
        return Series(full, FlameGraph._trusted(totals, metadata))

    def _remove(self, window: Window) -> None:
        with self.outbox.changed:
            self.outbox.sending = None
            if self.outbox.items and self.outbox.items[0] is window:
                self.outbox.items.popleft()

    def _pause(self, seconds: float) -> None:
        """Wait before trying again: ``seconds``, or until a new window comes (so a server that
        is back is found within a window), or, while flushing, at most :data:`FLUSH_RETRY`."""
        with self.outbox.changed:
            if self._closing:
                seconds = min(seconds, FLUSH_RETRY, max(self._deadline - time.monotonic(), 0.0))
            self.outbox.changed.wait(seconds)

    def _tell(self, message: str) -> None:
        if self.on_event is not None:
            try:
                self.on_event(message)
            except Exception:  # a report that fails must not stop the pushes
                pass


def default_service() -> str:
    """The service's name when no ``service_name`` label gives it: the program's file name
    without ``.py`` (``python app.py`` → ``app``), else ``python``."""
    argv0 = sys.argv[0] if sys.argv else ""
    name = os.path.splitext(os.path.basename(argv0))[0]
    return name if name and name not in ("-c", "-m", "__main__") else "python"


def target_service(target: Target) -> str:
    """The service name of a program run by ``flamespace agent``: the script's name without
    ``.py``, the module's name, or ``python`` for ``-c``."""
    if target.kind == "script":
        return os.path.splitext(os.path.basename(target.value))[0] or "python"
    return target.value if target.kind == "module" else "python"


def run_program(target: Target, options: AgentOptions, on_event: Callable[[str], None] | None = None) -> tuple[int, AgentStats]:
    """Run ``target`` in this interpreter under an agent, as ``python`` would run it (argv,
    ``sys.path[0]``, ``__main__``): its exit code (130 after Ctrl-C, 143 after SIGTERM, both of
    which push the last window first) and what the agent did."""
    import signal

    from . import _bootstrap

    if target.interpreter != sys.executable or target.flags:
        raise ArgumentError(
            "flamespace agent runs the program in its own interpreter: give the script, -m or -c without an interpreter "
            "(or call flamespace.agent.start() from the program)"
        )
    from ..core.python_frames import set_program_dirs
    from .launcher import program_dirs

    set_program_dirs(program_dirs(target))  # frames name the script's files as record's do
    root_cut, hidden = _bootstrap.launcher_frames(target.kind)
    agent = Agent(options, service=target_service(target), on_event=on_event, root_cut=root_cut, hidden_files=hidden)
    import gc

    gc.freeze()  # our own objects (the CLI, its imports) out of the program's collections: +3.5% CPU otherwise
    saved_main = sys.modules["__main__"]
    sys.modules["__main__"] = type(sys)("__main__")  # the program's own, as under python
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm) if threading.current_thread() is threading.main_thread() else None
    exit_code = 0
    agent.start()
    try:
        _bootstrap._run({"kind": target.kind, "value": target.value, "args": list(target.args)})
    except SystemExit as exc:
        exit_code = _exit_code(exc.code)
    except KeyboardInterrupt:
        exit_code = 130
    except BaseException as exc:  # what python does with an uncaught exception
        tb = _bootstrap._without_our_frames(exc.__traceback__)
        sys.excepthook(type(exc), exc.with_traceback(tb), tb)
        exit_code = 1
    finally:
        stats = agent.stop()
        gc.unfreeze()
        sys.modules["__main__"] = saved_main
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return exit_code, stats


def _exit_on_sigterm(signum: int, frame: object) -> None:
    """SIGTERM (a service manager's stop) unwinds the program as ``sys.exit`` would, so the
    last window is pushed; a handler the program installs replaces this one."""
    raise SystemExit(128 + signum)


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write(f"{code}\n")  # the program's message, as python writes sys.exit("message")
    return 1


__all__ = ["DEFAULT_MODE", "Agent", "AgentOptions", "AgentStats", "LabelledSink", "Window", "run_program"]
