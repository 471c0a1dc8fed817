"""The ``flamespace`` command. Exit codes: 0 ok (and a closed stdout: ``| head``), 1 usage, input or
output error (an OSError: no space, no such directory), 2 internal error, 3 compare or gate found a regression.

Every command is declared as data (``SPEC`` in its module, a cli/_options.Command): one parser
reads its command line and one renderer writes its ``--help`` (cli/_help.py); ``flamespace
COMMAND`` imports that command's module and nothing of the others (start-up: docs/performance.md).
"""

from __future__ import annotations

import sys

from ._report import EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, UsageError, exit_code, write_out

__all__ = ["COMMANDS", "HELP", "help_text", "SUMMARIES", "EXIT_INPUT", "EXIT_INTERNAL", "EXIT_OK", "main", "script"]

#: Every subcommand (the module of this package that defines it as ``command``) and the first
#: paragraph of its help: ``flamespace --help`` lists these without importing the fifteen
#: modules (tests/cli/test_help.py checks each against its command's help).
SUMMARIES = {
    "agent": "Run a Python program and push its profile to a server every window.",
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
    "serve": "Serve the profile store over HTTP: agents push profiles into it, and a JSON API queries it.",
    "similarity": "Print σ = 1 − ‖A − B‖ / (‖A‖ + ‖B‖) and the L1 distance ‖A − B‖.",
    "store": "Keep profiles with their labels in a store (DuckDB over Parquet) and read them back by selector.",
    "sub": "Write 'stack BEFORE_COUNT AFTER_COUNT' for every stack in either profile.",
    "svg": "Draw FILES (folded stacks, speedscope; several are summed) as an interactive SVG.",
    "text": "Print FILES as a tree: inclusive share, name and count of every frame above --threshold.",
    "top": "List the functions of INPUT (default stdin) that cost the most, or watch them live in a running Python process (--pid).",
    "trace": "Trace a Python program: exact call counts and times of every call, per full stack.",
}
COMMANDS = tuple(SUMMARIES)

#: The help of ``flamespace`` itself; ``{formats}`` is filled with every format's name by :func:`help_text`.
HELP = """Flame graphs as vectors: combine, filter, measure and compare profiles.

Every command reads profiles in these formats, gzip or plain, detected from the
content (or --from FORMAT), from files, directories or stdin ('-'):

\b
{formats}

(`flamespace formats` describes each), and writes to stdout or -o FILE (folded stacks:
``a;b;c 12``, as flamegraph.pl reads them), so commands compose in pipes:

\b
    flamespace merge runs/ | flamespace filter --grep parse | flamespace top"""


def help_text() -> str:
    """:data:`HELP` with the formats in the order detection asks them (formats.recognition.ORDER,
    which imports no format module)."""
    from ..formats.recognition import ORDER
    from ._help import fill

    return HELP.format(formats=fill(", ".join(ORDER), 78, "  ", "  "))


#: The commands that run a program and pass our stop signals on to it: they note a signal from their
#: first moment, so that one that comes before the program starts gives 128 + the signal.
RECORDERS = ("record", "trace")


def _run(args: list[str]) -> object:
    """``flamespace``'s own options (``--help``, ``--version``, ``--color MODE``), then the command's
    module (imported only now) runs the command it declares as data (``SPEC``, cli/_options.py)."""
    rest = _group_options(args)
    if rest is None:
        return EXIT_OK
    name = rest[0]
    if name not in SUMMARIES:
        from ._options import suggestion

        raise UsageError(f"No such command {name!r}.{suggestion(name, COMMANDS)}", "flamespace")
    if name not in RECORDERS:
        return _run_command(name, rest[1:])
    from ..collect import _stop_signals  # only _signal: the launcher's imports take tens of ms

    _stop_signals.catch()
    try:
        return _run_command(name, rest[1:])
    finally:
        _stop_signals.release()  # if the program never started


def _run_command(name: str, args: list[str]) -> object:
    module = f"{__name__}.{name}"
    __import__(module)  # not importlib: it would pull in more modules
    return sys.modules[module].SPEC.main(f"flamespace {name}", args)


def _group_options(args: list[str]) -> list[str] | None:
    """The command and its arguments after ``flamespace``'s own options, whose ``--color`` mode (or
    the default, auto) is set here; None when an option (--help, --version) was the whole answer."""
    mode, index = "auto", 0
    while index < len(args):
        word = str(args[index])
        index += 1
        if word in ("-h", "--help"):
            from ._help import OPTIONS, group_help

            write_out(group_help("flamespace", help_text(), list(SUMMARIES.items()), options=OPTIONS))
            return None
        if word == "--version":
            from importlib.metadata import version

            write_out(f"flamespace {version('flamespace')}\n")
            return None
        if word == "--color" or word.startswith("--color="):
            if word == "--color":
                if index >= len(args):
                    raise UsageError("Option '--color' requires an argument.", "flamespace")
                word, index = "--color=" + str(args[index]), index + 1
            mode = word[len("--color=") :]
            from ._style import MODES

            if mode not in MODES:
                from ._report import BadParameter

                raise BadParameter(f"{mode!r} is not one of {', '.join(repr(m) for m in MODES)}.", "'--color'")
            continue
        if word.startswith("-"):
            from ._options import suggestion

            raise UsageError(f"No such option {word!r}.{suggestion(word, ['--color', '--version', '--help'])}", "flamespace")
        from ._style import set_mode  # (not for --help: start-up)

        set_mode(mode)
        return [word, *args[index:]]
    raise UsageError("Missing command.", "flamespace")


def main(argv: list[str] | None = None) -> int:
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

    _io.on_terminal_stdin = lambda: warn(
        f"{context}: reading a profile from stdin... (Ctrl-D to end; Ctrl-C and `{context} --help` for usage)"
    )


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
