"""``flamespace svg``: its options as data (cli/_options.py) and what it does (:func:`draw`).

cli/svg.py is the command's module; the renderer is imported only when the command runs
(start-up: docs/performance.md).
"""

from __future__ import annotations

from .._record import defaults
from ..errors import ArgumentError
from ..render.options import (
    DELTA_MODES,
    PALETTES,
    POSITIVE,
    SvgOptions,
    check_positive,
)  # light (no layout or emitter); drawing needs it anyway
from ._colour_by import OPTIONS as COLOUR_OPTIONS
from ._common import INPUT_OPTIONS, THREAD_OPTION
from ._options import Argument, Command, Option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable


def positive(option: str) -> Callable[[float | None], float | None]:
    """The callback that checks ``option`` as SvgOptions will (a finite number > 0) while the options are parsed,
    before any input is read (``--total inf`` ended in a division by zero after the reading); a bad
    value is a BadParameter."""

    def check(value: float | None) -> float | None:
        if value is not None:
            try:
                check_positive(option, value)
            except ArgumentError:
                from ._report import BadParameter

                raise BadParameter(f"{value!r} is not {POSITIVE}", param_hint=f"'{option}'") from None
        return value

    return check


#: SvgOptions' defaults: the table below takes its defaults from here (checked in tests/cli/test_defaults.py).
_D = defaults(SvgOptions)

#: Every option of ``flamespace svg``, in --help order. An option's dest is its SvgOptions field;
#: the others (output, countname, cp, palette_file, nameattr, truncate_right, the input options)
#: are what :func:`draw` turns into fields or does at the program's edge.
OPTIONS = (
    Option(("-o", "--output"), "output", "path", "-", "Where to write the SVG.", show_default="stdout", allow_dash=True),
    Option(
        ("--title",),
        "title",
        "str",
        _D["title"],
        'Title (default "Flame Graph"; "Icicle Graph" with --inverted, "Flame Chart" with --flamechart).',
    ),
    Option(("--subtitle",), "subtitle", "str", _D["subtitle"], "Second line of the title."),
    Option(("--width",), "width", "int", _D["width"], "Image width in pixels.", show_default=True),
    Option(("--height",), "height", "int", _D["height"], "Height of one frame in pixels.", show_default=True),
    Option(
        ("--minwidth",),
        "minwidth",
        "str",
        str(_D["minwidth"]),
        "Omit frames narrower than this: pixels, or a percentage of the total with '%' (0.5%).",
        show_default=True,
    ),
    Option(("--fonttype",), "fonttype", "str", _D["fonttype"], "Font family.", show_default=True),
    Option(
        ("--fontsize",),
        "fontsize",
        "float",
        _D["fontsize"],
        "Font size in pixels.",
        show_default=True,
        callback=positive("--fontsize"),
    ),
    Option(
        ("--fontwidth",),
        "fontwidth",
        "float",
        _D["fontwidth"],
        "Average glyph width relative to the font size (fits labels).",
        show_default=True,
        callback=positive("--fontwidth"),
    ),
    Option(("--countname",), "countname", "str", None, "What the counts are (default: the profile's unit, else 'samples')."),
    Option(("--nametype",), "nametype", "str", _D["nametype"], "Prefix of the details line.", show_default=True),
    Option(("--colors",), "colors", "choice", _D["colors"], "Palette.", choices=PALETTES, show_default=True),
    Option(
        ("--bgcolors",),
        "bgcolors",
        "str",
        _D["bgcolors"],
        "Background: yellow, blue, green, grey or #rrggbb (default by palette).",
    ),
    Option(("--hash",), "hash", "flag", _D["hash"], help="flamegraph.pl's name hash: similar names, similar colours."),
    Option(("--random",), "random", "flag", _D["random"], help="Random colours (the only non-repeatable option; see --seed)."),
    Option(("--seed",), "seed", "int", _D["seed"], "Seed for --random."),
    Option(("--cp",), "cp", "flag", help="Consistent palette: read and update palette.map in the current directory."),
    Option(("--palette-file",), "palette_file", "path", None, "Like --cp with another file."),
    Option(("--reverse",), "reverse", "flag", _D["reverse"], help="Reverse stacks (leaf first): merged from the hot end."),
    Option(("--inverted",), "inverted", "flag", _D["inverted"], help="Icicle graph: the root at the top."),
    Option(
        ("--flamechart",),
        "flamechart",
        "flag",
        _D["flamechart"],
        help="Keep input order (time) and merge only neighbouring frames.",
    ),
    Option(("--negate",), "negate", "flag", _D["negate"], help="Differential input: swap red and blue."),
    Option(
        ("--delta",),
        "delta",
        "choice",
        _D["delta"],
        "Differential input: colour each frame by the change of its inclusive value, or of its own (leaf) value as flamegraph.pl.",
        choices=DELTA_MODES,
        show_default=True,
    ),
    Option(
        ("--factor",),
        "factor",
        "float",
        _D["factor"],
        "Multiply the counts shown in tooltips.",
        show_default=True,
        callback=positive("--factor"),
    ),
    Option(
        ("--total",),
        "total",
        "float",
        _D["total"],
        "The value of the full width, if more than the sum of the input.",
        callback=positive("--total"),
    ),
    Option(("--notes",), "notes", "str", _D["notes"], "Notes, kept in an XML comment."),
    Option(("--nameattr",), "nameattr", "path", None, "File of extra SVG attributes per function: name<TAB>attr=value<TAB>..."),
    Option(("--encoding",), "encoding", "str", _D["encoding"], "Character encoding of the SVG (default UTF-8)."),
    Option(("--fluid",), "fluid", "flag", _D["fluid"], help="Stretch to the width of the window (laid out at --width)."),
    Option(("--search-color",), "search_color", "str", _D["search_color"], "Colour of search matches.", show_default=True),
    Option(("--stroke-color",), "stroke_color", "str", _D["stroke_color"], "Outline colour of frames.", show_default=True),
    Option(
        ("--truncate-text-right",),
        "truncate_right",
        "pair",
        _D["truncate"] == "right",
        "Cut long labels at the end (name..), as flamegraph.pl, or at the start (..name), as inferno.",
        show_default=True,
        secondary=("--truncate-text-left",),
    ),
    Option(
        ("--drop-locations",),
        "drop_locations",
        "pair",
        _D["drop_locations"],
        "A label that does not fit drops its ' (file:line)' suffix before it is cut: 'work (app.py:12)' shows "
        "'work', not 'work (app.p..'.",
        show_default=True,
        secondary=("--keep-locations",),
    ),
    Option(
        ("--legend",),
        "legend",
        "pair",
        _D["legend"],
        "Differential input: a colour bar under the title, with the change at which colours are full and what red and blue mean.",
        show_default=True,
        secondary=("--no-legend",),
    ),
    Option(("--base",), "base", "multiple", _D["base"], "Re-root at this frame (outermost occurrence); repeatable."),
    Option(
        ("--sort-by-value",), "sort_by_value", "flag", _D["sort_by_value"], help="Siblings widest first (default: name order)."
    ),
    *COLOUR_OPTIONS,
    THREAD_OPTION,
    *INPUT_OPTIONS,
)


def settings_of(
    countname: str | None,
    nameattr: str | None,
    truncate_right: bool,
    **fields: object,
) -> SvgOptions:
    """The SvgOptions of the command's options (those named as its fields, and the few it turns
    into fields): SvgOptions checks them."""
    from ..render.options import read_nameattr

    return SvgOptions(
        countname=countname or "",  # empty: the renderer names counts by the profile's unit
        nameattr=read_nameattr(nameattr) if nameattr else _D["nameattr"],
        truncate="right" if truncate_right else "left",
        **fields,  # type: ignore[arg-type]
    )


def draw(
    files: tuple[str, ...],
    output: str,
    cp: bool,
    palette_file: str | None,
    skip_invalid: bool,
    input_format: str | None,
    colour_by: str | None = None,
    event: str | None = None,
    thread: str | None = None,
    **options: object,
) -> None:
    """Read ``files`` and write their SVG to ``output`` (what ``flamespace svg`` does); the palette
    map of --cp/--palette-file is read before and saved after, here at the program's edge;
    ``colour_by`` and ``event`` as cli/_colour_by.py reads them."""
    from ..diagnostics import Diagnostics
    from ..errors import InputError
    from ..formats import check_output
    from ..render.palettes import read_palette, write_palette
    from ..render.svg import svg
    from ._colour_by import count_name, read_inputs
    from ._report import warn

    from ._common import picked_thread, refuse_terminal, thread_subtitle

    refuse_terminal(output, "an SVG picture", "profile.svg")
    check_output(output)  # before reading: a long read should not end in "cannot write"
    profile, colour = read_inputs(
        files, "svg", skip_invalid, input_format, colour_by, event, chart=bool(options.get("flamechart"))
    )
    profile, colour = picked_thread(profile, colour, thread, files)
    options["subtitle"] = thread_subtitle(str(options.get("subtitle") or ""), profile)
    options["countname"] = count_name(profile, colour, options.get("countname"))  # type: ignore[arg-type]
    settings = settings_of(**options)  # type: ignore[arg-type]
    palette_path = palette_file or ("palette.map" if cp else None)
    palette = read_palette(palette_path) if palette_path else None
    diagnostics = Diagnostics()
    svg(profile, settings, output, palette=palette, diagnostics=diagnostics, colour_by=colour)
    if palette_path and palette is not None and not diagnostics.empty:
        write_palette(palette_path, palette)
    for warning in diagnostics.warnings:
        warn(f"flamespace svg: warning: {warning}")
    if diagnostics.empty:
        raise InputError("no stack counts found: wrote an SVG that says so", ", ".join(files) or "<stdin>")


HELP = """Draw FILES (folded stacks, speedscope; several are summed) as an interactive SVG.

    Hover for details, click to zoom, Ctrl-F or F3 to search by regular expression, Ctrl-I
    to ignore case; zoom and search are kept in the URL. Differential input (two counts
    per line, as 'flamespace sub' writes) is drawn with the widths of the second count,
    red where it grew and blue where it shrank. With --colour-by, each frame is coloured by
    the ratio of a second metric to the widths' (Gregg's CPI flame graph).

    \b
    Examples:
        flamespace svg app.folded -o app.svg
        flamespace svg --reverse --colors python --title "Who calls json?" app.folded -o callers.svg
        flamespace sub before.folded after.folded | flamespace svg -o diff.svg
        flamespace svg perf.txt --event cycles --colour-by event:instructions -o cpi.svg
        flamespace svg --thread main threads.folded -o main.svg
    """

#: ``flamespace svg``.
SPEC = Command("svg", draw, [Argument("files", nargs=-1)], OPTIONS, help=HELP)
