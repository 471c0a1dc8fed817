"""The statistical profiler's public face: validated options and the Sampler.

The Sampler is the engine run in this process; its ``stop()`` merges the engine's
:class:`~.raw.RawRecording` into a :class:`~.recording.Recording` as the launcher
does for a profiled child (:func:`~.recording.merge`)."""

from __future__ import annotations

import sys
from typing import Callable, Mapping, Optional, Tuple

from .._record import fields, record
from ..core.metadata import Metadata
from ..core.vector import FlameGraph, Stack
from ..errors import ArgumentError
from .clock import Clock
from .engine import IDLE_FRAME, Engine
from .recording import Recording, merge, quality_metadata
from .sink import Sink

MODES = ("wall", "cpu")
WEIGHTS = ("time", "samples")
MIN_RATE, MAX_RATE = 1.0, 10_000.0


@record
class SamplerOptions:
    """What to record; ``flamespace record``'s options map one to one onto these.

    ``mode``: ``wall`` (every thread, running or waiting) or ``cpu`` (only time on a CPU,
    from per-thread CPU clocks). ``rate``: mean samples per second (1-10,000). ``weight``:
    ``time`` (ns since the thread's previous sample) or ``samples`` (1 per sample).
    ``idle``: in wall mode, put the time a thread spent off-CPU under an ``[idle]`` leaf.
    ``lines``: name frames with their line number. ``threads``: the thread name as root
    frame. ``root``: frames put under every stack (e.g. the process). ``timeline``: keep
    every sample in time order (for flame charts). ``duration``: stop after this many
    seconds. ``seed``: make the random intervals repeatable. ``asyncio``: show a thread
    that runs an asyncio task as the task's awaiting chain, not the event loop's internals.
    """

    mode: str = "wall"
    rate: float = 100.0
    weight: str = "time"
    idle: bool = False
    lines: bool = True
    threads: bool = False
    root: Stack = ()
    timeline: bool = False
    duration: Optional[float] = None
    seed: Optional[int] = None
    asyncio: bool = False

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ArgumentError(f"unknown sampling mode {self.mode!r}; choose one of {', '.join(MODES)}")
        if self.weight not in WEIGHTS:
            raise ArgumentError(
                f"unknown weight {self.weight!r}; sampling weighs by {' or '.join(WEIGHTS)} (the memory modes by bytes or count)"
            )
        if not MIN_RATE <= self.rate <= MAX_RATE:
            raise ArgumentError(f"the sampling rate must be between 1 and 10,000 Hz, not {self.rate:g}")
        if self.duration is not None and self.duration <= 0:
            raise ArgumentError(f"the duration must be positive, not {self.duration:g}")
        if self.idle and self.mode != "wall":
            raise ArgumentError("idle marking splits wall time into on- and off-CPU; it needs mode 'wall'")
        if (self.mode == "cpu" or self.idle) and not Clock.supports_thread_cpu():
            raise ArgumentError(f"per-thread CPU clocks are not available on {sys.platform}; use mode 'wall'")
        object.__setattr__(self, "root", tuple(self.root))

    @property
    def unit(self) -> str:
        return "ns" if self.weight == "time" else "samples"

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in fields(SamplerOptions)}


class Sampler(Engine):
    """A sampling profiler for this process: ``start()``, ``snapshot()``, ``stop() -> Recording``.

    ``on_interval=(seconds, callback)`` hands the flame graph of each interval to
    ``callback`` and starts the next one afresh, so a long-running service can write a
    profile every N seconds in bounded memory (:class:`~flamespace.collect.api.Rotation`
    writes rotating files). ``labels`` are added to the profile's metadata.
    """

    def __init__(
        self,
        options: SamplerOptions = SamplerOptions(),
        *,
        clock: Optional[Clock] = None,
        sink: Optional[Sink] = None,
        labels: Optional[Mapping[str, str]] = None,
        on_interval: Optional[Tuple[float, Callable[[FlameGraph], None]]] = None,
        **engine_options: object,
    ) -> None:
        super().__init__(
            **options.as_dict(), clock=clock, sink=sink, on_interval=on_interval, **engine_options  # type: ignore[arg-type]
        )
        self.options = options
        self.labels = dict(labels or {})

    def stop(self) -> Recording:
        """Stop sampling (no thread is left behind, the switch interval is restored); the profile."""
        self.halt()
        with self.lock:
            return merge([self.raw()], self.options, self.labels)

    def snapshot(self) -> FlameGraph:
        """The profile recorded so far; recording goes on."""
        with self.lock:
            return self.sink.graph(self.metadata())

    def __enter__(self) -> "Sampler":
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def metadata(self) -> Metadata:
        return quality_metadata(self.options.as_dict(), self.quality, self.elapsed_ns, self.labels)


__all__ = ["IDLE_FRAME", "MODES", "Recording", "Sampler", "SamplerOptions", "WEIGHTS", "quality_metadata"]
