"""The contract every recorder meets (one documented base per boundary).

A recorder records one process: ``start()`` it, let the program run, ``stop()`` it and it
hands over a :class:`~.raw.RawRecording`, which :func:`~.recording.merge` (with the
raw recordings of the other processes of the run) turns into a
:class:`~.recording.Recording`. ``forked()`` gives the recorder of a forked child, already
recording what is the child's (it may be the same object: ``live`` keeps tracing, and the
blocks a child inherits and still holds at exit are its own).

The recorders: :class:`~.engine.SamplingRecorder` (modes wall, cpu),
:class:`~.memory.MemoryRecorder` (live), :class:`~.alloc.AllocRecorder` (alloc),
:class:`~.trace_engine.TraceRecorder` (trace: every call and return). A new one
implements these three methods, adds a kind to :data:`~.raw.KINDS` and a branch to
:func:`~._bootstrap.start_recorder`, and builds its metadata in :func:`~.recording.merge`.

This module imports ``typing``: recorders themselves never import it (they run inside the
profiled program, whose start-up they must not slow); type checkers and users do.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from .raw import RawRecording


@runtime_checkable
class Recorder(Protocol):
    """start, stop -> RawRecording, forked."""

    def start(self) -> Recorder:
        """Start recording this process; returns the recorder."""

    def stop(self) -> RawRecording:
        """Stop (no thread or hook is left behind) and hand over what was recorded."""

    def forked(self) -> Recorder:
        """The recorder of the child after ``os.fork()``, recording."""


__all__ = ["RawRecording", "Recorder"]
