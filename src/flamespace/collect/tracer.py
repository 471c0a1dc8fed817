"""Deterministic tracing: exact call counts and exact times per full stack, from every call
and return (``flamespace trace``, ``with flamespace.trace() as t:``).

Sampling shows where time goes but not how often functions run; cProfile counts calls but
keeps only caller-callee pairs, so a flame graph drawn from it guesses the paths. The tracer
(:mod:`.tracing`, over the C hook of ``_tracer.c``) keeps the full path of every call. Times
are integer nanoseconds, summed as integers: per stack, inclusive = exclusive + the callees'
inclusive holds exactly.

:class:`Trace` is what a traced run gives: the flame graph of exclusive time per stack
(``graph``), the call counts per stack (``calls``), the longest single call per stack, a
flame chart per thread when asked (``chart``), and the per-function :meth:`Trace.table`.
"""

from __future__ import annotations

import os

from .._record import Record, record
from .trace_engine import DEFAULT_MAX_DEPTH, DEFAULT_MAX_EVENTS, KIND

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, TextIO, TypeVar
    from collections.abc import Mapping, Sequence

    from ..core.chart import FlameChart
    from ..core.vector import FlameGraph
    from .._types import Stack
    from .raw import RawRecording

    F = TypeVar("F", bound=Callable[..., Any])

#: The per-function table's formats (``write_table``).
TABLE_FORMATS = ("text", "csv", "json")
#: What a traced run's flame graph weighs (``TraceOptions.weight``): exclusive ns, or calls.
WEIGHTS = ("time", "calls")
#: The most events and the deepest depth the tracer can count (its C counters are 64-bit integers).
MAX_COUNT = 2**63 - 1


@record
class TraceOptions(Record):
    """``builtins``: trace C functions (``len``, ``list.append``) too; ``max_events``: keep at
    most this many events (16 bytes each, streamed to a file on disk), then count the rest as
    dropped; ``threads``: each thread's name as a root frame; ``lines``: name frames
    ``function (file:line)`` with the line where the function starts (else ``function
    (file)``); ``chart``: keep the time order (a flame chart per thread, for speedscope and
    Chrome traces); ``line_times``: exclusive time per source line too (``Trace.lines``; it
    costs more: every line is an event); ``max_depth``: calls nested deeper are folded into
    their caller at that depth; ``weight``: what the run's flame graph weighs, exclusive ``time``
    (ns) or ``calls`` (exact counts: what ``collect --tracer`` compares across runs);
    ``backend``: how the tracer hears of calls (``trace_engine.BACKENDS``; None: the cheapest here
    that records what is asked)."""

    builtins: bool = False
    max_events: int = DEFAULT_MAX_EVENTS
    threads: bool = False
    lines: bool = True
    chart: bool = False
    line_times: bool = False
    max_depth: int = DEFAULT_MAX_DEPTH
    weight: str = "time"
    backend: str | None = None

    #: What the launcher calls this recorder (``_bootstrap.start_recorder``'s kind).
    mode = KIND

    def __post_init__(self) -> None:
        from ..errors import ArgumentError

        for name in ("max_events", "max_depth"):
            if not 1 <= getattr(self, name) <= MAX_COUNT:
                raise ArgumentError(
                    f"{name} must be between 1 and {MAX_COUNT:,} (the tracer counts in 64 bits), not {getattr(self, name)}"
                )
        if self.weight not in WEIGHTS:
            raise ArgumentError(f"a trace weighs {' or '.join(WEIGHTS)}, not {self.weight!r}")
        if self.backend is not None:
            from .trace_engine import backend_problem

            problem = backend_problem(self.backend, self.builtins, self.line_times)
            if problem is not None:
                raise ArgumentError(problem)

    def engine_arguments(self) -> dict[str, Any]:
        """The recorder's arguments (see :func:`~._bootstrap.start_recorder`)."""
        return {
            "builtins": self.builtins,
            "max_events": self.max_events,
            "threads": self.threads,
            "lines": self.lines,
            "chart": self.chart,
            "line_times": self.line_times,
            "max_depth": self.max_depth,
            "backend": self.backend,
        }


@record
class FunctionRow(Record):
    """One function of the table: ``calls`` (every call, recursive ones too), ``primitive``
    (calls not made from inside another call of the same function), ``inclusive`` ns (counted
    once per stack: a recursive call's time is inside its outermost call's), ``exclusive`` ns,
    ``mean`` ns (inclusive / primitive, as cProfile's cumulative per call) and ``longest`` ns
    (the longest single call)."""

    function: str
    calls: int
    primitive: int
    inclusive: int
    exclusive: int
    mean: int
    longest: int


class Trace:
    """What a traced run gives (see the module's docstring); ``problems`` says what to distrust."""

    def __init__(
        self,
        graph: FlameGraph,
        calls: FlameGraph,
        longest: Mapping[Stack, int],
        chart: FlameChart | None = None,
        events: int = 0,
        dropped: int = 0,
        problems: list[str] | None = None,
        lines: Mapping[str, tuple[int, int]] | None = None,
    ) -> None:
        self.graph, self.calls, self.longest, self.chart = graph, calls, dict(longest), chart
        self.events, self.dropped = events, dropped
        self.problems = problems or []
        #: With ``line_times``: (exclusive ns, hits) per source line, ``function (file:line)``.
        self.lines = dict(lines) if lines is not None else None

    def inclusive(self) -> dict[Stack, int]:
        """Inclusive ns per stack: its exclusive time plus that of every stack below it."""
        exclusive = dict(self.graph.items())
        totals: dict[Stack, int] = dict.fromkeys(dict(self.calls.items()), 0)
        for stack, value in exclusive.items():
            for depth in range(1, len(stack) + 1):
                prefix = stack[:depth]
                totals[prefix] = totals.get(prefix, 0) + int(value)
        return totals

    def table(self) -> list[FunctionRow]:
        """One row per function (its frame name), by inclusive time, longest first."""
        exclusive = dict(self.graph.items())
        inclusive = self.inclusive()
        rows: dict[str, list[int]] = {}  # calls, primitive, inclusive, exclusive, longest
        for stack, count in dict(self.calls.items()).items():
            function = stack[-1]
            row = rows.setdefault(function, [0, 0, 0, 0, 0])
            row[0] += int(count)
            row[3] += int(exclusive.get(stack, 0))
            if function not in stack[:-1]:  # the outermost call of it on this path
                row[1] += int(count)
                row[2] += inclusive.get(stack, 0)
            row[4] = max(row[4], self.longest.get(stack, 0))
        table = [
            FunctionRow(function, calls, primitive, incl, excl, round(incl / primitive) if primitive else 0, longest)
            for function, (calls, primitive, incl, excl, longest) in rows.items()
        ]
        table.sort(key=lambda r: (-r.inclusive, r.function))
        return table

    def __repr__(self) -> str:
        return (
            f"Trace({int(self.calls.total()):,} calls, {len(self.calls)} stacks, {self.events:,} events"
            f"{f', {self.dropped:,} dropped' if self.dropped else ''})"
        )


def merge_traces(raws: Sequence[RawRecording], labels: Mapping[str, str], roots: Sequence[str] | None = None) -> Trace:
    """One Trace from the raw recordings of a traced run's processes; ``roots``: a root frame per
    raw recording (``recording.process_frame``), or None for none."""
    from ..core.metadata import Metadata
    from ..core.vector import FlameGraph

    exclusive: dict[Stack, int] = {}
    calls: dict[Stack, int] = {}
    longest: dict[Stack, int] = {}
    chart = None
    lines: dict[str, tuple[int, int]] | None = None
    notes: list[str] = []
    first_start = min(raw.start_ns for raw in raws)
    for index, raw in enumerate(raws):
        root = (roots[index],) if roots else ()
        for stack, value in raw.totals.items():
            exclusive[root + stack] = exclusive.get(root + stack, 0) + int(value)
        for stack, count in (raw.calls or {}).items():
            calls[root + stack] = calls.get(root + stack, 0) + count
        for stack, ns in (raw.longest or {}).items():
            longest[root + stack] = max(longest.get(root + stack, 0), ns)
        if raw.lines is not None:
            lines = {} if lines is None else lines
            for location, (ns, hits) in raw.lines.items():
                old = lines.get(location, (0, 0))
                lines[location] = (old[0] + ns, old[1] + hits)
        notes.extend(f"{roots[index]}: {note}" if roots else note for note in raw.notes or ())
        if raw.chart is not None:
            part = raw.chart
            if roots:
                part = part.relabelled(raw.start_ns - first_start, root, f" ({raw.pid})")
            chart = part if chart is None else chart.merged(part)
    events, dropped = sum(raw.events for raw in raws), sum(raw.dropped for raw in raws)
    elapsed = max(raw.start_ns - first_start + raw.elapsed_ns for raw in raws)
    fields = _labels(events, dropped, elapsed, int(sum(calls.values())), labels, len(raws))
    metadata = Metadata(unit="ns", metric="trace", labels=fields)
    graph = FlameGraph._trusted({k: v for k, v in exclusive.items() if v > 0}, metadata)
    call_graph = FlameGraph._trusted(
        {k: v for k, v in calls.items() if v > 0}, Metadata(unit="count", metric="calls", labels=fields)
    )
    if chart is not None:
        chart.metadata = metadata
    return Trace(graph, call_graph, longest, chart, events, dropped, notes, lines)


def _labels(events: int, dropped: int, elapsed_ns: int, calls: int, labels: Mapping[str, str], processes: int) -> dict[str, str]:
    from .._version import __version__, platform_labels

    fields = {
        "profiler": f"flamespace {__version__}",
        "mode": "trace",
        "weight": "time",
        "calls": str(calls),
        "events": str(events),
        "dropped_events": str(dropped),
        "duration_s": f"{elapsed_ns / 1e9:.3f}",
        **platform_labels(),
    }
    if processes > 1:
        fields["processes"] = str(processes)
    fields.update(labels)
    return fields


def write_table(rows: Sequence[FunctionRow], stream: TextIO, format: str = "text") -> None:
    """The function table as aligned text (times in human units), CSV or JSON (integer ns)."""
    fields = ("function", "calls", "primitive", "inclusive", "exclusive", "mean", "longest")
    _write_rows(fields, [[getattr(row, name) for name in fields] for row in rows], stream, format)


@record
class LineRow(Record):
    """One source line (``line_times``): ``line`` as ``function (file:line)``, the times it
    started to run (``hits``) and the ``exclusive`` ns spent on it (its callees' time not included)."""

    line: str
    hits: int
    exclusive: int


def line_table(lines: Mapping[str, tuple[int, int]]) -> list[LineRow]:
    """The lines of a trace (``Trace.lines``), most exclusive time first."""
    rows = [LineRow(location, hits, ns) for location, (ns, hits) in lines.items()]
    rows.sort(key=lambda r: (-r.exclusive, r.line))
    return rows


def write_lines(rows: Sequence[LineRow], stream: TextIO, format: str = "text") -> None:
    """The line table as aligned text (times in human units), CSV or JSON (integer ns)."""
    _write_rows(("line", "hits", "exclusive"), [[row.line, row.hits, row.exclusive] for row in rows], stream, format)


def _write_rows(fields: Sequence[str], rows: Sequence[Sequence[Any]], stream: TextIO, format: str) -> None:
    """A table whose first field names the row, then counts (``calls``, ``primitive``,
    ``hits``) and ns: text (the name last, times in human units), CSV (``*_ns`` headers), JSON."""
    from ..errors import ArgumentError

    counts = ("calls", "primitive", "hits")
    if format == "csv":
        import csv

        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow([name if i == 0 or name in counts else f"{name}_ns" for i, name in enumerate(fields)])
        writer.writerows(rows)
    elif format == "json":
        import json

        key = "functions" if fields[0] == "function" else "lines"
        json.dump({"unit": "ns", key: [dict(zip(fields, row)) for row in rows]}, stream, indent=1)
        stream.write("\n")
    elif format == "text":
        header = (*fields[1:], fields[0])
        lines = [header] + [
            (*(f"{v:,}" if name in counts else _duration(v) for name, v in zip(fields[1:], row[1:])), row[0]) for row in rows
        ]
        widths = [max(len(line[i]) for line in lines) for i in range(len(header) - 1)]
        for line in lines:
            stream.write("  ".join(cell.rjust(width) for cell, width in zip(line, widths)) + "  " + line[-1] + "\n")
    else:
        raise ArgumentError(f"unknown table format {format!r}; available: {', '.join(TABLE_FORMATS)}")


def _duration(ns: int) -> str:
    """``ns`` in a unit a person reads: 812 ns, 3.41 µs, 12.0 ms, 2.50 s."""
    for unit, size in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= size:
            value = ns / size
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{ns} ns"


class Tracer:
    """``with flamespace.trace() as t:`` (or ``@flamespace.trace()`` on a function): traces the block
    (this thread and the threads started in it); afterwards ``t.graph()``, ``t.calls()``,
    ``t.table()``, ``t.chart()`` (with ``chart=True``) and ``t.tree()`` (the short tree, in human units). Code that ran in the block outside any call (the block's own lines) is
    in no frame; the threads that ran before the block are not traced."""

    def __init__(self, options: TraceOptions) -> None:
        self.options = options
        self.result: Trace | None = None
        self._recorder: Any = None

    def __enter__(self) -> Tracer:
        from ..errors import ArgumentError
        from .trace_engine import TraceRecorder, available

        problem = available(self.options.line_times)
        if problem is not None:
            raise ArgumentError(f"cannot trace: {problem}")
        if self._recorder is not None:
            raise ArgumentError("this tracer is already running")
        self._recorder = TraceRecorder(**self.options.engine_arguments(), private_files=[__file__]).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        recorder, self._recorder = self._recorder, None
        raw = recorder.stop()
        raw.pid = os.getpid()
        self.result = merge_traces([raw], {})

    def _done(self) -> Trace:
        from ..errors import ArgumentError

        if self.result is None:
            raise ArgumentError("the trace is not finished: use the results after the with block")
        return self.result

    def graph(self) -> FlameGraph:
        """Exclusive ns per full stack."""
        return self._done().graph

    def calls(self) -> FlameGraph:
        """Calls per full stack."""
        return self._done().calls

    def table(self) -> list[FunctionRow]:
        """The per-function table (see :class:`FunctionRow`)."""
        return self._done().table()

    def chart(self) -> FlameChart | None:
        """The flame chart per thread (time order), if traced with ``chart=True``."""
        return self._done().chart

    def lines(self) -> list[LineRow]:
        """Exclusive time per source line (see :class:`LineRow`), if traced with ``line_times=True``."""
        from ..errors import ArgumentError

        found = self._done().lines
        if found is None:
            raise ArgumentError("no time per line: trace with line_times=True")
        return line_table(found)

    @property
    def problems(self) -> list[str]:
        """Reasons not to trust the trace (events dropped at ``max_events``, ...)."""
        return self._done().problems

    def tree(self, min_share: float | None = None, show_all: bool = False, thread: str = "auto") -> str:
        """The short tree of the trace's time, as ``flamespace record`` prints it (render/console.py):
        library code folded into the program's frames unless ``show_all``, calls below ``min_share``
        (default 2%) folded into their caller, one thread when the others only waited."""
        from ..core.display import text

        return text(self.graph(), **_tree_options(min_share, show_all, thread))

    def _repr_html_(self) -> str | None:
        """In a notebook: the trace's flame graph in the viewer (core/display.py)."""
        from ..core.display import html

        return html(self.graph()) if self.result is not None else None

    def __call__(self, function: F) -> F:
        """As a decorator: trace each call of ``function`` (the results are the last call's)."""
        import functools

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if self._recorder is not None:  # a nested or recursive call: the outer one traces it
                return function(*args, **kwargs)
            with self:
                return function(*args, **kwargs)

        wrapper.tracer = self  # type: ignore[attr-defined]  # a function attribute
        return wrapper  # type: ignore[return-value]  # wraps keeps the signature, which mypy cannot see


def _tree_options(min_share: float | None, show_all: bool, thread: str) -> dict[str, Any]:
    """The short tree's options as ``render.console.ConsoleOptions`` takes them (its default share when None)."""
    options: dict[str, Any] = {"show_all": show_all, "thread": thread}
    if min_share is not None:
        options["min_share"] = min_share
    return options


def trace(
    builtins: bool = False,
    max_events: int = DEFAULT_MAX_EVENTS,
    threads: bool = False,
    lines: bool = True,
    chart: bool = False,
    line_times: bool = False,
    max_depth: int = DEFAULT_MAX_DEPTH,
    backend: str | None = None,
) -> Tracer:
    """A :class:`Tracer` for a ``with`` block (arguments: :class:`TraceOptions`)."""
    return Tracer(
        TraceOptions(
            builtins=builtins,
            max_events=max_events,
            threads=threads,
            lines=lines,
            chart=chart,
            line_times=line_times,
            max_depth=max_depth,
            backend=backend,
        )
    )


#: Output formats of ``flamespace trace`` and the file endings that choose them (longest match first).
OUTPUT_FORMATS = {
    "folded": (".folded", ".folded.gz"),
    "calls": (".calls.folded",),
    "text": (".txt",),
    "csv": (".csv",),
    "json": (".json",),
    "speedscope": (".speedscope.json",),
    "chrome": (".trace.json", ".perfetto.json", ".trace"),
    "lines": (".lines.txt",),
    "lines-csv": (".lines.csv",),
    "lines-json": (".lines.json",),
}
#: The formats that need the time order (``TraceOptions.chart``).
CHART_FORMATS = ("speedscope", "chrome")
#: The formats of the line table (``TraceOptions.line_times``): text, CSV, JSON.
LINE_FORMATS = {"lines": "text", "lines-csv": "csv", "lines-json": "json"}


def write_trace(result: Trace, output: str | os.PathLike[str], format: str, header: bool = True) -> None:
    """Write ``result`` to ``output`` ('-': stdout) in one of :data:`OUTPUT_FORMATS`."""
    from ..errors import ArgumentError
    from ..formats import registry
    from ..formats._io import open_output

    if format in TABLE_FORMATS:
        with open_output(output) as stream:
            write_table(result.table(), stream, format)
    elif format in LINE_FORMATS:
        if result.lines is None:
            raise ArgumentError(f"{format} output needs the time per line: trace with --lines (line_times=True)")
        with open_output(output) as stream:
            write_lines(line_table(result.lines), stream, LINE_FORMATS[format])
    elif format in ("folded", "calls"):
        registry.write(result.graph if format == "folded" else result.calls, output, "folded", header=header)
    elif format in CHART_FORMATS:
        if result.chart is None:
            raise ArgumentError(f"{format} output needs the time order: trace with chart=True")
        registry.write(result.chart, output, format)
    else:
        raise ArgumentError(f"unknown trace output format {format!r}; available: {', '.join(OUTPUT_FORMATS)}")


__all__ = [
    "CHART_FORMATS",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_EVENTS",
    "FunctionRow",
    "LINE_FORMATS",
    "LineRow",
    "OUTPUT_FORMATS",
    "TABLE_FORMATS",
    "WEIGHTS",
    "Trace",
    "TraceOptions",
    "Tracer",
    "line_table",
    "merge_traces",
    "trace",
    "write_lines",
    "write_table",
    "write_trace",
]
