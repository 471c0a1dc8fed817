"""flamespace top: the costliest functions by self and inclusive value."""

from __future__ import annotations

from typing import Optional

import click

from ..core.ranking import top_functions
from ._common import echo_json, format_share, format_value, input_options, read_graph
from ._table import print_table


@click.command("top")
@click.argument("input", default="-", type=click.Path(allow_dash=True))
@click.option("-n", "--limit", default=20, show_default=True, type=click.IntRange(min=1), help="How many functions to list.")
@click.option("--by", type=click.Choice(["self", "inclusive"]), default="self", show_default=True, help="Rank by self value (time as the leaf) or inclusive value (time anywhere in the stack).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@input_options
def command(input: str, limit: int, by: str, as_json: bool, skip_invalid: bool, input_format: Optional[str]) -> None:
    """List the functions (frame names) of INPUT (default stdin) that cost the most.

    A function that appears twice in one stack (recursion) counts once for that stack.
    Use 'flamespace filter --strip lines' first to rank by function instead of by line.

    \b
    Examples:
        flamespace top profile.folded
        flamespace top --by inclusive -n 50 profile.folded
    """
    graph = read_graph(input, "top", skip_invalid, input_format)
    total = graph.total()
    ranked = top_functions(graph, limit, by)
    if as_json:
        echo_json({
            "unit": graph.unit, "total": total, "by": by,
            "functions": [
                {"name": c.name, "self": c.self_value, "inclusive": c.inclusive_value} for c in ranked
            ],
        })
        return
    unit = graph.unit or "samples"
    title = f"Top {len(ranked)} functions by {by} value (total {format_value(total)} {unit})"
    rows = [
        (format_value(c.self_value), format_share(c.self_value, total),
         format_value(c.inclusive_value), format_share(c.inclusive_value, total), c.name)
        for c in ranked
    ]
    print_table(title, ["self", "self %", "inclusive", "incl %", "function"], rows, [True, True, True, True, False])
