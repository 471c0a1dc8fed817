"""What the raw recordings of a run become: the :class:`Recording`, made by one :func:`merge`.

The launcher merges the :class:`~.raw.RawRecording` of every process of a profiled run;
the in-process APIs (:class:`~.sampler.Sampler`, :func:`~.api.profile`) merge their one.
Only the parent imports this module, never the profiled child (see :mod:`.raw`).
"""

from __future__ import annotations

import os
import sys

from .._record import Record, factory, record
from .raw import Quality, RawRecording

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from ..core.chart import FlameChart
    from ..core.metadata import Metadata
    from .._types import Number, Stack
    from ..core.vector import FlameGraph
    from .memory import MemoryOptions
    from .options import SamplerOptions
    from .tracer import Trace, TraceOptions


@record(frozen=False)
class Recording(Record):
    """What a recording gives: the flame graph, the timeline if kept, and how good they are."""

    graph: FlameGraph
    chart: FlameChart | None = None
    quality: Quality = factory(Quality)
    problems: list[str] = factory(list)
    #: A traced run's call counts, longest calls and function table (``flamespace trace``).
    trace: Trace | None = None

    def profile_for(self, output_format: str) -> FlameGraph | FlameChart:
        """What to write in ``output_format``: the timeline for formats that keep time
        (speedscope, Chrome, ...), when there is one, else the flame graph."""
        if self.chart is not None:
            from ..formats import registry

            if registry.keeps_time(output_format):
                return self.chart
        return self.graph


def merge(
    raws: Sequence[RawRecording],
    options: SamplerOptions | MemoryOptions | TraceOptions,
    labels: Mapping[str, str] | None = None,
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
    kinds_of_roots = ("process",) * roots + ("thread",) * bool(getattr(options, "threads", False))
    if kinds_of_roots:  # what the first frames are: `--thread NAME` and the HTML's picker read it
        labels.setdefault("roots", ",".join(kinds_of_roots))
    if kinds[0] == "trace":
        from .tracer import merge_traces

        trace = merge_traces(raws, labels, [process_frame(raw) for raw in raws] if roots else None)
        graph = trace.calls if getattr(options, "weight", "time") == "calls" else trace.graph  # collect --tracer --weight calls
        return Recording(graph, trace.chart, problems=list(trace.problems), trace=trace)
    totals: dict[Stack, Number] = {}
    for raw in raws:
        root = (process_frame(raw),) if roots else ()
        for stack, value in raw.totals.items():
            key = root + stack
            totals[key] = totals.get(key, 0) + value
    if kinds[0] != "sampler":
        metadata = memory_metadata(raws, options, labels)  # type: ignore[arg-type]
        return Recording(FlameGraph._trusted({k: v for k, v in totals.items() if v > 0}, metadata))
    quality = Quality()
    chart: FlameChart | None = None
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
    metadata = quality_metadata(options, quality, elapsed, labels)  # type: ignore[arg-type]
    if chart is not None:
        chart.metadata = metadata
    graph = FlameGraph._trusted({k: v for k, v in totals.items() if v > 0}, metadata)
    return Recording(graph, chart, quality, quality.problems(options.rate))  # type: ignore[union-attr]


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


def quality_metadata(options: SamplerOptions, quality: Quality, duration_ns: int, labels: Mapping[str, str] = {}) -> Metadata:
    """The ``# key: value`` headers of a sampled profile: what was asked, what was achieved."""
    from .._version import __version__, platform_labels
    from ..core.metadata import Metadata

    fields = {
        "profiler": f"flamespace {__version__}",
        "mode": options.mode,
        "weight": options.weight,
        "rate_requested": f"{options.rate:g}",
        # per process: quality.duration_ns sums the processes' recording times when there are several
        "rate_achieved": f"{quality.ticks / ((quality.duration_ns or duration_ns) / 1e9):.1f}" if duration_ns else "0",
        "ticks": str(quality.ticks),
        "samples": str(quality.samples),
        "threads": str(quality.threads),
        "late": str(quality.late),
        "missed": str(quality.missed),
        # the one per-run figure of sampling quality (compare --max-missed reads it): see Quality.missed_share
        "missed_share": f"{quality.missed_share():.4f}",
        "longest_gap_ms": f"{quality.longest_gap_ns / 1e6:.1f}",
        "duration_s": f"{duration_ns / 1e9:.3f}",
        **platform_labels(),
    }
    if quality.errors:
        fields["errors"] = f"{quality.errors} (first: {quality.first_error})"
    fields.update(labels)
    return Metadata(unit=options.unit, metric=options.mode, labels=fields)


def memory_metadata(raws: Sequence[RawRecording], options: MemoryOptions, labels: Mapping[str, str] = {}) -> Metadata:
    """The ``# key: value`` headers of a memory profile (``alloc`` or ``live``) recorded with ``options``."""
    from .._version import __version__
    from ..core.metadata import Metadata

    fields = {"profiler": f"flamespace {__version__}", "mode": options.mode, "weight": options.weight}
    events = str(sum(raw.events for raw in raws))
    if options.mode == "alloc":
        fields.update(bytes_per_sample=str(options.interval), samples=events)
    else:
        fields["blocks"] = events
    fields.update(duration_s=f"{max(raw.elapsed_ns for raw in raws) / 1e9:.3f}", python=sys.version.split()[0], **labels)
    return Metadata(unit="bytes" if options.weight == "bytes" else "count", metric=options.mode, labels=fields)


__all__ = ["Quality", "RawRecording", "Recording", "memory_metadata", "merge", "process_frame", "quality_metadata"]
