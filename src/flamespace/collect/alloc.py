"""``alloc`` mode: the bytes (or allocations) each stack allocated during the run.

tracemalloc cannot answer this: it keeps only blocks that are still alive, and most
allocations of a Python program are temporaries freed long before any snapshot. The C
module ``_alloc`` wraps the interpreter's allocators and samples allocations with a
Poisson process over bytes, weighting each sample by the inverse of its probability, so
the totals are unbiased estimates (see ``_alloc.c``). A background thread moves samples
out of the C buffers once a second, so memory stays bounded by the number of distinct
stacks, not by the length of the run.
"""

from __future__ import annotations

import os
import threading
import time

try:
    from . import _alloc
except ImportError as exc:  # built without a C compiler
    _alloc = None  # type: ignore[assignment]  # an optional C extension: None when absent
    _NOT_BUILT = str(exc)

from .engine import _leave_signals_to_other_threads
from .memory import DEFAULT_ALLOC_INTERVAL, DEFAULT_MAX_FRAMES, TRUNCATED_FRAME, program_stack
from .naming import FrameNamer
from .raw import RawRecording

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Collection

#: The frame of allocations made while no Python code ran (interpreter start or shutdown).
NO_PYTHON_FRAME = "[no Python frame]"
#: Seconds between two moves of samples out of the C buffers.
DRAIN_PERIOD = 1.0


def available() -> str | None:
    """None if alloc mode works here, else why not."""
    if _alloc is None:
        return f"the C extension flamespace.collect._alloc is not built ({_NOT_BUILT}); reinstall flamespace with a C compiler"
    return None


class AllocRecorder:
    """The ``alloc`` :class:`~.protocol.Recorder`: samples the allocations of this process;
    ``stop()`` builds the per-stack totals."""

    def __init__(
        self,
        weight: str = "bytes",
        lines: bool = True,
        max_frames: int = DEFAULT_MAX_FRAMES,
        interval: int = DEFAULT_ALLOC_INTERVAL,
        seed: int | None = None,
        hidden_files: Collection[str] = (),
    ) -> None:
        self.weight, self.lines, self.max_frames = weight, lines, max_frames
        self.interval, self.seed = interval, seed
        self.hidden_files = set(hidden_files)
        self.totals: dict[tuple[str, ...], int] = {}
        self._by_code: dict[tuple[Any, ...], list] = {}  # (truncated, frames) -> [bytes, count]
        self._samples = 0
        self._start_ns = self._elapsed_ns = 0
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def start(self) -> AllocRecorder:
        seed = self.seed if self.seed is not None else int.from_bytes(os.urandom(8), "little")
        self._start_drainer()  # first: the start of a thread allocates, and that is ours
        self._start_ns = time.monotonic_ns()
        _alloc.start(float(self.interval), self.max_frames, seed or 1)
        return self

    def _start_drainer(self) -> None:
        """Start the thread that drains the C buffers, and return once it is in its loop
        (what a thread allocates before its target runs has no frame of ours to tell it)."""
        self._stop.clear()
        ready = threading.Event()
        self._thread = threading.Thread(target=self._drain_periodically, args=(ready,), name="flamespace-alloc", daemon=True)
        self._thread.start()
        ready.wait()

    def _drain_periodically(self, ready: threading.Event) -> None:
        _leave_signals_to_other_threads()
        ready.set()
        while not self._stop.wait(DRAIN_PERIOD):
            self._drain()

    def _drain(self) -> None:
        by_code = self._by_code
        for bytes_, count, truncated, frames in _alloc.drain():
            key = (truncated, frames)
            entry = by_code.get(key)
            if entry is None:
                by_code[key] = [bytes_, count]
            else:
                entry[0] += bytes_
                entry[1] += count
            self._samples += 1

    def stop(self) -> RawRecording:
        thread, self._thread = self._thread, None
        if thread is not None:
            self._halt(thread)
        return RawRecording("alloc", self.totals, self._start_ns, self._elapsed_ns, events=self._samples)

    def _halt(self, thread: threading.Thread) -> None:
        _alloc.stop()
        self._stop.set()
        if thread is not threading.current_thread():
            thread.join()
        self._drain()
        self._elapsed_ns = time.monotonic_ns() - self._start_ns
        self._build_totals()

    def _build_totals(self) -> None:
        namer = FrameNamer(lines=self.lines)
        index = 0 if self.weight == "bytes" else 1
        totals: dict[tuple[str, ...], float] = {}
        for (truncated, frames), values in self._by_code.items():
            root_first = frames[::-1]
            stack = program_stack(root_first, _filename, lambda f: namer.location(f[0], f[1]), self.hidden_files)
            if stack is None:
                continue  # allocated by the profiler itself
            if not stack:
                stack = (NO_PYTHON_FRAME,)  # the interpreter allocating outside any Python code
            if truncated:
                stack = (TRUNCATED_FRAME,) + stack
            totals[stack] = totals.get(stack, 0.0) + values[index]
        self._by_code.clear()  # drop the references to code objects
        self.totals = {stack: round(value) for stack, value in totals.items() if round(value) > 0}

    def forked(self) -> AllocRecorder:
        """The recorder of a forked child: the allocators stay wrapped; the parent's samples go."""
        self._stop = threading.Event()  # its lock may have been held by the parent's drainer
        self._start_drainer()  # threads do not survive fork
        _alloc.reset()  # after the drainer started: its start is not the program's
        self._by_code = {}
        self._samples = 0
        self._start_ns = time.monotonic_ns()
        return self


def _filename(frame: tuple[Any, int]) -> str:
    return frame[0].co_filename


__all__ = ["AllocRecorder", "available"]
