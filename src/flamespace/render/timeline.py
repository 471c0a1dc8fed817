"""Flame chart layout: a :class:`~flamespace.core.chart.FlameChart` -> the boxes of a flame
chart, one lane per thread on one time axis (pure: no pixels, fonts, colours or files).

Each sample covers the stretch of time :func:`~flamespace.core.chart.intervals` gives it. On
a lane, a frame is one box for as long as consecutive stretches keep it open: a gap (nothing
of the thread ran or was recorded) or another frame at its depth ends it, so a function that
ran in six separate intervals is six boxes, in time order. Two calls of one function back to
back, with not even their caller's own time between them, are one box: the chart keeps
stretches of a stack, not calls.

Positions are ns from the earliest stretch when the weights are times, else weight units
laid end to end per lane (the chart then keeps order, not time). The emitters turn a
:class:`Timeline` into pictures: ``layout.layout(chart, LayoutOptions(flamechart=True))``
for the SVG (lanes stacked), :mod:`.chart_html` for the HTML flame chart.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    from .._types import Number, Stack
    from ..core.chart import FlameChart


class Timeline:
    """The boxes of a flame chart, lane by lane, each lane's parents before their children.

    Columns (one list per field): ``lane`` (index into ``lanes``, the thread names), ``depth``
    (0 for a lane's outermost frames), ``start``, ``value`` (length), ``self`` (time in no
    child box), ``name``. ``depths``: each lane's number of rows. ``end``: where the axis
    ends (it starts at 0). ``time``: positions are ns (else the chart's weight units, in
    order); ``unit``: the chart's weight unit; ``scale``: ns per unit of weight (None if no time).
    """

    __slots__ = ("lanes", "depths", "lane", "depth", "start", "value", "self", "name", "end", "time", "unit", "scale")

    def __init__(self, lanes: list[str], unit: str | None, scale: float | None) -> None:
        self.lanes = lanes
        self.depths: list[int] = [0] * len(lanes)
        self.lane: list[int] = []
        self.depth: list[int] = []
        self.start: list[Number] = []
        self.value: list[Number] = []
        self.self: list[Number] = []
        self.name: list[str] = []
        self.end: Number = 0
        self.unit, self.scale = unit, scale
        self.time = scale is not None

    def __len__(self) -> int:
        return len(self.name)

    def boxes(self, lane: int) -> list[tuple]:
        """(depth, start, end, name) of one lane's boxes, in order (for tests and tools)."""
        return [
            (d, s, s + v, n)
            for i, (d, s, v, n) in enumerate(zip(self.depth, self.start, self.value, self.name))
            if self.lane[i] == lane
        ]


def timeline(chart: FlameChart, rewrite: Callable[[Stack], Stack | None] | None = None, min_value: Number = 0) -> Timeline:
    """The boxes of ``chart`` (see the module's docstring); ``rewrite`` changes each stack (None:
    the stretch is left out, a gap); boxes narrower than ``min_value`` are left out, with their children.
    Laid out with array operations (see :func:`_lane`): traces have millions of stretches."""
    from ..core.chart import interval_arrays

    scale = chart.time_scale()
    per_lane = [
        (thread, stack_ids, *interval_arrays(times, weights, scale))
        for thread, times, stack_ids, weights in chart.thread_columns()
    ]
    drawn = Timeline([chart.threads[thread] for thread, *_ in per_lane], chart.unit, scale)
    origin: Number = min((starts[:1].tolist()[0] for _, _, starts, _ in per_lane), default=0) if drawn.time else 0
    stacks: list[Stack | None] = list(chart.stacks) if rewrite is None else [rewrite(stack) for stack in chart.stacks]
    end: Number = 0
    for lane, (_, stack_ids, starts, ends) in enumerate(per_lane):
        lane_end = _lane(drawn, lane, starts - origin, ends - origin, stack_ids, stacks)
        end = max(end, lane_end)
    drawn.end = end
    if min_value:
        prune(drawn, min_value)
    return drawn


def _common(stack: Stack, other: Stack) -> int:
    """How many outer frames two stacks share."""
    depth_other, depth = len(other), len(stack)
    if depth >= depth_other and stack[:depth_other] == other:  # a call (or the same stack): C compares
        return depth_other
    if depth < depth_other and other[:depth] == stack:  # a return
        return depth
    common = 0
    while stack[common] == other[common]:  # they differ before the shorter one ends
        common += 1
    return common


def _lane(drawn: Timeline, lane: int, starts: Any, ends: Any, stack_ids: Any, stacks: list[Stack | None]) -> Number:
    """Append one lane's boxes (numpy arrays of its stretches: starts, ends, stack ids); return
    where its last stretch ends.

    A stretch keeps the frames it shares with the stretch before (``common``), unless a gap
    (it starts after that one ended) or a stretch in no frame comes between: those end every
    box. The rest of its frames open boxes, outermost first. Each box opened at depth d is
    closed where the next stretch keeps fewer than d + 1 frames; opening and closing nest as
    brackets do, so at each depth the k-th opening is closed by the k-th closing, and a sort
    by (depth, stretch) pairs them without a stack walked per stretch."""
    from itertools import chain

    import numpy

    n = len(stack_ids)
    if not n:
        return 0
    depth_of = numpy.array([len(stack) if stack else 0 for stack in stacks], dtype=numpy.int64)
    length = depth_of[stack_ids]
    before: Any = numpy.empty_like(ends)  # where the stretch before ended (the lane's cursor; 0 first)
    before[0] = 0
    before[1:] = ends[:-1]
    ended = (starts > before) | (length == 0)  # a gap, or a stretch in no frame: every box ends
    common: Any = numpy.zeros(n, dtype=numpy.int64)
    follows = numpy.flatnonzero(~ended[1:] & (length[:-1] > 0)) + 1  # shares frames with the stretch before
    if len(follows):
        pairs = stack_ids[follows - 1].astype(numpy.int64) * len(stacks) + stack_ids[follows]
        unique, inverse = numpy.unique(pairs, return_inverse=True)
        shared = [_common(stacks[pair % len(stacks)], stacks[pair // len(stacks)]) for pair in unique.tolist()]
        common[follows] = numpy.array(shared, dtype=numpy.int64)[inverse.reshape(-1)]
    # openings: each stretch's frames past ``common``, in order (stretch, then depth)
    opened = length - common
    first_box = numpy.cumsum(opened) - opened
    count = int(opened.sum())
    box_stretch: Any = numpy.repeat(numpy.arange(n), opened)
    box_depth = common[box_stretch] + numpy.arange(count) - first_box[box_stretch]
    # closings: before each stretch, the frames of the one before past ``common``; at the end, all
    previous_length = numpy.concatenate(([0], length))
    closed = previous_length - numpy.append(common, 0)
    close_stretch: Any = numpy.repeat(numpy.arange(n + 1), closed)
    close_depth = numpy.append(common, 0)[close_stretch] + numpy.arange(count) - (numpy.cumsum(closed) - closed)[close_stretch]
    at: Any = numpy.empty(n + 1, dtype=ends.dtype)  # where boxes closed before each stretch end
    at[:n] = numpy.where(ended, before, starts)
    at[n] = ends[-1]
    box_order = numpy.argsort(box_depth * (n + 1) + box_stretch, kind="stable")
    close_order = numpy.argsort(close_depth * (n + 1) + close_stretch, kind="stable")
    box_start = starts[box_stretch]
    box_end: Any = numpy.empty_like(box_start)
    box_end[box_order] = at[close_stretch[close_order]]
    # self: each stretch's length to the innermost box open over it (the last opened at its depth)
    framed = numpy.flatnonzero(length > 0)
    innermost = (first_box + opened - 1)[framed]  # a stretch that opens boxes: its last
    kept = numpy.flatnonzero(opened[framed] == 0)  # one that opens none (a return, or the same stack): found by depth
    keys = (box_depth * (n + 1) + box_stretch)[box_order]
    found = framed[kept]
    innermost[kept] = box_order[numpy.searchsorted(keys, (length[found] - 1) * (n + 1) + found, side="right") - 1]
    selfs: Any = numpy.zeros(count, dtype=ends.dtype)
    numpy.add.at(selfs, innermost, ends[framed] - starts[framed])
    frames: Any = numpy.empty(int(depth_of.sum()), dtype=object)  # every stack's frames, end to end
    frames[:] = list(chain.from_iterable(stack for stack in stacks if stack))
    first_frame = numpy.cumsum(depth_of) - depth_of
    drawn.lane.extend([lane] * count)
    drawn.depth.extend(box_depth.tolist())
    drawn.start.extend(box_start.tolist())
    drawn.value.extend((box_end - box_start).tolist())
    drawn.self.extend(selfs.tolist())
    drawn.name.extend(frames[first_frame[stack_ids[box_stretch]] + box_depth].tolist())
    drawn.depths[lane] = int(length.max())
    last: Number = ends[-1:].tolist()[0]
    return last


def prune(drawn: Timeline, min_value: Number) -> None:
    """Leave out boxes narrower than ``min_value`` (a child is never wider than its box). Per box
    in C (``map``, ``compress``, numpy), as a trace's chart has a box per call."""
    from itertools import compress, repeat
    from operator import ge

    import numpy

    keep = list(map(ge, drawn.value, repeat(min_value)))
    for field in ("lane", "depth", "start", "value", "self", "name"):
        setattr(drawn, field, list(compress(getattr(drawn, field), keep)))
    rows: Any = numpy.zeros(len(drawn.lanes), dtype=numpy.int64)
    numpy.maximum.at(rows, numpy.array(drawn.lane, dtype=numpy.intp), numpy.array(drawn.depth, dtype=numpy.int64) + 1)
    drawn.depths = rows.tolist()


__all__ = ["Timeline", "prune", "timeline"]
