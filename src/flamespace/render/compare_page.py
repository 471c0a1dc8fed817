"""Comparison pages: two or more profiles in one self-contained HTML page (``html --diff``,
``html --series``, ``compare --html``).

The profiles are laid out once, over the union of their stacks (siblings in name order, so
every profile's frames line up; frames narrower than ``min_percent`` of the profiles' sum
left out, so a stack wide in either side is kept). Each frame is one path, the same index
in every view, which is what keeps the page's panes in sync.

The payload holds base data only: the frames (name, depth), the sorted union of stacks (its
*rows*) as where each row sits among the frames, and each profile's value of each row. A row
is the *own* row of the frame whose path it is (the frames that have one are listed); a row
whose path was left out (too narrow) sits in its deepest frame that was kept (listed with that
frame, the few such rows). From those the page derives, per profile, every frame's start,
inclusive and self value (a frame spans the rows that sort under its path: its start is the
sum of the rows before them, its value theirs; its self value is its own row's), and the
*views* of the compared pair (A: the first profile, B: the last), each a profile over the same
rows, derived per row because a frame's values cannot tell them: ``whiteblack`` (B, plus A's
value of the rows only in A: the extra region for paths that disappeared), the four parts of
B − A (``appeared``, ``grown``, ``disappeared``, ``shrunk``; a compare result gives those of
its reduced difference Δ_r instead, which the payload then holds per row) and ``delta``
(|B − A| per row: where the change is). A compare result adds per tested row its test (kind,
p, adjusted p, interval); the page colours frames by significance as ``compare --out-dir``'s
delta.svg does (:class:`~flamespace.render.significance.Colouring`). Deriving in the page,
not storing six views per frame, keeps the file about a tenth of what it was
(docs/performance.md).

The page script (``js/compare_view.mjs``) draws these with the pane component
(``js/pane.mjs``); colours by change follow the SVG's rule, and the payload carries the SVG's
scale (:func:`~flamespace.render.colouring.change_scale`) of the pair so the page and the SVG agree.
:func:`read_comparison` decodes a page back and derives what the page derives, by the same
rules (tests check it holds exactly the inputs, and that the page derives the same).
"""

from __future__ import annotations

import math
import os
from itertools import accumulate

from ..core import transforms
from ..core.vector import FlameGraph
from ..errors import ArgumentError
from .destination import deliver_text
from .html import STYLE as PANE_STYLE, HtmlOptions, _json, _Table, column, decode_column, unit_spec
from .layout import Columns, Layout, bisect_frame, layout, strip_annotation
from .options import LayoutOptions
from .palettes import SEPARATOR_COLOURS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Mapping, Sequence

    from .._types import Destination, Number, Stack

HERE = os.path.dirname(__file__)
#: The page script's entry module (render/js/; render/bundle.py joins it with its imports).
SCRIPT = "compare_view.mjs"
STYLE = os.path.join(HERE, "compare_view.css")
#: The comparison payload's format; the page script refuses another.
COMPARE_VERSION = 2
#: The derived views of the compared pair, in the order the page offers them.
VIEWS = ("whiteblack", "appeared", "grown", "disappeared", "shrunk", "delta")
#: The four parts of a change (core.algebra.decompose's order).
PARTS = ("appeared", "grown", "disappeared", "shrunk")
#: A frame's own stack as a compare result tested it: not tested (or no own stack), tested and
#: not significant, significant but within the margin, or the kind of a significant change.
TEST_CODES = {"untested": 0, "not significant": 1, "within margin": 2, "appeared": 3, "grown": 4, "disappeared": 5, "shrunk": 6}


def comparison_html(
    profiles: Sequence[FlameGraph],
    labels: Sequence[str],
    options: HtmlOptions | None = None,
    output: Destination = None,
    *,
    tests: Mapping[Stack, Any] | None = None,
    parts: Sequence[FlameGraph] | None = None,
    note: str = "",
) -> str | None:
    """Write a comparison page of ``profiles`` (two or more FlameGraphs, named ``labels``).

    The first and the last are the compared pair (A and B); the title defaults to "A → B". ``tests``: stack -> the compare
    result's change of that stack (``stats.comparison.StackChange``: ``kind``,
    ``significant``, ``p``, ``p_adjusted``, ``lower``, ``upper``), for ``compare --html``;
    ``parts``: the four parts to show instead of B − A's (appeared, grown, disappeared,
    shrunk: a compare result's Δ_r); ``note``: a line under the legend (the test and its
    error rate). ``output`` as :func:`~flamespace.render.html.html`'s.
    """
    page = render_comparison_page(comparison_payload(profiles, labels, options, tests=tests, parts=parts, note=note))
    return deliver_text(page, output)


def _prepared(profiles: Sequence[FlameGraph], options: HtmlOptions) -> list[FlameGraph]:
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
    """The union layout: each frame's name, depth, rows [lo, hi) of the sorted union stacks
    and the row of its own stack (the stack that ends at it; -1 if none)."""

    def __init__(self, stacks: list[Stack], laid: Layout) -> None:
        c = laid.columns
        self.names = c.names
        self.depths = c.depths
        self.rows: list[tuple[int, int]] = []
        self.own: list[int] = []
        open_: list[tuple[int, int]] = []  # the rows of the last frame at each depth
        n = len(stacks)
        for name, depth in zip(c.names, c.depths):
            del open_[depth:]
            if depth:  # rows of the parent's that go on (its own rows sort first) with this frame
                low, high = open_[depth - 1]
                while low < high and len(stacks[low]) < depth:
                    low += 1
                lo = bisect_frame(stacks, low, high, depth - 1, name, after=False)
                hi = bisect_frame(stacks, lo, high, depth - 1, name)
            else:
                lo, hi = 0, n
            open_.append((lo, hi))
            self.rows.append((lo, hi))
            self.own.append(lo if lo < hi and len(stacks[lo]) == depth else -1)  # own rows sort first

    def columns(self, aligned: Sequence[Number]) -> tuple[list[Number], list[Number], list[Number]]:
        """(start, inclusive value, self value) of every frame for one profile, given as its value of each union stack."""
        cum = list(accumulate(aligned, initial=0))
        starts = [cum[lo] for lo, _ in self.rows]
        inclusive = [cum[hi] - cum[lo] for lo, hi in self.rows]
        own = [aligned[row] if row >= 0 else 0 for row in self.own]
        return starts, inclusive, own

    def placement(self, count: int) -> dict[str, Any]:
        """Where each of the ``count`` rows sits among the frames, as the page reads it (see
        :class:`_Rows`): the frames with an own row (the gaps between their indices; own rows
        in row order are those frames in frame order), and every other row (the gaps between
        those rows) with its home: the deepest frame whose rows hold it (its path's nearest kept
        prefix)."""
        home = [0] * count
        for frame, (lo, hi) in enumerate(self.rows):  # frames in depth-first order: deeper frames overwrite
            home[lo:hi] = [frame] * (hi - lo)
        owned = [frame for frame, row in enumerate(self.own) if row >= 0]
        is_own = [False] * count
        for frame in owned:
            is_own[self.own[frame]] = True
        others = [row for row in range(count) if not is_own[row]]
        return {
            "own": _gaps(owned),
            "others": {"count": len(others), "row": _gaps(others), "home": column([home[row] for row in others])},
        }


def _gaps(indices: Sequence[int]) -> dict[str, str]:
    """Increasing indices as a column of the gaps between them (the first: from 0)."""
    return column([b - a for a, b in zip([0, *indices], indices)])


def _ungap(encoded: dict[str, str]) -> list[int]:
    return list(accumulate(int(gap) for gap in decode_column(encoded)))


def _aligned(graph: Any, index: Mapping[Stack, int]) -> list[Number]:
    """A profile's value of each union stack (``index``: stack -> its row), 0 where it has none."""
    values: list[Number] = [0] * len(index)
    for stack, value in graph.items():
        values[index[stack]] = value
    return values


def _row_values(values: Sequence[Number]) -> dict[str, Any]:
    """One profile's value of each row: every row's (``value``), or, when shorter, only the rows
    where it has a value (``rows``: the gaps between them; a part of a few changed stacks costs a
    few rows, not the whole union)."""
    dense = column(values)
    kept = [row for row, value in enumerate(values) if value]
    if len(kept) > len(values) // 2:
        return {"count": len(values), "value": dense}
    rows, given = _gaps(kept), column([values[row] for row in kept])
    if len(rows["data"]) + len(given["data"]) < len(dense["data"]):
        return {"count": len(kept), "rows": rows, "value": given}
    return {"count": len(values), "value": dense}


def _scales(
    frames: _Frames, a: tuple[list[Number], ...], b: tuple[list[Number], ...], total: Number, svg_options: Any, unit: str | None
) -> tuple[dict[str, float], dict[str, str]]:
    """The SVG's colour scale (:func:`~flamespace.render.colouring.change_scale`) of B − A, by inclusive and by
    self change, and the line that says what it measures (:func:`~flamespace.render.colouring.change_note`)."""
    from .colouring import change_note, change_scale

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
    options: HtmlOptions | None = None,
    *,
    tests: Mapping[Stack, Any] | None = None,
    parts: Sequence[FlameGraph] | None = None,
    note: str = "",
) -> dict[str, Any]:
    """The comparison page's data (JSON-ready); arguments as :func:`comparison_html`'s."""
    from ..core.units import unit_of
    from .svg import LOCATION
    from .colouring import change_bar, change_words

    options = options or HtmlOptions()
    if len(profiles) < 2:
        raise ArgumentError(f"a comparison needs at least two profiles, not {len(profiles)}")
    if len(labels) != len(profiles):
        raise ArgumentError(f"{len(labels)} labels for {len(profiles)} profiles")
    graphs = _prepared(profiles, options)
    union: dict[Stack, Number] = {}
    for graph in graphs:
        for stack, value in graph.items():
            union[stack] = union.get(stack, 0) + value
    laid = layout(FlameGraph._trusted(union, graphs[-1].metadata), LayoutOptions(min_percent=options.min_percent))
    # the rows: every stack of a profile, and every tested stack (a frame's test is its own row's)
    stacks = sorted(union.keys() | (tests.keys() if tests is not None else set()))
    frames = _Frames(stacks, laid)
    del laid, union
    names = _Table()
    frame_names = [names.index(strip_annotation(name)) for name in frames.names]
    index = {stack: row for row, stack in enumerate(stacks)}
    aligned = [_aligned(graph, index) for graph in graphs]
    unit = next((u for u in map(unit_of, graphs) if u), None)
    svg_options = options.svg_options()
    largest, notes = _scales(
        frames, frames.columns(aligned[0]), frames.columns(aligned[-1]), graphs[-1].total(), svg_options, unit
    )
    bars = {mode: _bar(change_bar(scale, svg_options, unit)) for mode, scale in largest.items()}
    more, less = change_words(unit)
    data: dict[str, Any] = {
        "version": COMPARE_VERSION,
        "kind": "comparison",
        "frames": {"count": len(frame_names), "name": column(frame_names), "depth": column(frames.depths)},
        "title": options.title or f"{labels[0]} \u2192 {labels[-1]}",
        "subtitle": options.subtitle,
        "units": unit_spec(unit, options.countname),
        "words": {"more": more, "less": less},
        "location": LOCATION if options.drop_locations else None,
        "search_colour": options.search_color,
        "background": list(svg_options.replace(bgcolors="grey").background()),
        "separators": SEPARATOR_COLOURS,
        "delta": options.delta,
        "negate": options.negate,
        "inverted": options.inverted,
        "min_percent": options.min_percent,
        "max_depth": max(frames.depths, default=0),
        "names": names.items,
        "rows": {"count": len(stacks), **frames.placement(len(stacks))},
        "profiles": [
            {"label": label, "total": graph.total(), "values": _row_values(values)}
            for label, graph, values in zip(labels, graphs, aligned)
        ],
        "pair": [0, len(profiles) - 1],
        # a compare result's parts (its Δ_r); else the page derives B − A's
        "parts": None
        if parts is None
        else {name: _row_values(_aligned(part, index)) for name, part in zip(PARTS, _prepared(parts, options))},
        "largest": largest,
        "bars": bars,
        "notes": notes,
        "significance": None,
        "note": note,
    }
    if tests is not None:
        data["significance"] = _significance(frames, stacks, aligned[0], aligned[-1], tests, unit, svg_options)
    return data


def _bar(bar: Any) -> dict[str, Any]:
    return {"low": bar.low, "high": bar.high, "stops": bar.stops, "meaning": bar.meaning}


def _significance(
    frames: _Frames,
    stacks: list[Stack],
    baseline: Sequence[Number],
    candidate: Sequence[Number],
    tests: Mapping[Stack, Any],
    unit: str | None,
    svg_options: Any,
) -> dict[str, Any]:
    """Per tested row: its test (code, p, adjusted p, interval); the page colours the frames from
    the codes of the pair's rows as :class:`~flamespace.render.significance.Colouring` does, and
    a frame's grey from its name, but for the frames whose name carries an annotation (the page
    shows it without): their grey comes here."""
    from .significance import grey, legend, scale_bar

    rows = [row for row, stack in enumerate(stacks) if stack in tests]
    codes: list[int] = []
    numbers: dict[str, list[float]] = {"p": [], "p_adjusted": [], "lower": [], "upper": []}
    changes: list[Number] = []  # of the coloured rows, as Colouring's
    for row in rows:
        change = tests[stacks[row]]
        if change.kind and change.significant:  # a kind is the kind of a significant change: coloured
            codes.append(TEST_CODES[change.kind])
            changes.append(candidate[row] - baseline[row])
        else:
            codes.append(TEST_CODES["within margin" if change.significant else "not significant"])
        for key in numbers:
            numbers[key].append(float(getattr(change, key)))
    largest = max(map(abs, changes), default=0) or 1
    annotated = [frame for frame, name in enumerate(frames.names) if strip_annotation(name) != name]
    greys = [int(grey(frames.names[frame])[4:].split(",")[0]) for frame in annotated]
    return {
        "codes": {name: code for name, code in TEST_CODES.items()},
        "count": len(rows),
        "rows": _gaps(rows),
        "test": column(codes),
        **{key: column(value) for key, value in numbers.items()},
        "annotated": {"count": len(annotated), "frames": _gaps(annotated), "grey": column(greys)},
        "legend": [list(item) for item in legend(unit)],
        "bar": _bar(scale_bar(largest if changes else 0, unit, svg_options)),
    }


def render_comparison_page(data: dict[str, Any]) -> str:
    """The whole page: the pane component's stylesheet and script, then the comparison's, inlined."""
    from .xml import escape

    from .bundle import bundle

    texts = []
    for path in (PANE_STYLE, STYLE):
        with open(path, encoding="utf-8") as stream:
            texts.append(stream.read())
    pane_style, style = texts
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="flamespace">\n'
        f'<title>{escape(data["title"])}</title>\n<style>\n{pane_style}{style}</style>\n</head>\n<body class="comparison">\n'
        "<noscript>This comparison is drawn by JavaScript: please enable it.</noscript>\n"
        f"{_PAYLOAD_OPEN}{_json(data)}</script>\n"
        f"<script>\n{bundle(SCRIPT)}</script>\n</body>\n</html>\n"
    )


_PAYLOAD_OPEN = '<script type="application/json" id="flamespace-comparison">'


def read_comparison(page: str) -> dict[str, Any]:
    """The payload of a comparison page, decoded and derived by the page's rules: ``frames``' columns
    as lists; each profile and each view (``views``: name -> the same keys) with ``total`` and its
    start, value and self as one value per frame (0 where it has none); and, for a compare result,
    ``significance`` per frame: the ``test`` code, ``p``, ``p_adjusted``, ``lower``, ``upper``
    (NaN where untested), ``inside`` (1: it contains a significant change) and ``colour`` (an
    index into ``colours``)."""
    start = page.find(_PAYLOAD_OPEN)
    if start < 0:
        raise ArgumentError("not a flamespace comparison page: no comparison payload found")
    start += len(_PAYLOAD_OPEN)
    import json

    data: dict[str, Any] = json.loads(page[start : page.index("</script>", start)])
    if data.get("version") != COMPARE_VERSION:
        raise ArgumentError(f"a comparison page of payload version {data.get('version')}, not {COMPARE_VERSION}")
    F = data["frames"]
    F.update({key: decode_column(value) for key, value in F.items() if isinstance(value, dict)})
    rows = _Rows(data["rows"], F["depth"])
    values = [rows.values(p.pop("values")) for p in data["profiles"]]
    for profile, per_row in zip(data["profiles"], values):
        profile.update(rows.frame_columns(per_row))
    a, b = values[data["pair"][0]], values[data["pair"][1]]
    given: dict[str, Any] = data.pop("parts") or {}  # a compare result's parts, else B - A's
    data["views"] = {}
    for name in VIEWS:
        per_row = rows.values(given[name]) if name in given else derive_view(name, a, b)
        columns = rows.frame_columns(per_row)
        data["views"][name] = {"label": name, "total": columns["value"][0] if columns["value"] else 0, **columns}
    if data["significance"] is not None:
        _read_significance(data, rows, a, b)
    return data


def derive_view(name: str, a: Sequence[Number], b: Sequence[Number]) -> list[Number]:
    """A view of the pair per row from A's and B's values of each row (the page's rule, in Python)."""
    if name == "whiteblack":
        return [after or before for before, after in zip(a, b)]
    if name == "delta":
        return [abs(after - before) for before, after in zip(a, b)]
    if name == "appeared":
        return [after if after and not before else 0 for before, after in zip(a, b)]
    if name == "grown":
        return [after - before if before and after and after > before else 0 for before, after in zip(a, b)]
    if name == "disappeared":
        return [before if before and not after else 0 for before, after in zip(a, b)]
    if name == "shrunk":
        return [before - after if before and after and after < before else 0 for before, after in zip(a, b)]
    raise ArgumentError(f"no view {name!r}")


class _Rows:
    """Where a payload's rows sit among its frames, read back: each row's home frame, each frame's
    own row (-1: none), rows [lo, hi) and parent."""

    def __init__(self, encoded: dict[str, Any], depths: Sequence[int]) -> None:
        self.count = count = encoded["count"]
        n = len(depths)
        owned = _ungap(encoded["own"])
        others = _ungap(encoded["others"]["row"])
        homes = decode_column(encoded["others"]["home"])
        self.home = home = [0] * count
        self.own = [-1] * n
        k = j = 0
        for row in range(count):
            if j < len(others) and others[j] == row:
                home[row] = int(homes[j])
                j += 1
            else:
                home[row] = owned[k]
                self.own[owned[k]] = row
                k += 1
        self.parent = parent = [-1] * n
        open_: list[int] = []
        for frame, depth in enumerate(depths):
            del open_[depth:]
            parent[frame] = open_[-1] if open_ else -1
            open_.append(frame)
        lo, hi = [count] * n, [0] * n
        for row, frame in enumerate(home):
            lo[frame] = min(lo[frame], row)
            hi[frame] = row + 1
        for frame in range(n - 1, 0, -1):
            up = parent[frame]
            lo[up], hi[up] = min(lo[up], lo[frame]), max(hi[up], hi[frame])
        self.lo = [min(low, high) for low, high in zip(lo, hi)]
        self.hi = hi

    def values(self, encoded: dict[str, Any]) -> list[Number]:
        """A profile's value of every row (see :func:`_row_values`)."""
        given = decode_column(encoded["value"])
        if "rows" not in encoded:
            return given
        out: list[Number] = [0] * self.count
        for row, value in zip(_ungap(encoded["rows"]), given):
            out[row] = value
        return out

    def frame_columns(self, values: Sequence[Number]) -> dict[str, list[Number]]:
        """Every frame's start, inclusive and self value of a profile given per row (as the page's)."""
        cum = list(accumulate(values, initial=0))
        return {
            "start": [cum[lo] for lo in self.lo],
            "value": [cum[hi] - cum[lo] for lo, hi in zip(self.lo, self.hi)],
            "self": [values[row] if row >= 0 else 0 for row in self.own],
        }


def _read_significance(data: dict[str, Any], rows: _Rows, a: Sequence[Number], b: Sequence[Number]) -> None:
    """The significance of each frame, from the tested rows, as the page derives it (colours as
    :class:`~flamespace.render.significance.Colouring`'s)."""
    from .significance import DIRECTION, TINT, grey, strong

    S = data["significance"]
    depths, names, n = data["frames"]["depth"], data["names"], data["frames"]["count"]
    kind_of = {code: name for name, code in S["codes"].items()}
    tested = dict(zip(_ungap(S.pop("rows")), range(S["count"])))
    codes = decode_column(S["test"])
    numbers = {key: decode_column(S[key]) for key in ("p", "p_adjusted", "lower", "upper")}
    S["test"] = [TEST_CODES["untested"]] * n
    for key in numbers:
        S[key] = [math.nan] * n
    for frame, row in enumerate(rows.own):
        if row >= 0 and depths[frame] and row in tested:
            at = tested[row]
            S["test"][frame] = codes[at]
            for key, column_ in numbers.items():
                S[key][frame] = column_[at]
    # Colouring: the coloured rows' changes, their largest, and the net change inside each caller
    changed = {row: b[row] - a[row] for row, at in tested.items() if kind_of[codes[at]] in DIRECTION}
    largest = max(map(abs, changed.values()), default=0) or 1
    inside: dict[int, Number] = {}
    for row, change in sorted(changed.items()):
        frame = rows.home[row]
        if rows.own[frame] == row:
            frame = rows.parent[frame]
        while frame >= 0:
            inside[frame] = inside.get(frame, 0) + change
            frame = rows.parent[frame]
    annotated = dict(zip(_ungap(S["annotated"]["frames"]), decode_column(S["annotated"]["grey"])))
    colours = _Table()
    colour = []
    for frame in range(n):
        row = rows.own[frame]
        if depths[frame] and row >= 0 and row in changed:
            text = strong(DIRECTION[kind_of[codes[tested[row]]]], changed[row], largest)
        elif frame in inside:
            net = inside[frame]
            text = TINT[(net > 0) - (net < 0)]
        elif frame in annotated:
            text = f"rgb({annotated[frame]},{annotated[frame]},{annotated[frame]})"
        else:
            text = grey(names[data["frames"]["name"][frame]])
        colour.append(colours.index(text))
    S["inside"] = [1 if frame in inside else 0 for frame in range(n)]
    S["colour"], S["colours"] = colour, colours.items


__all__ = [
    "COMPARE_VERSION",
    "PARTS",
    "TEST_CODES",
    "VIEWS",
    "comparison_html",
    "derive_view",
    "comparison_payload",
    "read_comparison",
    "render_comparison_page",
]
