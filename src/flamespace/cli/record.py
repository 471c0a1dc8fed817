"""flamespace record: run a Python program under the sampling (or memory) profiler."""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import Optional, Tuple

import click

from ..formats import check_output, registry
from ._common import format_value
from ._recording import FORMATS, PICTURE_FORMATS, StatusLine, recorder_settings, recording_options, target_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..collect import RecordResult
    from ..core.vector import FlameGraph


@click.command(
    "record",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="Where to write the profile ('-' for stdout). Default: profile-<time>.<format> here.")
@recording_options(tuple(FORMATS) + tuple(PICTURE_FORMATS))
@click.option("-q", "--quiet", is_flag=True, help="Do not show the live status line or the summary on stderr (warnings still are).")
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
    from ..collect import Program, record_program
    from ..collect.launcher import Interrupted  # imported here: other commands need not pay for it

    target = target_of(command, module, code)
    options = recorder_settings(mode, rate, weight, bytes_per_sample, idle, no_lines, threads, async_stacks, duration,
                                seed, output_format)
    extension = {**FORMATS, **PICTURE_FORMATS}[output_format]
    output = output or f"profile-{time.strftime('%Y%m%d-%H%M%S')}{extension}"
    check_output(output)  # before the program runs, not after
    status = StatusLine(sys.stderr) if StatusLine.wanted(sys.stderr, quiet) else None
    try:
        result = record_program(Program(target), options, process_root=process_root, subprocesses=subprocesses,
                                progress=None if status is None else status.show)
    except Interrupted as exc:
        click.echo(f"flamespace record: {exc}; nothing written", err=True)
        return 128 + exc.signal
    finally:
        if status is not None:
            status.clear()  # before any message
    if output_format == "svg":
        _write_svg(result.recording.graph, output, target.describe())
    else:
        registry.write(result.recording.profile_for(output_format), output, output_format, header=not no_header)
    _report(result, output, quiet)
    return result.exit_code


def _write_svg(graph: "FlameGraph", output: str, command: str) -> None:
    from ..render import SvgOptions, svg

    labels = graph.metadata.labels
    subtitle = f"{labels.get('mode', '')} mode, {labels.get('duration_s', '?')} s, {labels.get('samples', '?')} samples"
    unit = graph.metadata.unit
    svg(graph, SvgOptions(title=f"flamespace record: {command}", subtitle=subtitle, colors="python",
                          countname="allocations" if unit == "count" else (unit or "samples")), output)


def _report(result: "RecordResult", output: str, quiet: bool) -> None:
    recording = result.recording
    for problem in recording.problems:
        click.echo(f"flamespace record: warning: {problem}", err=True)
    labels = recording.graph.metadata.labels
    if result.signal is not None:  # said even with --quiet: the profile is cut short
        click.echo(
            f"flamespace record: interrupted by {signal.Signals(result.signal).name}: saved "
            f"{labels.get('duration_s', '?')} s of recording to {_where(output)}", err=True,
        )
        return
    if quiet:
        return
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
