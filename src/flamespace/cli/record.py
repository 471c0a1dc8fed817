"""flamespace record: run a Python program under the sampling (or memory) profiler."""

from __future__ import annotations

import os
import signal
import sys
import time

from ._console import TREE_OPTIONS
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
    native: bool = False,
    native_all: bool = False,
    inject: bool = False,
    min_share: str | None = None,
    show_all: bool = False,
    sampler: str = "auto",
) -> int:
    """Profile a Python program: a script, -m MODULE or -c CODE, with its arguments.

    Interpreter start-up (site, .pth files, sitecustomize, imports) is part of the profile.
    The program behaves as under python (argv, sys.path, exit code, exceptions); its exit
    code is ours. The profile is written when it ends, raises, calls sys.exit or is stopped
    with Ctrl-C.

    Without -o, the profile goes to profile-<time>.<format> here and a short tree of the run
    is printed (docs/profiling.md): the program's own frames, library code folded into them,
    calls under --min-share folded, the main thread alone when the others only waited. To tell
    waiting from running it records as with --threads and, in wall mode, --idle.

    \b
    Examples:
        flamespace record -- app.py
        flamespace record -o app.folded -- app.py --port 8000
        flamespace record --mode cpu --rate 1000 -o work.folded -m mypackage.cli run
        flamespace record -o run.speedscope.json -- python -X dev job.py
        flamespace record -o app.html -- app.py
        flamespace record --subprocesses -o build.folded -- tools/build.py --jobs 4
        flamespace record --thread main -o main.html -- app.py
        flamespace record --pid 12345 -d 30 -o slow.html
        flamespace record --pid 12345 --mode alloc -d 10 -o allocations.html
    """
    from ..collect import Program, record_program
    from ..collect.launcher import RecordError  # imported here: other commands need not pay for it

    from ._output_format import choose, first_ending

    from ._recording import MEMORY_MODES

    attach_duration = duration
    if pid is not None:
        _check_attach(
            command, module, code, subprocesses, gil, native or native_all, inject or mode in MEMORY_MODES or async_stacks
        )
        if sampler == "inside":
            from ..errors import ArgumentError

            raise ArgumentError(
                "--pid reads a running process from outside: --sampler inside needs a program to start "
                "(--inject records from inside a running CPython 3.14+)"
            )
        if mode in MEMORY_MODES:
            duration = None  # a memory recorder has no clock of its own: the attach ends it (-d, Ctrl-C, exit)
    elif gil or native or native_all or inject:
        from ..errors import ArgumentError

        if inject:
            raise ArgumentError("--inject applies to --pid: a program flamespace starts is recorded from inside anyway")
        flag = "--gil" if gil else ("--native" if native else "--native-all")
        raise ArgumentError(
            f"{flag} applies to --pid (a process read from outside); it is not available for a program record starts"
        )
    target = None if pid is not None else target_of(command, module, code)
    output_format = choose(output, output_format, "record", WRITES, ENDINGS)
    tree = None
    if output is None and not quiet:  # the short tree: options checked before the program runs
        from ._console import console_options

        tree = console_options(min_share, show_all, thread if thread == ALL_THREADS else None)  # one thread: picked below
        threads, idle = _tree_settings(mode, threads, idle)
    if thread == ALL_THREADS:
        thread, threads = None, True
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
                "all" if native_all else ("yes" if native else None),
                inject,
                attach_duration,
                subprocesses,
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
    if tree is not None:
        from ._console import print_tree

        print_tree(graph, tree, sys.stdout)
        sys.stdout.flush()
    _report(result, output, quiet, graph.metadata.labels.get("thread"))
    return result.exit_code


#: --thread all: every thread (the short tree shows each under its name).
ALL_THREADS = "all"


def _tree_settings(mode: str, threads: bool, idle: bool) -> tuple[bool, bool]:
    """(threads, idle) for the short tree: thread root frames in the sampling modes (to show the
    main thread alone), and off-CPU time under [idle] in wall mode (to tell who only waited)."""
    from ._recording import MEMORY_MODES

    if mode in MEMORY_MODES:
        return threads, idle
    return True, idle or mode == "wall"


def _check_attach(
    command: tuple[str, ...], module: str | None, code: str | None, subprocesses: bool, gil: bool, native: bool, inside: bool
) -> None:
    """--pid records a process that runs already: no program to start; ``inside``: from inside it (--inject, the
    memory modes, --async), where neither the GIL nor native frames are read (both are read from outside)."""
    from ..errors import ArgumentError

    if command or module is not None or code is not None:
        raise ArgumentError("--pid records a process that runs already: give no program (script, -m or -c) with it")
    if subprocesses and (native or inside):
        raise ArgumentError(
            "--pid --subprocesses reads each process's Python frames from outside: leave out --native, --native-all, "
            "--inject, --mode alloc|live and --async"
        )
    for given, flag in ((gil, "--gil reads the GIL's holder"), (native, "--native reads C frames")):
        if given and inside:
            raise ArgumentError(f"{flag} from outside the process: leave out --inject, --mode alloc|live and --async")


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
            f"{format_value(int(labels['blocks']))} blocks still allocated "
            f"{'when the recording stopped' if 'attached' in labels else 'at exit'}; wrote {_where(output)}"
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
            help="Where to write the profile ('-' for stdout). Default: profile-<time>.<format> here, and a "
            "short tree of the run on stdout.",
        ),
        *recording_options(WRITES, by_name=True, attach=True),
        Option(
            ("--thread",),
            "thread",
            "str",
            None,
            metavar="NAME",
            help="Write one thread: the stacks of the thread of that name ('main' is also MainThread), recorded "
            "as with --threads, without the thread's frame; 'all': every thread, each under its name (the short "
            "tree shows only the main thread when the others only waited).",
        ),
        *TREE_OPTIONS,
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
