"""What `record` and `collect` share: the program to run and how to record it.

Both commands accept the same program (a script, -m MODULE, -c CODE, an interpreter
first) and the same recorder options, so they are declared once here.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence, TypeVar

import click

from .._record import defaults
from ..collect import MAX_RATE, MEMORY_MODES, MIN_RATE, MODES as SAMPLING_MODES, MemoryOptions, SamplerOptions
from ..errors import ArgumentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..collect import Target

F = TypeVar("F", bound=Callable[..., object])

#: The recorders' defaults, which the options below show and pass on; their checks are the records'
#: own (__post_init__), so the options take any value of the right type (tests/cli/test_defaults.py).
SAMPLING = defaults(SamplerOptions)
MEMORY = defaults(MemoryOptions)
MODES = (*SAMPLING_MODES, *reversed(MEMORY_MODES))
FORMATS = {"folded": ".folded", "speedscope": ".speedscope.json"}
#: What record can write besides: a picture is a fine end for one run, not for collect's runs.
PICTURE_FORMATS = {"svg": ".svg"}

#: Interpreter-like options for the program, then the options of the recorder, in --help order.
_OPTIONS = [
    click.option("-m", "module", metavar="MODULE", default=None, help="Run a module, as python -m does."),
    click.option("-c", "code", metavar="CODE", default=None, help="Run a code string, as python -c does."),
    click.option("--mode", type=click.Choice(MODES), default=SAMPLING["mode"], show_default=True,
                 help="wall: every thread, running or waiting; cpu: time on a CPU only; "
                      "alloc: bytes allocated during the run, per stack (sampled); "
                      "live: bytes still allocated at exit, per allocating stack (tracemalloc)."),
    click.option("--rate", type=float, default=SAMPLING["rate"], show_default=True,
                 help=f"Mean samples per second, {MIN_RATE:g} to {MAX_RATE:,g} (random exponential intervals)."),
    click.option("--weight", type=click.Choice(["time", "samples", "bytes", "count"]), default=None,
                 help=f"Sampling: 'time' (ns since the thread's previous sample) or 'samples' (default {SAMPLING['weight']!r}). "
                      f"Memory: 'bytes' or 'count' (number of allocations; default {MEMORY['weight']!r})."),
    click.option("--bytes-per-sample", "bytes_per_sample", type=int, default=None, metavar="BYTES",
                 help=f"alloc mode: mean bytes allocated between two samples (default {MEMORY['interval']}; 0 records every "
                      "allocation, slowly)."),
    click.option("--idle", is_flag=True, help="In wall mode, put off-CPU time under an '[idle]' leaf frame."),
    click.option("--no-lines", is_flag=True,
                 help="Name frames by function and file only (line numbers shift when code changes)."),
    click.option("--threads", is_flag=True, help="Add each thread's name as a root frame."),
    click.option("--pid", "process_root", is_flag=True, help="Add the process (command and pid) as a root frame."),
    click.option("--async", "async_stacks", is_flag=True,
                 help="Show asyncio tasks as their awaiting chain (the tasks waiting for the running one, "
                      "outermost first) instead of the event loop's internals."),
    click.option("--subprocesses", is_flag=True,
                 help="Also record the Python processes the program starts (subprocess, multiprocessing, "
                      "fork), each under a 'name (pid)' root frame."),
    click.option("--duration", type=float, default=SAMPLING["duration"], metavar="SECONDS",
                 help="Stop after this many seconds: the profile is saved and the program stopped as by Ctrl-C."),
    None,  # --format: its choices differ per command (see recording_options)
    click.option("--seed", type=int, default=SAMPLING["seed"], help="Seed the random sampling intervals (repeatable runs)."),
    click.option("--no-header", is_flag=True, help="Do not write '# key: value' metadata lines into folded output."),
]


def recording_options(formats: Sequence[str] = tuple(FORMATS)) -> Callable[[F], F]:
    """-m, -c and every recorder option (mode, rate, weight, ..., format, seed, no-header);
    ``--format`` offers ``formats``."""
    help_text = {
        "folded": "folded stacks",
        "speedscope": "speedscope JSON (keeps every sample in time order, per thread)",
        "svg": "an interactive flame graph (as flamespace svg draws it)",
    }
    format_option = click.option(
        "--format", "output_format", type=click.Choice(list(formats)), default="folded", show_default=True,
        help="; ".join(help_text[name] for name in formats) + ".",
    )

    def decorate(function: F) -> F:
        for option in reversed(_OPTIONS):
            function = (option or format_option)(function)
        return function

    return decorate


def target_of(command: Sequence[str], module: Optional[str], code: Optional[str]) -> "Target":
    """The program named by COMMAND (a leading '--' dropped), -m MODULE or -c CODE."""
    from ..collect import parse_command

    words = list(command)
    if words and words[0] == "--":
        words = words[1:]
    return parse_command(words, module=module, code=code)


def recorder_settings(
    mode: str, rate: float, weight: Optional[str], bytes_per_sample: Optional[int], idle: bool, no_lines: bool,
    threads: bool, async_stacks: bool, duration: Optional[float], seed: Optional[int], output_format: str,
):
    """SamplerOptions (wall, cpu) or MemoryOptions (alloc, live) from the command-line options.

    The records check the values; here only that each option is one the chosen recorder has."""
    timeline = output_format == "speedscope"
    if bytes_per_sample is not None and mode != "alloc":
        raise ArgumentError("--bytes-per-sample applies to --mode alloc")
    if mode in MEMORY_MODES:
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
        return MemoryOptions(mode=mode, weight=weight or MEMORY["weight"], lines=not no_lines, threads=threads,
                             interval=interval, seed=seed)
    return SamplerOptions(
        mode=mode, rate=rate, weight=weight or SAMPLING["weight"], idle=idle, lines=not no_lines, threads=threads,
        timeline=timeline, duration=duration, seed=seed, asyncio=async_stacks,
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
