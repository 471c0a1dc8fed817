"""The HTML flame graph viewer: one self-contained page, drawn on a canvas by our own script.

The emitter turns a :class:`~flamespace.render.layout.Layout` (value units) into a payload
(a string table of frame names and colours, and one typed column per field: name index,
depth, start, value, self, change, colour index), embeds it as JSON in a ``<script
type="application/json">`` element beside the page script (``js/viewer.mjs`` and the modules it
imports, joined into one by :mod:`.bundle`) and stylesheet (``viewer.css``), both inlined, and writes one file that makes no network
request. Pixels, label fitting, zoom, search and the table of functions are the page
script's: the payload stays in value units, so a zoomed view is as exact as the whole.

Why a payload and a canvas, not SVG elements: an SVG of 70,000 frames takes seconds to load
and to redraw per zoom (docs/performance.md); a canvas draws only the frames wider than a
pixel in the view (narrower neighbours merged into one "(small)" block per row), so a draw
costs what is visible, not what was recorded. The frames narrower than ``min_percent`` are not
laid out; the payload's ``narrow`` block keeps them (name, depth, value) for the search alone,
so the matched share counts them and is exact (past :data:`SEARCH_FRAMES` of them, the page holds
the widest and gives the range the share is in).

Columns are base64 of little-endian typed arrays: the narrowest of ``u1``/``u2``/``u4``
(``i1``/``i2``/``i4`` for signed) that holds every value when all are integers, else ``f8``.
:func:`read_payload` decodes a page's payload back (tests check that the page holds exactly
the layout's data).
"""

from __future__ import annotations

import base64
import json
import os
import re
import sys
from array import array

from .._record import defaults, record
from ..core import units
from ..errors import ArgumentError
from .destination import deliver_text, tell
from .layout import Columns, Layout, layout, strip_annotation
from .options import Appearance, LayoutOptions, SvgOptions, _choice, check_non_negative, check_positive

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable
    from collections.abc import Sequence

    from .._types import Destination, Drawable, Number
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

HERE = os.path.dirname(__file__)
#: The page script's entry module (render/js/, joined into one inline script by render/bundle.py).
SCRIPT = "viewer.mjs"
STYLE = os.path.join(HERE, "viewer.css")
#: The payload's format; the page script refuses another.
PAYLOAD_VERSION = 1
#: What the frames at the first levels under the root can stand for (HtmlOptions.roots): the page's picker.
ROOT_KINDS = ("process", "thread")
#: A frame name with a line number, which the table by function leaves out (core.ranking.GROUPINGS).
_LINE_NUMBER = re.compile(r":\d+\)?$")


@record
class HtmlOptions(Appearance):
    """What the HTML viewer shows: :class:`~flamespace.render.options.Appearance`'s fields (the
    SVG's meaning and defaults; ``inverted`` opens the page as an icicle graph, which the page
    toggles; times and sizes are shown in their human units rather than after ``countname``),
    and the page's own. ``min_percent``: frames narrower than this percentage of the total are
    not laid out (their value still counts in their parents): at the default, a frame left out
    stays narrower than a pixel on a 1,180-pixel canvas until the view is zoomed in 85 times,
    and the page holds at most 100,000 frames a row. ``top``: rows of the function table the
    page shows at most. ``roots``: what the first levels of frames under the root are, from the
    outermost: each one of :data:`ROOT_KINDS`, e.g. ``("thread",)`` for a recording with
    ``--threads`` or ``("process", "thread")``; the page offers a picker of them (one thread or
    process at a time).
    """

    min_percent: float = 0.001
    top: int = 500
    roots: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        Appearance.__post_init__(self)
        if isinstance(self.roots, str):
            object.__setattr__(self, "roots", (self.roots,))
        for kind in self.roots:
            _choice("roots", kind, ROOT_KINDS)
        check_non_negative("min_percent", self.min_percent)
        check_positive("top", self.top)

    def layout_options(self) -> LayoutOptions:
        return LayoutOptions(
            reverse=self.reverse, base=self.base, sort_by_value=self.sort_by_value, delta=self.delta, min_percent=self.min_percent
        )

    def svg_options(self) -> SvgOptions:
        """The SVG's options for what both draw alike: palette colours, the change scale's legend."""
        return SvgOptions(**self.appearance())

    def resolved_title(self) -> str:
        return self.title or "Flame Graph"


def html(
    profile: Drawable,
    options: HtmlOptions | None = None,
    output: Destination = None,
    *,
    palette: dict[str, str] | None = None,
    diagnostics: Diagnostics | None = None,
    colour_by: FlameGraph | None = None,
    calls: FlameGraph | None = None,
) -> str | None:
    """Write ``profile`` (FlameGraph, Differential or FlameChart, aggregated) as the HTML viewer.

    ``output``: a path, '-' for stdout, or a text stream; None returns the page as a string.
    ``palette``, ``diagnostics`` and ``colour_by`` (a second metric that colours the frames)
    as :func:`~flamespace.render.svg.svg`'s. ``calls``: call
    counts per stack where they are known (a trace's ``calls``): the table of functions gets a
    Calls column (every call of the function, recursive ones too).
    """
    options = options or HtmlOptions()
    laid, narrow = laid_out(profile, options, colour_by)
    tell(laid, diagnostics)
    metrics = None
    if colour_by is not None:
        from .svg import metric_names

        metrics = metric_names(profile, colour_by)
    page = render_page(payload(laid, profile, options, palette=palette, metrics=metrics, calls=calls, narrow=narrow))
    return deliver_text(page, output)


#: At most this many frames left out of the layout go into a page for its search (about 6 bytes
#: each): more, and the page gives the matched share as a range (what they could add).
SEARCH_FRAMES = 1_000_000


class Narrow:
    """The frames a page's layout leaves out (narrower than its least value), for its search alone:
    the matched share counts them, so it is exact (the drawing and the table need them not). Per
    laid-out frame, in its order, the count of the left-out frames it owns (its nearest laid-out
    ancestor), then those frames in depth-first order, parents first: their names, depths below
    their owner (1: a child of it) and values with their callees'. ``complete``: every left-out
    frame is here (else the widest whole subtrees that fit :data:`SEARCH_FRAMES`); ``actual``: the
    root's value without a larger --total (what the frames under it add up to)."""

    __slots__ = ("actual", "complete", "counts", "depths", "names", "values")

    def __init__(self, laid_count: int, actual: Number) -> None:
        self.counts = [0] * laid_count
        self.names: list[str] = []
        self.depths: list[int] = []
        self.values: list[Number] = []
        self.complete = True
        self.actual = actual


def laid_out(profile: Drawable, options: HtmlOptions, colour_by: FlameGraph | None = None) -> tuple[Layout, Narrow | None]:
    """The page's layout and the frames it leaves out (:class:`Narrow`; None when it leaves none).

    Every frame is laid out once, then split at the least value: a child is never wider than
    its parent, so the frames kept are those the layout at ``options`` keeps, at the same places
    (left-heavy order puts the narrow ones after them), for the cost of one layout."""
    wanted = options.layout_options()
    if not wanted.min_percent:
        return layout(profile, wanted, colour_by=colour_by), None
    full = layout(profile, wanted.replace(min_percent=0), colour_by=colour_by)
    least = wanted.least_value(full.total)
    c = full.columns
    keep = [value >= least for value in c.values]
    if all(keep):
        full.options = wanted
        return full, None
    kept = Columns()
    for field in Columns.__slots__:
        column_ = getattr(c, field)
        if column_ is not None:
            setattr(kept, field, [item for item, wanted_ in zip(column_, keep) if wanted_])
    laid = Layout(kept, full.total, max(kept.depths), full.differential, wanted, full.warnings, full.actual)
    return laid, _narrow_frames(c, keep, len(kept.names), full.actual)


def _narrow_frames(c: Columns, keep: list[bool], laid_count: int, actual: Number) -> Narrow:
    """The left-out frames of a whole layout's columns (``keep``: which are laid out), grouped by
    owner: all of them, or the widest whole subtrees of them that fit :data:`SEARCH_FRAMES`."""
    narrow = Narrow(laid_count, actual)
    budget = SEARCH_FRAMES
    owners: list[int] = []  # per left-out frame: its owner's index among the laid-out frames
    rows: list[int] = []
    owner_at: list[int] = []  # on the path to the current frame: each frame's owner (itself if laid out)
    laid_index = -1
    for i, (depth, kept) in enumerate(zip(c.depths, keep)):
        del owner_at[depth:]
        if kept:
            laid_index += 1
            owner_at.append(laid_index)
        else:
            owners.append(owner_at[-1])
            rows.append(i)
            owner_at.append(owner_at[-1])
    laid_depths = [depth for depth, kept in zip(c.depths, keep) if kept]
    order = sorted(range(len(rows)), key=owners.__getitem__)  # stable: depth-first order within an owner
    if len(order) > budget:
        order = _widest_subtrees(
            order,
            [c.depths[row] - laid_depths[owner] for row, owner in zip(rows, owners)],
            [c.values[row] for row in rows],
            budget,
        )
        narrow.complete = False
    for k in order:
        owner, row = owners[k], rows[k]
        narrow.counts[owner] += 1
        narrow.names.append(c.names[row])
        narrow.depths.append(c.depths[row] - laid_depths[owner])
        narrow.values.append(c.values[row])
    return narrow


def _widest_subtrees(order: list[int], depths: list[int], values: list[Number], budget: int) -> list[int]:
    """``order`` (left-out frames, depth-first by owner) cut to whole subtrees (a frame one below its
    owner and its callees), the widest first while they fit ``budget`` frames, kept in order."""
    starts = [at for at, k in enumerate(order) if depths[k] == 1] + [len(order)]
    spans = sorted(range(len(starts) - 1), key=lambda n: -values[order[starts[n]]])
    chosen, used = [], 0
    for n in spans:
        size = starts[n + 1] - starts[n]
        if used + size <= budget:
            chosen.append(n)
            used += size
    chosen.sort()
    return [k for n in chosen for k in order[starts[n] : starts[n + 1]]]


def payload(
    laid: Layout,
    profile: Drawable,
    options: HtmlOptions,
    *,
    palette: dict[str, str] | None = None,
    metrics: tuple[str, str] | None = None,
    calls: FlameGraph | None = None,
    narrow: Narrow | None = None,
) -> dict[str, Any]:
    """The page's data (JSON-ready): settings, string tables, frame columns, function table, legend.

    A layout coloured by a second metric adds the column ``second`` (each frame's second metric
    with its callees) and ``ratio``: the scale (as :func:`~flamespace.render.colouring.ratio_scale`),
    the metrics' names and ``ramp``, :func:`~flamespace.render.palettes.diff_ramp` as indices
    into the colour table, from which the page colours frames by their ratio."""
    from ..core.ranking import GROUPINGS

    from .colouring import (
        change_bar,
        change_note,
        change_scale,
        frame_colours,
        ratio_bar,
        ratio_label,
        ratio_note,
        ratio_per,
        ratio_scale,
    )
    from .svg import LOCATION
    from .palettes import SEPARATOR_COLOURS, diff_ramp, needs_light_ink

    unit = units.unit_of(profile)
    svg_options = options.svg_options()
    c = laid.columns
    differential = c.deltas is not None
    coloured = c.seconds is not None and not laid.empty
    names = _Table()
    shown = {name: strip_annotation(name) for name in set(c.names)}
    frame_names = [names.index(shown[name]) for name in c.names]
    legend: dict[str, Any] | None = None
    ratio = None
    colours = _Table()
    largest: float | None = None
    if laid.empty:
        colour_of: list[str] = []
    else:
        largest = change_scale(laid) if differential else None
        scale = ratio_scale(laid, metrics) if coloured else None
        colour_of = frame_colours(laid, svg_options, palette, largest, scale)
        if scale is not None:
            bar = ratio_bar(scale, svg_options)
            legend = {
                "low": bar.low,
                "high": bar.high,
                "stops": bar.stops,
                "meaning": bar.meaning,
                "note": ratio_note(scale, svg_options),
            }
            ratio = {
                "overall": scale.overall,
                "spread": scale.spread,
                "actual": laid.actual,
                "width": scale.names[0],
                "colour": scale.names[1],
                "label": ratio_label(scale, svg_options),
                "inverse": svg_options.colour_ratio != "colour/width",
                "per": ratio_per(scale, svg_options),
                "ramp": [colours.index(colour) for colour in diff_ramp(options.negate)],
            }
        if largest is not None:
            bar = change_bar(largest, svg_options, unit)
            legend = {
                "low": bar.low,
                "high": bar.high,
                "stops": bar.stops,
                "meaning": bar.meaning,
                "note": change_note(laid, largest, svg_options, unit),
            }
        elif scale is None and palette is None and not svg_options.random:
            from .palettes import key

            legend = key(svg_options.colors)  # what the palette's colours mean (or that they only tell names apart)
    frame_colour = [colours.index(colour) for colour in colour_of]
    change = None
    if largest is not None:  # the page colours its transformed trees by their changes with these (as frame_colours)
        present = set(names.items)
        change = {
            "largest": largest,
            "ramp": [colours.index(colour) for colour in diff_ramp(options.negate)],
            "fixed": {
                str(names.index(name)): colours.index(colour) for name, colour in SEPARATOR_COLOURS.items() if name in present
            },
        }
    inks = [1 if (differential or coloured) and needs_light_ink(colour) else 0 for colour in colours.items]
    frames: dict[str, Any] = {
        "count": len(c.names),
        "name": column(frame_names),
        "depth": column(c.depths),
        "start": column(c.starts),
        "value": column(c.values),
        "self": column(c.selfs),
        "colour": column(frame_colour),
    }
    if c.deltas is not None:
        frames["delta"] = column(c.deltas, signed=True)
    if coloured:
        frames["second"] = column(c.seconds or [])
    narrow_frames = None
    if narrow is not None:  # for the search's matched share: names, depths below their owner, values
        narrow_frames = {
            "complete": narrow.complete,
            "actual": narrow.actual,
            "count": column(narrow.counts),
            "name": column([names.index(strip_annotation(name)) for name in narrow.names]),
            "depth": column(narrow.depths),
            "value": column(narrow.values),
        }
    line_table = function_table(profile, "line")
    functions = {"line": _table_columns(line_table, names.index, differential, calls, "line")}
    if any(_LINE_NUMBER.search(row[0]) for row in line_table):  # else the table by function is the same
        functions["function"] = _table_columns(function_table(profile, "function"), names.index, differential, calls, "function")
    grouping = GROUPINGS["function"]
    assert grouping is not None
    data: dict[str, Any] = {
        "version": PAYLOAD_VERSION,
        "title": options.resolved_title(),
        "subtitle": options.subtitle,
        "total": laid.total,
        "max_depth": laid.max_depth,
        "differential": differential,
        "negate": options.negate,
        "delta": options.delta,
        "inverted": options.inverted,
        "units": unit_spec(unit, options.countname),
        "location": LOCATION if options.drop_locations else None,
        "search_colour": options.search_color,
        "background": list(svg_options.background()),
        "min_percent": options.min_percent,
        "top": options.top,
        "names": names.items,
        "colours": colours.items,
        "inks": inks,
        "frames": frames,
        "functions": functions,
        "legend": legend,
        # how the page groups frame names by function when it recomputes the table (core.ranking's rule)
        "function_group": [grouping[0], re.sub(r"\\(\d)", r"$\1", grouping[1])],
        "roots": list(options.roots),
        # the Merge and Hide fields' presets, [regex, label]: the rule that folds library code in the terminal's tree
        "presets": library_presets(),
        # the narrowest frame the page's inverted and callers' trees make: at least the default --minwidth
        # (inverted, every path of callers is a frame: tens of millions from a million-frame page)
        "transform_min_percent": max(options.min_percent, defaults(HtmlOptions)["min_percent"]),
    }
    if narrow_frames is not None:
        data["narrow"] = narrow_frames
    if ratio is not None:
        data["ratio"] = ratio
    if change is not None:
        data["change"] = change
    return data


def library_presets() -> list[list[str]]:
    """The viewer's regex presets, [regex, label]: each kind of library code, then both (core/library.py)."""
    from ..core.library import LIBRARY, LIBRARY_PRESETS

    return [[regex, label] for label, regex in LIBRARY_PRESETS.items()] + [[LIBRARY, "both"]]


def unit_spec(unit: str | None, countname: str) -> dict[str, Any]:
    """How the page shows values (as :func:`flamespace.core.units.human`): the unit's scales and
    the size of one unit in their base, a share, or plain counts named ``countname`` (empty: the
    unit's name, else "samples")."""
    spec: dict[str, Any] = {"significant": units.SIGNIFICANT, "max_decimals": units.MAX_DECIMALS}
    if unit == units.SHARE_UNIT:
        spec.update(kind="share")
    elif unit in units.TIME_UNITS:
        spec.update(kind="scaled", scales=units.TIME_SCALES, size=units.TIME_UNITS[unit])
    elif unit in units.BYTE_UNITS:
        spec.update(kind="scaled", scales=units.BYTE_SCALES, size=units.BYTE_UNITS[unit])
    else:
        spec.update(kind="count", name=countname or units.count_name(unit))
    return spec


class _Table:
    """A string table: each distinct string once, in order of first use, and its index."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._index: dict[str, int] = {}

    def index(self, item: str) -> int:
        found = self._index.get(item)
        if found is None:
            found = self._index[item] = len(self.items)
            self.items.append(item)
        return found


def _table_columns(
    table: list[tuple[Any, ...]],
    name_index: Callable[[str], int],
    differential: bool,
    calls: FlameGraph | None = None,
    group: str = "line",
) -> dict[str, Any]:
    """One table of :func:`function_table` as columns (names as indices into the string table),
    with the calls of each row when ``calls`` (counts per stack) are given."""
    columns: dict[str, Any] = {
        "count": len(table),
        "name": column([name_index(row[0]) for row in table]),
        "self": column([row[1] for row in table]),
        "inclusive": column([row[2] for row in table]),
    }
    if calls is not None:
        counted = call_counts(calls, group)
        columns["calls"] = column([counted.get(row[0], 0) for row in table])
    if differential:
        columns["delta_self"] = column([row[3] for row in table], signed=True)
        columns["delta_inclusive"] = column([row[4] for row in table], signed=True)
    return columns


def call_counts(calls: FlameGraph, group: str = "line") -> dict[str, int]:
    """Calls per frame name (or function, ``group`` as :func:`function_table`'s): the counts of
    the stacks that end in it (a recursive call counts again, as a trace's table counts calls)."""
    from ..core.ranking import _grouper

    name_of = _grouper(group)
    counted: dict[str, int] = {}
    for stack, count in calls.items():
        if stack:
            name = name_of(strip_annotation(stack[-1]))
            counted[name] = counted.get(name, 0) + int(count)
    return counted


def function_table(profile: Drawable, group: str = "line") -> list[tuple[Any, ...]]:
    """(name, self, inclusive[, Δ self, Δ inclusive]) of every frame name (``group`` "line") or
    function (``f (app.py:12)`` and ``f (app.py:30)`` are ``f (app.py)``; see
    :data:`flamespace.core.ranking.GROUPINGS`) of the whole profile, costliest inclusive first
    (the page sorts it again as asked): exact, not from the layout, whose narrow frames are
    left out. Differential input: the second profile's costs and their changes from the first."""
    from ..core.chart import FlameChart
    from ..core.differential import Differential
    from ..core.ranking import function_costs

    if isinstance(profile, FlameChart):
        profile = profile.graph()
    if isinstance(profile, Differential):
        after = {cost.name: cost for cost in function_costs(profile.after, group)}
        before = {cost.name: cost for cost in function_costs(profile.before, group)}
        rows: list[tuple[Any, ...]] = []
        for name in set(after) | set(before):
            a, b = after.get(name), before.get(name)
            a_self, a_inclusive = (a.self_value, a.inclusive_value) if a else (0, 0)
            b_self, b_inclusive = (b.self_value, b.inclusive_value) if b else (0, 0)
            rows.append((strip_annotation(name), a_self, a_inclusive, a_self - b_self, a_inclusive - b_inclusive))
    else:
        rows = [(strip_annotation(cost.name), cost.self_value, cost.inclusive_value) for cost in function_costs(profile, group)]
    rows.sort(key=lambda row: (-row[2], row[0]))
    return rows


# -- columns ---------------------------------------------------------------------------------
#: Integer column types, narrowest first: (name, array typecode, least, greatest).
_UNSIGNED = (("u1", "B", 0, 0xFF), ("u2", "H", 0, 0xFFFF), ("u4", "I", 0, 0xFFFFFFFF))
_SIGNED = (("i1", "b", -0x80, 0x7F), ("i2", "h", -0x8000, 0x7FFF), ("i4", "i", -0x80000000, 0x7FFFFFFF))
_TYPECODES = {name: code for name, code, _, _ in _UNSIGNED + _SIGNED}
_TYPECODES["f8"] = "d"


def column(values: Sequence[Number], signed: bool = False) -> dict[str, str]:
    """``{"type", "data"}``: ``values`` as base64 of a little-endian typed array, the narrowest
    integer type that holds them all when all are integers, else 64-bit floats."""
    kind, code = "f8", "d"
    if set(map(type, values)) <= {int}:  # bool is no count; a float 3.0 stays f8 (a set of types: 10x faster than all())
        low, high = (min(values), max(values)) if values else (0, 0)
        for name, typecode, least, greatest in _SIGNED if signed or low < 0 else _UNSIGNED:
            if least <= low and high <= greatest:
                kind, code = name, typecode
                break
    packed = array(code, values)
    if sys.byteorder == "big":
        packed.byteswap()
    return {"type": kind, "data": base64.b64encode(packed.tobytes()).decode("ascii")}


def decode_column(encoded: dict[str, str]) -> list[Number]:
    """The values of a :func:`column` (for tests and tools that read a page back)."""
    packed = array(_TYPECODES[encoded["type"]])
    packed.frombytes(base64.b64decode(encoded["data"]))
    if sys.byteorder == "big":
        packed.byteswap()
    values: list[Number] = list(packed)
    return values


# -- the page ----------------------------------------------------------------------------------
_PAYLOAD_OPEN = '<script type="application/json" id="flamespace-data">'


def _json(data: dict[str, Any]) -> str:
    """JSON safe inside a <script> element: no tag, comment or character reference can start."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_page(data: dict[str, Any]) -> str:
    """The whole page: the stylesheet, the payload and the page script, inlined."""
    from .bundle import bundle
    from .xml import escape

    with open(STYLE, encoding="utf-8") as stream:
        style = stream.read()
    script = bundle(SCRIPT)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="flamespace">\n'
        f"<title>{escape(data['title'])}</title>\n<style>\n{style}</style>\n</head>\n<body>\n"
        "<noscript>This flame graph is drawn by JavaScript: please enable it.</noscript>\n"
        f"{_PAYLOAD_OPEN}{_json(data)}</script>\n"
        f"<script>\n{script}</script>\n</body>\n</html>\n"
    )


def read_payload(page: str) -> dict[str, Any]:
    """The payload of a page :func:`html` wrote, its columns decoded to lists (``frames`` and
    each table of ``functions``, by grouping, and ``narrow``, the left-out frames when there are any: ``line`` and, if any frame has a line number,
    ``function``, hold lists instead of ``{"type", "data"}``)."""
    start = page.find(_PAYLOAD_OPEN)
    if start < 0:
        raise ArgumentError("not a flamespace HTML page: no payload found")
    start += len(_PAYLOAD_OPEN)
    data: dict[str, Any] = json.loads(page[start : page.index("</script>", start)])
    tables = [data["frames"], *data["functions"].values(), *([data["narrow"]] if "narrow" in data else [])]
    for table in tables:
        table.update({key: decode_column(value) for key, value in table.items() if isinstance(value, dict)})
    return data


__all__ = [
    "ROOT_KINDS",
    "SEARCH_FRAMES",
    "HtmlOptions",
    "Narrow",
    "call_counts",
    "column",
    "decode_column",
    "html",
    "laid_out",
    "payload",
    "read_payload",
    "render_page",
    "unit_spec",
]
