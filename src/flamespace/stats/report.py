"""Renderings of a :class:`~flamespace.stats.comparison.Comparison`: text (a rich table), Markdown, JSON.

They return strings; the caller decides where they go.
"""

from __future__ import annotations

import io
import json
import math
from typing import List, Optional, Sequence

from .comparison import Comparison, StackChange

KIND_MARK = {"appeared": "+ new", "grown": "▲ grew", "disappeared": "- gone", "shrunk": "▼ shrank", None: ""}
HEADERS = ("change", "stack", "baseline", "candidate", "Δ", "Δ %", "interval", "adj. p", "detectable")
#: How many of the widest stacks the summary names with their detectable change when nothing is significant.
DETECTABLE_SHOWN = 5


def number(value: float) -> str:
    """A mean or difference for people: thousands separators, 4 significant digits below 10⁴."""
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    return f"{value:,.0f}" if abs(value) >= 1e4 else f"{value:.4g}"


def p_value(value: float) -> str:
    return "0" if value == 0 else f"{value:.2g}"


def _relative(change: StackChange) -> str:
    rel = change.relative
    return "new" if rel is None else f"{100 * rel:+.1f}%"


def shown(comparison: Comparison, include_all: bool = False, limit: Optional[int] = None) -> List[StackChange]:
    """The rows to show: changes in Δ_r (largest |Δ| first), then, with ``include_all``, the rest by adjusted p."""
    kept = comparison.kept
    rows = kept + (sorted((c for c in comparison.changes if not c.kind), key=lambda c: (c.p_adjusted, c.stack)) if include_all else [])
    return rows[:limit] if limit is not None else rows


def _cells(change: StackChange, stack: str) -> Sequence[str]:
    interval = f"[{number(change.lower)}, {number(change.upper)}]"
    return (KIND_MARK[change.kind], stack, number(change.baseline), number(change.candidate), f"{change.delta:+,.4g}"
            if abs(change.delta) < 1e4 else f"{change.delta:+,.0f}", _relative(change), interval, p_value(change.p_adjusted),
            _detectable(change))


def _detectable(change: StackChange) -> str:
    """The minimum detectable change (80% power), "-" when not computed, "none" when α is out of reach."""
    value = change.detectable
    if value is None:
        return "-"
    return number(value) if math.isfinite(value) else "none"


def short_stack(stack: Sequence[str], frames: int = 4) -> str:
    """The leaf end of a stack (where the time is spent), ``…;`` marking frames left out."""
    return ";".join(stack) if len(stack) <= frames else "…;" + ";".join(stack[-frames:])


def summary(comparison: Comparison) -> List[str]:
    """Plain sentences: what was compared, how, and the answer."""
    c = comparison
    unit = c.unit or "unknown unit"
    lines = [
        f"Compared {c.n_baseline} baseline runs with {c.n_candidate} candidate runs over {c.tested} stacks "
        f"({unit}{', shares of each run' if c.normalized else ''}); "
        f"{c.dropped} rare stack(s) left out (kept: {c.frequency.describe()}).",
        f"Method: {c.method}, α = {c.alpha:g} "
        f"({c.control}); global {c.statistic_name} = {number(c.statistic)}, p = {p_value(c.p_value)}.",
        design(c),
    ]
    if c.margin.min_delta or c.margin.min_rel:
        lines.append(f"Margin: changes smaller than {number(c.margin.min_delta)} or {100 * c.margin.min_rel:g}% of the baseline are ignored.")
    kept, regressions = c.kept, c.regressions
    if not kept:
        lines.append("No stack changed significantly" + (" beyond the margin." if c.margin.min_delta or c.margin.min_rel else "."))
        lines += detectable_lines(c)
    else:
        lines.append(f"{len(kept)} stack(s) changed significantly: {len(regressions)} regression(s) (appeared or grew), "
                     f"{len(kept) - len(regressions)} improvement(s); Δ_r: +{number(c.reduced.positive().norm())} "
                     f"−{number(c.reduced.negative().norm())}.")
    return lines + [f"Note: {note}." for note in c.notes]


def design(comparison: Comparison) -> str:
    """What is controlled, in which direction, and the smallest p-value the design can reach."""
    from ._result import describe_alternative

    c = comparison
    line = f"Tested {describe_alternative(c.alternative)}: {c.control} ≤ {100 * c.alpha:g}%"
    if c.method == "maxt":
        count = c.options.get("relabellings")
        line += f"; {'exact, all' if c.options.get('exact') else 'random,'} {count} relabellings of the runs"
    if c.smallest_p:
        line += f"; the smallest p-value this design can reach is {p_value(c.smallest_p)}"
    return line + "."


def detectable_lines(comparison: Comparison, shown: int = DETECTABLE_SHOWN) -> List[str]:
    """For the widest stacks: the smallest change this comparison could have detected (80% power)."""
    widest = sorted((x for x in comparison.changes if x.detectable is not None),
                    key=lambda x: (-max(x.baseline, x.candidate), x.stack))[:shown]
    if not widest:
        return []
    parts = [f"{short_stack(x.stack, 2)} {_detectable(x)}" + (f" ({100 * x.detectable / x.baseline:.1f}%)" if x.baseline and math.isfinite(x.detectable) else "")
             for x in widest]
    return ["The smallest change this comparison could have detected (80% power) in the widest stacks: " + "; ".join(parts) + "."]


def text(comparison: Comparison, include_all: bool = False, limit: Optional[int] = 30, width: int = 200) -> str:
    """The report for a terminal: summary sentences and a table of the changed stacks."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    out = io.StringIO()
    console = Console(file=out, width=width, highlight=False, color_system=None)
    for line in summary(comparison):
        console.print(line, soft_wrap=True)
    rows = shown(comparison, include_all, limit)
    if rows:
        table = Table(box=box.SIMPLE_HEAD)
        for header in HEADERS:
            table.add_column(header, justify="left" if header in ("change", "stack", "interval") else "right", overflow="fold")
        for change in rows:
            table.add_row(*_cells(change, short_stack(change.stack)))
        console.print(table)
        hidden = len(shown(comparison, include_all)) - len(rows)
        if hidden > 0:
            console.print(f"... {hidden} more row(s) (--limit 0 shows all)")
    return out.getvalue()


def markdown(comparison: Comparison, include_all: bool = False, limit: Optional[int] = 50) -> str:
    """The report as GitHub Markdown, e.g. for a CI comment."""
    verdict = "❌ regression" if comparison.regressed else "✅ no significant regression"
    lines = [f"### flamespace compare: {verdict}", ""] + [f"{line}  " for line in summary(comparison)] + [""]
    rows = shown(comparison, include_all, limit)
    if rows:
        lines.append("| " + " | ".join(HEADERS) + " |")
        lines.append("|" + "|".join("---:" if h not in ("change", "stack", "interval") else "---" for h in HEADERS) + "|")
        for change in rows:
            stack = "`" + ";".join(change.stack).replace("`", "'").replace("|", "\\|") + "`"
            lines.append("| " + " | ".join(_cells(change, stack)) + " |")
        hidden = len(shown(comparison, include_all)) - len(rows)
        if hidden > 0:
            lines += ["", f"... and {hidden} more."]
    return "\n".join(lines) + "\n"


def _finite(value: float) -> Optional[float]:
    return value if math.isfinite(value) else None


def as_dict(comparison: Comparison) -> dict:
    """Everything in the comparison, JSON-ready (non-finite numbers become null)."""
    c = comparison
    ordered = c.kept + sorted((x for x in c.changes if not x.kind), key=lambda x: (x.p_adjusted, x.stack))
    return {
        "method": c.method,
        "requested_method": c.requested_method,
        "alpha": c.alpha,
        "alternative": c.alternative,
        "control": c.control,
        "smallest_p": c.smallest_p,
        "unit": c.unit,
        "normalized": c.normalized,
        "runs": {"baseline": c.n_baseline, "candidate": c.n_candidate},
        "filter": {"min_runs": c.frequency.min_runs, "min_fraction": c.frequency.min_fraction, "dropped": c.dropped},
        "margin": {"min_delta": c.margin.min_delta, "min_rel": c.margin.min_rel},
        "global": {"statistic": c.statistic_name, "value": _finite(c.statistic), "p_value": c.p_value},
        "options": {k: (_finite(v) if isinstance(v, float) else v) for k, v in c.options.items()},
        "regressed": c.regressed,
        "reduced": {name: part.norm() for name, part in zip(c.parts._fields, c.parts)},
        "notes": list(c.notes),
        "stacks": [
            {
                "stack": list(x.stack), "kind": x.kind, "significant": x.significant,
                "baseline": x.baseline, "candidate": x.candidate, "delta": x.delta,
                "lower": _finite(x.lower), "upper": _finite(x.upper), "p": x.p, "p_adjusted": x.p_adjusted,
                "detectable": None if x.detectable is None else _finite(x.detectable),
            }
            for x in ordered
        ],
    }


def to_json(comparison: Comparison) -> str:
    return json.dumps(as_dict(comparison), indent=2, ensure_ascii=False)
