"""Memory profiles from tracemalloc: ``live`` mode, the memory still allocated at exit.

Each block that is still allocated when the program ends is charged to the stack that
allocated it (bytes, or blocks with ``weight="count"``): a flame graph of what a leak
hunter wants to see. tracemalloc records file and line per frame, not the function, so
function names are recovered from the source (the innermost ``def``/``class`` around the
line); frames without source keep ``? (file:line)``.
"""

from __future__ import annotations

import os
import sys

from .._record import Record, record
from .naming import PathShortener, format_frame
from .raw import RawRecording

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable
    from collections.abc import Collection

MEMORY_MODES = ("live", "alloc")
#: The directory of flamespace's recorders: allocations made from here are the profiler's own.
OWN_DIR = os.path.dirname(os.path.abspath(__file__))
API_FILE = os.path.join(OWN_DIR, "api.py")
#: Mean bytes between two sampled allocations in ``alloc`` mode (see _alloc.c).
DEFAULT_ALLOC_INTERVAL = 256 * 1024
#: Frames kept per allocation; deeper stacks are cut at the root, under a "[truncated]" frame.
DEFAULT_MAX_FRAMES = 256
TRUNCATED_FRAME = "[truncated]"


@record
class MemoryOptions(Record):
    """``mode``: ``live`` or ``alloc``; ``weight``: ``bytes`` or ``count``; ``lines``, ``threads``
    as for sampling (memory recorders do not know threads, so ``threads`` is refused);
    ``max_frames`` per stack. ``alloc`` only: ``interval``, the mean bytes between sampled
    allocations (0 records every allocation), and ``seed`` for repeatable sampling.
    A frozen record, as :class:`~flamespace.collect.sampler.SamplerOptions`: ``replace()`` gives
    a changed copy (``collect`` seeds each run differently)."""

    mode: str = "live"
    weight: str = "bytes"
    lines: bool = True
    threads: bool = False
    max_frames: int = DEFAULT_MAX_FRAMES
    interval: int = DEFAULT_ALLOC_INTERVAL
    seed: int | None = None

    def __post_init__(self) -> None:
        from ..errors import ArgumentError

        if self.mode not in MEMORY_MODES:
            raise ArgumentError(f"unknown memory mode {self.mode!r}; available: {', '.join(MEMORY_MODES)}")
        if self.weight not in ("bytes", "count"):
            raise ArgumentError(f"the memory modes weigh by bytes or count (sampling by time or samples), not {self.weight!r}")
        if self.threads:
            raise ArgumentError("tracemalloc does not record threads: --threads works with the sampling modes only")
        if not 1 <= self.max_frames <= 65535:
            raise ArgumentError(f"max_frames must be between 1 and 65535, not {self.max_frames}")
        if self.interval < 0:
            raise ArgumentError(f"the allocation sampling interval must be 0 or more bytes, not {self.interval}")

    def engine_arguments(self) -> dict[str, Any]:
        """The recorder's arguments (see :func:`~._bootstrap.start_recorder`)."""
        arguments: dict[str, Any] = {"weight": self.weight, "lines": self.lines, "max_frames": self.max_frames}
        if self.mode == "alloc":
            arguments.update(interval=self.interval, seed=self.seed)
        return arguments


class MemoryRecorder:
    """The ``live`` :class:`~.protocol.Recorder`: starts tracemalloc; ``stop()`` takes the
    snapshot of what is still allocated."""

    def __init__(
        self,
        mode: str = "live",
        weight: str = "bytes",
        lines: bool = True,
        max_frames: int = DEFAULT_MAX_FRAMES,
        hidden_files: Collection[str] = (),
    ) -> None:
        self.mode, self.weight, self.lines, self.max_frames = mode, weight, lines, max_frames
        self.hidden_files = set(hidden_files)
        self.totals: dict[tuple[str, ...], int] = {}
        self._started_tracing = False
        self._start_ns = 0
        self._elapsed_ns = 0
        self._blocks = 0

    def start(self) -> MemoryRecorder:
        import time

        import _tracemalloc  # the C module: `tracemalloc` would import pickle, re, fnmatch first

        if _tracemalloc.is_tracing():
            raise RuntimeError("tracemalloc is already tracing (PYTHONTRACEMALLOC or another tool)")
        self._start_ns = time.monotonic_ns()
        _tracemalloc.start(self.max_frames)
        self._started_tracing = True
        return self

    def stop(self) -> RawRecording:
        if self._started_tracing:
            self._snapshot()
        return RawRecording(self.mode, self.totals, self._start_ns, self._elapsed_ns, events=self._blocks)

    def _snapshot(self) -> None:
        import time

        import _tracemalloc

        # What tracemalloc.take_snapshot() does, but with tracing stopped before `tracemalloc`
        # is imported: its imports (pickle, fnmatch, linecache, ...) are ours, not the program's.
        traces, limit = _tracemalloc._get_traces(), _tracemalloc.get_traceback_limit()
        _tracemalloc.stop()  # frees tracemalloc's tables before we build ours
        self._started_tracing = False
        self._elapsed_ns = time.monotonic_ns() - self._start_ns
        import tracemalloc

        snapshot = tracemalloc.Snapshot(traces, limit)
        namer = _LineNamer(self.lines)
        by_count = self.weight == "count"
        for trace in snapshot.traces:
            frames = [f for f in trace.traceback]  # oldest first
            stack = program_stack(frames, _filename, lambda f: namer(f.filename, f.lineno), self.hidden_files)
            if stack is None:
                continue  # allocated by the profiler itself
            if (trace.traceback.total_nframe or 0) > len(frames):
                stack = (TRUNCATED_FRAME,) + stack
            self.totals[stack] = self.totals.get(stack, 0) + (1 if by_count else trace.size)
            self._blocks += 1

    def forked(self) -> MemoryRecorder:
        """The recorder of a forked child: tracemalloc goes on tracing there, and what is
        still allocated when the child exits (inherited blocks included) is the child's."""
        return self


def program_stack(
    frames: list[Any], filename_of: Callable[[Any], str], name_of: Callable[[Any], str], hidden: Collection[str]
) -> tuple[str, ...] | None:
    """Frame names of an allocation's stack (``frames`` root first), without the launcher's
    frames at the root; None if flamespace allocated it (a frame of ours above the root)."""
    files = [filename_of(f) for f in frames]
    if API_FILE in files:  # the decorator's wrapper: not the program's, not an allocation of ours
        frames = [f for f, file in zip(frames, files) if file != API_FILE]
        files = [file for file in files if file != API_FILE]
    start = 0
    while start < len(files) and (
        files[start] in hidden
        or os.path.dirname(files[start]) == OWN_DIR
        or (start == 0 and files[start] == "<string>")  # the launcher's -c line
    ):
        start += 1
    if start == len(files) and files:
        return None
    if any(os.path.dirname(f) == OWN_DIR for f in files[start:]):
        return None
    return tuple(name_of(f) for f in frames[start:])


def _filename(frame: Any) -> str:
    return frame.filename


class _LineNamer:
    """``function (file:line)`` from a file name and line, finding the function in the source."""

    def __init__(self, lines: bool) -> None:
        self.lines = lines
        self.shorten = PathShortener()
        self._functions: dict[str, list[tuple[int, int, str]]] = {}
        self._names: dict[tuple[str, int], str] = {}

    def __call__(self, filename: str, line: int) -> str:
        key = (filename, line)
        name = self._names.get(key)
        if name is None:
            name = self._names[key] = format_frame(
                self._function_at(filename, line), self.shorten(filename), line if self.lines else None
            )
        return name

    def _function_at(self, filename: str, line: int) -> str:
        ranges = self._functions.get(filename)
        if ranges is None:
            ranges = self._functions[filename] = _function_ranges(filename)
        best = None
        for first, last, qualname in ranges:  # innermost = latest start among those around the line
            if first <= line <= last and (best is None or first >= best[0]):
                best = (first, qualname)
        if best is not None:
            return best[1]
        return "<module>" if ranges or _has_source(filename) else "?"


def _has_source(filename: str) -> bool:
    import linecache

    return bool(linecache.getlines(filename))


def _function_ranges(filename: str) -> list[tuple[int, int, str]]:
    """(first line, last line, qualified name) of every function and class in a source file."""
    import ast
    import linecache

    source = "".join(linecache.getlines(filename))
    if not source:
        return _code_ranges(filename)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found: list[tuple[int, int, str]] = []
    todo: list[tuple[ast.AST, str]] = [(tree, "")]
    while todo:
        node, prefix = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qualname = prefix + child.name
                # The body only: the def line and decorators run in the enclosing scope.
                first = child.body[0].lineno if child.body else child.lineno
                found.append((first, child.end_lineno or child.lineno, qualname))
                inner = qualname + (".<locals>." if not isinstance(child, ast.ClassDef) else ".")
                todo.append((child, inner))
            else:
                todo.append((child, prefix))
    return found


def _code_ranges(filename: str) -> list[tuple[int, int, str]]:
    """Ranges from the code objects of a loaded module without source (``<frozen importlib._bootstrap>``)."""
    module_name = filename[len("<frozen ") : -1] if filename.startswith("<frozen ") else None
    module = sys.modules.get(module_name or "")
    if module is None:
        return []
    found: list[tuple[int, int, str]] = []
    seen = set()
    todo = [value for value in vars(module).values()]
    while todo:
        value = todo.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, type) and getattr(value, "__module__", None) == module.__name__:
            todo.extend(vars(value).values())
            continue
        code = getattr(getattr(value, "__func__", value), "__code__", None)
        if code is None or code.co_filename != filename:
            continue
        lines = [line for _, _, line in code.co_lines() if line]
        found.append((code.co_firstlineno, max(lines, default=code.co_firstlineno), getattr(code, "co_qualname", code.co_name)))
    return found


__all__ = ["MEMORY_MODES", "MemoryOptions", "MemoryRecorder"]
