"""flamespace top: the costliest functions (or lines, or files) by self and inclusive value."""

from __future__ import annotations

import sys
from typing import Callable, Optional

import click

from ..core.ranking import GROUPINGS, top_functions
from ..core.units import scale
from . import _style
from ._common import echo_json, format_share, format_value, input_options, read_graph
from ._table import print_table

#: What a row is (--by), as the title names it.
ROW_NAMES = {"line": "lines", "function": "functions", "file": "files"}
#: Rankings (--sort); `--by self|inclusive` is their old spelling, still accepted.
RANKINGS = ("self", "inclusive")


@click.command("top")
@click.argument("input", default="-", type=click.Path(allow_dash=True))
@click.option("-n", "--limit", default=20, show_default=True, type=click.IntRange(min=1), help="How many rows to list.")
@click.option(
    "--by", "group", type=click.Choice([*GROUPINGS, *RANKINGS]), default="function", show_default=True,
    help="One row per function (line numbers dropped: 'f (app.py:12)' and 'f (app.py:30)' are one row), "
    "per line (frames as they are) or per file. Frames without a '(file:line)' suffix are rows of their own. "
    "(--by self|inclusive: the old spelling of --sort.)",
)
@click.option("--sort", type=click.Choice(RANKINGS), default=None, help="Rank by self value (time as the leaf) or inclusive value (time anywhere in the stack).  [default: self]")
@click.option("--raw", is_flag=True, help="Exact values in the profile's unit (e.g. 2,351,834,370 ns) instead of human units (2.35 s).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (exact values) instead of a table.")
@input_options
def command(
    input: str, limit: int, group: str, sort: Optional[str], raw: bool, as_json: bool, skip_invalid: bool,
    input_format: Optional[str],
) -> None:
    """List the functions of INPUT (default stdin) that cost the most.

    A function that appears twice in one stack (recursion, or two of its lines) counts once
    for that stack.

    \b
    Examples:
        flamespace top profile.folded
        flamespace top --sort inclusive -n 50 profile.folded
        flamespace top --by line --raw profile.folded
    """
    if group in RANKINGS:  # the old `--by self|inclusive`
        if sort is not None and sort != group:
            raise click.UsageError(f"--by {group} (the old spelling of --sort {group}) contradicts --sort {sort}")
        sort, group = group, "function"
    by = sort or "self"
    graph = read_graph(input, "top", skip_invalid, input_format)
    total = graph.total()
    ranked = top_functions(graph, limit, by, group)
    if as_json:
        echo_json({
            "unit": graph.unit, "total": total, "by": by, "group": group,
            "functions": [
                {"name": c.name, "self": c.self_value, "inclusive": c.inclusive_value} for c in ranked
            ],
        })
        return
    unit = graph.unit or "samples"
    shown_self = _column(unit, [c.self_value for c in ranked], raw)
    shown_incl = _column(unit, [c.inclusive_value for c in ranked], raw)
    shown_total = _column(unit, [total], raw)(total)
    if raw or not scale(unit).suffix:
        shown_total += f" {unit}"
    title = f"Top {len(ranked)} {ROW_NAMES[group]} by {by} value (total {shown_total})"
    rows = [
        [shown_self(c.self_value), format_share(c.self_value, total),
         shown_incl(c.inclusive_value), format_share(c.inclusive_value, total), c.name]
        for c in ranked
    ]
    if _style.enabled(sys.stdout):
        rows = [_coloured(row, c.self_value, c.inclusive_value, total) for row, c in zip(rows, ranked)]
    print_table(title, ["self", "self %", "inclusive", "incl %", ROW_NAMES[group][:-1]], rows, [True, True, True, True, False])


def _coloured(row: list, self_value: float, inclusive_value: float, total: float) -> list:
    """A row with its shares coloured by size and its frame's (file:line) dimmed (cli/_style.py)."""
    from rich.text import Text

    from ..render.text import location_start

    def share(text: str, value: float) -> Text:
        return Text(text, style=_style.share_style(value / total if total else 0.0) or "")

    name = Text(row[4])
    name.stylize(_style.LOCATION, location_start(row[4]))
    return row[:1] + [share(row[1], self_value), row[2], share(row[3], inclusive_value), name]


def _column(unit: str, values: "list[float]", raw: bool) -> Callable[[float], str]:
    """How one column shows its values: times and bytes in the one scale that suits the column's
    largest value (so they line up and compare), counts and --raw exactly."""
    shown = scale(unit, max(values, default=0))
    return shown.format if shown.suffix and not raw else format_value
