"""The hand-off between recorders and everything above them: what a recorder returns
(:class:`RawRecording`), how good it is (:class:`Quality`), and the one :func:`merge` that
turns the raw recordings of one or more processes into a :class:`Recording`.

Every recorder (the sampler's :class:`~.engine.SamplingRecorder`, the memory recorders
:class:`~.memory.MemoryRecorder` and :class:`~.alloc.AllocRecorder`) follows the
:class:`~.protocol.Recorder` protocol: ``start()``, then ``stop() -> RawRecording``. A
profiled child pickles its RawRecording for the launcher (same flamespace version on both
sides: the pickle is not a file format); the in-process APIs merge theirs directly.

This module is imported inside the profiled program from its first line: at load time it
imports only :mod:`flamespace._record` (no ``typing``, ``dataclasses`` or ``platform``);
:func:`merge` imports the flame-graph classes when it runs, in the parent.
"""

from __future__ import annotations

import os
import sys

from .._record import factory, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

    from ..core.chart import FlameChart
    from ..core.metadata import Metadata
    from ..core.vector import FlameGraph, Number, Stack
    from .memory import MemoryOptions
    from .sampler import SamplerOptions

#: What recorded a RawRecording: the sampler (modes wall, cpu) or a memory recorder.
KINDS = ("sampler", "live", "alloc")
#: Fewer samples than this and the profile's shares are too noisy to trust (about ±10% at 100).
MIN_TRUSTED_SAMPLES = 100
#: A sampler that missed more than this share of its ticks (:meth:`Quality.missed_share`) says so.
MAX_TRUSTED_MISSED_SHARE = 0.2


class Quality:
    """How well the sampler kept its schedule; written into the profile's metadata.

    A tick is late when it came more than one mean interval after it was due; ``missed``
    counts the ticks a Poisson clock would have had in that delay. :meth:`missed_share`
    is the one figure to judge a run by (the ``missed_share`` header).
    """

    __slots__ = ("ticks", "samples", "late", "missed", "errors", "first_error", "duration_ns", "longest_gap_ns")

    def __init__(self) -> None:
        self.ticks = self.samples = self.late = self.missed = self.errors = self.duration_ns = 0
        self.longest_gap_ns = 0  # the longest time without a tick: at most this much can be put on a wrong stack at once
        self.first_error: Optional[str] = None

    def merge(self, other: Quality) -> None:
        """Add another process's figures to these: counts add up, the longest gap is the longest."""
        for name in ("ticks", "samples", "late", "missed", "errors", "duration_ns"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.longest_gap_ns = max(self.longest_gap_ns, other.longest_gap_ns)
        self.first_error = self.first_error or other.first_error

    def error(self, message: str) -> None:
        self.errors += 1
        if self.first_error is None:
            self.first_error = message

    def achieved_rate(self) -> float:
        return self.ticks / (self.duration_ns / 1e9) if self.duration_ns else 0.0

    def missed_share(self) -> float:
        """The share of the ticks a punctual sampler would have taken that this one missed:
        ``missed / (ticks + missed)``, from 0 (every tick on time) to 1. Since ``missed``
        counts mean intervals of delay, it is also about the share of the run during which
        the sampler was more than one interval behind. 0 when nothing was sampled."""
        expected = self.ticks + self.missed
        return self.missed / expected if expected else 0.0

    def problems(self, requested_rate: float) -> List[str]:
        """Reasons not to trust the profile, worded for a warning."""
        found = []
        if self.samples < MIN_TRUSTED_SAMPLES:
            found.append(
                f"only {self.samples} samples (shares are uncertain below {MIN_TRUSTED_SAMPLES}; "
                "record longer or raise --rate)"
            )
        if self.missed_share() > MAX_TRUSTED_MISSED_SHARE:
            found.append(
                f"the sampler fell behind: it missed {100 * self.missed_share():.0f}% of its ticks "
                f"({self.late} of {self.ticks} samples came late, {self.missed} missed; achieved "
                f"{self.achieved_rate():.0f} of {requested_rate:g} Hz; the machine is busy, or a thread "
                "holds the GIL for long stretches: lower --rate, or leave the run out of comparisons)"
            )
        if self.errors:
            found.append(f"{self.errors} sampling errors, the first: {self.first_error}")
        return found

    def as_dict(self) -> Dict[str, object]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quality) and self.as_dict() == other.as_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return "Quality(" + ", ".join(f"{k}={v!r}" for k, v in self.as_dict().items()) + ")"


@record(frozen=False)
class RawRecording:
    """What one recorder recorded in one process, before it becomes a profile.

    ``kind``: one of :data:`KINDS`. ``totals``: value per stack (root first; ns or samples
    for the sampler, bytes or counts for memory). ``start_ns``: when recording started on
    the monotonic clock (processes are ordered and aligned by it); ``elapsed_ns``: for how
    long. The sampler adds its ``quality`` and, with a timeline, its ``chart``; the memory
    recorders count their ``events`` (``live``: blocks still allocated; ``alloc``: samples
    taken). A profiled child sets the process fields before it saves: ``pid``, ``argv``,
    ``process_name`` (multiprocessing's name of it, if any) and ``deadline`` (``--duration``
    stopped it).
    """

    kind: str
    totals: Mapping[Stack, Number] = factory(dict)
    start_ns: int = 0
    elapsed_ns: int = 0
    quality: Optional[Quality] = None
    chart: Optional[FlameChart] = None
    events: int = 0
    pid: int = 0
    argv: Tuple[str, ...] = ()
    process_name: Optional[str] = None
    deadline: bool = False


@record(frozen=False)
class Recording:
    """What a recording gives: the flame graph, the timeline if kept, and how good they are."""

    graph: FlameGraph
    chart: Optional[FlameChart] = None
    quality: Quality = factory(Quality)
    problems: List[str] = factory(list)

    def profile_for(self, output_format: str) -> Union[FlameGraph, FlameChart]:
        """What to write in ``output_format``: the timeline for formats that keep time
        (speedscope), when there is one, else the flame graph."""
        if output_format == "speedscope" and self.chart is not None:
            return self.chart
        return self.graph


def merge(
    raws: Sequence[RawRecording],
    options: Union[SamplerOptions, MemoryOptions],
    labels: Optional[Mapping[str, str]] = None,
    roots: bool = False,
) -> Recording:
    """One Recording from the raw recordings of one or more processes, recorded with ``options``.

    Totals are summed per stack, under a ``name (pid)`` root frame per process with
    ``roots``; the sampler's quality figures and timelines are merged too. ``labels`` are
    added to the profile's metadata. The raw recordings must all be of one kind.
    """
    from ..core.vector import FlameGraph

    if not raws:
        raise ValueError("merge() needs at least one raw recording")
    kinds = sorted({raw.kind for raw in raws})
    if len(kinds) > 1:
        raise ValueError(f"cannot merge recordings of different kinds: {', '.join(kinds)}")
    labels = dict(labels or {})
    settings = options.as_dict()
    totals: Dict[Stack, Number] = {}
    for raw in raws:
        root = (process_frame(raw),) if roots else ()
        for stack, value in raw.totals.items():
            key = root + stack
            totals[key] = totals.get(key, 0) + value
    if kinds[0] != "sampler":
        metadata = memory_metadata(raws, settings, labels)
        return Recording(FlameGraph._trusted({k: v for k, v in totals.items() if v > 0}, metadata))
    quality = Quality()
    chart: Optional[FlameChart] = None
    first_start = min(raw.start_ns for raw in raws)
    elapsed = recorded = 0
    for raw in raws:
        if raw.quality is not None:
            quality.merge(raw.quality)
        elapsed = max(elapsed, raw.start_ns - first_start + raw.elapsed_ns)
        recorded += raw.elapsed_ns
        if raw.chart is not None:
            part = raw.chart
            if roots:
                part = part.relabelled(raw.start_ns - first_start, (process_frame(raw),), f" ({raw.pid})")
            chart = part if chart is None else chart.merged(part)
    quality.duration_ns = recorded  # the achieved rate is per process
    if len(raws) > 1:
        labels["processes"] = str(len(raws))
    metadata = quality_metadata(settings, quality, elapsed, labels)
    if chart is not None:
        chart.metadata = metadata
    graph = FlameGraph._trusted({k: v for k, v in totals.items() if v > 0}, metadata)
    return Recording(graph, chart, quality, quality.problems(settings["rate"]))


def process_frame(raw: RawRecording) -> str:
    """The root frame of one process: its command and pid, e.g. ``worker.py 3 (12345)``, or
    multiprocessing's name for its children, e.g. ``ForkPoolWorker-2 (12346)``."""
    if raw.process_name:
        return f"{raw.process_name} ({raw.pid})"
    argv = [os.path.basename(a) if i == 0 else a for i, a in enumerate(raw.argv or ["python"])]
    if argv[0] == "-c":
        argv[0] = "python -c"
    command = " ".join(argv)
    if len(command) > 60:
        command = command[:57] + "..."
    return f"{command} ({raw.pid})"


def quality_metadata(
    options: Mapping[str, object], quality: Quality, duration_ns: int, labels: Mapping[str, str] = {}
) -> Metadata:
    """The ``# key: value`` headers of a sampled profile: what was asked, what was achieved."""
    import platform

    from .._version import __version__
    from ..core.metadata import Metadata

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


def memory_metadata(
    raws: Sequence[RawRecording], options: Mapping[str, Any], labels: Mapping[str, str] = {}
) -> Metadata:
    """The ``# key: value`` headers of a memory profile (``alloc`` or ``live``) recorded with
    ``options`` (:meth:`~.memory.MemoryOptions.as_dict`)."""
    from .._version import __version__
    from ..core.metadata import Metadata

    fields = {"profiler": f"flamespace {__version__}", "mode": options["mode"], "weight": options["weight"]}
    events = str(sum(raw.events for raw in raws))
    if options["mode"] == "alloc":
        fields.update(bytes_per_sample=str(options["interval"]), samples=events)
    else:
        fields["blocks"] = events
    fields.update(
        duration_s=f"{max(raw.elapsed_ns for raw in raws) / 1e9:.3f}", python=sys.version.split()[0], **labels
    )
    unit = "bytes" if options["weight"] == "bytes" else "count"
    return Metadata(unit=unit, metric=options["mode"], labels=fields)


__all__ = [
    "KINDS", "MAX_TRUSTED_MISSED_SHARE", "MIN_TRUSTED_SAMPLES", "Quality", "RawRecording", "Recording", "merge",
    "memory_metadata", "process_frame", "quality_metadata",
]
