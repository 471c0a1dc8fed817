"""The tracer in pure Python: the fallback where the C extension ``_tracer`` is not built, and
the reference its analysis is tested against.

It offers what ``_tracer`` offers to :mod:`.tracing` (``start``, ``install_thread``, ``stop``,
``active``, ``now``; ``stop`` hands over a stream whose ``analyse`` gives the same tuples),
with the profile backend only and without ``lines``. The hook is a ``sys.setprofile``
function, 6 to 12 times the C hook's cost per event (5.6x to 10.8x cProfile's time on
fib(21), docs/performance.md), and the events stay in memory, 24 bytes each, at most
:data:`MAX_EVENTS` of them: :mod:`.tracing` says so in a warning whenever it is used.

:func:`analyse_events` is the C analysis written out in Python (``Stream.analyse`` in
``_tracer.c``): tests feed both the same events and compare every figure.
"""

from __future__ import annotations

import os
import sys
import time
from array import array

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Iterable

    Event = tuple[int, int, int]  # (t ns, kind, key)

KIND_CALL, KIND_RETURN, KIND_LINE = 0, 1, 2
#: The C tracer's chunk (the tests use it to make runs that span chunks; here nothing is chunked).
CHUNK_EVENTS = 8192
#: Events kept at most, whatever ``max_events`` says (in memory: 120 MB).
MAX_EVENTS = 5_000_000

_session: _Session | None = None


class _Session:
    def __init__(self, builtins: bool, max_events: int) -> None:
        self.builtins, self.max_events = builtins, min(max_events, MAX_EVENTS)
        self.recorded = self.dropped = self.full_at = 0
        self.entries: list[Any] = []
        self.keys: dict[Any, int] = {}
        self.threads: list[tuple[str, int]] = []
        self.events: list[array] = []  # per thread: t, kind, key, t, kind, key, ...
        self.pid = os.getpid()

    def key(self, entry: Any, token: Any) -> int:
        key = self.keys.get(token)
        if key is None:
            key = self.keys[token] = len(self.entries)
            self.entries.append(entry)
        return key

    def hook_for(self, index: int) -> Any:
        append = self.events[index].extend
        now = time.monotonic_ns

        def hook(frame: Any, event: str, arg: Any) -> None:
            t = now()
            if _session is not self:  # stopped, or another session: leave this thread
                sys.setprofile(None)
                return
            if event == "call":
                kind, key = KIND_CALL, self.key(frame.f_code, frame.f_code)
            elif event == "return":
                kind, key = KIND_RETURN, 0
            elif not self.builtins or not _is_c_function(arg):
                return
            elif event == "c_call":
                kind, key = KIND_CALL, self.key(_c_name(arg), ("c", _c_name(arg)))
            else:  # c_return, c_exception
                kind, key = KIND_RETURN, 0
            if self.full_at or self.recorded >= self.max_events or os.getpid() != self.pid:
                self.full_at = self.full_at or t
                self.dropped += 1
                return
            append((t, kind, key))
            self.recorded += 1

        return hook

    def install(self, name: str) -> int:
        import threading

        index = len(self.threads)
        self.threads.append((name, threading.get_ident()))
        self.events.append(array("q"))
        sys.setprofile(self.hook_for(index))
        return index


def _is_c_function(arg: Any) -> bool:
    return type(arg).__name__ == "builtin_function_or_method"


def _c_name(fn: Any) -> str:
    """As ``_tracer.c`` names a C function: ``type.name`` for a method, ``module.name`` else."""
    owner = getattr(fn, "__self__", None)
    if owner is not None and type(owner).__name__ != "module":
        cls = owner if isinstance(owner, type) else type(owner)
        return f"{cls.__name__}.{fn.__name__}"
    module = getattr(fn, "__module__", None)
    return f"{module}.{fn.__name__}" if module else fn.__name__


def start(
    builtins: bool, lines: bool, max_events: int, thread_name: str, path: str, backend: int = 0, keep_path: bool = False
) -> None:
    global _session
    if lines or backend:
        raise RuntimeError(
            "the pure-Python tracer has neither line times nor the monitoring and frame backends: they need the C "
            "extension flamespace.collect._tracer"
        )
    if _session is not None:
        raise RuntimeError("the tracer is already running in this process")
    if max_events <= 0:
        raise ValueError("max_events must be positive")
    if sys.getprofile() is not None:
        raise RuntimeError("another profiler or tracer (sys.setprofile, sys.settrace) is active on this thread")
    _session = _Session(builtins, max_events)
    _session.install(thread_name)


def install_thread(thread_name: str, code: Any) -> bool:
    session = _session
    if session is None:
        return False
    index = session.install(thread_name)
    if code is not None:
        session.events[index].extend((time.monotonic_ns(), KIND_CALL, session.key(code, code)))
        session.recorded += 1
    return True


def stop() -> tuple[Any, list[tuple[str, int]], list[Any], int, int, int, int, bool, int, int, int, int]:
    global _session
    session = _session
    if session is None:
        raise RuntimeError("the tracer is not running")
    t = time.monotonic_ns()
    sys.setprofile(None)  # the other threads' hooks remove themselves at their next event
    _session = None
    forked = os.getpid() != session.pid
    events = [array("q") for _ in session.threads] if forked else session.events
    return (
        _Stream(events),
        session.threads,
        session.entries,
        session.recorded,
        session.dropped,
        session.full_at or t,
        0,
        forked,
        0,
        0,
        0,
        0,
    )  # no event file: nothing the program can close


def active() -> bool:
    return _session is not None


def frame_hooked() -> bool:
    return False  # no frame backend here


def now() -> int:
    return time.monotonic_ns()


class _Stream:
    """A stopped session's events (per thread, in time order)."""

    lost = False  # in memory: the program cannot close them

    def __init__(self, events: list[array]) -> None:
        self._events = events

    def analyse(self, end_ns: int, segments: bool, max_depth: int, lines: bool) -> list[tuple[Any, ...]]:
        return [analyse_events(_triples(events), end_ns, segments, max_depth, lines) for events in self._events]

    def events(self) -> list[tuple[int, int, int, int]]:
        return [(thread, kind, key, t) for thread, events in enumerate(self._events) for t, kind, key in _triples(events)]


def _triples(flat: array) -> Any:
    """(t, kind, key) of a thread's flat array."""
    it = iter(flat)
    return zip(it, it, it)


def analyse_events(events: Iterable[Event], end_ns: int, segments: bool, max_depth: int, lines: bool) -> tuple[Any, ...]:
    """One thread's call tree, as ``Stream.analyse`` in ``_tracer.c`` computes it (see there)."""
    parents: list[int] = []
    keys: list[int] = []
    calls: list[int] = []
    inclusive: list[int] = []
    exclusive: list[int] = []
    longest: list[int] = []
    children: dict[tuple[int, int], int] = {}
    stack: list[list[int]] = []  # [node, line stat, since]
    line_index: dict[tuple[int, int], int] = {}
    line_stats: list[list[int]] = []  # [node, line, exclusive, hits]
    seg_t, seg_n, seg_w = array("q"), array("q"), array("q")
    skip = deep = 0
    last: int | None = None

    def line_stat(node: int, line: int) -> int:
        index = line_index.get((node, line))
        if index is None:
            index = line_index[(node, line)] = len(line_stats)
            line_stats.append([node, line, 0, 0])
        return index

    def advance(t: int) -> int:
        nonlocal last
        if last is None:
            last = t
            return t
        t = max(t, last)
        if stack and t > last:
            top = stack[-1]
            exclusive[top[0]] += t - last
            if top[1] >= 0:
                line_stats[top[1]][2] += t - last
            if segments:
                seg_t.append(t)
                seg_n.append(top[0])
                seg_w.append(t - last)
        last = t
        return t

    def close_top(t: int) -> None:
        node, _, since = stack.pop()
        inclusive[node] += t - since
        longest[node] = max(longest[node], t - since)

    for t, kind_bits, key in events:
        if t > end_ns:
            break
        t = advance(t)
        kind = kind_bits & 3
        if kind == KIND_CALL:
            if skip or (max_depth > 0 and len(stack) >= max_depth):
                skip += 1
                deep += 1
                continue
            parent = stack[-1][0] if stack else -1
            node = children.get((parent, key))
            if node is None:
                node = children[(parent, key)] = len(parents)
                for column, value in ((parents, parent), (keys, key), (calls, 0), (inclusive, 0), (exclusive, 0), (longest, 0)):
                    column.append(value)
            calls[node] += 1
            stack.append([node, line_stat(node, 0) if lines else -1, t])
        elif kind == KIND_RETURN:
            if skip:
                skip -= 1
            elif stack:
                close_top(t)
        elif kind == KIND_LINE and stack and not skip and keys[stack[-1][0]] == key:
            index = line_stat(stack[-1][0], kind_bits >> 2)
            line_stats[index][3] += 1
            stack[-1][1] = index
    if last is not None:
        advance(end_ns)
        while stack:
            close_top(last)
    as_bytes = (lambda a: a.tobytes()) if segments else (lambda a: None)
    return (
        parents,
        keys,
        calls,
        inclusive,
        exclusive,
        longest,
        as_bytes(seg_t),
        as_bytes(seg_n),
        as_bytes(seg_w),
        [tuple(stat) for stat in line_stats],
        deep,
    )


__all__ = ["CHUNK_EVENTS", "active", "analyse_events", "install_thread", "now", "start", "stop"]
