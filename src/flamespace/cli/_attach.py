"""What ``record --pid`` and ``top --pid`` share: attaching to a running process, and recording it."""

from __future__ import annotations

import signal

from ._report import warn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from ..collect import RecordResult, SamplerOptions
    from ..collect.launcher import Progress
    from ..collect.raw import Quality, RawRecording
    from ..collect.remote.recorder import RemoteRecorder


def record_pid(
    pid: int,
    options: SamplerOptions,
    process_root: bool,
    progress: Callable[[Progress], None] | None,
    quiet: bool = False,
    gil: bool = False,
) -> tuple[RecordResult, str]:
    """Sample process ``pid`` until ``options.duration``, Ctrl-C, SIGTERM/SIGHUP or its exit; the result
    (as ``record_program``'s) and how to describe the target. Raises the AttachError that says why
    it cannot be read, or a RecordError when it ended before a single sample. ``gil``: only the
    samples of the thread that holds the GIL."""
    from ..collect.launcher import Progress, RecordError, RecordResult

    on_progress = None
    if progress is not None:
        show = progress

        def reporter(quality, elapsed_ns: int) -> None:
            seconds = elapsed_ns / 1e9
            show(Progress(seconds, quality.samples, quality.ticks / seconds if seconds > 0 else None))

        on_progress = (0.25, reporter)
    recorder = attached_recorder(pid, options, on_progress, gil)
    raw, stopped_by = run_until_stopped(recorder)
    if recorder.quality.samples == 0 and recorder.ended == "exited":
        raise RecordError(f"process {pid} exited before a single sample was taken", exit_code=1)
    recording = recorder.recording(raw, process_root)
    if recorder.ended == "exited" and not quiet:
        warn(f"flamespace record: process {pid} exited after {raw.elapsed_ns / 1e9:.1f} s of recording")
    described = f"pid {pid} (Python {recorder.process.version})"
    result = RecordResult(
        recording,
        exit_code=0,
        processes=1,
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
    from ..collect import _stop_signals

    # The CLI noted stop signals from its first moment (cli/__init__.py, RECORDERS): take them over.
    stopped_by, previous = _stop_signals.take()
    _stop_signals.forget()

    def stop(number: int, _frame: object) -> None:
        stopped_by.append(number)
        recorder.stop()

    replaced = {number: signal.signal(number, stop) for number in previous}
    if stopped_by:
        recorder.stop()  # a signal came while attaching: one tick, then save
    try:
        raw = recorder.run()
    finally:
        for number, handler in replaced.items():
            signal.signal(number, previous.get(number, handler))
    return raw, stopped_by


__all__ = ["attached_recorder", "record_pid", "run_until_stopped"]
