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
    from typing import Callable, Dict, List, Optional

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

    def __init__(self, lanes: List[str], unit: Optional[str], scale: Optional[float]) -> None:
        self.lanes = lanes
        self.depths: List[int] = [0] * len(lanes)
        self.lane: List[int] = []
        self.depth: List[int] = []
        self.start: List[Number] = []
        self.value: List[Number] = []
        self.self: List[Number] = []
        self.name: List[str] = []
        self.end: Number = 0
        self.unit, self.scale = unit, scale
        self.time = scale is not None

    def __len__(self) -> int:
        return len(self.name)

    def boxes(self, lane: int) -> List[tuple]:
        """(depth, start, end, name) of one lane's boxes, in order (for tests and tools)."""
        return [(d, s, s + v, n) for i, (d, s, v, n) in enumerate(zip(self.depth, self.start, self.value, self.name))
                if self.lane[i] == lane]


def timeline(chart: FlameChart, rewrite: Optional[Callable[[Stack], Optional[Stack]]] = None,
             min_value: Number = 0) -> Timeline:
    """The boxes of ``chart`` (see the module's docstring); ``rewrite`` changes each stack (None:
    the stretch is left out, a gap); boxes narrower than ``min_value`` are left out, with their children."""
    per_lane = chart.intervals()
    lanes = [chart.threads[thread] for thread in per_lane]
    drawn = Timeline(lanes, chart.unit, chart.time_scale())
    origin = min((spans[0][0] for spans in per_lane.values() if spans), default=0) if drawn.time else 0
    stacks: List[Optional[Stack]] = list(chart.stacks) if rewrite is None else [rewrite(stack) for stack in chart.stacks]
    end: Number = 0
    for lane, spans in enumerate(per_lane.values()):
        lane_end = _lane(drawn, lane, spans, stacks, origin)
        end = max(end, lane_end)
    drawn.end = end
    if min_value:
        prune(drawn, min_value)
    return drawn


def _lane(drawn: Timeline, lane: int, spans: List[tuple], stacks: List[Optional[Stack]], origin: Number) -> Number:
    """Append one lane's boxes; return where its last stretch ends."""
    lanes, depths, starts, values, selfs, names = drawn.lane, drawn.depth, drawn.start, drawn.value, drawn.self, drawn.name
    open_boxes: List[int] = []  # index of the open box at each depth
    open_stack: Stack = ()
    cursor: Number = 0
    rows = 0

    def close(keep: int, at: Number) -> None:
        while len(open_boxes) > keep:
            box = open_boxes.pop()
            values[box] = at - starts[box]

    for start, end, stack_id in spans:
        stack = stacks[stack_id]
        start -= origin
        end -= origin
        if start > cursor or not stack:  # a gap, or a stretch in no frame: every box ends
            close(0, cursor)
            open_stack = ()
        if not stack:
            cursor = end
            continue
        depth_open, depth_new = len(open_stack), len(stack)
        if depth_new >= depth_open and stack[:depth_open] == open_stack:  # a call (or the same stack): C compares
            common = depth_open
        elif depth_new < depth_open and open_stack[:depth_new] == stack:  # a return
            common = depth_new
        else:
            common = 0
            while stack[common] == open_stack[common]:  # they differ before the shorter one ends
                common += 1
        close(common, start)
        for depth in range(common, len(stack)):
            open_boxes.append(len(names))
            lanes.append(lane)
            depths.append(depth)
            starts.append(start)
            values.append(0)
            selfs.append(0)
            names.append(stack[depth])
        selfs[open_boxes[-1]] += end - start
        if len(stack) > rows:
            rows = len(stack)
        open_stack = stack
        cursor = end
    close(0, cursor)
    drawn.depths[lane] = rows
    return cursor


def prune(drawn: Timeline, min_value: Number) -> None:
    """Leave out boxes narrower than ``min_value`` (a child is never wider than its box)."""
    keep = [value >= min_value for value in drawn.value]
    for field in ("lane", "depth", "start", "value", "self", "name"):
        setattr(drawn, field, [x for x, kept in zip(getattr(drawn, field), keep) if kept])
    rows: Dict[int, int] = {}
    for lane, depth in zip(drawn.lane, drawn.depth):
        rows[lane] = max(rows.get(lane, 0), depth + 1)
    drawn.depths = [rows.get(lane, 0) for lane in range(len(drawn.lanes))]


__all__ = ["Timeline", "prune", "timeline"]
