"""Guard rails for comparing samples of runs: are the runs comparable, usable, and how steady was the machine?

A comparison of two samples is only as good as its runs. Runs recorded in different modes
or units, of different programs, or that recorded nothing give numbers that look like
changes but are not. This module checks the runs' metadata (the ``# key: value`` headers
``flamespace collect`` writes) and returns :class:`Finding` objects; it prints nothing.
Runs without such metadata (folded files from other tools) are simply not checked.

The caller builds one :class:`RunInfo` per run file and calls :func:`screen`; after the
comparison, :func:`drift_findings` says whether the machine's drift during the collection
is larger than the changes the comparison reports.
"""

from __future__ import annotations

import re

from .._record import Record, factory, record
from typing import Callable, Optional
from collections.abc import Mapping, Sequence

from ..core.metadata import Metadata
from ..core.vector import FlameGraph
from ..errors import ArgumentError, InputError

#: Severity of a finding. ``error``: the comparison cannot go on; ``refusal``: it should not,
#: unless the user insists (``--force`` turns it into a warning); ``warning``: it goes on, but
#: the user should know; ``note``: information (the machine's drift).
LEVELS = ("error", "refusal", "warning", "note")
#: A sample needs this many runs to estimate the variation between runs.
MIN_RUNS = 2


@record
class Finding(Record):
    """One thing the checks found, worded for a person; ``files`` are the runs it is about."""

    level: str
    message: str
    files: tuple[str, ...] = ()

    @property
    def fatal(self) -> bool:
        return self.level in ("error", "refusal")


@record
class RunInfo(Record):
    """What the checks need to know of one run: where it came from and its metadata.

    ``missed_share`` is the share of its ticks the sampler missed (None when the run carries no
    quality headers) and ``program`` the script or module it ran (from its ``command`` label);
    the caller works them out with the recorder's own definitions
    (:meth:`flamespace.collect.engine.Quality.missed_share`, :func:`flamespace.collect.target.program_name`).
    """

    name: str
    side: str
    metadata: Metadata = factory(Metadata)
    total: float = 0.0
    empty: bool = False
    missed_share: float | None = None
    program: str | None = None

    @classmethod
    def from_graph(
        cls, name: str, side: str, graph: FlameGraph, missed_share: float | None = None, program: str | None = None
    ) -> RunInfo:
        values = list(graph.values())
        return cls(name, side, graph.metadata, float(sum(values)), not any(values), missed_share, program)

    @property
    def labels(self) -> Mapping[str, str]:
        return self.metadata.labels

    @property
    def mode(self) -> str | None:
        """The recording mode (``wall``, ``cpu``, ``alloc``, ...): the ``mode`` label, else the metric."""
        return self.labels.get("mode") or self.metadata.metric

    def _number(self, label: str) -> int | None:
        """The whole number in label ``label``, None when absent or not a number."""
        try:
            return int(self.labels[label])
        except (KeyError, ValueError):
            return None

    @property
    def order(self) -> int | None:
        """The run's number in its collection (``run`` label), None when absent."""
        return self._number("run")

    @property
    def pair(self) -> int | None:
        """The round of an interleaved collection (``pair`` label): the baseline and candidate
        runs of one round ran one right after the other. None when absent."""
        return self._number("pair")

    @property
    def collection(self) -> str | None:
        """The id of the collection the run belongs to (``collection`` label, written by
        ``collect`` and ``gate``): a round number means something only within it. None when absent."""
        return self.labels.get("collection") or None

    @property
    def run_time(self) -> float | None:
        """Seconds the run took: the ``duration_s`` label, else its total when counted in ns."""
        try:
            return float(self.labels["duration_s"])
        except (KeyError, ValueError):
            return self.total / 1e9 if self.metadata.unit == "ns" and not self.empty else None


@record
class RunTime(Record):
    """The run time of one side's runs, in seconds: the median, the quartiles and the trend.

    ``trend`` is the median of the last third of the runs (in run order) minus the median of
    the first third: how far the machine drifted while the side was collected.
    """

    side: str
    runs: int
    median: float
    q1: float
    q3: float
    trend: float

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1


@record
class Screening(Record):
    """What :func:`screen` decided: the runs kept per side, the findings, and the run times."""

    kept: dict[str, list[RunInfo]]
    findings: list[Finding]
    run_times: dict[str, RunTime]

    @property
    def fatal(self) -> list[Finding]:
        return [f for f in self.findings if f.fatal]


def screen(
    sides: Mapping[str, Sequence[RunInfo]],
    *,
    force: bool = False,
    max_missed: float | None = None,
    warn_missed: float | None = None,
    min_runs: int = MIN_RUNS,
) -> Screening:
    """Leave out unusable runs and check that the rest can be compared.

    Empty runs (no stack, or every value 0: a failed recording) are left out with a warning,
    and so are runs whose sampler missed more than ``max_missed`` of its ticks (a share; None:
    none is left out, but runs beyond ``warn_missed`` are named). Every side must keep
    ``min_runs`` runs (error). Kept runs must share one unit (error: the numbers cannot be
    put side by side) and one mode, and one program within a side and the same script or
    module across sides (refusals, warnings when ``force``); different sampling rates,
    Python versions or hosts are warnings.
    """
    findings: list[Finding] = []
    kept: dict[str, list[RunInfo]] = {}
    left_out: dict[str, list[str]] = {side: [] for side in sides}
    everything = [run for runs in sides.values() for run in runs]
    empty = [run for run in everything if run.empty]
    if everything and len(empty) == len(everything):
        findings.append(
            Finding(
                "error",
                f"every run is empty ({_names(empty)}): the recordings failed, or recorded nothing; "
                "check that the program ran (collect --show-output) and records long enough",
                _files(empty),
            )
        )
        return Screening({side: [] for side in sides}, findings, {})
    if empty:
        findings.append(
            Finding(
                "warning",
                f"left out {len(empty)} empty run(s), with no samples (a failed recording?): {_names(empty)}",
                _files(empty),
            )
        )
        for run in empty:
            left_out[run.side].append(f"{run.name} is empty")
    usable = [run for run in everything if not run.empty]
    findings.extend(_fell_behind(usable, max_missed, warn_missed, left_out))
    for side, runs in sides.items():
        kept[side] = [run for run in runs if not run.empty and not is_late(run, max_missed)]
        if len(kept[side]) < min_runs:
            why = f" ({len(left_out[side])} left out: {'; '.join(left_out[side])})" if left_out[side] else ""
            loosen = " or raise --max-missed" if any(is_late(r, max_missed) and not r.empty for r in runs) else ""
            findings.append(
                Finding(
                    "error",
                    f"the {side} has {len(kept[side])} usable run(s) of {len(runs)}{why}; a side needs at least "
                    f"{min_runs} runs to estimate the variation between runs: collect more{loosen}",
                    tuple(r.name for r in runs),
                )
            )
    if any(f.level == "error" for f in findings):
        return Screening(kept, findings, {})
    findings.extend(consistency(kept, force))
    findings.extend(sampling_rates(kept))
    return Screening(kept, findings, run_times(kept))


def is_late(run: RunInfo, max_missed: float | None) -> bool:
    """Whether :func:`screen` leaves ``run`` out for missing more than ``max_missed`` of its samples."""
    return max_missed is not None and run.missed_share is not None and run.missed_share > max_missed


def _fell_behind(
    runs: Sequence[RunInfo], max_missed: float | None, warn_missed: float | None, left_out: dict[str, list[str]]
) -> list[Finding]:
    """Runs whose sampler fell behind: left out beyond ``max_missed``, else named beyond ``warn_missed``."""
    limit = max_missed if max_missed is not None else warn_missed
    if limit is None:
        return []
    late = [(run, run.missed_share) for run in runs if run.missed_share is not None and run.missed_share > limit]
    if max_missed is not None and not any(run.missed_share is not None for run in runs):
        return [
            Finding(
                "warning",
                "--max-missed left nothing out: no run carries the sampler's quality headers (missed_share, or ticks and missed)",
            )
        ]
    if not late:
        return []
    shown = ", ".join(f"{run.name} ({_percent(share)})" for run, share in late[:10])
    shown += f" and {len(late) - 10} more" if len(late) > 10 else ""
    if max_missed is None:
        return [
            Finding(
                "warning",
                f"the sampler fell behind in {len(late)} run(s) (it missed more than {_percent(limit)} "
                f"of its samples): {shown}; --max-missed {_percent(limit)} leaves them out",
                _files([run for run, _ in late]),
            )
        ]
    for run, share in late:
        left_out[run.side].append(f"{run.name} missed {_percent(share)} of its samples")
    return [
        Finding(
            "warning",
            f"left out {len(late)} run(s) whose sampler missed more than --max-missed {_percent(max_missed)}: {shown}",
            _files([run for run, _ in late]),
        )
    ]


def consistency(sides: Mapping[str, Sequence[RunInfo]], force: bool = False) -> list[Finding]:
    """Can these runs be compared? Unit, mode and program must agree; rate, Python and host should."""
    runs = [run for side in sides.values() for run in side]
    refusal = "warning" if force else "refusal"
    insist = "; going on anyway" if force else ", or pass --force to compare them anyway"
    findings: list[Finding] = []
    groups = _groups(runs, lambda r: r.metadata.unit)
    if len(groups) > 1:
        findings.append(
            Finding(
                "error",
                f"runs differ in unit: {_describe(groups)}; their numbers cannot be compared (--force cannot help): "
                "record both sides with the same --weight (or profiler)",
                _first_files(groups),
            )
        )
    groups = _groups(runs, lambda r: r.mode)
    if len(groups) > 1:
        findings.append(
            Finding(
                refusal,
                f"runs differ in mode: {_describe(groups)}; the modes measure different things (waiting counts "
                f"in wall time, not in CPU time), so the difference is not a change of the program: record both sides "
                f"with the same --mode{insist}",
                _first_files(groups),
            )
        )
    for side, members in sides.items():
        for label, what in (("command", "command"), ("program", "program")):
            groups = _groups(members, lambda r: r.labels.get(label))
            if len(groups) > 1:
                findings.append(
                    Finding(
                        refusal,
                        f"the {side} mixes runs of different {what}s: {_describe(groups)}; a sample must be runs "
                        f"of one program: give each side the runs of one program (e.g. DIR/baseline and DIR/candidate){insist}",
                        _first_files(groups),
                    )
                )
    groups = _groups(runs, lambda r: r.program, by_side=True)
    if len(groups) > 1 and len({side for side, _ in groups}) == len(groups) == len(sides):
        findings.append(
            Finding(
                refusal,
                f"the sides run different programs: {_describe(groups)}; frames are named after their file, so "
                "every stack of one would look new in the other. Compare versions of the same script or module "
                f"(different arguments, environment or directory are fine){insist}",
                _first_files(groups),
            )
        )
    for label, what, fix in (
        ("rate_requested", "sampling rate (Hz)", "record both sides with the same --rate"),
        ("sampler", "sampler (outside or inside the program)", "record both sides with the same --sampler"),
        ("python", "Python version", "run both sides on one interpreter"),
        ("host", "host", "collect both sides on one machine"),
    ):
        groups = _groups(runs, lambda r: r.labels.get(label))
        if len(groups) > 1:
            findings.append(
                Finding(
                    "warning",
                    f"runs differ in {what}: {_describe(groups)}; the difference may come from that, not from the program: {fix}",
                    _first_files(groups),
                )
            )
    return findings


#: A side whose runs took less than this share of the samples asked (median) is named.
MIN_ACHIEVED_SHARE = 0.9


def sampling_rates(sides: Mapping[str, Sequence[RunInfo]]) -> list[Finding]:
    """A note when the sampler took fewer samples than asked (median ``rate_achieved`` under
    :data:`MIN_ACHIEVED_SHARE` of ``rate_requested``) on some side: the spreads, hence the tests'
    error bars and ``plan``'s run counts, are those of runs sampled at the real rate, and a
    side sampled at another rate than the other has another sampling noise."""
    achieved: dict[str, tuple[float, float]] = {}
    for side, runs in sides.items():
        rates = [
            (float(run.labels["rate_achieved"]), float(run.labels["rate_requested"]))
            for run in runs
            if _is_number(run.labels.get("rate_achieved")) and _is_number(run.labels.get("rate_requested"))
        ]
        if rates:
            import statistics  # only for recorded runs (it imports fractions, decimal and random)

            achieved[side] = (statistics.median(a for a, _ in rates), statistics.median(r for _, r in rates))
    if not any(real < MIN_ACHIEVED_SHARE * asked for real, asked in achieved.values()):
        return []
    shown = ", ".join(f"{side} {real:,.0f} Hz of {asked:,.0f} asked" for side, (real, asked) in achieved.items())
    return [
        Finding(
            "note",
            f"the sampler took fewer samples than asked (median rate_achieved): {shown}; the spreads, "
            "error bars and planned runs are those of runs sampled at these rates (a busy machine, or "
            "a thread holding the GIL, holds the sampler back)",
        )
    ]


def _is_number(text: str | None) -> bool:
    try:
        return text is not None and float(text) > 0
    except ValueError:
        return False


def run_times(sides: Mapping[str, Sequence[RunInfo]]) -> dict[str, RunTime]:
    """Per side, the spread and trend of the runs' time (sides whose runs carry no time are left out)."""
    found: dict[str, RunTime] = {}
    for side, runs in sides.items():
        timed = [run for run in runs if run.run_time is not None]
        if len(timed) < MIN_RUNS or len(timed) < len(runs):
            continue
        if all(run.order is not None for run in timed):
            timed = sorted(timed, key=lambda r: r.order or 0)
        times = [run.run_time for run in timed if run.run_time is not None]  # all of them
        import statistics  # (here: it imports fractions, decimal and random, for runs that carry their time)

        third = max(1, len(times) // 3)
        q1, _, q3 = statistics.quantiles(times, n=4, method="inclusive")
        found[side] = RunTime(
            side,
            len(times),
            statistics.median(times),
            q1,
            q3,
            statistics.median(times[-third:]) - statistics.median(times[:third]),
        )
    return found


@record
class RunTimeChange(Record):
    """How long the runs took, baseline against candidate (seconds): the means, the change and
    its two-sided ``level`` confidence interval, from the t of the differences of the rounds'
    runs when ``paired`` (``runs`` pairs), else Welch's t (``runs``: the smaller side's count)."""

    baseline: float
    candidate: float
    delta: float
    lower: float
    upper: float
    level: float
    paired: bool
    runs: int

    @property
    def relative(self) -> float | None:
        """The change as a fraction of the baseline's mean; None when that is 0."""
        return self.delta / self.baseline if self.baseline else None


def run_time_change(sides: Mapping[str, Sequence[RunInfo]], level: float, paired: bool = False) -> RunTimeChange | None:
    """The change of the whole run's time from the ``baseline`` side to the ``candidate``
    (:attr:`RunInfo.run_time`), with its interval: paired by round (:func:`pair_runs`) when
    ``paired`` (the comparison's pairing) and at least :data:`MIN_RUNS` rounds have both runs,
    else Welch's. None when a
    side has fewer than :data:`MIN_RUNS` runs that carry their time (or not all do)."""
    import statistics

    timed = {side: [run for run in sides.get(side, ()) if run.run_time is not None] for side in ("baseline", "candidate")}
    if any(len(runs) < MIN_RUNS or len(runs) < len(sides.get(side, ())) for side, runs in timed.items()):
        return None
    times = {side: [run.run_time for run in runs if run.run_time is not None] for side, runs in timed.items()}
    means = {side: statistics.fmean(values) for side, values in times.items()}
    rows = _paired_rows(timed["baseline"], timed["candidate"]) if paired else ()
    rounds = [(times["baseline"][b], times["candidate"][c]) for b, c in rows]
    if len(rounds) >= MIN_RUNS:
        differences = [c - b for b, c in rounds]
        count, variance, df = len(differences), statistics.variance(differences) / len(differences), len(differences) - 1.0
    else:
        (n1, v1), (n2, v2) = ((len(v), statistics.variance(v) / len(v)) for v in (times["baseline"], times["candidate"]))
        count, variance = min(n1, n2), v1 + v2
        df = variance**2 / (v1**2 / (n1 - 1) + v2**2 / (n2 - 1)) if variance else 1.0
    delta = means["candidate"] - means["baseline"]
    half = _t_quantile((1 - level) / 2, df) * variance**0.5
    return RunTimeChange(
        means["baseline"], means["candidate"], delta, delta - half, delta + half, level, len(rounds) >= MIN_RUNS, count
    )


def _paired_rows(baseline: Sequence[RunInfo], candidate: Sequence[RunInfo]) -> tuple[tuple[int, int], ...]:
    """The pairs of the runs that the comparison tested as pairs (it decided: ``on``), none if they cannot be."""
    try:
        return pair_runs(baseline, candidate, "on").rows
    except InputError:
        return ()


def _t_quantile(tail: float, df: float) -> float:
    """t with P(T > t) = ``tail`` on ``df`` degrees of freedom."""
    from ._tails import t_isf

    return float(t_isf(tail, df))


def drift_note(times: Mapping[str, RunTime]) -> Finding | None:
    """One line on the run times of each side and how far they drifted from the first runs to the last."""
    if not times:
        return None
    spread = ", ".join(
        f"{t.side} {seconds(t.median)} (IQR {seconds(t.q1)} to {seconds(t.q3)}, {t.runs} runs)" for t in times.values()
    )
    trend = ", ".join(f"{t.side} {seconds(t.trend, sign=True)}" for t in times.values())
    return Finding("note", f"run time: {spread}; drift from the first third of the runs to the last: {trend}")


def drift_findings(times: Mapping[str, RunTime], deltas: Sequence[float], unit: str | None) -> list[Finding]:
    """The drift note, and a warning when the drift within a side is larger than the largest
    change reported (``deltas``, in ``unit``; only a time unit can be set beside run time).

    The spread of run time between runs is already in the tests' error bars; a trend is not
    (the tests take runs as exchangeable), so it is the trend that is set against the changes.
    """
    note = drift_note(times)
    if note is None:
        return []
    found = [note]
    scale = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}.get(unit or "")
    if scale is None or not deltas:
        return found
    largest = max(abs(d) for d in deltas) * scale
    worst = max(times.values(), key=lambda t: abs(t.trend))
    if abs(worst.trend) > largest:
        found.append(
            Finding(
                "warning",
                f"the machine drifted more during the collection ({worst.side} runs: {seconds(worst.trend, sign=True)} "
                f"from the first third to the last) than the largest change reported ({seconds(largest)}): the changes may "
                "come from the machine's load; interleave the runs (flamespace collect does) and collect again on a "
                "quieter machine to be sure",
            )
        )
    return found


def seconds(value: float, sign: bool = False) -> str:
    """A duration in s, ms or µs, with 3 significant digits."""
    size = abs(value) * 1.0005  # what rounds up to 1 s or 1 ms is written in that unit
    scaled, unit = (value, "s") if size >= 1 else (value * 1e3, "ms") if size >= 1e-3 else (value * 1e6, "µs")
    digits = ".3g" if abs(scaled) < 999.5 else ".0f"
    return f"{scaled:{'+' if sign else ''}{digits}} {unit}"


def _groups(
    runs: Sequence[RunInfo], key: Callable[[RunInfo], object], by_side: bool = False
) -> dict[tuple[str | None, object], list[RunInfo]]:
    """Runs by the value of ``key`` (runs where it is None are not checked); with ``by_side``, by (side, value)."""
    groups: dict[tuple[str | None, object], list[RunInfo]] = {}
    for run in runs:
        value = key(run)
        if value is not None:
            groups.setdefault((run.side if by_side else None, value), []).append(run)
    if by_side and len({value for _, value in groups}) == 1:
        return {}
    return groups


def _describe(groups: Mapping[tuple[str | None, object], Sequence[RunInfo]]) -> str:
    parts = []
    for (side, value), runs in groups.items():
        sides = sorted({r.side for r in runs})
        where = side or "/".join(sides)
        parts.append(f"{value!r} in {len(runs)} {where} run(s) (e.g. {runs[0].name})")
    return "; ".join(parts)


def _percent(share: float) -> str:
    return f"{share * 100:.3g}%"


def _names(runs: Sequence[RunInfo], limit: int = 5) -> str:
    shown = ", ".join(run.name for run in runs[:limit])
    return shown + (f" and {len(runs) - limit} more" if len(runs) > limit else "")


def _files(runs: Sequence[RunInfo]) -> tuple[str, ...]:
    return tuple(run.name for run in runs)


def _first_files(groups: Mapping[tuple[str | None, object], Sequence[RunInfo]]) -> tuple[str, ...]:
    return tuple(runs[0].name for runs in groups.values())


__all__ = [
    "Finding",
    "LEVELS",
    "MIN_RUNS",
    "RunInfo",
    "RunTime",
    "Screening",
    "consistency",
    "drift_findings",
    "drift_note",
    "is_late",
    "run_times",
    "sampling_rates",
    "screen",
    "seconds",
]


PAIRINGS = ("auto", "on", "off")
#: A round of a collection: (collection id, round number); a pair is the two runs of one.
RoundKey = tuple[Optional[str], Optional[int]]


@record
class Pairing(Record):
    """Which runs of the two sides are tested as pairs: ``rows`` holds (baseline index,
    candidate index) into the sides' kept runs, in round order; empty when unpaired, with
    ``reason`` saying why (or, when paired, what was left out)."""

    rows: tuple[tuple[int, int], ...]
    reason: str = ""

    @property
    def paired(self) -> bool:
        return bool(self.rows)


def pair_runs(
    baseline: Sequence[RunInfo],
    candidate: Sequence[RunInfo],
    mode: str = "auto",
    reaches_alpha: Callable[[int], bool] | None = None,
) -> Pairing:
    """Pair the two runs of each round of one interleaved collection (the ``collection`` and
    ``pair`` labels): only they ran one right after the other, in a coin-flipped order.

    A paired test asks less of the machine: only the two runs of a round must be exchangeable
    when nothing changed, so drift between rounds (a busy CI runner) cannot make a change
    appear. Runs of different collections (a stored baseline against new runs) share round
    numbers by chance, not a round: they are tested unpaired, and :attr:`Pairing.reason` says
    why. ``auto`` pairs when every run is half of a round of a collection the other side
    shares and the rounds matched can reach α (``reaches_alpha``: the caller's answer for that
    many pairs; None: yes); ``on`` pairs or fails saying why, and pairs runs that carry a round
    but no collection id (recorded before flamespace wrote one) by round number alone; ``off``
    never pairs. A round of a shared collection with a run on one side only (a failed run, a
    run left out) is left out of a paired test, and the reason names its runs.
    """
    if mode not in PAIRINGS:
        raise ArgumentError(f"unknown pairing {mode!r}; choose one of {', '.join(PAIRINGS)}")
    if mode == "off":
        return Pairing((), "pairing off")
    problem = _not_rounds(baseline, candidate, mode)
    if problem:
        return _unpaired(mode, problem)
    rounds: list[dict[RoundKey, int]] = [
        {(run.collection, run.pair): i for i, run in enumerate(side)} for side in (baseline, candidate)
    ]
    common = sorted(set(rounds[0]) & set(rounds[1]), key=lambda key: (key[0] or "", key[1]))
    if len(common) < 2:
        return _unpaired(mode, f"fewer than 2 rounds have a run on both sides ({len(common)})")
    if mode == "auto" and reaches_alpha is not None and not reaches_alpha(len(common)):
        return Pairing(
            (),
            f"{len(common)} pairs cannot reach α with a paired test, so the runs are tested as "
            "exchangeable (drift between rounds is not accounted for; collect more runs)",
        )
    notes = [_left_out(baseline, candidate, rounds, set(common))]
    if all(run.collection is None for run in (*baseline, *candidate)):
        notes.insert(0, "paired by round number alone (--pairing on): the runs carry no collection id")
    return Pairing(tuple((rounds[0][key], rounds[1][key]) for key in common), "; ".join(n for n in notes if n))


def _short(collection: str | None) -> str:
    """A collection id as notes show it (its first 8 digits: enough to tell collections apart)."""
    return (collection or "none")[:8]


def _not_rounds(baseline: Sequence[RunInfo], candidate: Sequence[RunInfo], mode: str) -> str:
    """Why the runs are not halves of rounds of the collections both sides share ('' when they are)."""
    sides = (("baseline", baseline), ("candidate", candidate))
    for check in (_without_round, _without_collection, _unshared_collections, _repeated_rounds):
        problem = check(sides, mode)
        if problem:
            return problem
    return ""


Sides = tuple[tuple[str, Sequence[RunInfo]], ...]


def _without_round(sides: Sides, mode: str) -> str:
    """Runs that carry no round (not from an interleaved collection), named."""
    loose = [(name, [run for run in runs if run.pair is None], len(runs)) for name, runs in sides]
    if not any(runs for _, runs, _ in loose):
        return ""
    counts = " and ".join(f"{len(runs)} of {total} {name} run(s)" for name, runs, total in loose if runs)
    return (
        f"{counts} carry no round of an interleaved collection (the pair header 'flamespace collect' "
        f"writes when it alternates two programs): {_names([r for _, runs, _ in loose for r in runs])}"
    )


def _without_collection(sides: Sides, mode: str) -> str:
    """Runs with a round but no collection id (recorded before collect wrote one): their rounds
    may be of different collections. ``on`` pairs them by round number when none has an id."""
    everything = [run for _, runs in sides for run in runs]
    unnamed = [run for run in everything if run.collection is None]
    if not unnamed or (len(unnamed) == len(everything) and mode == "on"):
        return ""
    return (
        f"{len(unnamed)} run(s) carry a round but no collection id (recorded before flamespace wrote one), "
        f"so rounds of different collections cannot be told apart: {_names(unnamed)}"
        + ("" if len(unnamed) < len(everything) else " (--pairing on pairs them by round number alone)")
    )


def _unshared_collections(sides: Sides, mode: str) -> str:
    """Runs of a collection the other side has no run of (a stored baseline, another collect)."""
    ids = [{run.collection for run in runs} for _, runs in sides]
    if not ids[0] & ids[1]:
        return (
            f"the baseline's runs and the candidate's come from different collections (baseline "
            f"{', '.join(sorted(map(_short, ids[0])))}; candidate {', '.join(sorted(map(_short, ids[1])))}): "
            "only the two runs of one round of one collection are a pair"
        )
    for (name, runs), other in zip(sides, reversed(ids)):
        alone = [run for run in runs if run.collection not in other]
        if alone:
            return (
                f"{len(alone)} {name} run(s) come from collection(s) the other side has no run of "
                f"({', '.join(sorted({_short(r.collection) for r in alone}))}): {_names(alone)}"
            )
    return ""


def _repeated_rounds(sides: Sides, mode: str) -> str:
    """Two runs of one side that claim the same round of the same collection."""
    for name, runs in sides:
        seen: dict[RoundKey, RunInfo] = {}
        for run in runs:
            key = (run.collection, run.pair)
            if key in seen:
                return (
                    f"{name} runs {seen[key].name} and {run.name} are both round {run.pair} of collection "
                    f"{_short(run.collection)} (the same run given twice?)"
                )
            seen[key] = run
    return ""


def _left_out(
    baseline: Sequence[RunInfo], candidate: Sequence[RunInfo], rounds: Sequence[Mapping[RoundKey, int]], common: set[RoundKey]
) -> str:
    """The runs a paired test leaves out (their round has no run on the other side), named."""
    alone = [side[i] for side, index in zip((baseline, candidate), rounds) for key, i in index.items() if key not in common]
    if not alone:
        return ""
    return f"{len(alone)} run(s) without a partner in the same round left out of the paired test: {_names(alone)}"


def _unpaired(mode: str, reason: str) -> Pairing:
    if mode == "on":
        raise InputError(f"--pairing on: cannot pair the runs: {reason}")
    return Pairing((), reason)


#: Below this share of either side's total in the stacks both sides have, the two sides hardly
#: compare: most of what compare would call "appeared" or "disappeared" is a renaming.
MIN_SHARED = 0.5
#: With frames' locations left out, a share at least this large says the sides differ in their
#: frames' file names and lines, not in what ran.
SAME_CODE = 0.9


def overlap(baseline: Mapping[str, float], candidate: Mapping[str, float]) -> Finding | None:
    """A warning when the two sides (each stack text's summed value) share stacks worth less than
    :data:`MIN_SHARED` of either side's total, saying why when the frames differ only in their
    locations (two checkouts: ``work (a/bench.py:3)`` against ``work (b/bench.py:3)``)."""
    shares = [_shared_share(baseline, candidate), _shared_share(candidate, baseline)]
    if min(shares) >= MIN_SHARED:
        return None
    message = (
        f"the two sides share few stacks: only {_percent(shares[0])} of the baseline's total and "
        f"{_percent(shares[1])} of the candidate's are in stacks both sides have, so most changes reported "
        f"are stacks that are only named differently"
    )
    located = [_without_locations(side) for side in (baseline, candidate)]
    if min(_shared_share(located[0], located[1]), _shared_share(located[1], located[0])) >= SAME_CODE:
        example = _renamed_frame(baseline, candidate)
        message += (
            "; they differ in their frames' file names or lines only"
            + (f" (e.g. {example[0]!r} and {example[1]!r})" if example else "")
            + ": record both sides from the same directory (two checkouts: each from its own root), "
            "or rename frames with --map 'RE=REPL'"
        )
    return Finding("warning", message)


def _shared_share(side: Mapping[str, float], other: Mapping[str, float]) -> float:
    total = sum(side.values())
    if total <= 0:
        return 1.0
    return sum(value for text, value in side.items() if text in other) / total


#: A frame's location at its end, `` (file:line)`` or `` (file)``, as Python frames are named.
_LOCATION = re.compile(r" \([^();]*\)(?=;|$)")


def _strip_locations(text: str) -> str:
    """``a (x.py:1);b (y.py:2)`` -> ``a;b``: the stack text with every frame's location left out."""
    return _LOCATION.sub("", text)


def _without_locations(side: Mapping[str, float]) -> dict[str, float]:
    merged: dict[str, float] = {}
    for text, value in side.items():
        key = _strip_locations(text)
        merged[key] = merged.get(key, 0.0) + value
    return merged


def _renamed_frame(baseline: Mapping[str, float], candidate: Mapping[str, float]) -> tuple[str, str] | None:
    """The first differing frames of the heaviest baseline stack the candidate has only under another location."""
    by_code: dict[str, str] = {}
    for text in candidate:
        if text not in baseline:
            by_code.setdefault(_strip_locations(text), text)
    for text, _ in sorted(((t, v) for t, v in baseline.items() if t not in candidate), key=lambda item: -item[1]):
        other = by_code.get(_strip_locations(text))
        if other is not None:
            for mine, theirs in zip(text.split(";"), other.split(";")):
                if mine != theirs:
                    return mine, theirs
    return None
