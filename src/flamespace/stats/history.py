"""History: per-stack series across commits or time (days, hours, windows), and where each stack's level changed.

A :class:`History` holds, for each point (a commit, or a UTC day) in time order, how many
profiles it has, the sum of their totals, and for each chosen stack the sum of its values and
of their squares. That is all a store query returns (DuckDB grouped by stack and point, or the
same on a Dask cluster: store/history.py, store/cluster.py), so the series of a million
profiles never holds a profile in memory; :func:`history_of` builds the same from profiles
already in memory (tests, small samples). The sums are exact for integer values (samples,
ns, bytes below 2⁵³), so every engine gives the same numbers.

Beside the sums, a history holds each (stack, point)'s **median over the point's profiles**
of the stack's value and of its share of each profile's total (a profile without the stack
counts 0): the store computes it where it aggregates (store/aggregate.py), as
:func:`history_of` does in memory. :func:`analyse` runs :func:`.changepoint.detect` on each
stack's series of those medians (:meth:`History.levels`), each point weighted by its number of
profiles, at α / m for m stacks (Bonferroni), so the chance that any shown stack without a
change reports one is at most α. A point's mean would carry one stalled run (a sampler stall
of twice the stack's time in one of its profiles) into the series; its median does not, which
is what the change-point test of the runs themselves sees (issue 26: an 8% step among stalls
found in 62% of series from the means, 80+% from the medians; docs/statistics.md).
"""

from __future__ import annotations

import math
import re

from .._record import Record, record
from ..errors import ArgumentError
from . import changepoint, load

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing and datetime cost `history --help` ~20 ms: annotations only
    from collections.abc import Callable, Iterable, Mapping, Sequence
    from datetime import datetime

    import numpy as np

#: What a point of the series is (--by).
BY = ("commit", "day", "hour", "window")
#: The series change points are looked for in (--metric): median value per profile, median share of a profile's
#: total, or the value over each point's load (:meth:`History.loads`).
METRICS = ("value", "share", "normalised")
#: How a title names each metric's series.
METRIC_NAMES = {"value": "value", "share": "share", "normalised": "value over the load"}
#: Stacks shown when neither a pattern nor a count is given.
TOP = 20


@record
class ProfileRecord(Record):
    """One profile as :func:`history_of` takes it: its commit, its time (naive UTC) and its values by stack text."""

    commit: str | None
    time: datetime
    values: Mapping[str, float]


@record
class History(Record):
    """Sums per point (columns, in time order) and per chosen stack (rows): the aggregate every engine computes.

    ``totals`` is the sum over a point's profiles of each profile's total (every stack, not
    only the chosen ones), so :meth:`shares` is each stack's share of the point's merged profile.
    ``medians`` and ``median_shares`` (same shape as ``sums``): the median over each point's
    profiles of the stack's value and of its share of the profile's total, a profile without
    the stack counting 0 (None for a history built from sums alone: its levels are then the means).
    """

    by: str
    points: tuple[str, ...]
    runs: np.ndarray
    totals: np.ndarray
    stacks: tuple[str, ...]
    sums: np.ndarray
    squares: np.ndarray
    unit: str = ""
    medians: np.ndarray | None = None
    median_shares: np.ndarray | None = None
    #: what :meth:`loads` is read from when not the stacks followed (:func:`with_loads_of`)
    load_items: np.ndarray | None = None

    def values(self) -> np.ndarray:
        """Mean value of each stack per profile of each point (a profile without the stack counts 0)."""
        return self.sums / self.runs

    def shares(self) -> np.ndarray:
        """Each stack's share of each point's merged profile (0 where the point's total is 0)."""
        import numpy as np

        return np.divide(self.sums, self.totals, out=np.zeros_like(self.sums, dtype=float), where=self.totals != 0)

    def levels(self, metric: str = "value") -> np.ndarray:
        """The series change points are looked for in: each point's median value (or share) per
        profile, or, for a history of sums alone, its mean value (or the share of its merged profile);
        ``normalised``: the value over the point's :meth:`loads`."""
        if metric == "normalised":
            return self.levels("value") / self.loads()
        robust = self.medians if metric == "value" else self.median_shares
        if robust is not None:
            return robust
        return self.values() if metric == "value" else self.shares()

    def loads(self) -> np.ndarray:
        """Each point's load (:mod:`.load`) over the stacks followed and the rest of the profile
        (counting as one stack); 1 everywhere when too few of them are above 0 (:meth:`normalisable`)."""
        import numpy as np

        found = load.loads(self._load_items())
        return np.ones(len(self.points)) if found is None else found

    def normalisable(self) -> bool:
        """Whether :meth:`loads` has the :data:`.load.LOAD_STACKS` stacks above 0 it needs."""
        return load.stacks_used(self._load_items()) >= load.LOAD_STACKS

    def _load_items(self) -> np.ndarray:
        """Points × (the stacks followed, then the rest of each point's profile): what :meth:`loads` divides out
        (another history's, of the same profiles' largest stacks, when :func:`with_loads_of` gave them)."""
        import numpy as np

        if self.load_items is not None:
            return self.load_items

        mean_total = np.divide(self.totals, self.runs, out=np.zeros_like(self.totals, dtype=float), where=self.runs > 0)
        rest = np.maximum(mean_total - self.values().sum(axis=0), 0.0)
        return np.vstack([self.levels("value"), rest[None, :]]).T

    def sds(self) -> np.ndarray:
        """Run-to-run standard deviation of each stack within each point (nan for a point of one profile)."""
        import numpy as np

        n = self.runs
        with np.errstate(divide="ignore", invalid="ignore"):
            var = (self.squares - self.sums**2 / n) / (n - 1)
        return np.where(n > 1, np.sqrt(np.maximum(var, 0.0)), np.nan)

    def _repr_html_(self) -> str | None:
        """In a notebook: a table of each stack's series as a sparkline of blocks (core/display.py; the text output stays the repr)."""
        from ..core.display import html

        return html(self)


def check_by(by: str) -> None:
    if by not in BY:
        raise ArgumentError(f"unknown series point {by!r}; choose one of {', '.join(BY)}")


def assign_points(commits: Sequence[str | None], times: Sequence[datetime], by: str) -> tuple[tuple[str, ...], list[int]]:
    """The points of profiles given by their commits and times (naive UTC): each point's name
    (its commit, or its UTC day in ISO), ordered by its first profile's time then name, and
    the point of each profile. Every engine calls this, so they order points alike."""
    check_by(by)
    if by == "commit":
        missing = sum(c is None for c in commits)
        if missing:
            raise ArgumentError(f"{missing} of {len(commits)} profiles have no commit label: label them or follow them --by day")
        names = [str(c) for c in commits]
    else:
        names = [_time_point(t, by) for t in times]
    first: dict[str, datetime] = {}
    for name, when in zip(names, times):
        if name not in first or when < first[name]:
            first[name] = when
    points = tuple(sorted(first, key=lambda p: (first[p], p)))
    column = {p: j for j, p in enumerate(points)}
    return points, [column[name] for name in names]


def _time_point(when: datetime, by: str) -> str:
    """The point a profile's time falls in: its UTC day, hour (``2026-11-01T10``) or its own time
    (``window``: the profiles of one time window, e.g. the pushes of a service's instances)."""
    if by == "day":
        return when.date().isoformat()
    if by == "hour":
        return when.strftime("%Y-%m-%dT%H")
    return when.isoformat(timespec="seconds")


def load_reference(metric: str) -> int:
    """How many of the largest stacks a store's history reads each point's load from when the stacks
    it follows are a pattern's (:func:`with_loads_of`): :data:`TOP` for the normalised metric, else none."""
    return TOP if metric == "normalised" else 0


def with_loads_of(history: History, reference: History) -> History:
    """``history`` whose :meth:`~History.loads` are ``reference``'s: the same profiles' largest stacks,
    when ``history`` follows too few (a pattern that matches one or two) to tell a load from a change."""
    if reference.points != history.points:
        raise ValueError("a load's reference must have the same points")  # the same profiles and --by: a caller's bug
    return history.replace(load_items=reference._load_items())


def choose_stacks(totals: Mapping[str, float], pattern: str | None = None, top: int | None = TOP) -> list[str]:
    """The stacks to follow: those whose text (``a;b;c``) matches ``pattern`` (a Python regular
    expression, searched), the ``top`` largest by total (all matches when None), largest first,
    ties by text. One function for every engine, so they choose the same stacks. A pattern that
    matches nothing is an error (never an empty history)."""
    if pattern is not None:
        try:
            search = re.compile(pattern).search
        except re.error as exc:
            raise ArgumentError(f"bad regular expression {pattern!r}: {exc}") from None
        totals = {s: v for s, v in totals.items() if search(s)}
        if not totals:
            raise ArgumentError(f"no stack of the selected profiles matches {pattern!r}")
    ordered = sorted(totals, key=lambda s: (-totals[s], s))
    return ordered if top is None else ordered[:top]


def history_of(
    records: Iterable[ProfileRecord], by: str = "commit", pattern: str | None = None, top: int | None = TOP, unit: str = ""
) -> History:
    """The :class:`History` of profiles in memory: points ordered by their first profile's time
    (then name), stacks chosen by :func:`choose_stacks` over their totals in all the profiles;
    medians by ``numpy.median`` over each point's profiles (the reference the store's engines are tested against)."""
    import numpy as np

    rows = list(records)
    if not rows:
        raise ArgumentError("no profiles: a history needs at least one")
    points, point = assign_points([r.commit for r in rows], [r.time for r in rows], by)
    grand: dict[str, float] = {}
    for r in rows:
        for stack, value in r.values.items():
            grand[stack] = grand.get(stack, 0) + value
    stacks = tuple(choose_stacks(grand, pattern, top))
    row = {s: i for i, s in enumerate(stacks)}
    runs = np.zeros(len(points))
    totals = np.zeros(len(points))
    sums = np.zeros((len(stacks), len(points)))
    squares = np.zeros((len(stacks), len(points)))
    each = [np.zeros((len(stacks), int(n))) for n in np.bincount(point, minlength=len(points))]  # a column a profile
    each_share = [np.zeros_like(e) for e in each]
    for r, j in zip(rows, point):
        column = int(runs[j])
        runs[j] += 1
        total = math.fsum(r.values.values())
        totals[j] += total
        for stack, value in r.values.items():
            i = row.get(stack)
            if i is not None:
                sums[i, j] += value
                squares[i, j] += value * value
                each[j][i, column] = value
                each_share[j][i, column] = value / total if total else 0.0
    medians = np.stack([np.median(e, axis=1) for e in each], axis=1) if points else np.zeros((len(stacks), 0))
    median_shares = np.stack([np.median(e, axis=1) for e in each_share], axis=1) if points else np.zeros((len(stacks), 0))
    return History(by, points, runs, totals, stacks, sums, squares, unit, medians, median_shares)


@record
class StackHistory(Record):
    """One stack's series (mean value per profile and share of the merged profile, per point), the
    levels its change points were looked for in (:meth:`History.levels`), and its change points."""

    stack: str
    values: tuple[float, ...]
    shares: tuple[float, ...]
    changes: changepoint.ChangePoints

    @property
    def levels(self) -> tuple[float, ...]:
        return self.changes.levels


@record
class HistoryReport(Record):
    """The change points of every chosen stack, found at ``stack_alpha`` = α / m each."""

    history: History
    metric: str
    alpha: float
    stack_alpha: float
    stacks: tuple[StackHistory, ...]
    notes: tuple[str, ...] = ()

    def _repr_html_(self) -> str | None:
        """In a notebook: the sparklines of ``history --svg``, change points marked (core/display.py; the text output stays the repr)."""
        from ..core.display import html

        return html(self)


def check_metric(metric: str) -> None:
    """An :class:`ArgumentError` naming the choices unless ``metric`` is one of :data:`METRICS`."""
    if metric not in METRICS:
        raise ArgumentError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}")


def analyse(
    history: History,
    metric: str = "value",
    alpha: float = changepoint.ALPHA,
    permutations: int = changepoint.PERMUTATIONS,
    min_size: int = changepoint.MIN_SIZE,
    seed: int = changepoint.SEED,
) -> HistoryReport:
    """Change points of each stack's series of ``metric`` at α / m (m stacks): family-wise α over the stacks shown.

    The permutation budget is raised to 20 m / α − 1 when smaller, so the smallest p a random
    permutation test can give is a twentieth of the per-stack level.
    """
    check_metric(metric)
    if not 0 < alpha < 1:  # nan too: a library caller's; it once failed in the budget's ceil (internal error)
        raise ArgumentError(f"alpha must be between 0 and 1, not {alpha}")
    if seed < 0:  # numpy's generators take none below 0
        raise ArgumentError(f"the seed must be at least 0, not {seed}")
    m = max(len(history.stacks), 1)
    level = alpha / m
    budget = max(permutations, math.ceil(20 * m / alpha) - 1)
    notes: list[str] = []
    if metric == "normalised" and not history.normalisable():
        notes.append(
            f"fewer than {load.LOAD_STACKS} stacks (the rest of the profile counting as one) above 0: no load can be told "
            "apart from a change, so the values are not normalised"
        )
        metric = "value"
    values, shares = history.values(), history.shares()
    series = history.levels(metric)
    n = len(history.points)
    if n < 2 * min_size:
        notes.append(f"{n} points: a change needs at least {min_size} on each side ({2 * min_size} in all)")
    elif changepoint.smallest_p(n) > level:
        notes.append(
            f"{n} points cannot show a change at α/m = {level:.2g}: the smallest p-value of {n} points is "
            f"2/C({n}, {n // 2}) = {changepoint.smallest_p(n):.2g}"
        )
    out = []
    for i, stack in enumerate(history.stacks):
        found = changepoint.detect(series[i], history.points, level, budget, min_size, seed, weights=history.runs)
        out.append(StackHistory(stack, tuple(values[i].tolist()), tuple(shares[i].tolist()), found))
    return HistoryReport(history, metric, alpha, level, tuple(out), tuple(notes))


# -- presenting a report: a table's rows, Markdown, JSON (the CLI prints them; render/sparkline.py draws the SVG)

BLOCKS = "▁▂▃▄▅▆▇█"
#: The method, in words for a report's title.
METHOD = "CUSUM binary segmentation, permutation p-values"


def blocks(values: Sequence[float]) -> str:
    """The series as block characters, lowest ▁ to highest █ (a table cell); a flat series sits on ▄."""
    if not len(values):
        return ""
    low, high = min(values), max(values)
    if high - low <= 1e-12 * max(abs(high), abs(low)):
        return BLOCKS[3] * len(values)
    return "".join(BLOCKS[min(7, int((v - low) / (high - low) * 8))] for v in values)


def shown_unit(report: HistoryReport) -> str | None:
    """The unit the report's metric is shown in: ``share`` (as %) or the profiles' unit."""
    return "share" if report.metric == "share" else (report.history.unit or None)


def series(report: HistoryReport, stack: StackHistory) -> tuple[float, ...]:
    """The series change points were looked for in (median values or shares per profile: :meth:`History.levels`)."""
    return stack.levels


def level_name(history: History) -> str:
    """What a point's level is: ``median`` (of its profiles) or ``mean`` (a history of sums alone)."""
    return "median" if history.medians is not None else "mean"


def relative_text(fraction: float) -> str:
    """+95.9%, −12.0%, or ``new`` / ``gone`` where the level was 0 before / after."""
    from ..core.units import percent

    if math.isnan(fraction) or math.isinf(fraction):
        return "new"
    return "gone" if fraction == -1 else percent(fraction)


def change_text(report: HistoryReport, stack: StackHistory, p: bool = False) -> str:
    """Each change of ``stack``: ``c25: 102 → 199 (+95.9%)`` (with its p-value if ``p``), ``;``-separated."""
    from ..core.units import human

    unit = shown_unit(report)
    return "; ".join(
        f"{c.label}: {human(c.before, unit)} → {human(c.after, unit)} ({relative_text(c.relative)}"
        + (f", p = {c.p:.2g})" if p else ")")
        for c in stack.changes.points
    )


def title(report: HistoryReport) -> str:
    h = report.history
    span = f" ({h.points[0]} … {h.points[-1]})" if h.points else ""
    return (
        f"History of {len(report.stacks)} stacks over {len(h.points)} {h.by}s{span}, {int(h.runs.sum()):,} profiles; "
        f"changes in the {level_name(h)} {METRIC_NAMES[report.metric]} per profile at family-wise "
        f"α = {report.alpha:g} (α/{len(report.stacks) or 1} = {report.stack_alpha:.2g} a stack; {METHOD})"
    )


HEADERS = ("stack", "trend", "first", "last", "share", "changes")


def rows(report: HistoryReport, short: Callable[[str], str] | None = None) -> list[list[str]]:
    """One row per stack (:data:`HEADERS`): name, sparkline, first and last level, last share, its changes."""
    from ..core.units import human

    unit = shown_unit(report)
    out = []
    for s in report.stacks:
        line = series(report, s)
        out.append(
            [
                short(s.stack) if short else s.stack,
                blocks(line),
                human(line[0], unit),
                human(line[-1], unit),
                human(s.shares[-1], "share"),
                change_text(report, s, p=True) or "none",
            ]
        )
    return out


def markdown(report: HistoryReport) -> str:
    """The report as Markdown (a CI comment): title, one table row per stack, notes."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = [f"**{cell(title(report))}**", "", "| " + " | ".join(HEADERS) + " |", "|---|---|" + "---:|" * 3 + "---|"]
    for row in rows(report):
        row[0] = f"`{row[0]}`"
        lines.append("| " + " | ".join(cell(c) for c in row) + " |")
    lines += [f"\n_{cell(note)}_" for note in report.notes]
    return "\n".join(lines) + "\n"


def to_json(report: HistoryReport) -> dict[str, object]:
    """Everything in the report, exact (relative changes to or from 0 are null)."""
    h = report.history

    def finite(x: float) -> float | None:
        return x if math.isfinite(x) else None

    return {
        "by": h.by,
        "metric": report.metric,
        "unit": h.unit,
        "alpha": report.alpha,
        "stack_alpha": report.stack_alpha,
        "method": METHOD,
        "level": level_name(h),
        "points": [{"name": p, "profiles": int(n), "total": t} for p, n, t in zip(h.points, h.runs.tolist(), h.totals.tolist())],
        "stacks": [
            {
                "stack": s.stack,
                "values": list(s.values),
                "shares": list(s.shares),
                "levels": list(s.levels),
                "changes": [
                    {
                        "index": c.index,
                        "point": c.label,
                        "before": c.before,
                        "after": c.after,
                        "relative": finite(c.relative),
                        "p": c.p,
                        "statistic": c.statistic,
                    }
                    for c in s.changes.points
                ],
                "permutations": s.changes.permutations,
            }
            for s in report.stacks
        ],
        "notes": list(report.notes),
    }
