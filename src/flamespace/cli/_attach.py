"""What ``record --pid`` and ``top --pid`` share: attaching to a running process, and recording it."""

from __future__ import annotations

import signal
from contextlib import contextmanager

from ._report import warn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable
    from collections.abc import Iterator

    from ..collect import MemoryOptions, RecordResult, SamplerOptions
    from ..collect.launcher import Progress
    from ..collect.raw import Quality, RawRecording
    from ..collect.remote.process import RemoteProcess
    from ..collect.remote.recorder import RemoteRecorder


def record_pid(
    pid: int,
    options: SamplerOptions | MemoryOptions,
    process_root: bool,
    progress: Callable[[Progress], None] | None,
    quiet: bool = False,
    gil: bool = False,
    native: str | None = None,
    inject: bool = False,
    duration: float | None = None,
    subprocesses: bool = False,
) -> tuple[RecordResult, str]:
    """Record process ``pid`` until ``duration`` (s), Ctrl-C, SIGTERM/SIGHUP or its exit; the result
    (as ``record_program``'s) and how to describe the target. Raises the AttachError that says why
    it cannot be read, or a RecordError when it ended before a single sample. ``gil``: only the
    samples of the thread that holds the GIL; ``native``: 'yes' or 'all' for native frames (docs/attach.md).
    From outside (the sampler's modes), or from inside (``inject``, the memory modes, asyncio stacks:
    3.14+'s sys.remote_exec); ``inject`` where the target cannot take it records from outside, with a warning.
    ``subprocesses``: its child processes that are Python too, each under its process's root frame."""
    from ..collect.launcher import Progress, RecordError, RecordResult
    from ..collect.options import SamplerOptions as Sampling
    from ..collect.remote import inject as injection
    from ..collect.remote.process import attach
    from ..collect.remote.recorder import RemoteRecorder

    process = attach(pid)
    needs_inside = not isinstance(options, Sampling) or options.asyncio
    if inject or needs_inside:
        problem = injection.problem(process)
        if problem is None:
            try:
                return _record_inside(process, options, process_root, quiet, duration)
            except injection.NotStarted as exc:
                if needs_inside:
                    raise
                problem = str(exc)
        if needs_inside:
            what = "--async" if isinstance(options, Sampling) else f"--mode {options.mode}"
            raise injection.InjectError(f"{what} records from inside the program, and {problem}")
        if not quiet:
            warn(f"flamespace record: cannot record from inside: {problem}; recording from outside instead")
    assert isinstance(options, Sampling)  # the memory modes went inside or raised
    on_progress = None
    if progress is not None:
        show = progress

        def reporter(quality, elapsed_ns: int) -> None:
            seconds = elapsed_ns / 1e9
            show(Progress(seconds, quality.samples, quality.ticks / seconds if seconds > 0 else None))

        on_progress = (0.25, reporter)
    from ..collect.remote.family import FamilyRecorder

    kind = FamilyRecorder if subprocesses else RemoteRecorder
    recorder = kind(process, options, on_progress=on_progress, gil_only=gil, native=native)
    raw, stopped_by = run_until_stopped(recorder)
    if recorder.quality.samples == 0 and recorder.ended == "exited":
        raise RecordError(f"process {pid} exited before a single sample was taken", exit_code=1)
    recording = recorder.recording(raw, process_root)
    if recorder.ended == "exited" and not quiet:
        warn(f"flamespace record: process {pid} exited after {raw.elapsed_ns / 1e9:.1f} s of recording")
    processes = 1
    if isinstance(recorder, FamilyRecorder):
        processes += len(recorder.sampled())
        skipped = recorder.skipped_children()
        if skipped:  # data not recorded: said even with -q
            warn(
                f"flamespace record: --subprocesses skipped {len(skipped)} child process(es) that are not Python (or could not be read): {', '.join(skipped)}"
            )
    described = f"pid {pid} (Python {process.version})"
    result = RecordResult(
        recording,
        exit_code=0,
        processes=processes,
        stopped_by_duration=recorder.ended == "duration",
        signal=stopped_by[0] if stopped_by else None,
    )
    return result, described


def attached_recorder(
    pid: int,
    options: SamplerOptions,
    on_progress: tuple[float, Callable[[Quality, int], None]] | None = None,
    gil: bool = False,
) -> RemoteRecorder:
    """A recorder of process ``pid`` (attached and checked: an AttachError says why it cannot be read)."""
    from ..collect.remote.process import attach
    from ..collect.remote.recorder import RemoteRecorder

    return RemoteRecorder(attach(pid), options, on_progress=on_progress, gil_only=gil)


def run_until_stopped(recorder: RemoteRecorder) -> tuple[RawRecording, list[int]]:
    """Run ``recorder`` until its duration, Ctrl-C, SIGTERM/SIGHUP or the target's exit: what it recorded,
    and the stop signals that came (the first one stopped it)."""
    with _stop_signals_to(recorder.stop) as stopped_by:
        raw = recorder.run()
    return raw, stopped_by


@contextmanager
def _stop_signals_to(stop: Callable[[], None]) -> Iterator[list[int]]:
    """Ctrl-C, SIGTERM and SIGHUP call ``stop`` while in the ``with`` (the list names the signals that came)."""
    from ..collect import _stop_signals

    # The CLI noted stop signals from its first moment (cli/__init__.py, RECORDERS): take them over.
    stopped_by, previous = _stop_signals.take()
    _stop_signals.forget()

    def on_signal(number: int, _frame: object) -> None:
        stopped_by.append(number)
        stop()

    replaced = {number: signal.signal(number, on_signal) for number in previous}
    if stopped_by:
        stop()  # a signal came while attaching: stop at once, then save
    try:
        yield stopped_by
    finally:
        for number, handler in replaced.items():
            signal.signal(number, previous.get(number, handler))


def _record_inside(
    process: RemoteProcess, options: SamplerOptions | MemoryOptions, process_root: bool, quiet: bool, duration: float | None
) -> tuple[RecordResult, str]:
    """Record ``process`` with flamespace's own recorder started inside it (collect/remote/inject.py)."""
    from ..collect.launcher import RecordResult
    from ..collect.options import SamplerOptions as Sampling
    from ..collect.recording import merge
    from ..collect.remote.inject import InjectedRecorder

    if isinstance(options, Sampling):
        recorder = InjectedRecorder(process, "sampler", options.as_dict())
    else:
        recorder = InjectedRecorder(process, options.mode, options.engine_arguments())
    told: list[bool] = []

    def waiting(seconds: float) -> None:
        if seconds > 1 and not told and not quiet:
            told.append(True)
            warn(f"flamespace record: waiting for process {process.pid}'s main thread to run Python code (it runs the recorder)")

    with _stop_signals_to(recorder.stop) as stopped_by:
        raw = recorder.run(duration, waiting)
    labels = {"target_python": process.version, "attached": "pid, in-process (sys.remote_exec)", "ended": recorder.ended}
    recording = merge([raw], options, labels, roots=process_root)
    if not quiet:
        ended = f"; process {process.pid} exited" if recorder.ended == "exited" else ""
        warn(f"flamespace record: recorded inside process {process.pid} (Python {process.version}, sys.remote_exec){ended}")
    result = RecordResult(
        recording,
        exit_code=0,
        processes=1,
        stopped_by_duration=recorder.ended == "duration",
        signal=stopped_by[0] if stopped_by else None,
    )
    return result, f"pid {process.pid} (Python {process.version}, recorded inside it)"


__all__ = ["attached_recorder", "record_pid", "run_until_stopped"]
