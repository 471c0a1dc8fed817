"""flamespace record: run a Python program under the sampling (or memory) profiler."""

from __future__ import annotations

import os
import time
from typing import Optional, Tuple

import click

from ..errors import ArgumentError
from ..formats import registry
from ._common import format_value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..collect.launcher import RecordResult

MODES = ("wall", "cpu", "alloc", "live")
FORMATS = {"folded": ".folded", "speedscope": ".speedscope.json"}


@click.command(
    "record",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="Where to write the profile ('-' for stdout). Default: profile-<time>.<format> here.")
@click.option("-m", "module", metavar="MODULE", default=None, help="Run a module, as python -m does.")
@click.option("-c", "code", metavar="CODE", default=None, help="Run a code string, as python -c does.")
@click.option("--mode", type=click.Choice(MODES), default="wall", show_default=True,
              help="wall: every thread, running or waiting; cpu: time on a CPU only; "
                   "alloc: bytes allocated during the run, per stack (sampled); "
                   "live: bytes still allocated at exit, per allocating stack (tracemalloc).")
@click.option("--rate", type=click.FloatRange(1, 10_000), default=100, show_default=True,
              help="Mean samples per second (random exponential intervals).")
@click.option("--weight", type=click.Choice(["time", "samples", "bytes", "count"]), default=None,
              help="Sampling: 'time' (ns since the thread's previous sample, default) or 'samples'. "
                   "Memory: 'bytes' (default) or 'count' (number of allocations).")
@click.option("--bytes-per-sample", "bytes_per_sample", type=click.IntRange(min=0), default=None, metavar="BYTES",
              help="alloc mode: mean bytes allocated between two samples (default 262144; 0 records every "
                   "allocation, slowly).")
@click.option("--idle", is_flag=True, help="In wall mode, put off-CPU time under an '[idle]' leaf frame.")
@click.option("--no-lines", is_flag=True, help="Name frames by function and file only (line numbers shift when code changes).")
@click.option("--threads", is_flag=True, help="Add each thread's name as a root frame.")
@click.option("--pid", "process_root", is_flag=True, help="Add the process (command and pid) as a root frame.")
@click.option("--async", "async_stacks", is_flag=True,
              help="Show asyncio tasks as their awaiting chain (the tasks waiting for the running one, "
                   "outermost first) instead of the event loop's internals.")
@click.option("--subprocesses", is_flag=True,
              help="Also record the Python processes the program starts (subprocess, multiprocessing, "
                   "fork), each under a 'name (pid)' root frame.")
@click.option("--duration", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
              help="Stop after this many seconds: the profile is saved and the program stopped as by Ctrl-C.")
@click.option("--format", "output_format", type=click.Choice(list(FORMATS)), default="folded", show_default=True,
              help="folded stacks, or speedscope JSON (keeps every sample in time order, per thread).")
@click.option("--seed", type=int, default=None, help="Seed the random sampling intervals (repeatable runs).")
@click.option("--no-header", is_flag=True, help="Do not write '# key: value' metadata lines into folded output.")
@click.option("-q", "--quiet", is_flag=True, help="Do not print the summary line on stderr (warnings still are).")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def command(
    output: Optional[str], module: Optional[str], code: Optional[str], mode: str, rate: float, weight: Optional[str],
    bytes_per_sample: Optional[int], idle: bool, no_lines: bool, threads: bool, process_root: bool, async_stacks: bool,
    subprocesses: bool, duration: Optional[float], output_format: str, seed: Optional[int], no_header: bool, quiet: bool, command: Tuple[str, ...],
) -> int:
    """Profile a Python program: a script, -m MODULE or -c CODE, with its arguments.

    Interpreter start-up (site, .pth files, sitecustomize, imports) is part of the profile.
    The program behaves as under python (argv, sys.path, exit code, exceptions); its exit
    code is ours. The profile is written when it ends, raises, calls sys.exit or is stopped
    with Ctrl-C.

    \b
    Example:
        flamespace record -o app.folded -- app.py --port 8000
        flamespace record --mode cpu --rate 1000 -o work.folded -m mypackage.cli run
        flamespace record --format speedscope -o run.speedscope.json -- python -X dev job.py
        flamespace record --subprocesses -o build.folded -- tools/build.py --jobs 4
    """
    from ..collect.launcher import run  # imported here: other commands need not pay for it
    from ..collect.target import parse_command

    words = list(command)
    if words and words[0] == "--":
        words = words[1:]
    target = parse_command(words, module=module, code=code)
    options = _recorder_options(mode, rate, weight, bytes_per_sample, idle, no_lines, threads, duration, seed,
                                output_format, async_stacks)
    output = output or f"profile-{time.strftime('%Y%m%d-%H%M%S')}{FORMATS[output_format]}"
    result = run(target, options, process_root=process_root, subprocesses=subprocesses)
    profile = result.recording.chart if output_format == "speedscope" and result.recording.chart is not None else result.recording.graph
    registry.write(profile, output, output_format, header=not no_header)
    _report(result, output, quiet)
    return result.exit_code


def _recorder_options(mode, rate, weight, bytes_per_sample, idle, no_lines, threads, duration, seed, output_format,  # type: ignore[no-untyped-def]
                      async_stacks):
    timeline = output_format == "speedscope"
    if bytes_per_sample is not None and mode != "alloc":
        raise ArgumentError("--bytes-per-sample applies to --mode alloc")
    if mode in ("live", "alloc"):
        from ..collect.memory import DEFAULT_ALLOC_INTERVAL, MemoryOptions

        if weight in ("time", "samples"):
            raise ArgumentError(f"--weight {weight} is for sampling; memory modes count 'bytes' or 'count'")
        if idle:
            raise ArgumentError("--idle applies to wall-time sampling, not to memory modes")
        if duration is not None or async_stacks:
            which = "--duration" if duration is not None else "--async"
            raise ArgumentError(f"{which} applies to the sampling modes (wall, cpu), not to memory modes")
        if mode == "alloc":
            from ..collect.alloc import available

            problem = available()
            if problem is not None:
                raise ArgumentError(f"--mode alloc is not available: {problem}")
        interval = DEFAULT_ALLOC_INTERVAL if bytes_per_sample is None else bytes_per_sample
        return MemoryOptions(mode=mode, weight=weight or "bytes", lines=not no_lines, threads=threads,
                             interval=interval, seed=seed)
    from ..collect.sampler import SamplerOptions

    if weight in ("bytes", "count"):
        raise ArgumentError(f"--weight {weight} is for the memory modes; sampling weighs by 'time' or 'samples'")
    return SamplerOptions(
        mode=mode, rate=rate, weight=weight or "time", idle=idle, lines=not no_lines, threads=threads,
        timeline=timeline, duration=duration, seed=seed, asyncio=async_stacks,
    )


def _report(result: "RecordResult", output: str, quiet: bool) -> None:
    recording = result.recording
    for problem in recording.problems:
        click.echo(f"flamespace record: warning: {problem}", err=True)
    if quiet:
        return
    labels = recording.graph.metadata.labels
    if "blocks" in labels:  # a live-memory profile
        click.echo(
            f"flamespace record: {format_value(recording.graph.total())} {recording.graph.metadata.unit} in "
            f"{format_value(int(labels['blocks']))} blocks still allocated at exit; wrote {_where(output)}",
            err=True,
        )
        return
    if "bytes_per_sample" in labels:  # an allocation profile
        what = "bytes" if recording.graph.metadata.unit == "bytes" else "allocations"
        click.echo(
            f"flamespace record: about {format_value(recording.graph.total())} {what} allocated over "
            f"{labels['duration_s']} s (estimated from {format_value(int(labels['samples']))} samples); "
            f"wrote {_where(output)}",
            err=True,
        )
        return
    where = _where(output)
    processes = f", {result.processes} processes" if result.processes > 1 else ""
    stopped = f", stopped after --duration" if result.stopped_by_duration else ""
    click.echo(
        f"flamespace record: {format_value(int(labels.get('samples', len(recording.graph))))} samples"
        f"{' (' + labels['rate_achieved'] + ' Hz)' if 'rate_achieved' in labels else ''}"
        f" over {labels.get('duration_s', '?')} s{processes}{stopped}; wrote {where}",
        err=True,
    )


def _where(output: str) -> str:
    return "stdout" if output == "-" else os.path.abspath(output)
