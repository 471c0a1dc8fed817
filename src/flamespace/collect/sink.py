"""Where recorders put what they measure: totals per stack and, on request, the timeline."""

from __future__ import annotations

from ..core.chart import FlameChart

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..core.metadata import Metadata
    from .._types import Number, Stack
    from ..core.vector import FlameGraph


class Sink:
    """Accumulates ``add(stack, weight, timestamp, thread)`` calls.

    Totals are kept per stack (memory grows with distinct stacks, not with time). With
    ``timeline=True`` every sample is also kept in time order in a :class:`FlameChart`,
    which is what flame-chart formats such as speedscope need.
    """

    def __init__(self, timeline: bool = False) -> None:
        self.totals: dict[Stack, Number] = {}
        self.chart: FlameChart | None = FlameChart() if timeline else None

    def add(self, stack: Stack, weight: Number, timestamp: int = 0, thread: str = "") -> None:
        if weight <= 0:
            return
        totals = self.totals
        totals[stack] = totals.get(stack, 0) + weight
        if self.chart is not None:
            self.chart.append(timestamp, thread, stack, weight)

    def graph(self, metadata: Metadata | None = None) -> FlameGraph:
        """The flame graph of everything added so far (a copy: recording may go on)."""
        return _graph(dict(self.totals), metadata)

    def take(self, metadata: Metadata | None = None) -> FlameGraph:
        """The flame graph so far, starting afresh (for profiles written every N seconds)."""
        totals, self.totals = self.totals, {}
        if self.chart is not None:
            self.chart = FlameChart()
        return _graph(totals, metadata)


def _graph(totals: dict[Stack, Number], metadata: Metadata | None) -> FlameGraph:
    from ..core.metadata import EMPTY
    from ..core.vector import FlameGraph

    return FlameGraph._trusted(totals, metadata or EMPTY)


__all__ = ["Sink"]
