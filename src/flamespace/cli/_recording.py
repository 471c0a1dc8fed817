"""What `record` and `collect` share: the program to run and how to record it.

Both commands accept the same program (a script, -m MODULE, -c CODE, an interpreter
first) and the same recorder options, so they are declared once here.
"""

from __future__ import annotations

from .._record import defaults
from ..collect import MAX_RATE, MEMORY_MODES, MIN_RATE, MODES as SAMPLING_MODES, MemoryOptions, SamplerOptions
from ..collect.options import SAMPLERS
from ..errors import ArgumentError
from ._options import Option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..collect import Target

#: The recorders' defaults, which the options below show and pass on; their checks are the records'
#: own (__post_init__), so the options take any value of the right type (tests/cli/test_defaults.py).
SAMPLING = defaults(SamplerOptions)
MEMORY = defaults(MemoryOptions)
MODES = (*SAMPLING_MODES, *reversed(MEMORY_MODES))
#: The formats of collect's runs, by the endings that name them (record's --format offers more).
FORMATS = {"folded": (".folded",), "speedscope": (".speedscope.json", ".speedscope")}
#: What record writes besides: the registry's other writers (-o NAME finds them by their
#: endings; tests/cli/test_output_format.py holds this list to the registry's) and pictures,
#: a fine end for one run, not for collect's runs.
MORE_FORMATS = ("chrome", "gecko", "pprof", "flamespace-json")
PICTURE_FORMATS = {"svg": (".svg",), "html": (".html", ".htm")}
#: How --help describes each output format.
FORMAT_HELP = {
    "folded": "folded stacks",
    "speedscope": "speedscope JSON (keeps every sample in time order, per thread)",
    "chrome": "a Chrome trace (time order; chrome://tracing, Perfetto)",
    "gecko": "the Firefox Profiler's format (time order)",
    "pprof": "pprof's protocol buffers (go tool pprof)",
    "flamespace-json": "flamespace's own lossless JSON (time order)",
    "svg": "an interactive flame graph (as flamespace svg draws it)",
    "html": "the HTML viewer (as flamespace html draws it; a thread/process picker with --threads, --process-root, --subprocesses)",
}

#: Interpreter-like options for the program, then the options of the recorder, in --help order
#: (--format, whose choices differ per command, goes where ``None`` is: see :func:`recording_options`).
_OPTIONS = (
    Option(("-m",), "module", metavar="MODULE", help="Run a module, as python -m does."),
    Option(("-c",), "code", metavar="CODE", help="Run a code string, as python -c does."),
    Option(
        ("--mode",),
        "mode",
        "choice",
        SAMPLING["mode"],
        choices=MODES,
        show_default=True,
        help="wall: every thread, running or waiting; cpu: time on a CPU only; "
        "alloc: bytes allocated during the run, per stack (sampled); "
        "live: bytes still allocated at exit, per allocating stack (tracemalloc).",
    ),
    Option(
        ("--rate",),
        "rate",
        "float",
        SAMPLING["rate"],
        show_default=True,
        help=f"Mean samples per second, {MIN_RATE:g} to {MAX_RATE:,g} (random intervals within ±50% of the mean).",
    ),
    Option(
        ("--weight",),
        "weight",
        "choice",
        None,
        choices=("time", "samples", "bytes", "count"),
        help=f"Sampling: 'time' (ns since the thread's previous sample) or 'samples' (default {SAMPLING['weight']!r}). "
        f"Memory: 'bytes' or 'count' (number of allocations; default {MEMORY['weight']!r}).",
    ),
    Option(
        ("--bytes-per-sample",),
        "bytes_per_sample",
        "int",
        None,
        metavar="BYTES",
        help=f"alloc mode: mean bytes allocated between two samples (default {MEMORY['interval']}; 0 records every "
        "allocation, slowly).",
    ),
    Option(("--idle",), "idle", "flag", help="In wall mode, put off-CPU time under an '[idle]' leaf frame."),
    Option(
        ("--no-lines",), "no_lines", "flag", help="Name frames by function and file only (line numbers shift when code changes)."
    ),
    Option(("--threads",), "threads", "flag", help="Add each thread's name as a root frame."),
    Option(("--pid",), "process_root", "flag", help="Add the process (command and pid) as a root frame."),
    Option(
        ("--async",),
        "async_stacks",
        "flag",
        help="Show asyncio tasks as their awaiting chain (the tasks waiting for the running one, "
        "outermost first) instead of the event loop's internals.",
    ),
    Option(
        ("--subprocesses",),
        "subprocesses",
        "flag",
        help="Also record the Python processes the program starts (subprocess, multiprocessing, "
        "fork), each under a 'name (pid)' root frame; with --pid, the running process's Python descendants "
        "(docs/attach.md).",
    ),
    Option(
        ("--sampler",),
        "sampler",
        "choice",
        SAMPLING["sampler"],
        choices=SAMPLERS,
        show_default=True,
        help="Where the sampler runs: outside the program (reads its memory without its GIL, as py-spy does: keeps the "
        "rate on a busy machine), inside it (a thread of the program), or auto: outside where it can (wall and cpu "
        "mode without --async or --subprocesses), else inside.",
    ),
    Option(
        ("--duration",),
        "duration",
        "float",
        SAMPLING["duration"],
        metavar="SECONDS",
        help="Stop after this many seconds: the profile is saved and the program stopped as by Ctrl-C.",
    ),
    None,
    Option(("--seed",), "seed", "int", SAMPLING["seed"], help="Seed the random sampling intervals (repeatable runs)."),
    Option(("--no-header",), "no_header", "flag", help="Do not write '# key: value' metadata lines into folded output."),
)


#: record's options for a process that runs already (``record --pid PID``): --pid takes the pid,
#: and the flag that adds the process as a root frame is --process-root there.
_ATTACH_OPTIONS = (
    Option(
        ("--pid",),
        "pid",
        "int",
        None,
        metavar="PID",
        minimum=1,
        help="Record the Python process PID, which runs already, from outside (until Ctrl-C, --duration or its "
        "exit; see docs/attach.md) instead of starting a program.",
    ),
    Option(("--process-root",), "process_root", "flag", help="Add the process (command and pid) as a root frame."),
    Option(("--gil",), "gil", "flag", help="With --pid: keep only the samples of the thread that holds the GIL."),
    Option(
        ("--native",),
        "native",
        "flag",
        help="With --pid: C frames of the interpreter, extensions and libraries among the Python frames (each thread "
        "is stopped for about 0.1 ms a sample; see docs/attach.md, 'Native frames').",
    ),
    Option(
        ("--native-all",),
        "native_all",
        "flag",
        help="As --native, also keeping the interpreter's call machinery (PyObject_Call, *_Vectorcall, ...) and the "
        "start-up frames above the first Python frame (_start, main, Py_RunMain, start_thread).",
    ),
    Option(
        ("--inject",),
        "inject",
        "flag",
        help="With --pid: record from inside the process, with flamespace's own recorder started in it by "
        "sys.remote_exec (CPython 3.14+; elsewhere it records from outside and says so). --mode alloc|live and "
        "--async with --pid always do.",
    ),
)
#: The short flags record adds (py-spy's): -r for --rate, -d for --duration.
_SHORT = {"rate": "-r", "duration": "-d"}


def recording_options(formats: Sequence[str] = tuple(FORMATS), by_name: bool = False, attach: bool = False) -> tuple[Option, ...]:
    """-m, -c and every recorder option (mode, rate, weight, ..., format, seed, no-header);
    ``--format`` offers ``formats``; with ``by_name`` it defaults to what -o's name says; with
    ``attach`` (record's), --pid PID records a running process, -r and -d are --rate and --duration."""
    described = "; ".join(FORMAT_HELP[name] for name in formats) + "."
    if by_name:
        format_option = Option(
            ("--format",),
            "output_format",
            "choice",
            None,
            choices=tuple(formats),
            help=described + " Default: the format -o's name ends in (.svg, .html, .speedscope.json, .pprof, ...), else folded.",
        )
    else:
        format_option = Option(
            ("--format",), "output_format", "choice", "folded", choices=tuple(formats), show_default=True, help=described
        )
    options = [option or format_option for option in _OPTIONS]
    if not attach:
        return tuple(options)
    made: list[Option] = []
    for option in options:
        if option.dest == "process_root":
            made.extend(_ATTACH_OPTIONS)
            continue
        if option.dest in _SHORT:
            option = _with_flag(option, _SHORT[option.dest])
        made.append(option)
    return tuple(made)


def _with_flag(option: Option, flag: str) -> Option:
    """``option`` also spelt ``flag``."""
    copy = Option.__new__(Option)
    for name in Option.__slots__:
        setattr(copy, name, getattr(option, name))
    copy.flags = (flag, *option.flags)
    return copy


def target_of(command: Sequence[str], module: str | None, code: str | None, directory: str | None = None) -> Target:
    """The program named by COMMAND (a leading '--' dropped), -m MODULE or -c CODE; a script is
    looked up in ``directory``, where it will run (default: here)."""
    from ..collect import parse_command

    words = list(command)
    if words and words[0] == "--":
        words = words[1:]
    return parse_command(words, module=module, code=code, directory=directory)


def recorder_settings(
    mode: str,
    rate: float,
    weight: str | None,
    bytes_per_sample: int | None,
    idle: bool,
    no_lines: bool,
    threads: bool,
    async_stacks: bool,
    duration: float | None,
    seed: int | None,
    output_format: str,
    sampler: str = SAMPLING["sampler"],
):
    """SamplerOptions (wall, cpu) or MemoryOptions (alloc, live) from the command-line options.

    The records check the values; here only that each option is one the chosen recorder has."""
    from ..formats import registry

    timeline = output_format not in PICTURE_FORMATS and registry.keeps_time(output_format)
    if bytes_per_sample is not None and mode != "alloc":
        raise ArgumentError("--bytes-per-sample applies to --mode alloc")
    if mode in MEMORY_MODES:
        if sampler == "outside":
            raise ArgumentError(f"--mode {mode} records allocations inside the program: leave out --sampler outside")
        if idle:
            raise ArgumentError("--idle applies to wall-time sampling, not to memory modes")
        if duration is not None or async_stacks:
            which = "--duration" if duration is not None else "--async"
            raise ArgumentError(f"{which} applies to the sampling modes (wall, cpu), not to memory modes")
        if mode == "alloc":
            from ..collect.alloc import available  # (not a field's check: whether this build has the extension)

            problem = available()
            if problem is not None:
                raise ArgumentError(f"--mode alloc is not available: {problem}")
        interval = MEMORY["interval"] if bytes_per_sample is None else bytes_per_sample
        return MemoryOptions(
            mode=mode, weight=weight or MEMORY["weight"], lines=not no_lines, threads=threads, interval=interval, seed=seed
        )
    return SamplerOptions(
        mode=mode,
        rate=rate,
        weight=weight or SAMPLING["weight"],
        idle=idle,
        lines=not no_lines,
        threads=threads,
        timeline=timeline,
        duration=duration,
        seed=seed,
        asyncio=async_stacks,
        sampler=sampler,
    )


class StatusLine:
    """``record``'s live line on stderr (a terminal): elapsed time, samples, achieved rate,
    rewritten in place and erased before the summary (:meth:`clear`).

    The program writes to the same terminal: a line of its own overwrites the status (the
    cursor waits at the start of it), a shorter one leaves the status's end visible; -q turns
    the line off. ``collect`` shows a progress bar over its runs instead, in the same place.
    """

    def __init__(self, stream) -> None:
        self.stream = stream
        self.shown = False

    @staticmethod
    def wanted(stream, quiet: bool) -> bool:
        """On a terminal that can rewrite a line, unless -q."""
        import os

        return not quiet and stream.isatty() and os.environ.get("TERM") != "dumb"

    def show(self, progress) -> None:
        """Draw ``progress`` (a :class:`flamespace.collect.launcher.Progress`) over the last line."""
        parts = [f"{progress.seconds:,.1f} s"]
        if progress.samples is not None:
            parts.append(f"{progress.samples:,} samples")
        if progress.rate is not None:
            parts.append(f"{progress.rate:,.0f} Hz")
        text = "flamespace record: " + " · ".join(parts) + " (Ctrl-C stops and saves)"
        self._write("\r\x1b[K" + text[: self._columns() - 1] + "\r")
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self._write("\r\x1b[K")
            self.shown = False

    def _columns(self) -> int:
        import os

        try:
            return os.get_terminal_size(self.stream.fileno()).columns or 80
        except (OSError, ValueError):
            return 80

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: the recording goes on
            pass
