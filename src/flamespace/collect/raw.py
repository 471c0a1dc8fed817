"""What a recorder hands over when it stops: one process's :class:`RawRecording`, and the
sampler's :class:`Quality` in it.

Every recorder (:class:`~.protocol.Recorder`) returns a RawRecording from ``stop()``; a
profiled child pickles it for the launcher (parent and child run the same flamespace: the
pickle is not a file format); :func:`~.recording.merge` turns those of a run into a
:class:`~.recording.Recording`.

This module is imported inside the profiled program from its first line: it imports
nothing (no ``typing``, no ``dataclasses``, not even :mod:`flamespace._record`, whose class
building costs a millisecond there); what the raw recordings become is in :mod:`.recording`.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO
    from collections.abc import Mapping

    from ..core.chart import FlameChart
    from .._types import Number, Stack

#: What recorded a RawRecording: the sampler (modes wall, cpu), a memory recorder, or the tracer.
KINDS = ("sampler", "live", "alloc", "trace")
#: Fewer samples than this and the profile's shares are too noisy to trust (about ±10% at 100).
MIN_TRUSTED_SAMPLES = 100
#: The samples a run should get: twice the trusted minimum, so a run somewhat shorter than the one
#: a rate was worked out from is still trusted (gate chooses its rate for this; warnings name the rate).
AIMED_SAMPLES = 2 * MIN_TRUSTED_SAMPLES
#: A sampler that missed more than this share of its ticks (:meth:`Quality.missed_share`) says so.
MAX_TRUSTED_MISSED_SHARE = 0.2


class Quality:
    """How well the sampler kept its schedule; written into the profile's metadata.

    A tick is late when it came more than one mean interval after it was due; ``missed``
    counts the mean intervals in that delay (the ticks a punctual sampler would have taken;
    a tick less late than that is not missed: the next one is still taken when due). :meth:`missed_share`
    is the one figure to judge a run by (the ``missed_share`` header). ``threads``: how many
    threads had a sample (a wall profile sums their time: 4 threads over 1 s can hold 4 s).
    """

    __slots__ = ("ticks", "samples", "late", "missed", "errors", "first_error", "duration_ns", "longest_gap_ns", "threads")

    def __init__(self) -> None:
        self.ticks = self.samples = self.late = self.missed = self.errors = self.duration_ns = self.threads = 0
        self.longest_gap_ns = 0  # the longest time without a tick (the last one to the stop too): at most this much can be put on a wrong stack at once
        self.first_error: str | None = None

    def merge(self, other: Quality) -> None:
        """Add another process's figures to these: counts add up, the longest gap is the longest."""
        for name in ("ticks", "samples", "late", "missed", "errors", "duration_ns", "threads"):
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

    def rate_for(self, samples: int) -> float | None:
        """The rate (Hz) at which this recording would have had about ``samples`` samples: they
        grow with the rate, as ticks over the time recorded times the samples a tick took (the
        threads it found). None when nothing was recorded, or no tick found a thread to sample
        (cpu mode in a program that only waited), so that no rate would do."""
        per_tick = self.samples / self.ticks if self.ticks else 1.0
        if not self.duration_ns or not per_tick:
            return None
        return samples / (self.duration_ns / 1e9 * per_tick)

    def problems(self, requested_rate: float) -> list[str]:
        """Reasons not to trust the profile, worded for a warning."""
        found = []
        if self.samples < MIN_TRUSTED_SAMPLES:
            found.append(
                f"only {self.samples} samples (shares are uncertain below {MIN_TRUSTED_SAMPLES}; "
                f"{self.more_samples(requested_rate)})"
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

    def more_samples(self, requested_rate: float) -> str:
        """What gives a run of this length :data:`AIMED_SAMPLES` samples, worded for a warning:
        the ``--rate`` (rounded up to 2 digits), a longer run when even the highest rate gives
        too few, or a quieter machine when ``requested_rate`` would have done had the sampler
        kept its schedule."""
        # (imported here: the profiled child imports this module, and never asks)
        from .options import MAX_RATE

        needed = self.rate_for(AIMED_SAMPLES)
        if needed is None:
            return "record longer, or raise --rate"
        if needed <= requested_rate:  # the rate would do: the sampler missed its ticks (a busy machine)
            return (
                f"at {requested_rate:,g} Hz a punctual sampler takes about {requested_rate / needed * AIMED_SAMPLES:,.0f} "
                "in a run this long, but this one missed ticks: record again on a quieter machine, or longer"
            )
        if needed > MAX_RATE:
            at_most = MAX_RATE / needed * AIMED_SAMPLES
            return (
                f"record longer: even --rate {MAX_RATE:,.0f}, the highest, would give about {at_most:,.0f} "
                "(repeat the work in the benchmark)"
            )
        return f"record longer, or raise --rate: --rate {round_rate(needed):,.0f} gives about {AIMED_SAMPLES} a run this long"

    def as_dict(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quality) and self.as_dict() == other.as_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return "Quality(" + ", ".join(f"{k}={v!r}" for k, v in self.as_dict().items()) + ")"


def round_rate(rate: float) -> float:
    """``rate`` rounded up to 2 significant digits (4,444 Hz -> 4,500 Hz): a rate people can read and type."""
    import math

    if rate <= 0:
        return rate
    step = 10.0 ** max(math.floor(math.log10(rate)) - 1, 0)
    return math.ceil(rate / step) * step


#: The sampler's running figures, written by a profiled child into a small file the launcher
#: reads while the program runs (``record``'s status line): samples, ticks, elapsed ns and their
#: sum, which tells a read that met a write half-way (it is dropped).
STATUS_SIZE = 84


def encode_status(samples: int, ticks: int, elapsed_ns: int) -> bytes:
    """The status record, always :data:`STATUS_SIZE` bytes (rewritten in place)."""
    return b"%20d %20d %20d %20d\n" % (samples, ticks, elapsed_ns, samples + ticks + elapsed_ns)


def decode_status(data: bytes) -> tuple[int, int, int] | None:
    """(samples, ticks, elapsed ns) of a status record; None if there is none yet or it is torn."""
    try:
        samples, ticks, elapsed_ns, check = (int(field) for field in data.split())
    except ValueError:
        return None
    return (samples, ticks, elapsed_ns) if samples + ticks + elapsed_ns == check else None


class RawRecording:
    """What one recorder recorded in one process, before it becomes a profile.

    ``kind``: one of :data:`KINDS`. ``totals``: value per stack (root first; ns or samples
    for the sampler, bytes or counts for memory). ``start_ns``: when recording started on
    the monotonic clock (processes are ordered and aligned by it); ``elapsed_ns``: for how
    long. The sampler adds its ``quality`` and, with a timeline, its ``chart``; the memory
    recorders count their ``events`` (``live``: blocks still allocated; ``alloc``: samples
    taken). A profiled child sets the process fields before it saves: ``pid``, ``argv``,
    ``process_name`` (multiprocessing's name of it, if any) and ``deadline`` (``--duration``
    stopped it). The tracer's ``totals`` are exclusive ns per stack; it adds ``calls`` and
    ``longest`` (ns of the longest single call) per stack, counts its kept ``events`` and the
    ``dropped`` ones (past its bound), with ``line_times`` its ``lines`` (location -> (exclusive
    ns, hits)), and ``notes``: what it could not record, worded for a warning.
    """

    __slots__ = (
        "kind",
        "totals",
        "start_ns",
        "elapsed_ns",
        "quality",
        "chart",
        "events",
        "pid",
        "argv",
        "process_name",
        "deadline",
        "calls",
        "longest",
        "dropped",
        "lines",
        "notes",
    )

    def __init__(
        self,
        kind: str,
        totals: Mapping[Stack, Number] | None = None,
        start_ns: int = 0,
        elapsed_ns: int = 0,
        quality: Quality | None = None,
        chart: FlameChart | None = None,
        events: int = 0,
        pid: int = 0,
        argv: tuple[str, ...] = (),
        process_name: str | None = None,
        deadline: bool = False,
        calls: Mapping[Stack, int] | None = None,
        longest: Mapping[Stack, int] | None = None,
        dropped: int = 0,
        lines: Mapping[str, tuple[int, int]] | None = None,
        notes: list[str] | None = None,
    ) -> None:
        self.kind, self.totals = kind, {} if totals is None else totals
        self.start_ns, self.elapsed_ns, self.quality, self.chart = start_ns, elapsed_ns, quality, chart
        self.events, self.pid, self.argv, self.process_name, self.deadline = events, pid, argv, process_name, deadline
        self.calls, self.longest, self.dropped = calls, longest, dropped
        self.lines, self.notes = lines, notes

    def as_builtins(self) -> dict[str, object] | None:
        """The fields as builtin values (see :func:`dumps`), or None when a chart is kept."""
        if self.chart is not None:
            return None
        fields: dict[str, object] = {name: getattr(self, name) for name in self.__slots__}
        fields["totals"] = dict(self.totals)
        for name in ("calls", "longest", "lines"):
            if fields[name] is not None:
                fields[name] = dict(fields[name])  # type: ignore[call-overload]  # a Mapping when not None
        fields["quality"] = None if self.quality is None else self.quality.as_dict()
        return fields

    @classmethod
    def from_builtins(cls, fields: dict[str, object]) -> RawRecording:
        fields = dict(fields)
        figures = fields.pop("quality")
        raw = cls(**fields)  # type: ignore[arg-type]
        if isinstance(figures, dict):
            raw.quality = Quality()
            for name, value in figures.items():
                setattr(raw.quality, name, value)
        return raw

    def __repr__(self) -> str:
        return "RawRecording(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__) + ")"


def dumps(raw: RawRecording) -> bytes:
    """``raw`` as the bytes a profiled child saves for the launcher (:func:`loads`). Builtin
    values go through ``marshal``, which every interpreter has loaded: importing ``pickle``
    (with ``re``, ``enum``, ``struct``) took about 4 ms of each recording's fixed cost
    (docs/performance.md). A recording with a timeline, or a value marshal refuses, is pickled."""
    fields = raw.as_builtins()
    if fields is not None:
        import marshal

        try:
            return b"M" + marshal.dumps(fields)
        except ValueError:  # e.g. a str subclass among the frame names
            pass
    import io
    import pickle

    buffer = io.BytesIO()  # b"P" + pickle.dumps(...) would copy a trace's tens of megabytes once more
    buffer.write(b"P")
    pickle.dump(raw, buffer, protocol=pickle.HIGHEST_PROTOCOL)
    return buffer.getvalue()


def loads(data: bytes) -> RawRecording:
    """The RawRecording that :func:`dumps` saved (by our own child: the same flamespace)."""
    import io

    return load(io.BytesIO(data))


def load(file: BinaryIO) -> RawRecording:
    """:func:`loads` from a file: a pickled trace's bytes go straight from the file into its objects."""
    if file.read(1) == b"M":
        import marshal

        return RawRecording.from_builtins(marshal.loads(file.read()))
    import pickle

    raw: RawRecording = pickle.load(file)
    return raw


__all__ = [
    "AIMED_SAMPLES",
    "KINDS",
    "MAX_TRUSTED_MISSED_SHARE",
    "MIN_TRUSTED_SAMPLES",
    "Quality",
    "RawRecording",
    "STATUS_SIZE",
    "decode_status",
    "dumps",
    "encode_status",
    "load",
    "loads",
]
