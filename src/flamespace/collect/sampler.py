"""The statistical profiler's public face: the Sampler (its options are in :mod:`.options`).

The Sampler is the engine run in this process; its ``stop()`` merges the engine's
:class:`~.raw.RawRecording` into a :class:`~.recording.Recording` as the launcher
does for a profiled child (:func:`~.recording.merge`)."""

from __future__ import annotations

from typing import Callable
from collections.abc import Mapping

from ..core.metadata import Metadata
from ..core.vector import FlameGraph
from .clock import Clock
from .engine import IDLE_FRAME, Engine
from .options import MAX_RATE, MIN_RATE, MODES, WEIGHTS, SamplerOptions
from .recording import Recording, merge, quality_metadata
from .sink import Sink


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
        clock: Clock | None = None,
        sink: Sink | None = None,
        labels: Mapping[str, str] | None = None,
        on_interval: tuple[float, Callable[[FlameGraph], None]] | None = None,
        **engine_options: object,
    ) -> None:
        super().__init__(options, clock=clock, sink=sink, on_interval=on_interval, **engine_options)  # type: ignore[arg-type]
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

    def __enter__(self) -> Sampler:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def metadata(self) -> Metadata:
        return quality_metadata(self.options, self.quality, self.elapsed_ns, self.labels)


__all__ = ["IDLE_FRAME", "MAX_RATE", "MIN_RATE", "MODES", "Recording", "Sampler", "SamplerOptions", "WEIGHTS", "quality_metadata"]
