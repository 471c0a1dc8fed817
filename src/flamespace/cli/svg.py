"""flamespace svg: an interactive SVG flame graph, with every option of flamegraph.pl.

The options are declared once, in _svg_spec.OPTIONS; the click command (``command``) is built
from them on first use, and ``flamespace.cli.main`` parses the usual argument lists without
click (cli/_options.py). The renderer is imported when the command runs.
"""

from __future__ import annotations

from ._options import Argument, Command
from ._svg_spec import OPTIONS, PALETTES, draw

HELP = """Draw FILES (folded stacks, speedscope; several are summed) as an interactive SVG.

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

SPEC = Command("svg", draw, [Argument("files", nargs=-1)], OPTIONS, help=HELP)
__getattr__ = SPEC.module_getattr(__name__)

__all__ = ["PALETTES", "SPEC", "command"]
