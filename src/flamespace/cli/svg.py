"""flamespace svg: an interactive SVG flame graph, with every option of flamegraph.pl.

The options are declared once, in _svg_spec.OPTIONS, which also drives the click-free fast
path of ``flamespace.cli.main``; the renderer is imported when the command runs.
"""

from __future__ import annotations

import click

from ._options import click_options
from ._svg_spec import OPTIONS, PALETTES, draw


@click.command("svg")
@click.argument("files", nargs=-1, type=click.Path(allow_dash=True))
@click_options(OPTIONS)
def command(**params: object) -> None:
    """Draw FILES (folded stacks, speedscope; several are summed) as an interactive SVG.

    Hover for details, click to zoom, Ctrl-F or F3 to search by regular expression, Ctrl-I
    to ignore case; zoom and search are kept in the URL. Differential input (two counts
    per line, as 'flamespace sub' writes) is drawn with the widths of the second count,
    red where it grew and blue where it shrank.

    \b
    Examples:
        flamespace svg app.folded -o app.svg
        flamespace svg --reverse --colors python --title "Who calls json?" app.folded -o callers.svg
        flamespace sub before.folded after.folded | flamespace svg -o diff.svg
    """
    draw(**params)  # type: ignore[arg-type]


__all__ = ["PALETTES", "command"]
