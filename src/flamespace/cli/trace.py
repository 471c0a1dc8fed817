"""flamespace trace: run a Python program under the deterministic tracer."""

from __future__ import annotations

import os
import sys
import time

from ..collect.tracer import DEFAULT_MAX_DEPTH, DEFAULT_MAX_EVENTS, OUTPUT_FORMATS
from ..collect.trace_engine import BACKENDS
from ._options import Argument, Command, Option
from ._report import warn


_FORMAT_HELP = (
    "folded: exclusive ns per full stack; calls: calls per full stack (folded); text, csv, json: the "
    "per-function table (calls, inclusive, exclusive, mean, longest); speedscope: evented JSON, a flame "
    "chart per thread; chrome: Trace Event JSON (Perfetto); lines, lines-csv, lines-json: exclusive time per "
    "source line (implies --lines); html: a report page (flame graph, functions, flame chart). Default: from "
    "OUTPUT's ending, else folded."
)
#: The trace's outputs: the collector's and the HTML report (rendered here: collect does not import render).
FORMATS = {**OUTPUT_FORMATS, "html": (".html", ".htm")}


def run(
    output: str | None,
    module: str | None,
    code: str | None,
    output_format: str | None,
    builtins: bool,
    line_times: bool,
    max_events: int,
    max_depth: int,
    threads: bool,
    backend: str | None,
    no_lines: bool,
    subprocesses: bool,
    no_header: bool,
    quiet: bool,
    command: tuple[str, ...],
) -> int:
    """Trace a Python program: exact call counts and times of every call, per full stack.

    Every call and return of Python functions (and of C functions with --builtins) is
    recorded, in every thread the program starts, with integer nanoseconds; the program runs
    as under python (argv, sys.path, exit code), as with `flamespace record`. Frames are named
    `function (file:line)` with the line where the function starts. Slower than sampling
    (at most what cProfile costs, while keeping every full path), exact where sampling
    estimates. Events stream to a file in $TMPDIR, so memory stays small however long the run.

    \b
    Examples:
        flamespace trace -o app.folded -- app.py --port 8000
        flamespace trace -o functions.txt -m mypackage.cli run
        flamespace trace -o run.trace.json -c "import json; json.dumps(list(range(10**5)))"
        flamespace trace -o report.html -- app.py
        flamespace trace --lines -o hot.lines.txt -- app.py
    """
    from ..collect import Program, record_program
    from ..collect.launcher import RecordError
    from ..collect.tracer import CHART_FORMATS, LINE_FORMATS, TraceOptions, write_trace
    from ..collect.trace_engine import available
    from ..errors import ArgumentError
    from ..formats._io import check_output
    from ._recording import target_of

    target = target_of(command, module, code)
    from ._output_format import choose

    output_format = choose(output, output_format, "trace", tuple(FORMATS), FORMATS)
    if output_format in LINE_FORMATS:
        line_times = True
    problem = available(line_times)
    if problem is not None:
        raise ArgumentError(f"cannot trace: {problem}")
    options = TraceOptions(
        builtins=builtins,
        max_events=max_events,
        threads=threads,
        lines=not no_lines,
        chart=output_format in CHART_FORMATS or output_format == "html",
        line_times=line_times,
        max_depth=max_depth,
        backend=backend,
    )
    output = output or f"trace-{time.strftime('%Y%m%d-%H%M%S')}{FORMATS[output_format][0]}"
    check_output(output)  # before the program runs, not after
    try:
        result = record_program(Program(target), options, subprocesses=subprocesses)
    except RecordError as exc:
        if exc.exit_code is None:
            raise
        warn(f"flamespace trace: {exc}; nothing written")
        return exc.exit_code
    trace = result.recording.trace
    assert trace is not None  # a traced run gives a Trace
    if output_format == "html":
        from ..render.report import report

        report(trace, None, output)
    else:
        write_trace(trace, output, output_format, header=not no_header)
    for problem in result.recording.problems:
        warn(f"flamespace trace: warning: {problem}")
    if result.signal is not None:  # said even with --quiet: the trace is cut short
        import signal

        warn(
            f"flamespace trace: interrupted by {signal.Signals(result.signal).name}: saved "
            f"{trace.graph.metadata.labels.get('duration_s', '?')} s of tracing to "
            f"{'stdout' if output == '-' else os.path.abspath(output)}"
        )
    elif not quiet:
        labels = trace.graph.metadata.labels
        where = "stdout" if output == "-" else os.path.abspath(output)
        processes = f", {result.processes} processes" if result.processes > 1 else ""
        warn(
            f"flamespace trace: {int(trace.calls.total()):,} calls ({trace.events:,} events) over "
            f"{labels.get('duration_s', '?')} s{processes}; wrote {where}"
        )
    sys.stdout.flush()
    return result.exit_code


#: The command: its options as data.
SPEC = Command(
    "trace",
    run,
    [Argument("command", "raw", nargs=-1)],
    [
        Option(
            ("-o", "--output"),
            "output",
            "path",
            None,
            allow_dash=True,
            help="Where to write ('-' for stdout). Default: trace-<time>.<format> here.",
        ),
        Option(("-m",), "module", metavar="MODULE", help="Run a module, as python -m does."),
        Option(("-c",), "code", metavar="CODE", help="Run a code string, as python -c does."),
        Option(("--format",), "output_format", "choice", None, choices=tuple(FORMATS), help=_FORMAT_HELP),
        Option(("--builtins",), "builtins", "flag", help="Trace builtins and other C functions too (len, list.append, ...)."),
        Option(
            ("--lines",),
            "line_times",
            "flag",
            help="Time every source line too (exclusive ns and hits per line; write it with --format lines). "
            "Costs more than calls alone: every line is an event.",
        ),
        Option(
            ("--max-events",),
            "max_events",
            "int",
            DEFAULT_MAX_EVENTS,
            show_default=True,
            metavar="N",
            help="Keep at most N events (16 bytes each, streamed to a file in $TMPDIR that is deleted at once); "
            "later ones are counted and dropped.",
        ),
        Option(
            ("--max-depth",),
            "max_depth",
            "int",
            DEFAULT_MAX_DEPTH,
            show_default=True,
            metavar="N",
            help="Fold calls nested deeper than N frames into their caller at depth N.",
        ),
        Option(("--threads",), "threads", "flag", help="Add each thread's name as a root frame."),
        Option(
            ("--backend",),
            "backend",
            "choice",
            None,
            choices=BACKENDS,
            help="How the tracer hears of calls (default: the cheapest here that records what is asked): frame "
            "(the interpreter's frame evaluation function, 3.11.4+ on Linux; Python frames only), monitoring "
            "(sys.monitoring, 3.12+), profile (the profile hook, every version).",
        ),
        Option(("--no-lines",), "no_lines", "flag", help="Name frames by function and file only (no line numbers in names)."),
        Option(
            ("--subprocesses",),
            "subprocesses",
            "flag",
            help="Also trace the Python processes the program starts, each under a 'name (pid)' root frame.",
        ),
        Option(("--no-header",), "no_header", "flag", help="Do not write '# key: value' metadata lines into folded output."),
        Option(("-q", "--quiet"), "quiet", "flag", help="Do not print the summary on stderr (warnings still are)."),
    ],
    interspersed=False,
    program_flags=("-m", "-c"),
)
