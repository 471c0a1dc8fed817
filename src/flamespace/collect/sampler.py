"""The statistical profiler's public face: validated options, the Sampler, its Recording."""

from __future__ import annotations

import platform
import sys
from dataclasses import dataclass, field
from typing import Callable, List, Mapping, Optional, Tuple

from .._record import fields, record
from ..core.chart import FlameChart
from ..core.metadata import Metadata
from ..core.vector import FlameGraph, Stack
from ..errors import ArgumentError
from .clock import Clock
from .engine import IDLE_FRAME, Engine, Quality
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
            raise ArgumentError(f"unknown weight {self.weight!r}; choose one of {', '.join(WEIGHTS)}")
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


@dataclass
class Recording:
    """What a recorder returns: the flame graph, the timeline if kept, and how good they are."""

    graph: FlameGraph
    chart: Optional[FlameChart] = None
    quality: Quality = field(default_factory=Quality)
    problems: List[str] = field(default_factory=list)


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
            metadata = self.metadata()
            graph = self.sink.finish(metadata)
        return Recording(graph, self.sink.chart, self.quality, self.quality.problems(self.rate))

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


def quality_metadata(
    options: Mapping[str, object], quality: Quality, duration_ns: int, labels: Mapping[str, str] = {}
) -> Metadata:
    """The ``# key: value`` headers of a sampled profile: what was asked, what was achieved."""
    from .. import __version__

    fields = {
        "profiler": f"flamespace {__version__}",
        "mode": str(options["mode"]),
        "weight": str(options["weight"]),
        "rate_requested": f"{options['rate']:g}",
        # per process: quality.duration_ns sums the processes' recording times when there are several
        "rate_achieved": f"{quality.ticks / ((quality.duration_ns or duration_ns) / 1e9):.1f}" if duration_ns else "0",
        "ticks": str(quality.ticks),
        "samples": str(quality.samples),
        "late": str(quality.late),
        "missed": str(quality.missed),
        # the one per-run figure of sampling quality (compare --max-missed reads it): see Quality.missed_share
        "missed_share": f"{quality.missed_share():.4f}",
        "longest_gap_ms": f"{quality.longest_gap_ns / 1e6:.1f}",
        "duration_s": f"{duration_ns / 1e9:.3f}",
        "python": platform.python_version(),
        "host": platform.node(),
    }
    if quality.errors:
        fields["errors"] = f"{quality.errors} (first: {quality.first_error})"
    fields.update(labels)
    unit = "ns" if options["weight"] == "time" else "samples"
    return Metadata(unit=unit, metric=str(options["mode"]), labels=fields)


__all__ = ["IDLE_FRAME", "MODES", "Recording", "Sampler", "SamplerOptions", "WEIGHTS", "quality_metadata"]
