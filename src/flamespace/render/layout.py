"""Layout: a profile -> the frames a flame graph draws, in value units (pure: no pixels,
fonts, colours or files; the emitters turn it into pictures or text).

flamegraph.pl's meaning: stacks merged from the root under a synthetic ``all`` frame,
siblings in bytewise name order (widest first with ``sort_by_value``), a frame's own time
to the left of its children, width its value, frames narrower than the options' least
value not laid out (their time still counted in their parents). A flame chart keeps
input order and merges a frame only with the same frame of the previous stack.

As flamegraph.pl, the stacks are sorted and neighbours merged, without a tree of every
frame: a frame is a run of consecutive stacks that share it (found by binary search), its
value a difference of running totals. Only frames wide enough to keep are visited, so a
narrow frame's subtree costs nothing, and a frame reached by one stack lays out the rest
of that stack at once. Walks are iterative: stacks can be thousands of frames deep.
"""

from __future__ import annotations

import math
from itertools import accumulate, repeat
from operator import itemgetter

from ..core.chart import FlameChart
from ..core.differential import Differential
from ..core.vector import FlameGraph
from ..errors import ArgumentError
from .options import LayoutOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable
    from collections.abc import Iterable

    from .._types import Drawable, Number, Stack
    from .frame import Frame

    Group = tuple[int, int]  # rows [start, end) that share a frame

ROOT_NAME = "all"
ANNOTATION = r"_\[[kwij]\]$"  # compiled (and re imported) when a name ends in "]"


class Layout:
    """The laid-out frames (parents before children) in value units, and what they add up to.

    A frame spans [start, start + value) of [0, total); ``total`` is the root's value (the
    profile's, or the options' larger ``total``). The frames are kept as columns (one list
    per field of :class:`Frame`), which the emitters read directly; :attr:`frames` gives
    them as :class:`Frame` records. ``warnings``: what the caller should be told (e.g. a
    ``total`` below the profile's, ignored). ``actual``: the sum of the input's values (the
    root's value before a larger ``total``).
    """

    __slots__ = ("columns", "total", "max_depth", "differential", "options", "warnings", "actual")

    def __init__(
        self,
        columns: Columns | None,
        total: Number,
        max_depth: int,
        differential: bool,
        options: LayoutOptions,
        warnings: list[str] | None = None,
        actual: Number | None = None,
    ) -> None:
        self.columns = columns or Columns()
        self.actual = total if actual is None else actual
        self.total = total
        self.max_depth = max_depth
        self.differential = differential
        self.options = options
        self.warnings = warnings or []

    @property
    def frames(self) -> list[Frame]:
        c = self.columns
        deltas = c.deltas if c.deltas is not None else repeat(None)
        from .frame import Frame  # typing's NamedTuple: only for callers that want records

        return list(map(Frame, c.names, c.depths, c.starts, c.values, c.selfs, deltas))

    @property
    def empty(self) -> bool:
        return not self.total

    def ratios(self) -> list[float]:
        """Each frame's second metric per unit of its value, both over the frame with its
        callees (layouts coloured by a second metric: :func:`layout`'s ``colour_by``); the
        root's over the input's sum, not a larger ``total``."""
        c = self.columns
        if c.seconds is None:
            raise ArgumentError("the layout has no second metric (lay it out with colour_by)")
        values = list(c.values)
        if values:
            values[0] = self.actual
        return [second / value if value else math.nan for second, value in zip(c.seconds, values)]


class Columns:
    """The laid-out frames, one list per field of :class:`Frame` (``deltas`` None unless
    differential), and ``seconds``: each frame's value of a second metric with its callees'
    (None unless the layout is coloured by one)."""

    __slots__ = ("names", "depths", "starts", "values", "selfs", "deltas", "seconds")

    def __init__(self) -> None:
        self.names: list[str] = []
        self.depths: list[int] = []
        self.starts: list[Number] = []
        self.values: list[Number] = []
        self.selfs: list[Number] = []
        self.deltas: list[Number] | None = None
        self.seconds: list[Number] | None = None


def strip_annotation(name: str) -> str:
    """``ext4_readdir_[k]`` -> ``ext4_readdir``: the annotation only picks a colour."""
    if not name.endswith("]"):
        return name
    import re

    return re.sub(ANNOTATION, "", name)


def rows_of(
    profile: Drawable, options: LayoutOptions, colour_by: FlameGraph | None = None
) -> tuple[Iterable[tuple[Stack, Number, Number]], bool]:
    """(stack, value, before) rows in the order to draw them, and whether the input is differential.

    With ``colour_by`` the third number is that graph's value of the stack (not a before), and
    its stacks that ``profile`` lacks are rows of value 0: never drawn, but counted in their
    drawn callers' second metric."""
    if colour_by is not None:
        return _coloured_rows(profile, options, colour_by), False
    if isinstance(profile, Differential):
        if options.flamechart:
            before = profile.before
            rows = [(s, v, before.value(s)) for s, v in profile.after.items()]
            rows += [(s, 0, v) for s, v in before.items() if s not in profile.after]
            return rows, True
        return [(s, a, b) for s, b, a in profile.rows()], True
    if isinstance(profile, FlameChart):
        if not options.flamechart:
            profile = profile.graph()
        else:
            return ((sample.stack, sample.weight, 0) for sample in profile.samples()), False
    if not isinstance(profile, FlameGraph):
        raise ArgumentError(f"cannot draw a {type(profile).__name__}; expected a FlameGraph, Differential or FlameChart")
    return ((s, v, 0) for s, v in profile.items()), False


def _coloured_rows(profile: Drawable, options: LayoutOptions, colour_by: FlameGraph) -> list[tuple[Stack, Number, Number]]:
    """(stack, value, colour value) rows of a profile coloured by a second metric."""
    if options.flamechart:  # a chart merges only neighbours: the second metric's stacks would not meet their callers
        raise ArgumentError("colouring by a second metric draws a flame graph, not a flame chart (leave out flamechart)")
    if isinstance(profile, FlameChart):
        profile = profile.graph()  # a second metric is per stack, not per moment
    if not isinstance(profile, FlameGraph) or not isinstance(colour_by, FlameGraph):
        drawn = profile if not isinstance(profile, FlameGraph) else colour_by
        raise ArgumentError(
            f"colouring by a second metric needs two flame graphs (one count per stack), not a {type(drawn).__name__}"
        )
    second = colour_by.value
    rows = [(s, v, second(s)) for s, v in profile.items()]
    rows += [(s, 0, v) for s, v in colour_by.items() if s not in profile]
    return rows


def _rewriter(options: LayoutOptions) -> Callable[[Stack], Stack | None] | None:
    """The stack rewrites the options ask for (base, reverse, waker marks), or None."""
    steps: list[Callable[[Stack], Stack | None]] = []
    if options.base:
        from ..core.transforms import base_cutter  # transforms import re-heavy code: only when asked

        steps.append(base_cutter(options.base))
    if options.reverse:
        steps.append(lambda stack: stack[::-1])
    if options.mark_wakers:
        steps.append(_mark_wakers)
    if not steps:
        return None

    def rewrite(stack: Stack) -> Stack | None:
        for step in steps:
            rewritten = step(stack)
            if rewritten is None:
                return None
            stack = rewritten
        return stack

    return rewrite


def _mark_wakers(stack: Stack) -> Stack:
    """As flamegraph.pl --colors chain: frames after a ``--`` separator are wakers (``_[w]``)."""
    if "--" not in stack:
        return stack
    first = stack.index("--")
    return stack[: first + 1] + tuple(f if f == "--" else f + "_[w]" for f in stack[first + 1 :])


def bisect_frame(stacks: list[Stack], lo: int, hi: int, depth: int, name: str, after: bool = True) -> int:
    """The first of the sorted rows [lo, hi) whose frame at ``depth`` is after ``name`` (``after``;
    else not before it).

    The rows must share their first ``depth`` frames and be longer, so the frame at ``depth``
    alone orders them: a binary search comparing that one frame. Comparing the prefixes down
    to it (``bisect(stacks, stack[:depth + 1] + ...)``) cost time in the depth at every level:
    quadratic for deep stacks (two stacks 100,000 deep took 22-50 s in svg, html and text).
    """
    while lo < hi:
        middle = (lo + hi) // 2
        frame = stacks[middle][depth]
        if name < frame or (not after and name == frame):
            hi = middle
        else:
            lo = middle + 1
    return lo


def _groups_sorted(
    stacks: list[Stack], cum: list[Number], lo: int, hi: int, depth: int, min_value: float
) -> tuple[range, list[Group]]:
    """Sorted rows [lo, hi) of a frame at ``depth``: its own rows (they sort first) and its children wide enough."""
    i = lo
    while i < hi and len(stacks[i]) == depth:
        i += 1
    own = range(lo, i)
    groups: list[Group] = []
    end_total = cum[hi]
    while i < hi:
        rest = end_total - cum[i]
        if rest < min_value or not rest:  # every child from here on is narrower
            break
        j = bisect_frame(stacks, i + 1, hi, depth, stacks[i][depth])
        value = cum[j] - cum[i]
        if value >= min_value and value:
            groups.append((i, j))
        i = j
    return own, groups


def _groups_in_order(
    stacks: list[Stack], cum: list[Number], lo: int, hi: int, depth: int, min_value: float
) -> tuple[list[int], list[Group]]:
    """Rows [lo, hi) in time order: the frame's own rows and its children, each a run of neighbours."""
    own: list[int] = []
    groups: list[Group] = []
    i = lo
    while i < hi:
        stack = stacks[i]
        if len(stack) == depth:
            own.append(i)
            i += 1
            continue
        name = stack[depth]
        j = i + 1
        while j < hi and len(stacks[j]) > depth and stacks[j][depth] == name:
            j += 1
        value = cum[j] - cum[i]
        if value >= min_value and value:
            groups.append((i, j))
        i = j
    return own, groups


def layout(profile: Drawable, options: LayoutOptions | None = None, *, colour_by: FlameGraph | None = None) -> Layout:
    """The frames of ``profile`` (FlameGraph, Differential or FlameChart) laid out with ``options``.

    ``colour_by``: a second metric of the same stacks (a FlameGraph: e.g. instructions beside
    cycles), summed per frame with its callees into ``columns.seconds`` (:meth:`Layout.ratios`);
    widths stay ``profile``'s. A flame chart is aggregated first."""
    if options is None:
        options = LayoutOptions()
    elif not isinstance(options, LayoutOptions):
        raise ArgumentError(
            f"layout() takes LayoutOptions, not {type(options).__name__} (SvgOptions.layout_options() gives them)"
        )
    if options.flamechart and isinstance(profile, FlameChart) and colour_by is None:
        return chart_layout(profile, options)
    rows, differential = rows_of(profile, options, colour_by)
    rewrite = _rewriter(options)
    if rewrite is not None:
        rows = ((s, v, b) for s, v, b in ((rewrite(s), v, b) for s, v, b in rows) if s is not None)
    rows = list(rows)
    if not options.flamechart:
        rows.sort(key=itemgetter(0))  # by stack: siblings in name order, own rows before children
    stacks = [row[0] for row in rows]
    values = [row[1] for row in rows]
    thirds = [row[2] for row in rows] if differential or colour_by is not None else None
    del rows
    if colour_by is not None:
        return place(stacks, values, None, options, seconds=thirds)
    return place(stacks, values, thirds, options)


def _total(actual: Number, options: LayoutOptions, warnings: list[str]) -> Number:
    """What the full width stands for: the profile's total, or ``--total`` when that is larger
    (to draw several profiles to one scale); a smaller one is ignored with a warning."""
    if options.total is None:
        return actual
    if options.total < actual:
        warnings.append(f"--total {options.total:g} is less than the actual total {actual:g}, so it is ignored")
        return actual
    return options.total


def chart_layout(chart: FlameChart, options: LayoutOptions) -> Layout:
    """A flame chart in real time order (:mod:`.timeline`): x is time from the first stretch
    (in the chart's unit; weights that are no time are laid end to end per thread), gaps stay
    empty, ``all`` spans the whole. Threads are lanes stacked one above the other, each under
    a frame named after the thread as wide as the whole (when there are several), so threads
    that ran at the same time are drawn at the same x."""
    from .timeline import prune, timeline

    drawn = timeline(chart, _rewriter(options))
    scale = drawn.scale if drawn.scale and drawn.scale != 1 else None  # positions in ns -> the chart's unit
    warnings: list[str] = []
    total = _total(drawn.end / scale if scale else drawn.end, options, warnings)
    if not total or not len(drawn):
        return Layout(None, 0, 0, False, options, warnings)
    least = options.least_value(total)
    if least:
        prune(drawn, least * scale if scale else least)
    columns = Columns()
    names, depths, starts, values, selfs = columns.names, columns.depths, columns.starts, columns.values, columns.selfs
    lanes = len(drawn.lanes) > 1
    outermost = [v for v, d in zip(drawn.value, drawn.depth) if d == 0]
    names.append(ROOT_NAME)
    depths.append(0)
    starts.append(0)
    values.append(total)
    selfs.append(0 if lanes else total - (sum(outermost) / scale if scale else sum(outermost)))
    base, index = 1, 0
    for lane, name in enumerate(drawn.lanes):
        if lanes:
            inside = sum(v for v, d, k in zip(drawn.value, drawn.depth, drawn.lane) if d == 0 and k == lane)
            names.append(name)
            depths.append(base)
            starts.append(0)
            values.append(total)
            selfs.append(total - (inside / scale if scale else inside))
        offset = base + 1 if lanes else base
        while index < len(drawn.lane) and drawn.lane[index] == lane:
            names.append(drawn.name[index])
            depths.append(offset + drawn.depth[index])
            start, value, own = drawn.start[index], drawn.value[index], drawn.self[index]
            starts.append(start / scale if scale else start)
            values.append(value / scale if scale else value)
            selfs.append(own / scale if scale else own)
            index += 1
        base = offset + drawn.depths[lane]
    return Layout(columns, total, max(depths), False, options, warnings)


def place(
    stacks: list[Stack],
    values: list[Number],
    befores: list[Number] | None,
    options: LayoutOptions,
    *,
    seconds: list[Number] | None = None,
) -> Layout:
    """Start, value, own value (and change, or second metric) of every frame wide enough to keep, parents first.

    ``stacks`` sorted (or in time order for a flame chart), ``values`` and, for differential
    input, ``befores`` beside them; ``seconds``: a second metric per stack, summed per frame.
    """
    differential = befores is not None
    warnings: list[str] = []
    cum = list(accumulate(values, initial=0))
    actual = cum[-1]
    total = _total(actual, options, warnings)
    if not total:
        return Layout(None, 0, 0, differential, options, warnings)
    min_value = options.least_value(total)
    chart = options.flamechart
    by_value = options.sort_by_value and not chart
    children = _groups_in_order if chart else _groups_sorted
    before_cum = list(accumulate(befores, initial=0)) if befores is not None else []
    second_cum = list(accumulate(seconds, initial=0)) if seconds is not None else []
    self_delta = options.delta == "self"

    columns = Columns()
    names, starts, depths, frame_values, selfs = columns.names, columns.starts, columns.depths, columns.values, columns.selfs
    deltas: list[Number] = []
    frame_seconds: list[Number] = []
    pending: list[tuple[int, int, int, Number]] = [(0, len(stacks), 0, 0)]  # rows [lo, hi), depth, x in values
    while pending:
        lo, hi, depth, x = pending.pop()
        value = cum[hi] - cum[lo]
        if hi - lo == 1 and depth:  # one stack: the rest of it is a chain of frames as wide as this one
            chain = stacks[lo][depth - 1 :]
            count = len(chain)
            names += chain
            depths += range(depth, depth + count)
            starts += repeat(x, count)
            frame_values += repeat(value, count)
            selfs += repeat(0, count - 1)
            selfs.append(value)
            if befores is not None:
                change = value - befores[lo]
                if self_delta:
                    deltas += repeat(0, count - 1)
                    deltas.append(change)
                else:
                    deltas += repeat(change, count)
            if seconds is not None:
                frame_seconds += repeat(seconds[lo], count)
            continue
        own, groups = children(stacks, cum, lo, hi, depth, min_value)
        own_value = sum([values[r] for r in own])
        names.append(stacks[lo][depth - 1] if depth else ROOT_NAME)
        depths.append(depth)
        starts.append(x)
        frame_values.append(value if depth else total)
        selfs.append(own_value)
        if befores is not None:
            if self_delta:
                deltas.append(own_value - sum([befores[r] for r in own]))
            else:
                deltas.append(value - (before_cum[hi] - before_cum[lo]))
        if seconds is not None:
            frame_seconds.append(second_cum[hi] - second_cum[lo])
        if not groups:
            continue
        if by_value:
            groups.sort(key=lambda group: cum[group[0]] - cum[group[1]])  # widest first; name order kept for ties
            offset = x + own_value
            placed = []
            for start, end in groups:
                placed.append((start, end, depth + 1, offset))
                offset += cum[end] - cum[start]
            pending += reversed(placed)
        else:
            pending += [(start, end, depth + 1, cum[start]) for start, end in reversed(groups)]

    if befores is not None:
        columns.deltas = deltas
    if seconds is not None:
        columns.seconds = frame_seconds
    return Layout(columns, total, max(depths), differential, options, warnings, actual)
