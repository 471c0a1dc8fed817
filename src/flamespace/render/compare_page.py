"""Comparison pages: two or more profiles in one self-contained HTML page (``html --diff``,
``html --series``, ``compare --html``).

The profiles are laid out once, over the union of their stacks (siblings in name order, so
every profile's frames line up; frames narrower than ``min_percent`` of the profiles' sum
left out, so a stack wide in either side is kept). Each frame is one path, the same index
in every view, which is what keeps the page's panes in sync; for each profile the payload
holds every frame's start, inclusive and self value in value units (0 where the profile
does not reach it). Beside the inputs it holds *views* of the compared pair (A: the first
profile, B: the last), each one more profile over the same frames, computed per stack here
because a frame's values cannot tell them: ``whiteblack`` (B, plus A's value of the stacks
only in A: the extra region for paths that disappeared), the four parts of B − A
(``appeared``, ``grown``, ``disappeared``, ``shrunk``; a compare result gives those of its
reduced difference Δ_r, the significant changes only) and ``delta`` (|B − A| per stack:
where the change is). A compare result adds per frame the test of its own stack (kind, p,
adjusted p, interval) and the significance colours of ``compare --out-dir``'s delta.svg.

The page script (``compare_view.js``) draws these with the viewer's pane component
(``viewer.js``); colours by change follow the SVG's rule, and the payload carries the SVG's
scale (:func:`~flamespace.render.svg.change_scale`) of the pair so the page and the SVG agree.
:func:`read_comparison` decodes a page back (tests check it holds exactly the inputs).
"""

from __future__ import annotations

import math
import os
from bisect import bisect_left
from itertools import accumulate

from ..core import transforms
from ..core.vector import FlameGraph
from ..errors import ArgumentError
from ..formats._io import open_output
from .html import SCRIPT as PANE_SCRIPT, STYLE as PANE_STYLE, HtmlOptions, _json, _Table, column, decode_column, unit_spec
from .layout import _AFTER, Columns, Layout, layout, strip_annotation
from .options import LayoutOptions
from .palettes import SEPARATOR_COLOURS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

    from .._types import Destination, Number, Stack

HERE = os.path.dirname(__file__)
SCRIPT = os.path.join(HERE, "compare_view.js")
STYLE = os.path.join(HERE, "compare_view.css")
#: The comparison payload's format; the page script refuses another.
COMPARE_VERSION = 1
#: The derived views of the compared pair, in the order the page offers them.
VIEWS = ("whiteblack", "appeared", "grown", "disappeared", "shrunk", "delta")
#: A frame's own stack as a compare result tested it: not tested (or no own stack), tested and
#: not significant, significant but within the margin, or the kind of a significant change.
TEST_CODES = {"untested": 0, "not significant": 1, "within margin": 2,
              "appeared": 3, "grown": 4, "disappeared": 5, "shrunk": 6}


def comparison_html(
    profiles: Sequence[FlameGraph],
    labels: Sequence[str],
    options: Optional[HtmlOptions] = None,
    output: Destination = None,
    *,
    tests: Optional[Mapping[Stack, Any]] = None,
    parts: Optional[Sequence[FlameGraph]] = None,
    note: str = "",
) -> Optional[str]:
    """Write a comparison page of ``profiles`` (two or more FlameGraphs, named ``labels``).

    The first and the last are the compared pair (A and B); the title defaults to "A → B". ``tests``: stack -> the compare
    result's change of that stack (``stats.comparison.StackChange``: ``kind``,
    ``significant``, ``p``, ``p_adjusted``, ``lower``, ``upper``), for ``compare --html``;
    ``parts``: the four parts to show instead of B − A's (appeared, grown, disappeared,
    shrunk: a compare result's Δ_r); ``note``: a line under the legend (the test and its
    error rate). ``output`` as :func:`~flamespace.render.html.html`'s.
    """
    page = render_comparison_page(comparison_payload(profiles, labels, options, tests=tests, parts=parts, note=note))
    if output is None:
        return page
    if not isinstance(output, (str, os.PathLike)):
        output.write(page)
    else:
        with open_output(output) as stream:
            stream.write(page)
    return None


def _prepared(profiles: Sequence[FlameGraph], options: HtmlOptions) -> List[FlameGraph]:
    """The profiles with ``--base`` and ``--reverse`` applied (each alike, before the union is taken)."""
    prepared = []
    for profile in profiles:
        if options.base:
            profile = transforms.rebase(profile, options.base)
        if options.reverse:
            profile = transforms.reverse(profile)
        prepared.append(profile)
    return prepared


class _Frames:
    """The union layout: each frame's name, depth, path, rows [lo, hi) of the sorted union stacks
    and the row of its own stack (the stack that ends at it; -1 if none)."""

    def __init__(self, stacks: List[Stack], laid: Layout) -> None:
        c = laid.columns
        self.names = c.names
        self.depths = c.depths
        self.paths: List[Stack] = []
        self.rows: List[Tuple[int, int]] = []
        self.own: List[int] = []
        open_: List[Tuple[Stack, int, int]] = []  # the path and rows of the last frame at each depth
        n = len(stacks)
        for name, depth in zip(c.names, c.depths):
            del open_[depth:]
            if depth:
                parent, low, high = open_[depth - 1]
                path = parent + (name,)
                lo = bisect_left(stacks, path, low, high)
                hi = bisect_left(stacks, path + _AFTER, lo, high)
            else:
                path, lo, hi = (), 0, n
            open_.append((path, lo, hi))
            self.paths.append(path)
            self.rows.append((lo, hi))
            self.own.append(lo if lo < hi and len(stacks[lo]) == depth else -1)  # own rows sort first

    def columns(self, aligned: List[Number]) -> Tuple[List[Number], List[Number], List[Number]]:
        """(start, inclusive value, self value) of every frame for one profile, given as its value of each union stack."""
        cum = list(accumulate(aligned, initial=0))
        starts = [cum[lo] for lo, _ in self.rows]
        inclusive = [cum[hi] - cum[lo] for lo, hi in self.rows]
        own = [aligned[row] if row >= 0 else 0 for row in self.own]
        return starts, inclusive, own


def _aligned(graph: Any, index: Mapping[Stack, int]) -> List[Number]:
    """A profile's value of each union stack (``index``: stack -> its row), 0 where it has none."""
    values: List[Number] = [0] * len(index)
    for stack, value in graph.items():
        values[index[stack]] = value
    return values


def _profile_columns(label: str, total: Number, columns: Tuple[List[Number], List[Number], List[Number]]) -> Dict[str, Any]:
    """One profile's columns, only for the frames where it has a value (``frames``: the gaps between their
    indices; a view of a few changed stacks costs a few frames, not the whole union)."""
    starts, inclusive, own = columns
    kept = [i for i, value in enumerate(inclusive) if value]
    gaps = [b - a for a, b in zip([0] + kept, kept)]
    return {"label": label, "total": total, "count": len(kept), "frames": column(gaps),
            "start": column([starts[i] for i in kept]), "value": column([inclusive[i] for i in kept]),
            "self": column([own[i] for i in kept])}


def _pair_views(a: List[Number], b: List[Number], parts: Sequence[Any], index: Mapping[Stack, int]) -> Dict[str, List[Number]]:
    """The derived views of the pair A, B, as values of each union stack (see the module's docstring)."""
    views = {"whiteblack": [after or before for before, after in zip(a, b)],
             "delta": [abs(after - before) for before, after in zip(a, b)]}
    for name, part in zip(("appeared", "grown", "disappeared", "shrunk"), parts):
        views[name] = _aligned(part, index)
    return {name: views[name] for name in VIEWS}


def _scales(frames: _Frames, a: Tuple[List[Number], ...], b: Tuple[List[Number], ...], total: Number,
            svg_options: Any, unit: Optional[str]) -> Tuple[Dict[str, float], Dict[str, str]]:
    """The SVG's colour scale (:func:`~flamespace.render.svg.change_scale`) of B − A, by inclusive and by
    self change, and the line that says what it measures (:func:`~flamespace.render.svg.change_note`)."""
    from .svg import change_note, change_scale

    scales, notes = {}, {}
    for mode, index in (("inclusive", 1), ("self", 2)):
        columns = Columns()
        columns.names, columns.depths = frames.names, frames.depths
        columns.starts, columns.values, columns.selfs = b[0], b[1], b[2]
        columns.deltas = [after - before for after, before in zip(b[index], a[index])]
        laid = Layout(columns, total, max(frames.depths, default=0), True, LayoutOptions(delta=mode))
        scales[mode] = change_scale(laid) if total else 1
        notes[mode] = change_note(laid, scales[mode], svg_options, unit) if total else ""
    return scales, notes


def comparison_payload(
    profiles: Sequence[FlameGraph],
    labels: Sequence[str],
    options: Optional[HtmlOptions] = None,
    *,
    tests: Optional[Mapping[Stack, Any]] = None,
    parts: Optional[Sequence[FlameGraph]] = None,
    note: str = "",
) -> Dict[str, Any]:
    """The comparison page's data (JSON-ready); arguments as :func:`comparison_html`'s."""
    from .svg import LOCATION, change_bar, change_words, unit_of

    options = options or HtmlOptions()
    if len(profiles) < 2:
        raise ArgumentError(f"a comparison needs at least two profiles, not {len(profiles)}")
    if len(labels) != len(profiles):
        raise ArgumentError(f"{len(labels)} labels for {len(profiles)} profiles")
    graphs = _prepared(profiles, options)
    union: Dict[Stack, Number] = {}
    for graph in graphs:
        for stack, value in graph.items():
            union[stack] = union.get(stack, 0) + value
    stacks = sorted(union)
    laid = layout(FlameGraph._trusted(union, graphs[-1].metadata), LayoutOptions(min_percent=options.min_percent))
    frames = _Frames(stacks, laid)
    del laid, union
    names = _Table()
    frame_names = [names.index(strip_annotation(name)) for name in frames.names]
    index = {stack: row for row, stack in enumerate(stacks)}
    aligned = [_aligned(graph, index) for graph in graphs]
    per_profile = [frames.columns(values) for values in aligned]
    if parts is None:
        from ..core.algebra import decompose

        parts = decompose(graphs[0], graphs[-1])
    else:
        parts = _prepared(parts, options)
    views = _pair_views(aligned[0], aligned[-1], parts, index)
    b = graphs[-1]
    unit = next((u for u in map(unit_of, graphs) if u), None)
    svg_options = options.svg_options()
    largest, notes = _scales(frames, per_profile[0], per_profile[-1], b.total(), svg_options, unit)
    bars = {mode: _bar(change_bar(scale, svg_options, unit)) for mode, scale in largest.items()}
    more, less = change_words(unit)
    data: Dict[str, Any] = {
        "version": COMPARE_VERSION, "kind": "comparison",
        "title": options.title or f"{labels[0]} \u2192 {labels[-1]}", "subtitle": options.subtitle,
        "units": unit_spec(unit, options.countname), "words": {"more": more, "less": less},
        "location": LOCATION if options.drop_locations else None,
        "search_colour": options.search_color, "background": list(svg_options.replace(bgcolors="grey").background()),
        "separators": SEPARATOR_COLOURS, "delta": options.delta, "negate": options.negate, "inverted": options.inverted,
        "min_percent": options.min_percent, "max_depth": max(frames.depths, default=0),
        "names": names.items,
        "frames": {"count": len(frame_names), "name": column(frame_names), "depth": column(frames.depths)},
        "profiles": [_profile_columns(label, graph.total(), columns) for label, graph, columns in zip(labels, graphs, per_profile)],
        "pair": [0, len(profiles) - 1],
        "views": {name: _profile_columns(name, sum(view), frames.columns(view)) for name, view in views.items()},
        "largest": largest, "bars": bars, "notes": notes, "significance": None, "note": note,
    }
    if tests is not None:
        data["significance"] = _significance(frames, graphs[0], graphs[-1], tests, unit, svg_options)
    return data


def _bar(bar: Any) -> Dict[str, Any]:
    return {"low": bar.low, "high": bar.high, "stops": bar.stops, "meaning": bar.meaning}


def _significance(frames: _Frames, baseline: FlameGraph, candidate: FlameGraph, tests: Mapping[Stack, Any],
                  unit: Optional[str], svg_options: Any) -> Dict[str, Any]:
    """Per frame: the test of its own stack and its colour as compare's delta.svg draws it."""
    from .significance import Colouring, legend, scale_bar

    kinds = {stack: change.kind or "" for stack, change in tests.items() if change.significant}
    colouring = Colouring(baseline, candidate, kinds)
    colours = _Table()
    codes: List[int] = []
    inside: List[int] = []
    numbers: Dict[str, List[float]] = {"p": [], "p_adjusted": [], "lower": [], "upper": []}
    frame_colour = []
    for path, name, depth in zip(frames.paths, frames.names, frames.depths):
        frame_colour.append(colours.index(colouring.colour(path, name, depth)))
        change = tests.get(path) if depth else None
        if change is None:
            codes.append(TEST_CODES["untested"])
        elif change.kind:
            codes.append(TEST_CODES[change.kind])
        else:
            codes.append(TEST_CODES["within margin" if change.significant else "not significant"])
        inside.append(1 if path in colouring.inside else 0)
        for key in numbers:
            numbers[key].append(float(getattr(change, key)) if change is not None else math.nan)
    from .palettes import needs_light_ink

    bar = scale_bar(colouring.largest if colouring.changes else 0, unit, svg_options)
    return {
        "codes": {name: code for name, code in TEST_CODES.items()},
        "test": column(codes), "inside": column(inside),
        **{key: column(value) for key, value in numbers.items()},
        "colour": column(frame_colour), "colours": colours.items,
        "inks": [1 if needs_light_ink(colour) else 0 for colour in colours.items],
        "legend": [list(item) for item in legend(unit)], "bar": _bar(bar),
    }


def render_comparison_page(data: Dict[str, Any]) -> str:
    """The whole page: the pane component's stylesheet and script, then the comparison's, inlined."""
    from .xml import escape

    texts = []
    for path in (PANE_STYLE, STYLE, PANE_SCRIPT, SCRIPT):
        with open(path, encoding="utf-8") as stream:
            texts.append(stream.read())
    pane_style, style, pane_script, script = texts
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<meta name=\"generator\" content=\"flamespace\">\n"
        f"<title>{escape(data['title'])}</title>\n<style>\n{pane_style}{style}</style>\n</head>\n<body class=\"comparison\">\n"
        "<noscript>This comparison is drawn by JavaScript: please enable it.</noscript>\n"
        f"{_PAYLOAD_OPEN}{_json(data)}</script>\n"
        f"<script>\n{pane_script}</script>\n<script>\n{script}</script>\n</body>\n</html>\n"
    )


_PAYLOAD_OPEN = '<script type="application/json" id="flamespace-comparison">'


def read_comparison(page: str) -> Dict[str, Any]:
    """The payload of a comparison page, every column decoded to a list (``frames``, each
    profile, each view and ``significance``); a profile's or a view's start, value and self
    as one value per frame (0 where it has none)."""
    start = page.find(_PAYLOAD_OPEN)
    if start < 0:
        raise ArgumentError("not a flamespace comparison page: no comparison payload found")
    start += len(_PAYLOAD_OPEN)
    import json

    data: Dict[str, Any] = json.loads(page[start:page.index("</script>", start)])
    count = data["frames"]["count"]
    for table in [*data["profiles"], *data["views"].values()]:
        kept = list(accumulate(int(gap) for gap in decode_column(table.pop("frames"))))
        for key in ("start", "value", "self"):
            dense: List[Number] = [0] * count
            for i, value in zip(kept, decode_column(table[key])):
                dense[i] = value
            table[key] = dense
    tables = [data["frames"]]
    if data["significance"] is not None:
        tables.append(data["significance"])
    for table in tables:
        table.update({key: decode_column(value) for key, value in table.items()
                      if isinstance(value, dict) and set(value) == {"type", "data"}})
    return data


__all__ = ["COMPARE_VERSION", "TEST_CODES", "VIEWS", "comparison_html", "comparison_payload", "read_comparison",
           "render_comparison_page"]
