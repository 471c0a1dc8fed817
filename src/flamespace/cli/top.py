"""flamespace top: the costliest functions (or lines, or files) by self and inclusive value."""

from __future__ import annotations

import sys

from ..collect.options import SamplerOptions
from ..core.ranking import GROUPINGS
from . import _style
from ._console import FOLD_OPTION
from ._common import (
    INPUT_OPTIONS,
    THREAD_OPTION,
    echo_json,
    folded_library,
    format_share,
    format_value,
    pick_thread,
    read_graph,
    shown_thread,
)
from ._options import Argument, Command, Option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from ..core.vector import FlameGraph

#: What a row is (--by), as the title names it.
ROW_NAMES = {"line": "lines", "function": "functions", "file": "files"}
#: Rankings (--sort); `--by self|inclusive` is their old spelling, still accepted.
RANKINGS = ("self", "inclusive")


def run(
    input: str,
    limit: int,
    group: str,
    sort: str | None,
    raw: bool,
    as_json: bool,
    skip_invalid: bool,
    input_format: str | None,
    thread: str | None = None,
    fold_library: bool = False,
    pid: int | None = None,
    rate: float | None = None,
    idle: bool = False,
    gil: bool = False,
    duration: float | None = None,
) -> int:
    """List the functions of INPUT (default stdin) that cost the most, or watch them live in a
    running Python process (--pid).

    A function that appears twice in one stack (recursion, or two of its lines) counts once
    for that stack.

    With --pid, on a terminal: a view redrawn each second, as py-spy's top (keys 1-5 sort by
    %Own, %Total, OwnTime, TotalTime or name; space pauses, r resets, q quits); piped or
    redirected: one table of the whole run when it ends (Ctrl-C, --duration, the target's exit).
    See docs/attach.md.

    \b
    Examples:
        flamespace top profile.folded
        flamespace top --sort inclusive -n 50 profile.folded
        flamespace top --by line --raw profile.folded
        flamespace top --thread main threads.folded
        flamespace top --fold-library profile.folded
        flamespace top --pid 12345
        flamespace top --pid 12345 -d 10 > busy.txt
    """
    if group in RANKINGS:  # the old `--by self|inclusive`
        if sort is not None and sort != group:
            from ._report import UsageError

            raise UsageError(f"--by {group} (the old spelling of --sort {group}) contradicts --sort {sort}")
        sort, group = group, "function"
    by = sort or "self"
    if pid is not None:
        return _top_pid(pid, input, rate, idle, gil, duration, limit, group, by, raw, as_json, thread)
    _refuse_attach_options(rate, idle, gil, duration)
    graph = folded_library(pick_thread(read_graph(input, "top", skip_invalid, input_format), thread, input), fold_library)
    list_functions(graph, limit, group, by, raw, as_json)
    return 0


def list_functions(graph: FlameGraph, limit: int, group: str, by: str, raw: bool, as_json: bool) -> None:
    """The table (or JSON) of ``graph``'s costliest functions."""
    from ..core.ranking import top_functions
    from ..core.units import scale
    from ._table import print_table

    total = graph.total()
    ranked = top_functions(graph, limit, by, group)
    if as_json:
        echo_json(
            {
                "unit": graph.unit,
                "total": total,
                "by": by,
                "group": group,
                "thread": shown_thread(graph),
                "functions": [{"name": c.name, "self": c.self_value, "inclusive": c.inclusive_value} for c in ranked],
            }
        )
        return
    unit = graph.unit or "samples"
    shown_self = _column(unit, [c.self_value for c in ranked], raw)
    shown_incl = _column(unit, [c.inclusive_value for c in ranked], raw)
    shown_total = _column(unit, [total], raw)(total)
    if raw or not scale(unit).suffix:
        shown_total += f" {unit}"
    title = f"Top {len(ranked)} {ROW_NAMES[group]} by {by} value (total {shown_total}{_threads(graph)}{_one_thread(graph)})"
    rows = [
        [
            shown_self(c.self_value),
            format_share(c.self_value, total),
            shown_incl(c.inclusive_value),
            format_share(c.inclusive_value, total),
            c.name,
        ]
        for c in ranked
    ]
    if _style.enabled(sys.stdout):
        rows = [_coloured(row, c.self_value, c.inclusive_value, total) for row, c in zip(rows, ranked)]
    print_table(title, ["self", "self %", "inclusive", "incl %", ROW_NAMES[group][:-1]], rows, [True, True, True, True, False])


def _refuse_attach_options(rate: float | None, idle: bool, gil: bool, duration: float | None) -> None:
    from ..errors import ArgumentError

    for given, flag in ((rate is not None, "--rate"), (idle, "--idle"), (gil, "--gil"), (duration is not None, "--duration")):
        if given:
            raise ArgumentError(f"{flag} applies to --pid (watching a running process), not to a profile read from INPUT")


def _top_pid(
    pid: int,
    input: str,
    rate: float | None,
    idle: bool,
    gil: bool,
    duration: float | None,
    limit: int,
    group: str,
    by: str,
    raw: bool,
    as_json: bool,
    thread: str | None,
) -> int:
    """Watch process ``pid``: live on a terminal; else one table of the whole run when it ends (a pipe's reader
    wants one answer, not a screen a second; Ctrl-C, -d or the target's exit ends it)."""
    from ..collect import _stop_signals
    from ..errors import ArgumentError
    from ._attach import attached_recorder, run_until_stopped
    from ._common import echo
    from ._report import warn

    if input != "-":
        raise ArgumentError(f"--pid watches a running process: give no INPUT ({input}) with it")
    _stop_signals.catch()  # SIGTERM and SIGHUP stop the watch (the terminal put back), as Ctrl-C does
    live = _is_terminal(sys.stdout) and not as_json
    options = SamplerOptions(
        rate=rate if rate is not None else SamplerOptions().rate,
        idle=idle,
        threads=thread is not None,
        duration=duration,
        lines=group == "line",
    )
    try:
        recorder = attached_recorder(pid, options, gil=gil)
    except BaseException:
        _stop_signals.release()  # never watched: the handlers back, a signal noted raised again
        raise
    described = f"flamespace top: pid {pid} (Python {recorder.process.version}): {_command(pid)}"
    if live:
        from ._live_top import LiveView, Terminal, render, watch

        view = LiveView(recorder, group, thread, described)
        keys = sys.stdin.fileno() if _is_terminal(sys.stdin) else None
        with Terminal(sys.stdout, keys) as terminal:
            shown, sort = watch(view, terminal, "total" if by == "inclusive" else "own", limit)
            width, height = terminal.size()
        if recorder.quality.ticks:  # the last screen stays in the terminal's scrollback
            echo("\n".join(render(shown, width, height, sort, limit)))
    else:
        raw_recording, _signals = run_until_stopped(recorder)
    seconds = recorder.quality.duration_ns / 1e9
    if recorder.ended == "exited":
        if recorder.quality.samples == 0:
            warn(f"flamespace top: process {pid} exited before a single sample was taken")
            return 1
        warn(f"flamespace top: process {pid} exited after {seconds:.1f} s")
    if not live:
        recording = recorder.recording(raw_recording)
        for problem in recording.problems:
            warn(f"flamespace top: warning: {problem}")
        graph = pick_thread(recording.graph, thread, f"pid {pid}") if thread is not None else recording.graph
        list_functions(graph, limit, group, by, raw, as_json)
    return 0


def _is_terminal(stream: object) -> bool:
    """Whether ``stream`` is a terminal that can show the live view (not TERM=dumb)."""
    import os

    try:
        return bool(stream.isatty()) and os.environ.get("TERM") != "dumb"  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False


def _command(pid: int) -> str:
    from ..collect.remote.process import command_line

    return " ".join(command_line(pid)) or "?"


def _threads(graph: FlameGraph) -> str:
    """ ": 4 threads summed over 0.63 s" when the total sums several threads' time (not the run's length)."""
    from ._common import summed_threads

    threads = summed_threads(graph)
    if not threads:
        return ""
    duration = graph.metadata.labels.get("duration_s")
    return f": {threads} threads summed" + (f" over {duration} s" if duration else "")


def _one_thread(graph: FlameGraph) -> str:
    """ ", thread MainThread only" when --thread picked one."""
    thread = shown_thread(graph)
    return f", thread {thread} only" if thread else ""


def _coloured(row: list, self_value: float, inclusive_value: float, total: float) -> list:
    """A row with its shares coloured by size and its frame's (file:line) dimmed (cli/_style.py)."""
    from ..render.text import location_start
    from ._table import Cell

    def share(text: str, value: float) -> Cell:
        return Cell(text, _style.share_style(value / total if total else 0.0) or "")

    name = Cell(row[4], spans=[(location_start(row[4]), len(row[4]), _style.LOCATION)])
    return row[:1] + [share(row[1], self_value), row[2], share(row[3], inclusive_value), name]


def _column(unit: str, values: list[float], raw: bool) -> Callable[[float], str]:
    """How one column shows its values: times and bytes in the one scale that suits the column's
    largest value (so they line up and compare), counts and --raw exactly."""
    from ..core.units import scale

    shown = scale(unit, max(values, default=0))
    return shown.format if shown.suffix and not raw else format_value


#: Watching a running process (``top --pid``): record's options where they apply.
ATTACH_OPTIONS = (
    Option(
        ("--pid",),
        "pid",
        "int",
        None,
        metavar="PID",
        minimum=1,
        help="Watch the running Python process PID (from outside: see docs/attach.md) instead of reading INPUT.",
    ),
    Option(
        ("-r", "--rate"),
        "rate",
        "float",
        None,
        metavar="HZ",
        help=f"With --pid: samples a second (default {SamplerOptions().rate:g}, as record).",
    ),
    Option(("--idle",), "idle", "flag", help="With --pid: waiting threads' time under an '[idle]' row of its own."),
    Option(("--gil",), "gil", "flag", help="With --pid: only the thread that holds the GIL at each sample."),
    Option(
        ("-d", "--duration"),
        "duration",
        "float",
        None,
        metavar="SECONDS",
        help="With --pid: stop after this many seconds (default: at Ctrl-C, q, or the process's exit).",
    ),
)

SPEC = Command(
    "top",
    run,
    [Argument("input", default="-")],
    [
        Option(("-n", "--limit"), "limit", "int", 20, minimum=1, show_default=True, help="How many rows to list."),
        Option(
            ("--by",),
            "group",
            "choice",
            "function",
            choices=(*GROUPINGS, *RANKINGS),
            show_default=True,
            help="One row per function (line numbers dropped: 'f (app.py:12)' and 'f (app.py:30)' are one row), "
            "per line (frames as they are) or per file. Frames without a '(file:line)' suffix are rows of their own. "
            "(--by self|inclusive: the old spelling of --sort.)",
        ),
        Option(
            ("--sort",),
            "sort",
            "choice",
            None,
            choices=RANKINGS,
            help="Rank by self value (time as the leaf) or inclusive value (time anywhere in the stack).  [default: self]",
        ),
        Option(
            ("--raw",),
            "raw",
            "flag",
            help="Exact values in the profile's unit (e.g. 2,351,834,370 ns) instead of human units (2.35 s).",
        ),
        Option(("--json",), "as_json", "flag", help="Print JSON (exact values) instead of a table."),
        THREAD_OPTION,
        FOLD_OPTION,
        *INPUT_OPTIONS,
        *ATTACH_OPTIONS,
    ],
)
