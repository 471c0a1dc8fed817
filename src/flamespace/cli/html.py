"""flamespace html: one self-contained HTML page that draws a flame graph on a canvas."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._record import defaults
from ..render.html import HtmlOptions
from ..render.options import DELTA_MODES, PALETTES
from ._colour_by import OPTIONS as COLOUR_OPTIONS
from ._common import INPUT_OPTIONS, THREAD_OPTION, checked_output
from ._options import Argument, Command, Option
from ._report import BadParameter, UsageError

if TYPE_CHECKING:
    from ..core.vector import FlameGraph

#: HtmlOptions' defaults, which the options below show and pass on.
_D = defaults(HtmlOptions)


def _percent(value: str) -> float:
    """'0.001%' or '0.001' -> 0.001 (a percentage of the total, as svg's --minwidth 0.5%)."""
    text = value.strip()
    try:
        return float(text[:-1] if text.endswith("%") else text)
    except ValueError:
        raise BadParameter(f"expected a percentage of the total such as 0.001%, not {value!r}") from None


def run(
    files: tuple[str, ...],
    output: str,
    title: str | None,
    subtitle: str,
    colors: str,
    hash_: bool,
    cp: bool,
    palette_file: str | None,
    inverted: bool,
    reverse: bool,
    base: tuple[str, ...],
    sort_by_value: bool,
    delta: str,
    negate: bool,
    countname: str | None,
    min_percent: float,
    top: int,
    roots: str | None,
    calls_file: str | None,
    colour_by: str | None,
    colour_ratio: str,
    event: str | None,
    thread: str | None,
    diff: bool,
    series: bool,
    labels: tuple[str, ...],
    flamechart: bool,
    skip_invalid: bool,
    input_format: str | None,
) -> None:
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

    --diff A B draws a comparison page instead: B coloured by its change from A (the
    overlay), A, B and the change side by side with zoom and hover in step, B in white
    with the paths only in A in black, and the stacks that appeared, grew, disappeared or
    shrank, each on its own tab. --series P1 P2 ... adds each frame's sparkline over all
    the profiles and compares the first with the last.

    \b
    Examples:
        flamespace html app.folded -o app.html
        flamespace sub before.folded after.folded | flamespace html -o diff.html
        flamespace html perf.txt --event cycles --colour-by event:instructions -o cpi.html
        flamespace html --diff v1.folded v2.folded -o diff.html
        flamespace html --series v1.folded v2.folded v3.folded -o series.html
        flamespace html --flamechart run.trace.json -o chart.html
        flamespace html run.folded --calls run.calls.folded -o run.html
        flamespace html --thread main threads.folded -o main.html
    """
    from ..diagnostics import Diagnostics
    from ..errors import InputError
    from ..render.html import html
    from ..render.palettes import read_palette, write_palette
    from ._colour_by import count_name, read_inputs
    from ._report import warn

    from ._common import picked_thread, recorded_roots, refuse_terminal, thread_subtitle

    refuse_terminal(output, "an HTML page", "profile.html")
    if diff and series:
        raise UsageError("choose one of --diff and --series")
    if calls_file and (diff or series or flamechart):
        raise UsageError(f"--calls does not apply to --{'diff' if diff else 'series' if series else 'flamechart'}")
    if diff or series:
        if sort_by_value or roots or colour_by or flamechart or thread:  # a comparison keeps name order so that its panes line up
            which = (
                "sort-by-value"
                if sort_by_value
                else "roots"
                if roots
                else "colour-by"
                if colour_by
                else "flamechart"
                if flamechart
                else "thread"
            )
            raise UsageError(f"--{which} does not apply to --diff or --series")
        return _comparison(
            files,
            output,
            diff,
            labels,
            skip_invalid,
            input_format,
            title=title,
            subtitle=subtitle,
            inverted=inverted,
            reverse=reverse,
            base=base,
            delta=delta,
            negate=negate,
            min_percent=min_percent,
            countname=countname,
        )
    if labels:
        raise UsageError("--label names the inputs of --diff or --series")
    if flamechart and colour_by:
        raise UsageError("--colour-by does not apply to --flamechart")
    profile, colour = read_inputs(files, "html", skip_invalid, input_format, colour_by, event, chart=flamechart)
    profile, colour = picked_thread(profile, colour, thread, files)
    options = HtmlOptions(
        title=title,
        subtitle=thread_subtitle(subtitle, profile),
        colors=colors,
        hash=hash_,
        inverted=inverted,
        reverse=reverse,
        base=base,
        sort_by_value=sort_by_value,
        delta=delta,
        negate=negate,
        min_percent=min_percent,
        top=top,
        colour_ratio=colour_ratio,
        roots=tuple(roots.split(",")) if roots else recorded_roots(profile),
        countname=count_name(profile, colour, countname) or "",  # empty: named by the profile's unit
    )
    palette_path = palette_file or ("palette.map" if cp else None)
    palette = read_palette(palette_path) if palette_path else None
    diagnostics = Diagnostics()
    if flamechart:
        from ..render.chart_html import as_chart, chart_html

        chart_html(as_chart(profile), options, output, palette=palette, diagnostics=diagnostics)
    else:
        html(
            profile,
            options,
            output,
            palette=palette,
            diagnostics=diagnostics,
            colour_by=colour,
            calls=_calls(calls_file, skip_invalid, input_format) if calls_file else None,
        )
    if palette_path and palette is not None and not diagnostics.empty:
        write_palette(palette_path, palette)
    for warning in diagnostics.warnings:
        warn(f"flamespace html: warning: {warning}")
    if diagnostics.empty:
        raise InputError("no stack counts found: wrote a page that says so", ", ".join(files) or "<stdin>")


def _calls(path: str, skip_invalid: bool, input_format: str | None) -> FlameGraph:
    """--calls FILE: call counts per stack (one profile of plain counts)."""
    from ..core.vector import FlameGraph  # noqa: F811  (at run time too, for isinstance)
    from ..errors import InputError
    from ._common import read_profile

    calls = read_profile(path, skip_invalid, input_format)
    if not isinstance(calls, FlameGraph):
        raise InputError(
            "--calls takes call counts per stack (one count per line, as 'flamespace trace "
            "--format calls' writes), not a comparison",
            path,
        )
    return calls


def _comparison(
    files: tuple[str, ...],
    output: str,
    diff: bool,
    labels: tuple[str, ...],
    skip_invalid: bool,
    input_format: str | None,
    countname: str | None,
    **settings: object,
) -> None:
    """``--diff``/``--series``: each input one profile (a differential file: its two sides), drawn as a comparison page."""
    import os

    from ..core.differential import Differential
    from ..errors import InputError
    from ..render.compare_page import comparison_html
    from ._common import expand_inputs, read_profile

    paths = expand_inputs(files)
    profiles: list = []
    names: list = []
    for path in paths:
        profile = read_profile(path, skip_invalid, input_format)
        stem = os.path.basename(path) if path != "-" else "stdin"
        if isinstance(profile, Differential):
            profiles += [profile.before, profile.after]
            names += [f"{stem} (first)", f"{stem} (second)"]
        else:
            profiles.append(profile)
            names.append(stem)
    option = "--diff" if diff else "--series"
    if len(profiles) < 2 or (diff and len(profiles) != 2):
        raise UsageError(
            f"{option} takes {'two profiles' if diff else 'two or more profiles'} (or one differential file), not {len(profiles)}"
        )
    if labels and len(labels) != len(profiles):
        raise UsageError(f"{len(labels)} --label for {len(profiles)} profiles")
    options = HtmlOptions(countname=countname or "", **settings)  # type: ignore[arg-type]
    comparison_html(profiles, list(labels or names), options, output)
    if not any(p.total() for p in profiles):
        raise InputError("no stack counts found: wrote a page that says so", ", ".join(files) or "<stdin>")


SPEC = Command(
    "html",
    run,
    [Argument("files", nargs=-1)],
    [
        Option(
            ("-o", "--output"),
            "output",
            "path",
            "-",
            "Where to write the page.",
            show_default="stdout",
            allow_dash=True,
            callback=checked_output,
        ),
        Option(("--title",), "title", "str", _D["title"], 'Title (default "Flame Graph").'),
        Option(("--subtitle",), "subtitle", "str", _D["subtitle"], "Second line of the title."),
        Option(("--colors",), "colors", "choice", _D["colors"], "Palette.", choices=PALETTES, show_default=True),
        Option(("--hash",), "hash_", "flag", _D["hash"], "flamegraph.pl's name hash: similar names, similar colours."),
        Option(("--cp",), "cp", "flag", help="Consistent palette: read and update palette.map in the current directory."),
        Option(("--palette-file",), "palette_file", "path", None, "Like --cp with another file."),
        Option(
            ("--inverted",),
            "inverted",
            "flag",
            _D["inverted"],
            "Open as an icicle graph (the root at the top; the page toggles it).",
        ),
        Option(("--reverse",), "reverse", "flag", _D["reverse"], "Reverse stacks (leaf first): merged from the hot end."),
        Option(("--base",), "base", "multiple", _D["base"], "Re-root at this frame (outermost occurrence); repeatable."),
        Option(
            ("--sort-by-value",), "sort_by_value", "flag", _D["sort_by_value"], "Siblings widest first (default: name order)."
        ),
        Option(
            ("--delta",),
            "delta",
            "choice",
            _D["delta"],
            choices=DELTA_MODES,
            show_default=True,
            help="Differential input: colour each frame by the change of its inclusive value, or of its own value.",
        ),
        Option(("--negate",), "negate", "flag", _D["negate"], "Differential input: swap red and blue."),
        Option(
            ("--countname",), "countname", "str", None, "What plain counts are (default: the profile's unit, else 'samples')."
        ),
        Option(
            ("--minwidth",),
            "min_percent",
            "str",
            f"{_D['min_percent']:g}%",
            show_default=True,
            callback=_percent,
            help="Leave out frames narrower than this percentage of the total (their value stays in their parents).",
        ),
        Option(("--top",), "top", "int", _D["top"], "Rows of the function table shown at most.", show_default=True),
        Option(
            ("--roots",),
            "roots",
            "choice",
            None,
            choices=("thread", "process", "process,thread"),
            help="What the first frames of each stack are (e.g. recorded with --threads): the page offers a picker of them.",
        ),
        Option(
            ("--calls",),
            "calls_file",
            "path",
            None,
            metavar="FILE",
            allow_dash=True,
            help="Call counts per stack (a trace's calls, as 'flamespace trace --format calls' writes: "
            "x.calls.folded): the table of functions gets a Calls column.",
        ),
        *COLOUR_OPTIONS,
        THREAD_OPTION,
        Option(
            ("--diff",),
            "diff",
            "flag",
            help="Compare two profiles, FILES = A B (or one differential file): overlay, three "
            "panes, white/black and the four-way split, instead of summing them.",
        ),
        Option(
            ("--series",),
            "series",
            "flag",
            help="Compare two or more profiles in order (runs or versions): each frame's "
            "sparkline over all of them, and the --diff views of the first and the last.",
        ),
        Option(
            ("--label",),
            "labels",
            "multiple",
            metavar="NAME",
            help="--diff/--series: the name of each input, in order (default: the file names). Repeatable.",
        ),
        Option(
            ("--flamechart",),
            "flamechart",
            "flag",
            help="A flame chart instead: a lane per thread on one time axis, boxes where they ran (for input that keeps "
            "time: traces, speedscope, Chrome traces; other input is drawn in its order).",
        ),
        *INPUT_OPTIONS,
    ],
)
