"""Renderings of a :class:`~flamespace.stats.comparison.Comparison`: text (a table), Markdown, JSON.

They return strings; the caller decides where they go.
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable
from collections.abc import Iterable, Sequence

from ..core import units
from .comparison import Comparison, StackChange
from .guards import RunTimeChange
from .methods import info

KIND_MARK = {"appeared": "+ new", "grown": "▲ grew", "disappeared": "- gone", "shrunk": "▼ shrank", None: ""}
HEADERS = ("change", "stack", "baseline", "candidate", "Δ (interval)", "Δ %", "adj. p", "detectable")
LEFT = ("change", "stack", "Δ (interval)")
#: The one definition of Δ %, said in every report (the JSON field ``relative`` is the same, as a fraction).
RELATIVE_DEFINITION = "Δ %: change relative to the stack's baseline mean (new: the stack is not in the baseline)"
#: How many of the widest stacks the summary names with their detectable change when nothing is significant.
DETECTABLE_SHOWN = 5


#: What the values of a comparison of runs divided by their load are (``compare --normalize-load``).
AT_TYPICAL_LOAD = " (at the runs' typical load)"


def p_value(value: float) -> str:
    return "0" if value == 0 else f"{value:.2g}"


def _relative(change: StackChange) -> str:
    return units.percent(change.relative)


def shown(comparison: Comparison, include_all: bool = False, limit: int | None = None) -> list[StackChange]:
    """The rows to show: changes in Δ_r (largest |Δ| first), then, with ``include_all``, the rest by adjusted p."""
    kept = comparison.kept
    if not include_all:
        return kept[:limit] if limit is not None else kept
    rest = (c for c in comparison.changes if not c.kind)
    if limit is not None:  # (only the rows shown are split into frames to break ties)
        return (kept + _first(rest, _p_adjusted, limit - len(kept)))[:limit]
    return kept + sorted(rest, key=lambda c: (c.p_adjusted, c.by_stack))


def _p_adjusted(change: StackChange) -> float:
    return change.p_adjusted


def _cells(change: StackChange, stack: str, unit: str | None) -> Sequence[str]:
    return (
        KIND_MARK[change.kind],
        stack,
        units.human(change.baseline, unit),
        units.human(change.candidate, unit),
        units.change(change.delta, change.lower, change.upper, unit),
        _relative(change),
        p_value(change.p_adjusted),
        _detectable(change, unit),
    )


def _detectable(change: StackChange, unit: str | None) -> str:
    """The minimum detectable change (80% power), "-" when not computed, "none" when α is out of reach."""
    value = change.detectable
    if value is None:
        return "-"
    return units.human(value, unit) if math.isfinite(value) else "none"


def short_stack(stack: Sequence[str], frames: int = 4, width: int | None = None) -> str:
    """The leaf end of a stack (where the time is spent), ``…;`` marking frames left out: at
    most ``frames`` frames and, with ``width``, as many as fit in ``width`` characters (the
    leaf always; if it alone is wider, its middle is cut to ``…``, keeping the function's name
    and the file's)."""
    kept = max(min(frames, len(stack)), 1 if stack else 0)
    text = _shortened(stack, kept)
    if width is None:
        return text
    while kept > 1 and len(text) > width:
        kept -= 1
        text = _shortened(stack, kept)
    if len(text) <= width:
        return text
    prefix = "…;" if len(stack) > 1 and width >= 12 else ""
    leaf, room = stack[-1], max(width - len(prefix) - 1, 2)
    return prefix + leaf[: room // 2] + "…" + leaf[len(leaf) - (room - room // 2) :]


def _shortened(stack: Sequence[str], kept: int) -> str:
    return ";".join(stack) if len(stack) <= kept else "…;" + ";".join(stack[-kept:])


def interval_level(comparison: Comparison) -> float:
    """The confidence level of the intervals shown: 1 − α two-sided, 1 − 2α when the test is
    one-sided (its decision uses one side of a two-sided 1 − 2α interval); the method's own
    level where it states one (welch's; hotelling's Scheffé intervals, 1 − α in any direction)."""
    c = comparison
    if "interval_level" in c.options:
        return float(c.options["interval_level"])
    return single_level(c)


def single_level(comparison: Comparison) -> float:
    """The level of one interval read as the test reads it: 1 − α two-sided, 1 − 2α one-sided."""
    return 1 - (1 if comparison.alternative == "two-sided" else 2) * comparison.alpha


def _level(level: float) -> str:
    return f"{100 * level:.4g}%"


def interval_line(comparison: Comparison) -> str:
    """What the intervals are, said once: level, simultaneous or not, sides."""
    c = comparison
    side = c.alternative
    if not info(c.method).simultaneous and c.control.startswith("false-discovery"):
        kind = (
            f"false-coverage-rate adjusted (Benjamini–Yekutieli: each at {_level(interval_level(c))}, "
            f"{_level(1 - c.alpha)} on average over the reported stacks)"
        )
    else:
        kind = f"{_level(interval_level(c))} simultaneous (all tested stacks at once)"
    line = f"Intervals for Δ: {kind}, two-sided"
    if side != "two-sided" and info(c.method).intervals_decide:
        line += f"; the {side} test at α = {c.alpha:g} uses one side of each"
    return line + "."


def unit_phrase(unit: str | None, normalized: bool = False) -> str:
    """The profiles' unit and how the report shows it."""
    if normalized or unit == units.SHARE_UNIT:
        return "shares of each run's total, shown in %, Δ in percentage points (pp)"
    if unit in units.TIME_UNITS:
        return f"{unit}, shown in ns, µs, ms or s"
    if unit in units.BYTE_UNITS:
        return f"{unit}, shown in B, KiB, MiB or GiB (1 KiB = 1,024 B)"
    return unit or "unknown unit"


def summary(comparison: Comparison) -> list[str]:
    """Plain sentences: what was compared, how, and the answer."""
    c = comparison
    unit = c.unit
    lines = [
        f"Compared {c.n_baseline} baseline runs with {c.n_candidate} candidate runs over {c.tested} stacks "
        f"({unit_phrase(unit, c.normalized)}); "
        f"{c.dropped} rare stack(s) left out (kept: {c.frequency.describe()}).",
        f"Method: {c.method}, α = {c.alpha:g} ({c.control}); "
        f"global {c.statistic_name} = {units.plain(c.statistic)}, p = {p_value(c.p_value)}.",
        design(c),
        interval_line(c) + " " + RELATIVE_DEFINITION + ".",
    ]
    if c.margin.min_delta or c.margin.min_rel:
        lines.append(
            f"Margin: changes smaller than {units.human(c.margin.min_delta, unit, name_counts=True)} "
            f"or {100 * c.margin.min_rel:g}% of the baseline are ignored."
        )
    lines.append(verdict(c))
    if not c.kept:
        lines += detectable_lines(c)
    return lines + [f"Note: {note}." for note in c.notes]


def verdict(comparison: Comparison) -> str:
    """The answer, in one sentence of :func:`summary`: no significant change, or how many of which kind."""
    c = comparison
    kept, regressions = c.kept, c.regressions
    if not kept:
        return "No stack changed significantly" + (" beyond the margin." if c.margin.min_delta or c.margin.min_rel else ".")
    grew, shrank = c.reduced.positive().norm(), c.reduced.negative().norm()
    return (
        f"{len(kept)} stack(s) changed significantly: {len(regressions)} regression(s) (appeared or grew), "
        f"{len(kept) - len(regressions)} improvement(s); Δ_r: {units.human(grew, c.unit, signed=True)} "
        f"and {units.human(-shrank, c.unit, signed=True)}."
    )


def footer(comparison: Comparison) -> str:
    """Where the exact numbers are: the report rounds for reading."""
    unit = comparison.unit or "the profiles' unit"
    return (
        f"Numbers are rounded to {units.SIGNIFICANT} significant digits; the JSON report (compare --json) "
        f"has them exact, in {unit}."
    )


def design(comparison: Comparison) -> str:
    """What is controlled, in which direction, and the smallest p-value the design can reach."""
    from ._result import describe_alternative

    c = comparison
    line = f"Tested {describe_alternative(c.alternative)}: {c.control} ≤ {100 * c.alpha:g}%"
    count = c.options.get("relabellings")
    if info(c.method).permutations and count:
        line += f"; {'exact, all' if c.options.get('exact') else 'random,'} {count} relabellings of the runs"
        if c.options.get("paired"):
            line += " (paired: only the two runs of a round swap, so drift between rounds cancels)"
        if c.options.get("statistic") == "moderated":
            line += (
                f"; moderated t (each stack's variance shrunk toward a prior from all stacks, "
                f"{c.options.get('prior_df', 0):.3g} prior degrees of freedom)"
            )
    if c.smallest_p:
        line += f"; the smallest p-value this design can reach is {p_value(c.smallest_p)}"
    return line + "."


def detectable_lines(comparison: Comparison, shown: int = DETECTABLE_SHOWN) -> list[str]:
    """For the widest stacks: the smallest change this comparison could have detected (80% power)."""
    widest = _first((x for x in comparison.changes if x.detectable is not None), lambda x: -max(x.baseline, x.candidate), shown)
    if not widest:
        return []
    parts = [
        f"{short_stack(x.stack, 2)} {_detectable(x, comparison.unit)}"
        + (
            f" ({units.percent(x.detectable / x.baseline)})"
            if x.baseline and x.detectable is not None and math.isfinite(x.detectable)
            else ""
        )
        for x in widest
    ]
    return ["The smallest change this comparison could have detected (80% power) in the widest stacks: " + "; ".join(parts) + "."]


def _first(changes: Iterable[StackChange], key: Callable[[StackChange], float], count: int) -> list[StackChange]:
    """The first ``count`` changes by ``(key, stack)``, comparing stacks only among the changes
    that tie with the last one taken: most stacks of a comparison are never split into frames."""
    if count <= 0:
        return []
    changes = list(changes)
    keys = list(map(key, changes))
    if len(keys) > count:  # the count-th smallest key, then every change up to it (ties included)
        last = sorted(keys)[count - 1]
        changes = [c for c, k in zip(changes, keys) if k <= last]
    return sorted(changes, key=lambda c: (key(c), c.by_stack))[:count]


def text(
    comparison: Comparison,
    include_all: bool = False,
    limit: int | None = 30,
    width: int = 200,
    row_style: Callable[[StackChange], str | None] | None = None,
    verdict_style: str | None = None,
    paint: Callable[[str, str | None], str] | None = None,
) -> str:
    """The report for a terminal ``width`` columns wide: summary sentences, a table of the changed
    stacks, where the exact numbers are. With ``paint(text, style)`` (the CLI's colours), each
    table row is in the style ``row_style`` gives it and the :func:`verdict` in ``verdict_style``."""
    from .._table import Cell, render

    answer = verdict(comparison)
    lines, changes, rows, after = text_parts(comparison, include_all, limit)
    out = [(paint(line, verdict_style) if paint is not None and line == answer else line) + "\n" for line in lines]
    if rows:
        cells = [
            [Cell(cell, (row_style(change) if row_style is not None else None) or "") for cell in row]
            for change, row in zip(changes, rows)
        ]
        out.append(render(None, HEADERS, cells, RIGHT, width, paint))
    out += [line + "\n" for line in after]
    return "".join(out)


#: Which columns of the text report's table are right-justified (the numbers).
RIGHT = tuple(header not in LEFT for header in HEADERS)


def text_parts(
    comparison: Comparison, include_all: bool = False, limit: int | None = 30
) -> tuple[list[str], list[StackChange], list[Sequence[str]], list[str]]:
    """What :func:`text` writes, in order: the summary lines, the table's rows (the changes and
    their cells, under :data:`HEADERS`), then the lines after it: the rows left out, if any,
    and the :func:`footer` (the last)."""
    changes = shown(comparison, include_all, limit)
    rows = [_cells(change, short_stack(change.stack), comparison.unit) for change in changes]
    after = []
    hidden = len(shown(comparison, include_all)) - len(changes) if changes else 0
    if hidden > 0:
        after.append(f"... {hidden} more row(s) (--limit 0 shows all)")
    return summary(comparison), changes, rows, after + [footer(comparison)]


def markdown(comparison: Comparison, include_all: bool = False, limit: int | None = 50) -> str:
    """The report as GitHub Markdown, e.g. for a CI comment."""
    improved = len(comparison.kept) - len(comparison.regressions)
    verdict = "❌ regression" if comparison.regressed else "✅ no significant regression"
    if improved:
        verdict += f", {improved} improvement(s)"
    lines = [f"### flamespace compare: {verdict}", ""] + [f"{line}  " for line in summary(comparison)] + [""]
    rows = shown(comparison, include_all, limit)
    if rows:
        lines.append("| " + " | ".join(HEADERS) + " |")
        lines.append("|" + "|".join("---" if h in LEFT else "---:" for h in HEADERS) + "|")
        for change in rows:
            stack = "`" + ";".join(change.stack).replace("`", "'").replace("|", "\\|") + "`"
            lines.append("| " + " | ".join(_cells(change, stack, comparison.unit)) + " |")
        hidden = len(shown(comparison, include_all)) - len(rows)
        if hidden > 0:
            lines += ["", f"... and {hidden} more."]
        lines.append("")
    lines.append(f"<sub>{footer(comparison)}</sub>")
    return "\n".join(lines) + "\n"


def run_time_line(change: RunTimeChange) -> str:
    """The whole run's time in one sentence: each side's mean, the change with its interval, Δ %."""
    ns = 1e9  # seconds shown as the reports show time
    how = f"paired t over {change.runs} rounds" if change.paired else "Welch's t"
    return (
        f"Whole run: {units.human(change.baseline * ns, 'ns')} → {units.human(change.candidate * ns, 'ns')}, "
        f"Δ {units.change(change.delta * ns, change.lower * ns, change.upper * ns, 'ns')}, "
        f"{units.percent(change.relative)} ({_level(change.level)} interval, two-sided; {how})."
    )


def run_time_dict(change: RunTimeChange) -> dict[str, Any]:
    """:func:`run_time_line`'s figures for JSON, exact, in seconds."""
    return {
        "unit": "s",
        "baseline": change.baseline,
        "candidate": change.candidate,
        "delta": change.delta,
        "lower": _finite(change.lower),
        "upper": _finite(change.upper),
        "relative": change.relative,
        "level": change.level,
        "paired": change.paired,
        "runs": change.runs,
    }


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def as_dict(comparison: Comparison) -> dict[str, Any]:
    """Everything in the comparison, JSON-ready: exact numbers in ``unit`` (non-finite ones become null)."""
    c = comparison
    ordered = c.kept + sorted((x for x in c.changes if not x.kind), key=lambda x: (x.p_adjusted, x.by_stack))
    return {
        "method": c.method,
        "requested_method": c.requested_method,
        "alpha": c.alpha,
        "alternative": c.alternative,
        "control": c.control,
        "smallest_p": c.smallest_p,
        "unit": c.unit,
        "normalized": c.normalized,
        "normalized_load": c.loads is not None,
        "runs": {"baseline": c.n_baseline, "candidate": c.n_candidate},
        "filter": {"min_runs": c.frequency.min_runs, "min_fraction": c.frequency.min_fraction, "dropped": c.dropped},
        "margin": {"min_delta": c.margin.min_delta, "min_rel": c.margin.min_rel},
        "global": {"statistic": c.statistic_name, "value": _finite(c.statistic), "p_value": c.p_value},
        "interval": {"level": interval_level(c), "sides": "two-sided", "simultaneous": info(c.method).simultaneous},
        "fields": {
            "values": f"baseline, candidate, delta, lower, upper: exact, in {c.unit or 'the profiles unit'}"
            f"{' (shares of each run)' if c.normalized else ''}{AT_TYPICAL_LOAD if c.loads else ''}"
            "; delta = candidate - baseline",
            "relative": "(candidate - baseline) / baseline as a fraction (Δ % / 100); null when the baseline is 0 (new)",
        },
        "options": {k: (_finite(v) if isinstance(v, float) else v) for k, v in c.options.items()},
        "regressed": c.regressed,
        "reduced": {name: part.norm() for name, part in zip(c.parts._fields, c.parts)},
        "notes": list(c.notes),
        "stacks": [
            {
                "stack": list(x.stack),
                "kind": x.kind,
                "significant": x.significant,
                "baseline": x.baseline,
                "candidate": x.candidate,
                "delta": x.delta,
                "relative": x.relative,
                "lower": _finite(x.lower),
                "upper": _finite(x.upper),
                "p": x.p,
                "p_adjusted": x.p_adjusted,
                "detectable": None if x.detectable is None else _finite(x.detectable),
            }
            for x in ordered
        ],
    }


def to_json(comparison: Comparison) -> str:
    return json.dumps(as_dict(comparison), indent=2, ensure_ascii=False)
