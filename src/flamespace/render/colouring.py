"""The colours of frames and what a picture's key says of them: by name from a palette, by change
(differential input: white for none, red for more, blue for less) or by the ratio of a second
metric. The SVG emitter, the HTML viewer, the comparison page and the significance pictures all
colour by these rules, so a frame reads the same on each of them; palettes.py holds the colour
maps themselves.
"""

from __future__ import annotations

import math

from ..core import units
from ..core.units import count_name, format_count
from ..errors import ArgumentError
from .layout import Layout
from .options import SvgOptions
from .palettes import SEPARATOR_COLOURS, Colourer, diff_colour, diff_stops

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .._types import Number


class ColourBar:
    """A colour scale in a legend: ``low`` text, a bar of gradient ``stops`` ((offset 0..1,
    colour), as SVG's), ``high`` text, then ``meaning`` (what the colours say)."""

    __slots__ = ("low", "high", "stops", "meaning")

    def __init__(self, low: str, high: str, stops: list[tuple[float, str]], meaning: str) -> None:
        self.low, self.high, self.stops, self.meaning = low, high, stops, meaning


def frame_colours(
    drawn: Layout,
    options: SvgOptions,
    palette: dict[str, str] | None = None,
    largest: float | None = None,
    scale: RatioScale | None = None,
) -> list[str]:
    """Each frame's colour: by name from the palette, or for differential input by its change
    (white for none, red for more, blue for less, full colour at ``largest`` and beyond;
    default :func:`change_scale`), or for a layout coloured by a second metric by its ratio
    (the same colours: red where the ratio is above the whole profile's, blue below, full at
    ``scale``'s spread; default :func:`ratio_scale`)."""
    c = drawn.columns
    deltas = c.deltas
    if c.seconds is not None:
        return ratio_colours(drawn, scale or ratio_scale(drawn), options.negate)
    if deltas is None:
        return Colourer(options, palette).many(c.names)
    if largest is None:
        largest = change_scale(drawn)
    negate = options.negate
    separators = SEPARATOR_COLOURS
    return [
        separators[n] if n in separators and depth else diff_colour(max(-largest, min(delta, largest)), largest, negate)
        for n, depth, delta in zip(c.names, c.depths, deltas)
    ]


def own_changes(drawn: Layout) -> list[Number]:
    """Each frame's change of its own value (not its callees'), from a differential layout.

    With ``delta="self"`` the layout's deltas are these; with "inclusive" a frame's own
    change is its change less its drawn children's (frames come parents first, so each
    frame's parent is the last frame seen one level up). A child too narrow to draw counts
    in its parent's own change, as its width counts in its parent's.
    """
    c = drawn.columns
    deltas = c.deltas or []
    if drawn.options.delta == "self":
        return list(deltas)
    own = list(deltas)
    parents: list[int] = []  # the index of the last frame at each depth
    for i, depth in enumerate(c.depths):
        del parents[depth:]
        if depth:
            own[parents[depth - 1]] -= deltas[i]
        parents.append(i)
    return own


def change_scale(drawn: Layout) -> float:
    """The change at which a differential graph's colours are full: the largest change of any
    one frame's own value, the root (``all``) left out; larger changes are drawn full too.

    flamegraph.pl colours each frame by the change of its own value and saturates at the
    largest change of one input stack, which is the same number. It used to be the largest
    change of any frame, but with inclusive changes that is the root's (the change of the
    total) or that of the chain under it (``main``, ``<module>``: the same total), so one
    regression spread over many functions left every function pale. A frame's own change
    says where the time went; callers that hold more than the largest own change (they
    sum their callees') are drawn full, so the path down to a change stands out. The root's
    own change is left out as well: it has own value only if empty stacks were recorded.
    None of this is a robust statistic: one noisy frame sets the scale; the legend says
    what full colour stands for, and tooltips give every frame's change.
    """
    depths = drawn.columns.depths
    largest = max((abs(change) for change, depth in zip(own_changes(drawn), depths) if depth), default=0)
    if not largest:  # no frame changed by itself (only the root did)
        largest = max((abs(d) for d, depth in zip(drawn.columns.deltas or (), depths) if depth), default=0)
    return largest or 1


def change_words(unit: str | None) -> tuple[str, str]:
    """("slower", "faster") for times, ("more memory", "less memory") for bytes, else ("more", "less")."""
    if unit in units.TIME_UNITS:
        return "slower", "faster"
    if unit in units.BYTE_UNITS:
        return "more memory", "less memory"
    return "more", "less"


def amount(value: float, unit: str | None, options: SvgOptions, signed: bool = False) -> str:
    """A value for people, as in the legend: a time or size in its best unit (``12.3 ms``),
    else a count of ``countname`` (times ``factor``) as tooltips give it; a minus sign, not a hyphen."""
    if options.factor == 1 and (unit in units.TIME_UNITS or unit in units.BYTE_UNITS):
        text = units.human(abs(value), unit)
    else:
        text = f"{format_count(abs(value) * options.factor)} {options.countname or count_name(unit)}"
    sign = "\u2212" if value < 0 else "+" if signed and value > 0 else ""
    return sign + text


def change_bar(largest: float, options: SvgOptions, unit: str | None) -> ColourBar:
    """The legend of a differential graph: the colour bar from −``largest`` to +``largest`` and what it means."""
    more, less = change_words(unit)
    side = "first" if options.negate else "second"
    meaning = (
        f"red: more in the {side} profile{'' if more == 'more' else f' ({more})'}, "
        f"blue: less{'' if less == 'less' else f' ({less})'}, white: no change"
    )
    return ColourBar(
        amount(-largest, unit, options, signed=True),
        amount(largest, unit, options, signed=True),
        diff_stops(options.negate),
        meaning,
    )


def change_note(drawn: Layout, largest: float, options: SvgOptions, unit: str | None) -> str:
    """The line under a differential graph's colour bar: what a frame's colour measures (full at ``largest``)."""
    what = "time" if unit in units.TIME_UNITS else "memory" if unit in units.BYTE_UNITS else options.countname or count_name(unit)
    full = f"full from \u00b1{amount(largest, unit, options)} ({units.plain(100 * largest / drawn.total)}% of the total)"
    if drawn.options.delta == "self":
        return f"Colour: each frame's change in its own {what} (not its callees'), {full}: the largest."
    return f"Colour: each frame's change with its callees', {full}: the largest change of one frame's own {what}."


# -- colour by a second metric (Gregg's CPI flame graph) --------------------------------------------
#: Frames narrower than this share of the total do not set the colour scale: few samples, noisy ratios.
RATIO_SCALE_SHARE = 0.01
#: Ratios of a whole profile below this are written per a power of 1,000 (:func:`ratio_per`).
RATIO_SMALL = 0.01
#: The spread at which colours are full when no frame's ratio differs from the whole profile's.
RATIO_DEFAULT_SPREAD = 2.0


class RatioScale:
    """The colour scale of a layout coloured by a second metric: ``overall`` (the second
    metric per unit of the first over the whole profile: white), ``spread`` (a factor > 1:
    ratios ``overall * spread`` and above are full red, ``overall / spread`` and below full
    blue), ``names`` (the widths' and the colours' metrics)."""

    __slots__ = ("overall", "spread", "names")

    def __init__(self, overall: float, spread: float, names: tuple[str, str]) -> None:
        self.overall, self.spread, self.names = overall, spread, names


def ratio_scale(drawn: Layout, names: tuple[str, str] | None = None) -> RatioScale:
    """The scale of a layout coloured by a second metric: white at the whole profile's ratio,
    the same colours either way on a log scale (twice the ratio as red as half of it is blue),
    full at the frame whose ratio is farthest from the whole's, among frames of at least
    :data:`RATIO_SCALE_SHARE` of the total (below it a frame holds a few samples of each
    metric, whose ratio is mostly noise; such frames are drawn full beyond the scale's ends,
    as are frames with none of the second metric). As :func:`change_scale`, one frame sets
    the scale: the legend says where colours are full, and tooltips give every ratio."""
    ratios = drawn.ratios()
    overall = ratios[0] if ratios else math.nan
    if not overall > 0 or math.isinf(overall):
        raise ArgumentError("cannot colour by a second metric that is 0 over the drawn frames")
    least = RATIO_SCALE_SHARE * drawn.total
    c = drawn.columns
    largest = max(
        (abs(math.log(r / overall)) for r, value, depth in zip(ratios, c.values, c.depths) if depth and value >= least and r > 0),
        default=0.0,
    )
    spread = math.exp(largest) if largest > 0 else RATIO_DEFAULT_SPREAD
    return RatioScale(overall, spread, names or ("width", "colour"))


def ratio_colours(drawn: Layout, scale: RatioScale, negate: bool = False) -> list[str]:
    """Each frame's colour by its ratio, :func:`~flamespace.render.palettes.diff_colour` of its
    log ratio to the whole profile's (red above, blue below, full at the scale's spread)."""
    largest = math.log(scale.spread)
    overall = scale.overall
    colours = []
    for ratio in drawn.ratios():
        if ratio > 0:
            level = max(-largest, min(math.log(ratio / overall), largest))
        else:  # none of the second metric (nan: no width, never laid out)
            level = -largest if ratio == 0 else 0
        colours.append(diff_colour(level, largest, negate))
    return colours


def ratio_label(scale: RatioScale, options: SvgOptions) -> str:
    """The ratio as the legend writes it: ``instructions/cycles`` (``cycles/instructions`` with
    ``colour_ratio`` "width/colour"; ``page-faults per 1,000,000 task-clock`` when written per
    :func:`ratio_per`)."""
    width, colour = scale.names
    top, bottom = (colour, width) if options.colour_ratio == "colour/width" else (width, colour)
    per = ratio_per(scale, options)
    return f"{top}/{bottom}" if per == 1 else f"{top} per {per:,} {bottom}"


def ratio_per(scale: RatioScale, options: SvgOptions) -> int:
    """How much of the ratio's denominator ratios are written per: 1, or the power of 1,000 that
    brings a whole profile's ratio below 0.01 up to 1..1,000 (page faults per 1,000,000 ns, not 9.34e-05)."""
    whole = shown_ratio(scale.overall, options)
    if not 0 < whole < RATIO_SMALL:
        return 1
    return 1000 ** math.ceil(-math.log10(whole) / 3 - 1e-9)


def shown_ratio(ratio: float, options: SvgOptions, per: float = 1) -> float:
    """A ratio of the second metric to the first as ``colour_ratio`` writes it (inverted for
    "width/colour"), per ``per`` of its denominator."""
    if options.colour_ratio == "colour/width":
        return ratio * per
    return per / ratio if ratio else math.inf


def ratio_bar(scale: RatioScale, options: SvgOptions) -> ColourBar:
    """The legend of a layout coloured by a second metric: the ratio at the bar's ends, in plain
    numbers, and what red and blue mean."""
    low, high = scale.overall / scale.spread, scale.overall * scale.spread
    label = ratio_label(scale, options)
    red, blue = ("blue", "red") if options.negate else ("red", "blue")
    if options.colour_ratio != "colour/width":  # the written ratio falls where the colour metric rises
        red, blue = blue, red
    per = ratio_per(scale, options)
    whole = units.plain(shown_ratio(scale.overall, options, per))
    meaning = f"{label}: {red} above the whole profile's {whole}, {blue} below, white equal"
    return ColourBar(
        units.plain(shown_ratio(low, options, per)),
        units.plain(shown_ratio(high, options, per)),
        diff_stops(options.negate),
        meaning,
    )


def ratio_note(scale: RatioScale, options: SvgOptions) -> str:
    """The line under the ratio's colour bar: what widths and colours measure and where colours are full."""
    width, colour = scale.names
    spread = units.plain(scale.spread)
    return (
        f"Widths: {width}. Colour: each frame's {ratio_label(scale, options)} with its callees, full at {spread}\u00d7 "
        f"or 1/{spread} of the whole profile's (the farthest of the frames of at least "
        f"{units.plain(100 * RATIO_SCALE_SHARE)}% of the total)."
    )


def ratio_infos(drawn: Layout, scale: RatioScale, options: SvgOptions) -> list[str]:
    """Each frame's tooltip after its name: its value and share, its second metric and the ratio
    (and how it compares with the whole profile's)."""
    c = drawn.columns
    total = drawn.total
    width, colour = scale.names
    label = ratio_label(scale, options)
    factor = options.factor
    per = ratio_per(scale, options)
    whole = shown_ratio(scale.overall, options, per)
    infos = []
    for i, (value, second, ratio) in enumerate(zip(c.values, c.seconds or (), drawn.ratios())):
        share = "100%" if not i else f"{100 * value / total:.2f}%"
        shown = shown_ratio(ratio, options, per)
        relative = units.plain(shown / whole) if ratio == ratio else "n/a"
        infos.append(
            f" ({width} {format_count(value * factor)}, {share}; {colour} {format_count(second)}; "
            f"{label} {units.plain(shown)}, {relative}\u00d7 the whole's)"
        )
    return infos
