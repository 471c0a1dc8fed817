"""flamespace similarity: how alike two profiles are."""

from __future__ import annotations

from typing import Optional

import click

from ..core.algebra import distance, normalize, similarity
from ._common import echo_json, format_value, input_options, read_graph


@click.command("similarity")
@click.argument("first", type=click.Path(allow_dash=True))
@click.argument("second", type=click.Path(allow_dash=True))
@click.option("--normalize", "normalized", is_flag=True, help="Compare shapes: scale both to total 1 first.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@input_options
def command(first: str, second: str, normalized: bool, as_json: bool, skip_invalid: bool, input_format: Optional[str]) -> None:
    """Print σ = 1 − ‖A − B‖ / (‖A‖ + ‖B‖) and the L1 distance ‖A − B‖.

    σ is 1 for identical profiles and 0 for profiles that share no stack.

    \b
    Examples:
        flamespace similarity run1.folded run2.folded
        flamespace similarity --normalize short-run.folded long-run.folded
    """
    a = read_graph(first, "similarity", skip_invalid, input_format)
    b = read_graph(second, "similarity", skip_invalid, input_format)
    if normalized:
        a, b = normalize(a), normalize(b)
    sigma, dist = similarity(a, b), distance(a, b)
    unit = a.unit or b.unit
    if as_json:
        echo_json({"similarity": sigma, "distance": dist, "unit": unit, "norms": [a.norm(), b.norm()]})
        return
    click.echo(f"similarity: {sigma:.6f}")
    click.echo(f"distance: {format_value(dist)}" + (f" {unit}" if unit else ""))
