"""The interactive SVG flame graph: one self-contained file, written in one streaming pass.

The emitter turns a :class:`~flamespace.render.layout.Layout` (value units) into pixels,
fits the labels with the font's average glyph width and colours the frames
(:class:`Drawing`), then writes it. Colours that stay the same across graphs come from a
palette map the caller passes in (and saves): rendering reads and writes no palette file.
The page script (``flamegraph.js`` beside this module) is read at render time and inlined;
it finds every frame in ``<g id="frames">`` and reads its settings from one JSON object.
"""

from __future__ import annotations

import json
import os
import re
from itertools import chain, compress, repeat

from ..core.units import count_name, format_count, unit_of
from .destination import deliver, tell
from .colouring import (
    ColourBar,
    change_bar,
    change_note,
    change_scale,
    frame_colours,
    ratio_bar,
    ratio_infos,
    ratio_note,
    ratio_scale,
)
from .layout import Layout, layout, strip_annotation
from .options import XPAD, SvgOptions
from .palettes import LIGHT_INK, needs_light_ink
from .xml import comment, escape

SCRIPT = os.path.join(os.path.dirname(__file__), "flamegraph.js")
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, TextIO
    from collections.abc import Iterator, Mapping

    from .._types import Destination, Drawable, Number
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics
_CHUNK = 2000  # frames per write


def svg(
    profile: Drawable,
    options: SvgOptions | None = None,
    output: Destination = None,
    *,
    palette: dict[str, str] | None = None,
    diagnostics: Diagnostics | None = None,
    colour_by: FlameGraph | None = None,
) -> str | None:
    """Draw ``profile`` (FlameGraph, Differential or FlameChart) as an interactive SVG.

    ``colour_by``: a second metric of the same stacks (e.g. instructions, with cycles as
    ``profile``): widths stay ``profile``'s, each frame is coloured by the ratio of the two
    with its callees, against the whole profile's ratio (Gregg's CPI flame graph; see
    :func:`ratio_scale`), and tooltips give both metrics and the ratio.
    ``output``: a path, '-' for stdout, or a text stream; None returns the SVG as a string.
    ``palette``: a name -> colour map whose colours are used and to which new names' colours
    are added (flamegraph.pl's palette.map: :func:`~flamespace.render.palettes.read_palette`
    before, ``write_palette`` after). ``diagnostics`` receives the warnings (e.g. a ``total``
    below the profile's, ignored) and, for an empty profile (drawn as an SVG that says there
    was no valid input), ``empty``.
    """
    options = options or SvgOptions()
    drawn = layout(profile, options.layout_options(), colour_by=colour_by)
    tell(drawn, diagnostics)
    metrics = metric_names(profile, colour_by) if colour_by is not None else None
    return emit(draw(drawn, options, palette=palette, unit=unit_of(profile), metrics=metrics), output)


def metric_names(profile: Drawable, colour_by: FlameGraph) -> tuple[str, str]:
    """What the widths and the colours measure, as the profiles' metadata name them (a perf
    event: ``cycles``), else their units, else "width" and "colour"."""
    names = []
    for graph, fallback in ((profile, "width"), (colour_by, "colour")):
        metadata = getattr(graph, "metadata", None)
        names.append(str(metadata.metric or metadata.unit or fallback) if metadata is not None else fallback)
    return names[0], names[1]


class Drawing:
    """A layout on the page: each frame's x and width in pixels, its label and colour.

    Columns beside the layout's (``layout.columns``): ``xs``, ``widths``, ``labels``,
    ``colours``; ``inks``: whether each label is white (on a dark frame), None for all black;
    ``infos``: what each tooltip says after the name, when a caller writes it (e.g.
    :mod:`.significance`; None: flamegraph.pl's wording). Under the title: ``bar`` (a
    :class:`ColourBar`), ``legend`` ((colour, meaning) swatches), then ``legend_note``, text
    wrapped to the width.
    """

    __slots__ = ("layout", "options", "xs", "widths", "labels", "colours", "inks", "infos", "bar", "legend", "legend_note")

    def __init__(self, drawn: Layout, options: SvgOptions) -> None:
        self.layout = drawn
        self.options = options
        self.xs: list[float] = []
        self.widths: list[float] = []
        self.labels: list[str] = []
        self.colours: list[str] = []
        self.inks: list[bool] | None = None
        self.infos: list[str] | None = None
        self.bar: ColourBar | None = None
        self.legend: list[tuple[str, str]] = []
        self.legend_note = ""


def draw(
    drawn: Layout,
    options: SvgOptions,
    *,
    palette: dict[str, str] | None = None,
    colours: list[str] | None = None,
    unit: str | None = None,
    metrics: tuple[str, str] | None = None,
) -> Drawing:
    """Pixels, labels and colours of a layout's frames (``colours``: given by the caller instead;
    ``palette`` as :func:`svg`; ``unit``: the profile's, for the legend of differential input;
    ``metrics``: the names of the widths' and the colours' metrics of a layout coloured by a
    second metric, default "width" and "colour").

    Frames coloured by change (differential input, a second metric, or ``colours`` from the
    caller) get white labels where white reads better; palette colours keep flamegraph.pl's
    black labels."""
    if not options.countname:
        options = options.replace(countname=count_name(unit))  # the profile's unit names its counts
    picture = Drawing(drawn, options)
    if drawn.empty:
        return picture
    c = drawn.columns
    per_value = (options.width - 2 * XPAD) / drawn.total
    # a chain's frames share one start and one value: each distinct number is scaled once
    xs = {x: XPAD + x * per_value for x in set(c.starts)}
    widths = {value: value * per_value for value in set(c.values)}
    picture.xs = list(map(xs.__getitem__, c.starts))
    picture.widths = list(map(widths.__getitem__, c.values))
    glyph = options.fontsize * options.fontwidth
    names = c.names
    labels = picture.labels = [""] * len(names)
    wide = {width for width in widths.values() if width / glyph >= 3}  # most frames are too narrow for a label
    for i in compress(range(len(names)), map(wide.__contains__, picture.widths)):
        labels[i] = fit_label(names[i], picture.widths[i], options)
    largest = change_scale(drawn) if colours is None and c.deltas is not None else None
    scale = ratio_scale(drawn, metrics) if colours is None and c.seconds is not None else None
    picture.colours = colours if colours is not None else frame_colours(drawn, options, palette, largest, scale)
    if scale is not None:
        picture.infos = ratio_infos(drawn, scale, options)
        if options.legend:
            picture.bar = ratio_bar(scale, options)
            picture.legend_note = ratio_note(scale, options)
    if colours is not None or c.deltas is not None or c.seconds is not None:
        light = {colour: needs_light_ink(colour) for colour in set(picture.colours)}
        picture.inks = list(map(light.__getitem__, picture.colours))
    if largest is not None and options.legend:
        picture.bar = change_bar(largest, options, unit)
        picture.legend_note = change_note(drawn, largest, options, unit)
    return picture


#: A trailing location as Python profilers name frames, `` (file:line)`` or `` (file)``: a file
#: with an extension or a ``<pseudo-file>``, then an optional line. The page script uses it too.
LOCATION = r" \((?:[^()]*\.[A-Za-z0-9_]+|<[^()]*>)(?::[0-9]+)?\)$"
_LOCATION = re.compile(LOCATION)


def fit_label(name: str, width: float, options: SvgOptions) -> str:
    """The label that fits ``width`` pixels: whole, without its location (``drop_locations``),
    cut with ``..``, or empty below 3 characters."""
    chars = int(width / (options.fontsize * options.fontwidth))
    if chars < 3:
        return ""
    name = strip_annotation(name)
    if chars >= len(name):
        return name
    if options.drop_locations and name.endswith(")"):
        name = _LOCATION.sub("", name)
        if chars >= len(name):
            return name
    if options.truncate == "left":
        return ".." + name[len(name) - chars + 2 :]
    return name[: chars - 2] + ".."


def emit(picture: Drawing, output: Destination = None) -> str | None:
    """Write a drawing's SVG to ``output`` (a path, '-', a text stream) or, for None, return it."""
    encoding = picture.options.encoding  # another encoding: characters it lacks become references
    return deliver(lambda stream: write_svg(picture, stream), output, encoding, "xmlcharrefreplace" if encoding else None)


def _num(value: float) -> str:
    """A coordinate: integers without a decimal point, others to 2 places."""
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


class Geometry:
    """Where things go on the page, from flamegraph.pl's paddings (plus the rows of a legend, if any)."""

    def __init__(self, drawn: Drawing) -> None:
        o = drawn.options
        self.legend = legend_rows(drawn)
        self.legend_top = o.fontsize * 3 + (o.fontsize * 2 if o.subtitle else 0)
        legend = len(self.legend) * o.fontsize * LEGEND_ROW + (LEGEND_GAP if self.legend else 0)
        self.pad_top = o.fontsize * 3 + (o.fontsize * 2 if o.subtitle else 0) + legend
        self.pad_bottom = o.fontsize * 2 + 10
        self.width = o.width
        self.height = (
            (drawn.layout.max_depth + 1) * o.height
            + o.fontsize * 3
            + self.pad_bottom
            + (o.fontsize * 2 if o.subtitle else 0)
            + legend
        )
        self.frame = o.height
        self.inverted = o.inverted

    def top(self, depth: int) -> float:
        """The y of a frame's top edge (frames are one pixel shorter than a row)."""
        if self.inverted:
            return self.pad_top + depth * self.frame
        return self.height - self.pad_bottom - (depth + 1) * self.frame + 1


LEGEND_ROW = 1.5  # a legend row's height, in font sizes
LEGEND_GAP = 4  # pixels between the legend and the frames
BAR_WIDTH = 160  # pixels of a legend's colour bar


def legend_rows(drawn: Drawing) -> list[list[ColourBar | tuple[str | None, str]]]:
    """The legend's rows: the colour bar on the first, then the entries ((colour or None, text))
    flowed into rows that fit the width, then the note wrapped to the width."""
    o = drawn.options
    if not drawn.legend and not drawn.legend_note and drawn.bar is None:
        return []
    glyph = o.fontsize * o.fontwidth
    room = o.width - 2 * XPAD
    import textwrap

    wrap = max(int(room / glyph), 20)
    rows: list[list[ColourBar | tuple[str | None, str]]] = []
    bar = drawn.bar
    if bar is not None:
        beside = (len(bar.low) + len(bar.high) + len(bar.meaning)) * glyph + BAR_WIDTH + 12 + 2 * o.fontsize
        if beside <= room:
            rows.append([bar])
        else:  # the meaning on rows of its own
            rows.append([ColourBar(bar.low, bar.high, bar.stops, "")])
            rows += [[(None, line)] for line in textwrap.wrap(bar.meaning, wrap)]
    rows.append([])
    used = 0.0
    for colour, meaning in drawn.legend:
        size = o.fontsize + 6 + len(meaning) * glyph + 2 * o.fontsize
        if rows[-1] and used + size > room:
            rows.append([])
            used = 0.0
        rows[-1].append((colour, meaning))
        used += size
    if drawn.legend_note:
        rows += [[(None, line)] for line in textwrap.wrap(drawn.legend_note, wrap)]
    return [row for row in rows if row]


def _legend(drawn: Drawing, g: Geometry) -> str:
    """The legend's markup: the colour bar, a swatch and its meaning per entry, flowed left to right."""
    o = drawn.options
    glyph = o.fontsize * o.fontwidth
    parts = ['<g id="legend">\n']
    for i, row in enumerate(g.legend):
        top = g.legend_top + i * o.fontsize * LEGEND_ROW
        x = float(XPAD)
        for entry in row:
            if isinstance(entry, ColourBar):
                parts.append(_bar(entry, x, top, o))
                continue
            colour, meaning = entry
            if colour is not None:
                parts.append(
                    f'<rect x="{_num(x)}" y="{_num(top)}" width="{_num(o.fontsize)}" height="{_num(o.fontsize)}" '
                    f'rx="2" ry="2" fill="{escape(colour)}" stroke="rgb(120,120,120)" stroke-width="0.5"/>'
                )
                x += o.fontsize + 6
            parts.append(f'<text x="{_num(x)}" y="{_num(top + o.fontsize - 2)}">{escape(meaning)}</text>\n')
            x += len(meaning) * glyph + 2 * o.fontsize
    parts.append("</g>\n")
    return "".join(parts)


def _bar(bar: ColourBar, x: float, top: float, o: SvgOptions) -> str:
    """A colour bar's markup at (x, top): its gradient, the low end's text, the bar, the high end's, the meaning."""
    glyph = o.fontsize * o.fontwidth
    baseline = _num(top + o.fontsize - 2)
    stops = "".join(f'<stop offset="{100 * offset:g}%" stop-color="{escape(colour)}"/>' for offset, colour in bar.stops)
    parts = [
        f'<defs><linearGradient id="change-scale" x1="0" x2="1" y1="0" y2="0">{stops}</linearGradient></defs>\n',
        f'<text x="{_num(x)}" y="{baseline}">{escape(bar.low)}</text>\n',
    ]
    x += len(bar.low) * glyph + 6
    parts.append(
        f'<rect x="{_num(x)}" y="{_num(top)}" width="{BAR_WIDTH}" height="{_num(o.fontsize)}" '
        'fill="url(#change-scale)" stroke="rgb(120,120,120)" stroke-width="0.5"/>\n'
    )
    x += BAR_WIDTH + 6
    parts.append(f'<text x="{_num(x)}" y="{baseline}">{escape(bar.high)}</text>\n')
    x += len(bar.high) * glyph + 2 * o.fontsize
    if bar.meaning:
        parts.append(f'<text x="{_num(x)}" y="{baseline}">{escape(bar.meaning)}</text>\n')
    return "".join(parts)


def write_svg(drawn: Drawing, out: TextIO) -> None:
    """Write the SVG of a drawing to ``out``, a few thousand frames per write."""
    o = drawn.options
    if drawn.layout.empty:
        _write_empty(o, out)
        return
    geometry = Geometry(drawn)
    out.write(_head(drawn, geometry))
    out.write('<g id="frames">\n')
    for piece in _frames(drawn, geometry):
        out.write(piece)
    out.write("</g>\n</svg>\n")


def _declaration(options: SvgOptions) -> str:
    encoding = f' encoding="{escape(options.encoding)}"' if options.encoding else ""
    return (
        f'<?xml version="1.0"{encoding} standalone="no"?>\n'
        '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n'
    )


def _write_empty(o: SvgOptions, out: TextIO) -> None:
    height = _num(o.fontsize * 5)
    out.write(
        _declaration(o) + f'<svg version="1.1" width="{o.width}" height="{height}" viewBox="0 0 {o.width} {height}" '
        'xmlns="http://www.w3.org/2000/svg">\n'
        f'<text x="{o.width // 2}" y="{_num(o.fontsize * 2)}" text-anchor="middle" '
        f'style="font-family:{escape(o.fonttype)}; font-size:{_num(o.fontsize)}px">'
        f"{escape(o.empty_text)}</text>\n</svg>\n"
    )


def _config(drawn: Drawing, geometry: Geometry) -> str:
    o = drawn.options
    settings = {
        "xpad": XPAD,
        "width": o.width,
        "fluid": o.fluid,
        "fontsize": o.fontsize,
        "fontwidth": o.fontwidth,
        "frameheight": o.height,
        "y0": geometry.top(0),
        "inverted": o.inverted,
        "nametype": o.nametype,
        "searchcolor": o.search_color,
        "truncate": o.truncate,
        "location": LOCATION if o.drop_locations else None,
    }
    settings = {k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in settings.items()}
    text = json.dumps(settings, ensure_ascii=True)
    # safe inside CDATA and inside a <script>: no "]]>" and no tag can start
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _head(drawn: Drawing, g: Geometry) -> str:
    o = drawn.options
    width, height = o.width, _num(g.height)
    size = _num(o.fontsize)
    start, stop = drawn.options.background()
    if o.fluid:
        svg_size = f'width="100%" height="{height}"'
    else:
        svg_size = f'width="{width}" height="{height}" viewBox="0 0 {width} {height}"'
    light = f"#frames text.light {{ fill:{LIGHT_INK}; }}\n" if drawn.inks is not None and any(drawn.inks) else ""
    stroke = "" if o.stroke_color == "none" else f"\n#frames rect {{ stroke:{escape(o.stroke_color)}; stroke-width:0.5; }}"
    notes = f"<!-- NOTES: {comment(o.notes)} -->\n" if o.notes else ""
    bottom_text = _num(g.height - g.pad_bottom / 2)
    top_text = _num(o.fontsize * 2)
    with open(SCRIPT, encoding="utf-8") as stream:
        script = stream.read()
    parts = [
        _declaration(o),
        f'<svg version="1.1" {svg_size} onload="flamespaceInit(evt)" '
        'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">\n',
        "<!-- Flame graph drawn by flamespace: hover for details, click to zoom, Ctrl-F or F3 to search. -->\n",
        notes,
        '<defs>\n<linearGradient id="background" y1="0" y2="1" x1="0" x2="0">\n'
        f'<stop stop-color="{escape(start)}" offset="5%"/>\n<stop stop-color="{escape(stop)}" offset="95%"/>\n'
        "</linearGradient>\n</defs>\n",
        '<style type="text/css">\n'
        f"text {{ font-family:{escape(o.fonttype)}; font-size:{size}px; fill:rgb(0,0,0); }}\n"
        f"{light}"
        "#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
        "#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n"
        "#subtitle { text-anchor:middle; fill:rgb(160,160,160); }\n"
        f"#title {{ text-anchor:middle; font-size:{_num(o.fontsize + 5)}px; }}\n"
        "#unzoom { cursor:pointer; }\n"
        "#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
        ".hide { display:none; }\n.parent { opacity:0.5; }"
        f"{stroke}\n</style>\n",
        f'<script type="text/ecmascript"><![CDATA[\nvar flamespaceConfig = {_config(drawn, g)};\n{script}]]></script>\n',
        f'<rect id="background" x="0" y="0" width="{width}" height="{height}" fill="url(#background)"/>\n',
        f'<text id="title" x="{width // 2}" y="{top_text}">{escape(o.resolved_title())}</text>\n',
    ]
    if o.subtitle:
        parts.append(f'<text id="subtitle" x="{width // 2}" y="{_num(o.fontsize * 4)}">{escape(o.subtitle)}</text>\n')
    if g.legend:
        parts.append(_legend(drawn, g))
    parts += [
        f'<text id="details" x="{XPAD}" y="{bottom_text}"> </text>\n',
        f'<text id="unzoom" class="hide" x="{XPAD}" y="{top_text}">Reset Zoom</text>\n',
        f'<text id="search" x="{width - XPAD - 100}" y="{top_text}">Search</text>\n',
        f'<text id="ignorecase" x="{width - XPAD - 16}" y="{top_text}">ic</text>\n',
        f'<text id="matched" x="{width - XPAD - 100}" y="{bottom_text}"> </text>\n',
    ]
    return "".join(parts)


def _frames(drawn: Drawing, g: Geometry) -> Iterator[str]:
    """The frames' elements, ``_CHUNK`` frames per string: one ``<g>`` (or ``<a>`` with a
    --nameattr href) per frame holding its title, rect and label.

    This is most of the time an SVG takes when many frames are drawn, so no Python code
    runs per frame: each frame is a row of pieces looked up column by column (``map`` over
    memos: names, values, positions and depths repeat, and each is formatted once, with
    the fixed markup between them folded in) and joined in one call.
    """
    o = drawn.options
    c = drawn.layout.columns
    total = drawn.layout.total
    countname = escape(o.countname)
    factor = o.factor
    nameattr = o.nameattr
    depths = range(drawn.layout.max_depth + 1)
    tops = [f'{_num(g.top(depth))}" width="' for depth in depths]
    text_ys = [f'{_num(3 + g.top(depth) + (g.frame - 1) / 2)}">' for depth in depths]
    text_head = f'" height="{_num(g.frame - 1)}" rx="2" ry="2"/><text '
    text_heads = (text_head + 'x="', text_head + 'class="light" x="')  # black label, white label
    title_head = "" if nameattr else "<g><title>"  # with --nameattr the group's opening is a column
    label_tail = "</text>" if nameattr else "</text></g>\n"
    titles = Memo(lambda name: title_head + escape(strip_annotation(name)))
    labels = Memo(lambda label: escape(label) + label_tail)
    x1s = Memo(lambda x: f'</title><rect x="{round(x, 1):.1f}" y="')
    widths = Memo(lambda x_width: f'{round(x_width[0] + x_width[1], 1) - round(x_width[0], 1):.1f}" fill="')
    text_xs = Memo(lambda x: f'{x + 3:.2f}" y="')

    def count(value: Number) -> str:
        return f"{format_count(value * factor if factor != 1 else value)} {countname}"

    amounts = Memo(lambda value: f"{count(value)}, {100 * value / total:.2f}%")
    if c.deltas is None:
        infos = Memo(lambda value: f" ({amounts[value]})")
    else:
        sign = -1 if o.negate else 1
        infos = Memo(lambda vd: f" ({amounts[vd[0]]}; {'+' if vd[1] * sign > 0 else ''}{100 * vd[1] * sign / total:.2f}%)")
    for start in range(0, len(c.names), _CHUNK):
        part = slice(start, start + _CHUNK)
        names = c.names[part]
        xs = drawn.xs[part]
        keys = c.values[part] if c.deltas is None else list(zip(c.values[part], c.deltas[part]))
        title_column = list(map(titles.__getitem__, names))
        info_column = list(map(infos.__getitem__, keys)) if drawn.infos is None else drawn.infos[part]
        if start == 0 and drawn.infos is None:  # the root
            info_column[0] = f" ({count(c.values[0])}, 100%)"
        columns = [
            title_column,
            info_column,
            map(x1s.__getitem__, xs),
            map(tops.__getitem__, c.depths[part]),
            map(widths.__getitem__, zip(xs, drawn.widths[part])),
            drawn.colours[part],
            repeat(text_heads[0]) if drawn.inks is None else map(text_heads.__getitem__, drawn.inks[part]),
            map(text_xs.__getitem__, xs),
            map(text_ys.__getitem__, c.depths[part]),
            map(labels.__getitem__, drawn.labels[part]),
        ]
        if nameattr:
            heads, tails = _groups(names, title_column, info_column, nameattr)
            columns = [heads, *columns, tails]
        yield "".join(chain.from_iterable(zip(*columns)))


class Memo(dict):
    """``function(key)`` remembered per key: in a flame graph, names, values and places repeat."""

    def __init__(self, function: Callable[[Any], str]) -> None:
        super().__init__()
        self.function = function

    def __missing__(self, key: Any) -> str:
        value = self[key] = self.function(key)
        return value


def _groups(
    names: list[str], titles: list[str], infos: list[str], nameattr: Mapping[str, Mapping[str, str]]
) -> tuple[list[str], list[str]]:
    """The opening of each frame's group (``<g>`` or ``<a>``, then ``<title>``) and its closing;
    a --nameattr ``title`` replaces the frame's tooltip in ``titles`` and ``infos``."""
    heads, tails = [], []
    for i, name in enumerate(names):
        attributes = nameattr.get(name)
        opening, closing = "<g>", "</g>\n"
        if attributes:
            opening, closing, title = _custom_group(attributes)
            if title is not None:
                titles[i], infos[i] = title, ""
        heads.append(f"{opening}<title>")
        tails.append(closing)
    return heads, tails


def _custom_group(attributes: Mapping[str, str]) -> tuple:
    """Opening and closing tags for a frame with --nameattr attributes, and its ``title`` (escaped) if given."""
    attributes = dict(attributes)
    title = attributes.pop("title", None)
    if title is not None:
        title = escape(title)
    href = attributes.pop("href", None)
    target = attributes.pop("target", "_top")
    rest = " ".join(f'{name}="{escape(value)}"' for name, value in attributes.items())
    if href is not None:
        opening = f'<a xlink:href="{escape(href)}" target="{escape(target)}"{" " + rest if rest else ""}>'
        return opening, "</a>\n", title
    return f"<g {rest}>" if rest else "<g>", "</g>\n", title


__all__ = ["Drawing", "SvgOptions", "draw", "emit", "svg", "write_svg"]
