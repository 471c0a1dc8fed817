"""The ``flamespace`` command. Exit codes: 0 ok (and a closed stdout: ``| head``), 1 usage, input or
output error (an OSError: no space, no such directory), 2 internal error, 3 compare or gate found a regression.

The commands of :data:`FAST` declare their options as data (cli/_options.py): with arguments
the small parser understands (and ``COMMAND --help``) they run without importing click
(start-up: docs/performance.md); everything else goes through the click group of ``_group``.
"""

from __future__ import annotations

import sys

from ._report import EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, exit_code

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional

__all__ = ["COMMANDS", "HELP", "SUMMARIES", "EXIT_INPUT", "EXIT_INTERNAL", "EXIT_OK", "cli", "main", "script"]

#: Every subcommand (the module of this package that defines it as ``command``) and the first
#: paragraph of its help: ``flamespace --help`` lists these without importing the fifteen
#: modules (tests/cli/test_help_fast.py checks each against its command's help).
SUMMARIES = {
    "collect": "Run a Python program N times under the profiler: one profile per run, a sample for compare.",
    "compare": "Test which stacks differ between the mean profiles of two samples of runs.",
    "convert": "Convert profiles between formats; several inputs are merged into one profile.",
    "decompose": "Split Δ = AFTER − BEFORE into appeared, grown, disappeared and shrunk stacks.",
    "dump": "Print every thread's current stack in the running Python process PID, innermost frame first.",
    "filter": "Transform the stacks of INPUT (default stdin).",
    "formats": "List every format: whether flamespace reads and writes it, its file extensions, its reader options (for `flamespace convert`) and the tool whose output or behaviour it follows.",
    "gate": "Gate a change: run the same command from two git refs, interleaved, and compare them.",
    "history": "Follow stacks across the commits (or days) of stored profiles and name the commit where each one's level changed.",
    "html": "Draw FILES (any format; several are summed) as one self-contained HTML page.",
    "info": "Summarise INPUT (default stdin): norm (total), stacks, distinct frames, depth, unit, metadata.",
    "merge": "Add profiles stack by stack (a directory stands for all files in it).",
    "plan": "Say how many runs a side `flamespace compare` needs to detect a change.",
    "record": "Profile a Python program: a script, -m MODULE or -c CODE, with its arguments.",
    "scale": "Multiply every value of INPUT (default stdin) by FACTOR.",
    "similarity": "Print σ = 1 − ‖A − B‖ / (‖A‖ + ‖B‖) and the L1 distance ‖A − B‖.",
    "store": "Keep profiles with their labels in a store (DuckDB over Parquet) and read them back by selector.",
    "sub": "Write 'stack BEFORE_COUNT AFTER_COUNT' for every stack in either profile.",
    "svg": "Draw FILES (folded stacks, speedscope; several are summed) as an interactive SVG.",
    "text": "Print FILES as a tree: inclusive share, name and count of every frame above --threshold.",
    "top": "List the functions of INPUT (default stdin) that cost the most.",
    "trace": "Trace a Python program: exact call counts and times of every call, per full stack.",
}
COMMANDS = tuple(SUMMARIES)

#: The help of ``flamespace`` itself (the click group's, and the click-free ``--help``'s).
HELP = """Flame graphs as vectors: combine, filter, measure and compare profiles.

Every command reads profiles in these formats, gzip or plain, detected from the
content (or --from FORMAT), from files, directories or stdin ('-'):

\b
  flamespace-json, speedscope, gecko, chrome, cpuprofile, pprof, pstats, austin,
  perf-sched, perf, xctrace, vtune, vsprof, ghcprof, sample, instruments, jstack,
  faulthandler, gdb, elfutils, bpftrace, pmc, stap, dtrace, pyspy, nytprof,
  folded-diff, folded

(`flamespace formats` describes each), and writes to stdout or -o FILE (folded stacks:
``a;b;c 12``, as flamegraph.pl reads them), so commands compose in pipes:

\b
    flamespace merge runs/ | flamespace filter --grep parse | flamespace top"""

#: What asks for the group's help and nothing else: printed without importing click.
HELP_ARGS = (["--help"], ["-h"])
#: The commands whose module declares them as data (``SPEC``, a cli._options.Command) without
#: importing click; ``convert`` has a fast path of its own (its reader options come from the formats).
FAST = ("collect", "compare", "decompose", "dump", "filter", "formats", "gate", "info", "merge", "plan", "record", "scale", "similarity", "sub",
        "svg", "text", "top", "trace")

#: The commands that run a program and pass our stop signals on to it: they note a signal from their
#: first moment, so that one that comes before the program starts gives 128 + the signal.
RECORDERS = ("record", "trace")


def __getattr__(name: str) -> object:
    """``cli`` (the click group) and ``LazyGroup``, imported with click on first use."""
    if name in ("cli", "LazyGroup"):
        from . import _group

        return getattr(_group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _run(args: "List[str]") -> object:
    if args in HELP_ARGS:
        from ._help import group_help

        sys.stdout.write(group_help("flamespace", HELP, list(SUMMARIES.items())))
        sys.stdout.flush()
        return EXIT_OK
    rest = _after_color(args)
    if not (rest and rest[0] in RECORDERS):
        return _run_command(args, rest)
    from ..collect import _stop_signals  # only _signal: the launcher's imports take tens of ms

    _stop_signals.catch()
    try:
        return _run_command(args, rest)
    finally:
        _stop_signals.release()  # if the program never started


def _run_command(args: "List[str]", rest: "List[str]") -> object:
    if rest and rest[0] in FAST:  # without click (start-up), unless the small parser gives up
        module = f"{__name__}.{rest[0]}"
        __import__(module)  # not importlib: it would pull in more modules
        done, result = sys.modules[module].SPEC.run_fast(rest[1:])
        if done:
            return result
    elif rest and rest[0] == "convert":
        from ._convert_spec import run_fast

        done, result = run_fast(rest[1:])
        if done:
            return result
    from ._group import cli

    return cli.main(args=args, prog_name="flamespace", standalone_mode=False)


def _after_color(args: "List[str]") -> "List[str]":
    """``args`` after a leading ``--color MODE`` (the group's one option), whose mode (or the
    default, auto) is set here as the click group sets it on every run; [] if it is not plain."""
    from ._style import MODES, set_mode

    mode, rest = "auto", args
    if args and str(args[0]).startswith("--color"):
        if args[0] == "--color" and len(args) > 1:
            mode, rest = args[1], args[2:]
        elif args[0].startswith("--color="):
            mode, rest = args[0][len("--color="):], args[1:]
        else:
            return []
    if mode not in MODES:
        return []  # click says what is wrong
    set_mode(mode)
    return rest


def main(argv: "Optional[List[str]]" = None) -> int:
    """Run the command line; returns the exit code instead of raising SystemExit."""
    args = sys.argv[1:] if argv is None else list(argv)
    if sys.stdout is None or sys.stdin is None or sys.stderr is None:  # closed by the shell (`>&-`)
        from ._streams import reopen_closed

        reopen_closed()
    if not args:
        args = ["--help"]
    command = next((a for a, before in zip(args, [""] + args) if not a.startswith("-") and before != "--color"), None)
    context = f"flamespace {command}" if command in COMMANDS else "flamespace"
    if command in COMMANDS and _is_terminal(sys.stdin):
        _notice_terminal_stdin(context)
    try:
        result = _run(args)
        return result if isinstance(result, int) else EXIT_OK
    except (Exception, KeyboardInterrupt) as exc:
        code = exit_code(exc, context)
        if code is None:
            raise
        return code


def _is_terminal(stream: object) -> bool:
    try:
        return bool(stream is not None and stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):  # closed or replaced
        return False


def _notice_terminal_stdin(context: str) -> None:
    """Have the readers say on stderr when they wait for a profile typed at the terminal."""
    from ..formats import _io
    from ._report import warn

    _io.on_terminal_stdin = lambda: warn(f"{context}: reading a profile from stdin... (Ctrl-D to end; Ctrl-C and "
                                         f"`{context} --help` for usage)")


def script() -> int:
    """The ``flamespace`` console script: :func:`main`, then the objects made so far are frozen
    out of the garbage collector, so the interpreter's shutdown does not walk them all once
    more (about 8 ms of every command's start-up cost; docs/performance.md). Reference
    counting still frees them, and atexit handlers run as usual."""
    code = main()
    if "duckdb" not in sys.modules:  # DuckDB's bindings (nanobind) report objects kept from the collector as leaks at exit
        import gc

        gc.freeze()
    return code
