"""flamespace record: run a Python program under the sampling (or memory) profiler."""

from __future__ import annotations

import os
import signal
import sys
import time

from ._options import Argument, Command, Option
from ._recording import FORMATS, MORE_FORMATS, PICTURE_FORMATS, StatusLine, recorder_settings, recording_options, target_of
from ._report import warn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..collect import RecordResult
    from ..core.vector import FlameGraph


def run(
    output: str | None,
    module: str | None,
    code: str | None,
    mode: str,
    rate: float,
    weight: str | None,
    bytes_per_sample: int | None,
    idle: bool,
    no_lines: bool,
    threads: bool,
    process_root: bool,
    async_stacks: bool,
    subprocesses: bool,
    duration: float | None,
    output_format: str | None,
    seed: int | None,
    no_header: bool,
    quiet: bool,
    command: tuple[str, ...],
    thread: str | None = None,
    pid: int | None = None,
    gil: bool = False,
    sampler: str = "auto",
) -> int:
    """Profile a Python program: a script, -m MODULE or -c CODE, with its arguments.

    Interpreter start-up (site, .pth files, sitecustomize, imports) is part of the profile.
    The program behaves as under python (argv, sys.path, exit code, exceptions); its exit
    code is ours. The profile is written when it ends, raises, calls sys.exit or is stopped
    with Ctrl-C.

    \b
    Examples:
        flamespace record -o app.folded -- app.py --port 8000
        flamespace record --mode cpu --rate 1000 -o work.folded -m mypackage.cli run
        flamespace record -o run.speedscope.json -- python -X dev job.py
        flamespace record -o app.html -- app.py
        flamespace record --subprocesses -o build.folded -- tools/build.py --jobs 4
        flamespace record --thread main -o main.html -- app.py
        flamespace record --pid 12345 -d 30 -o slow.html
    """
    from ..collect import Program, record_program
    from ..collect.launcher import RecordError  # imported here: other commands need not pay for it

    from ._output_format import choose, first_ending

    if pid is not None:
        _check_attach(command, module, code, mode, async_stacks, subprocesses)
        if sampler == "inside":
            from ..errors import ArgumentError

            raise ArgumentError("--pid reads a running process from outside: --sampler inside needs a program to start")
    elif gil:
        from ..errors import ArgumentError

        raise ArgumentError("--gil applies to --pid: the in-process sampler holds the GIL itself whenever it samples")
    target = None if pid is not None else target_of(command, module, code)
    output_format = choose(output, output_format, "record", WRITES, ENDINGS)
    if thread is not None:
        _check_thread(mode, output_format)
        threads = True  # each thread under its name, then the one asked for is kept
    options = recorder_settings(
        mode,
        rate,
        weight,
        bytes_per_sample,
        idle,
        no_lines,
        threads,
        async_stacks,
        duration,
        seed,
        output_format,
        "inside" if pid is not None else sampler,  # (--pid's own reader takes no sampler option)
    )
    output = output or f"profile-{time.strftime('%Y%m%d-%H%M%S')}{first_ending(output_format, ENDINGS)}"
    if output_format in PICTURE_FORMATS:
        from ._common import refuse_terminal

        refuse_terminal(output, f"an {output_format.upper()} picture", f"profile.{output_format}")
    from ..formats import check_output

    check_output(output)  # before the program runs, not after
    status = StatusLine(sys.stderr) if StatusLine.wanted(sys.stderr, quiet) else None
    try:
        if target is None:
            from ._attach import record_pid

            assert pid is not None  # target_of gave no target because a pid was given
            result, described = record_pid(
                pid,
                options,
                process_root,
                None if status is None else status.show,
                quiet,
                gil,
            )
        else:
            described = target.describe()
            result = record_program(
                Program(target),
                options,
                process_root=process_root,
                subprocesses=subprocesses,
                progress=None if status is None else status.show,
            )
    except RecordError as exc:
        if exc.exit_code is None:
            raise
        warn(f"flamespace record: {exc}; nothing written")
        return exc.exit_code
    finally:
        if status is not None:
            status.clear()  # before any message
    graph = result.recording.graph if thread is None else _one_thread(result.recording.graph, thread)
    if output_format in PICTURE_FORMATS:
        from ._common import recorded_roots

        _write_picture(graph, output, described, output_format, recorded_roots(graph))
    else:
        from ..formats import registry

        from ._common import header_setting

        profile = graph if thread is not None else result.recording.profile_for(output_format)
        registry.write(profile, output, output_format, **header_setting(output_format, no_header))
    _report(result, output, quiet, graph.metadata.labels.get("thread"))
    return result.exit_code


def _check_attach(
    command: tuple[str, ...], module: str | None, code: str | None, mode: str, async_stacks: bool, subprocesses: bool
) -> None:
    """--pid records a process that runs already: no program to start, and only what can be read from outside."""
    from ..errors import ArgumentError

    from ._recording import MEMORY_MODES

    if command or module is not None or code is not None:
        raise ArgumentError("--pid records a process that runs already: give no program (script, -m or -c) with it")
    if mode in MEMORY_MODES:
        raise ArgumentError(f"--mode {mode} records allocations from inside the program; with --pid use wall or cpu")
    for given, flag in ((async_stacks, "--async"), (subprocesses, "--subprocesses")):
        if given:
            raise ArgumentError(f"{flag} is not available with --pid yet (docs/attach.md, 'Limits')")


def _check_thread(mode: str, output_format: str) -> None:
    """--thread needs threads (the sampling modes) and a flame graph to write (not a timeline of every thread)."""
    from ..errors import ArgumentError
    from ..formats import registry

    from ._recording import MEMORY_MODES

    if mode in MEMORY_MODES:
        raise ArgumentError(
            f"--thread applies to the sampling modes (wall, cpu), not to --mode {mode}: memory recorders do not know threads"
        )
    if output_format not in PICTURE_FORMATS and registry.keeps_time(output_format):
        raise ArgumentError(
            f"--thread writes one thread's flame graph; {output_format} keeps the timeline of every thread "
            f"(leave out --thread, or write folded, svg or html)"
        )


def _one_thread(graph: FlameGraph, thread: str) -> FlameGraph:
    """The recording's one thread; if it has no thread of that name, every thread, with a warning (the run is not lost)."""
    from ..core.transforms import one_thread
    from ..errors import ArgumentError

    try:
        return one_thread(graph, thread)
    except ArgumentError as exc:
        warn(f"flamespace record: warning: --thread {thread}: {exc}; wrote every thread")
        return graph


def _write_picture(graph: FlameGraph, output: str, command: str, kind: str, roots: tuple[str, ...]) -> None:
    """The SVG or the HTML viewer of the run (``roots``: what the first frames are, for the HTML's picker)."""
    labels = graph.metadata.labels
    subtitle = f"{labels.get('mode', '')} mode, {labels.get('duration_s', '?')} s, {labels.get('samples', '?')} samples"
    unit = graph.metadata.unit
    settings = dict(
        title=f"flamespace record: {command}",
        subtitle=subtitle,
        colors="python",
        countname="allocations" if unit == "count" else "",
    )
    if kind == "html":
        from ..render.html import HtmlOptions, html

        html(graph, HtmlOptions(roots=roots, **settings), output)  # type: ignore[arg-type]
    else:
        from ..render import SvgOptions, svg

        svg(graph, SvgOptions(**settings), output)  # type: ignore[arg-type]


def _report(result: RecordResult, output: str, quiet: bool, thread: str | None = None) -> None:
    from ._common import format_value

    recording = result.recording
    for problem in recording.problems:
        warn(f"flamespace record: warning: {problem}")
    labels = recording.graph.metadata.labels
    if result.signal is not None:  # said even with --quiet: the profile is cut short
        warn(
            f"flamespace record: interrupted by {signal.Signals(result.signal).name}: saved "
            f"{labels.get('duration_s', '?')} s of recording to {_where(output)}"
        )
        return
    if quiet:
        return
    if "blocks" in labels:  # a live-memory profile
        warn(
            f"flamespace record: {format_value(recording.graph.total())} {recording.graph.metadata.unit} in "
            f"{format_value(int(labels['blocks']))} blocks still allocated at exit; wrote {_where(output)}"
        )
        return
    if "bytes_per_sample" in labels:  # an allocation profile
        what = "bytes" if recording.graph.metadata.unit == "bytes" else "allocations"
        warn(
            f"flamespace record: about {format_value(recording.graph.total())} {what} allocated over "
            f"{labels['duration_s']} s (estimated from {format_value(int(labels['samples']))} samples); "
            f"wrote {_where(output)}"
        )
        return
    where = _where(output)
    processes = f", {result.processes} processes" if result.processes > 1 else ""
    stopped = ", stopped after --duration" if result.stopped_by_duration else ""
    warn(
        f"flamespace record: {format_value(int(labels.get('samples', len(recording.graph))))} samples"
        f"{' (' + labels['rate_achieved'] + ' Hz)' if 'rate_achieved' in labels else ''}"
        f" over {labels.get('duration_s', '?')} s{processes}{stopped}"
        f"{f', thread {thread} only' if thread else _threads(recording.graph)}; wrote {where}"
    )


def _threads(graph: FlameGraph) -> str:
    """ ", 4 threads: 2.43 s of thread time, summed" for a profile that sums several threads' time."""
    from ..core.units import human
    from ._common import summed_threads

    threads = summed_threads(graph)
    return f", {threads} threads: {human(graph.total(), graph.metadata.unit)} of thread time, summed" if threads else ""


def _where(output: str) -> str:
    return "stdout" if output == "-" else os.path.abspath(output)


#: What record writes, and the endings that name the common ones (-o NAME; the others by the registry's endings).
WRITES = (*FORMATS, *MORE_FORMATS, *PICTURE_FORMATS)
ENDINGS = {**FORMATS, **PICTURE_FORMATS}

#: The command: its options as data (shared with collect).
SPEC = Command(
    "record",
    run,
    [Argument("command", "raw", nargs=-1)],
    [
        Option(
            ("-o", "--output"),
            "output",
            "path",
            None,
            allow_dash=True,
            help="Where to write the profile ('-' for stdout). Default: profile-<time>.<format> here.",
        ),
        *recording_options(WRITES, by_name=True, attach=True),
        Option(
            ("--thread",),
            "thread",
            "str",
            None,
            metavar="NAME",
            help="Write one thread: the stacks of the thread of that name ('main' is also MainThread), recorded "
            "as with --threads, without the thread's frame.",
        ),
        Option(
            ("-q", "--quiet"),
            "quiet",
            "flag",
            help="Do not show the live status line or the summary on stderr (warnings still are).",
        ),
    ],
    interspersed=False,
    program_flags=("-m", "-c"),
)
