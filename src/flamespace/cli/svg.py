"""flamespace svg: an interactive SVG flame graph, with every option of flamegraph.pl.

Imports only click at start-up; the renderer is imported when the command runs.
"""

from __future__ import annotations

from typing import Optional, Tuple

import click

from ._common import input_options

PALETTES = (
    "hot", "mem", "io", "wakeup", "chain", "java", "js", "perl", "python",
    "red", "green", "blue", "aqua", "yellow", "purple", "orange",
)  # render.options.PALETTES, repeated so that --help does not import the renderer


@click.command("svg")
@click.argument("files", nargs=-1, type=click.Path(allow_dash=True))
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-", show_default="stdout", help="Where to write the SVG.")
@click.option("--title", help='Title (default "Flame Graph"; "Icicle Graph" with --inverted, "Flame Chart" with --flamechart).')
@click.option("--subtitle", default="", help="Second line of the title.")
@click.option("--width", type=int, default=1200, show_default=True, help="Image width in pixels.")
@click.option("--height", type=int, default=16, show_default=True, help="Height of one frame in pixels.")
@click.option("--minwidth", default="0.1", show_default=True, help="Omit frames narrower than this: pixels, or a percentage of the total with '%' (0.5%).")
@click.option("--fonttype", default="Verdana", show_default=True, help="Font family.")
@click.option("--fontsize", type=float, default=12, show_default=True, help="Font size in pixels.")
@click.option("--fontwidth", type=float, default=0.59, show_default=True, help="Average glyph width relative to the font size (fits labels).")
@click.option("--countname", default=None, help="What the counts are (default: the profile's unit, else 'samples').")
@click.option("--nametype", default="Function:", show_default=True, help="Prefix of the details line.")
@click.option("--colors", type=click.Choice(PALETTES), default="hot", show_default=True, help="Palette.")
@click.option("--bgcolors", default=None, help="Background: yellow, blue, green, grey or #rrggbb (default by palette).")
@click.option("--hash", "hash_", is_flag=True, help="flamegraph.pl's name hash: similar names, similar colours.")
@click.option("--random", "random_", is_flag=True, help="Random colours (the only non-repeatable option; see --seed).")
@click.option("--seed", type=int, default=None, help="Seed for --random.")
@click.option("--cp", is_flag=True, help="Consistent palette: read and update palette.map in the current directory.")
@click.option("--palette-file", type=click.Path(dir_okay=False), default=None, help="Like --cp with another file.")
@click.option("--reverse", is_flag=True, help="Reverse stacks (leaf first): merged from the hot end.")
@click.option("--inverted", is_flag=True, help="Icicle graph: the root at the top.")
@click.option("--flamechart", is_flag=True, help="Keep input order (time) and merge only neighbouring frames.")
@click.option("--negate", is_flag=True, help="Differential input: swap red and blue.")
@click.option("--delta", type=click.Choice(["inclusive", "self"]), default="inclusive", show_default=True,
              help="Differential input: colour each frame by the change of its inclusive value, or of its own (leaf) value as flamegraph.pl.")
@click.option("--factor", type=float, default=1, show_default=True, help="Multiply the counts shown in tooltips.")
@click.option("--total", type=float, default=None, help="The value of the full width, if more than the sum of the input.")
@click.option("--notes", default="", help="Notes, kept in an XML comment.")
@click.option("--nameattr", type=click.Path(dir_okay=False), default=None, help="File of extra SVG attributes per function: name<TAB>attr=value<TAB>...")
@click.option("--encoding", default=None, help="Character encoding of the SVG (default UTF-8).")
@click.option("--fluid", is_flag=True, help="Stretch to the width of the window (laid out at --width).")
@click.option("--search-color", default="rgb(230,0,230)", show_default=True, help="Colour of search matches.")
@click.option("--stroke-color", default="none", show_default=True, help="Outline colour of frames.")
@click.option("--truncate-text-right/--truncate-text-left", "truncate_right", default=True, show_default=True,
              help="Cut long labels at the end (name..), as flamegraph.pl, or at the start (..name), as inferno.")
@click.option("--base", multiple=True, help="Re-root at this frame (outermost occurrence); repeatable.")
@click.option("--sort-by-value", is_flag=True, help="Siblings widest first (default: name order).")
@input_options
def command(files: Tuple[str, ...], output: str, countname: Optional[str], hash_: bool, random_: bool, cp: bool,
            palette_file: Optional[str], nameattr: Optional[str], truncate_right: bool, skip_invalid: bool,
            input_format: Optional[str], **options: object) -> None:
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
    from ..errors import InputError
    from ..render import SvgOptions, layout, read_nameattr, write_svg
    from ..render.svg import open_svg
    from ._render import read_drawable

    profile = read_drawable(files, "svg", skip_invalid, input_format)
    unit = getattr(profile, "unit", None) or getattr(getattr(profile, "after", None), "unit", None)
    settings = SvgOptions(
        countname=countname or (unit if unit and unit != "samples" else "samples"),
        hash=hash_, random=random_, palette_file=palette_file or ("palette.map" if cp else None),
        nameattr=read_nameattr(nameattr) if nameattr else {}, truncate="right" if truncate_right else "left",
        **options,  # type: ignore[arg-type]
    )
    drawn = layout(profile, settings)
    with open_svg(output, settings.encoding) as out:
        write_svg(drawn, out)
    for warning in drawn.warnings:
        click.echo(f"flamespace svg: warning: {warning}", err=True)
    if drawn.empty:
        raise InputError("no stack counts found: wrote an SVG that says so", ", ".join(files) or "<stdin>")
