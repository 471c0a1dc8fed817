"""flamespace html: one self-contained HTML page that draws a flame graph on a canvas."""

from __future__ import annotations

from typing import Optional, Tuple

import click

from .._record import defaults
from ..render.html import HtmlOptions
from ..render.options import DELTA_MODES, PALETTES
from ._common import checked_output, input_options

#: HtmlOptions' defaults, which the options below show and pass on.
_D = defaults(HtmlOptions)


def _percent(context: object, parameter: object, value: str) -> float:
    """'0.001%' or '0.001' -> 0.001 (a percentage of the total, as svg's --minwidth 0.5%)."""
    text = value.strip()
    try:
        return float(text[:-1] if text.endswith("%") else text)
    except ValueError:
        raise click.BadParameter(f"expected a percentage of the total such as 0.001%, not {value!r}") from None


@click.command("html")
@click.argument("files", nargs=-1, type=click.Path(allow_dash=True))
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-", show_default="stdout",
              help="Where to write the page.", callback=checked_output)
@click.option("--title", default=_D["title"], help='Title (default "Flame Graph").')
@click.option("--subtitle", default=_D["subtitle"], help="Second line of the title.")
@click.option("--colors", type=click.Choice(PALETTES), default=_D["colors"], show_default=True, help="Palette.")
@click.option("--hash", "hash_", is_flag=True, default=_D["hash"], help="flamegraph.pl's name hash: similar names, similar colours.")
@click.option("--cp", is_flag=True, help="Consistent palette: read and update palette.map in the current directory.")
@click.option("--palette-file", type=click.Path(dir_okay=False), help="Like --cp with another file.")
@click.option("--inverted", is_flag=True, default=_D["inverted"], help="Open as an icicle graph (the root at the top; the page toggles it).")
@click.option("--reverse", is_flag=True, default=_D["reverse"], help="Reverse stacks (leaf first): merged from the hot end.")
@click.option("--base", multiple=True, default=_D["base"], help="Re-root at this frame (outermost occurrence); repeatable.")
@click.option("--sort-by-value", is_flag=True, default=_D["sort_by_value"], help="Siblings widest first (default: name order).")
@click.option("--delta", type=click.Choice(DELTA_MODES), default=_D["delta"], show_default=True,
              help="Differential input: colour each frame by the change of its inclusive value, or of its own value.")
@click.option("--negate", is_flag=True, default=_D["negate"], help="Differential input: swap red and blue.")
@click.option("--countname", default=None, help="What plain counts are (default: the profile's unit, else 'samples').")
@click.option("--minwidth", "min_percent", default=f"{_D['min_percent']:g}%", show_default=True, callback=_percent,
              help="Leave out frames narrower than this percentage of the total (their value stays in their parents).")
@click.option("--top", type=int, default=_D["top"], show_default=True, help="Rows of the function table shown at most.")
@click.option("--roots", type=click.Choice(["thread", "process", "process,thread"]), default=None,
              help="What the first frames of each stack are (e.g. recorded with --threads): the page offers a picker of them.")
@click.option("--flamechart", is_flag=True,
              help="A flame chart instead: a lane per thread on one time axis, boxes where they ran (for input that keeps "
                   "time: traces, speedscope, Chrome traces; other input is drawn in its order).")
@input_options
def command(files: Tuple[str, ...], output: str, title: Optional[str], subtitle: str, colors: str, hash_: bool, cp: bool,
            palette_file: Optional[str], inverted: bool, reverse: bool, base: Tuple[str, ...], sort_by_value: bool,
            delta: str, negate: bool, countname: Optional[str], min_percent: float, top: int, roots: Optional[str],
            flamechart: bool,
            skip_invalid: bool, input_format: Optional[str]) -> None:
    """Draw FILES (any format; several are summed) as one self-contained HTML page.

    The page works offline (no network request): a flame graph drawn on a canvas with a
    minimap, click or Ctrl+wheel to zoom, Esc to reset, a regex search that reports the
    matched share, a tooltip with value, share of total and parent and self value, a
    flame/icicle toggle, a sandwich view (callers and callees of one function), transforms
    computed in the page (left heavy, invert, collapse recursion, merge or hide frames by
    regex, focus on a function, one thread or process) and a sortable table of functions.
    It stays fast on big profiles: frames narrower than a pixel are merged as they are drawn.
    Differential input (two counts per line, as 'flamespace sub' writes) is coloured red
    where it grew and blue where it shrank.

    \b
    Examples:
        flamespace html app.folded -o app.html
        flamespace sub before.folded after.folded | flamespace html -o diff.html
        flamespace html --flamechart run.trace.json -o chart.html
    """
    from ..diagnostics import Diagnostics
    from ..errors import InputError
    from ..render.html import html
    from ..render.palettes import read_palette, write_palette
    from ._render import read_drawable
    from ._report import warn

    profile = read_drawable(files, "html", skip_invalid, input_format, chart=flamechart)
    unit = getattr(profile, "unit", None) or getattr(getattr(profile, "after", None), "unit", None)
    options = HtmlOptions(
        title=title, subtitle=subtitle, colors=colors, hash=hash_, inverted=inverted, reverse=reverse, base=base,
        sort_by_value=sort_by_value, delta=delta, negate=negate, min_percent=min_percent, top=top,
        roots=tuple(roots.split(",")) if roots else (),
        countname=countname or (unit if unit and unit != "samples" else _D["countname"]),
    )
    palette_path = palette_file or ("palette.map" if cp else None)
    palette = read_palette(palette_path) if palette_path else None
    diagnostics = Diagnostics()
    if flamechart:
        from ..render.chart_html import as_chart, chart_html

        chart_html(as_chart(profile), options, output, palette=palette, diagnostics=diagnostics)
    else:
        html(profile, options, output, palette=palette, diagnostics=diagnostics)
    if palette_path and palette is not None and not diagnostics.empty:
        write_palette(palette_path, palette)
    for warning in diagnostics.warnings:
        warn(f"flamespace html: warning: {warning}")
    if diagnostics.empty:
        raise InputError("no stack counts found: wrote a page that says so", ", ".join(files) or "<stdin>")
