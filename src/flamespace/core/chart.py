"""Flame charts: samples in time order, per thread. Summing a chart gives its flame graph.

This module imports nothing at load time (``array`` on the first chart made): the sampler
records into a chart inside the profiled interpreter, where every extra import would be
missing from the program's start-up profile, and the commands that never make a chart
(``text``, ``info``) would pay for ``array``, which imports ``collections``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from array import array
    from typing import Any, Dict, Iterator, List, Optional, Tuple

    from .metadata import Metadata
    from .._types import Number, Stack
    from .vector import FlameGraph

    _Sample = Tuple[int, str, Stack, Number]
else:
    _Sample = tuple

    def array(*args):
        """array.array, imported on first use (it replaces this function)."""
        global array
        from array import array

        return array(*args)


class ChartSample(_Sample):
    """One sample: when it was taken (ns from the chart's start), on which thread, what, how much.

    A named tuple written out (``collections.namedtuple`` costs start-up time): the same
    fields, tuple behaviour, repr and pickling."""

    __slots__ = ()
    _fields = ("timestamp", "thread", "stack", "weight")

    def __new__(cls, timestamp: int, thread: str, stack: Stack, weight: Number) -> "ChartSample":
        return tuple.__new__(cls, (timestamp, thread, stack, weight))

    @property
    def timestamp(self) -> int:
        return self[0]

    @property
    def thread(self) -> str:
        return self[1]

    @property
    def stack(self) -> Stack:
        return self[2]

    @property
    def weight(self) -> Number:
        return self[3]

    def __repr__(self) -> str:
        return "ChartSample(timestamp=%r, thread=%r, stack=%r, weight=%r)" % tuple(self)

    def __getnewargs__(self) -> "Tuple[Any, ...]":
        return tuple(self)

    def _asdict(self) -> "Dict[str, Any]":
        return dict(zip(self._fields, self))

    def _replace(self, **changes: Any) -> "ChartSample":
        values = {**self._asdict(), **changes}
        if len(values) != len(self._fields):
            raise ValueError(f"Got unexpected field names: {sorted(set(changes) - set(self._fields))!r}")
        return ChartSample(**values)


class FlameChart:
    """Time-ordered samples, stored column-wise so long recordings stay small.

    Stacks and thread names are interned: each sample costs four machine words. Samples
    are appended in time order by the recorder (``append``); readers iterate ``samples()``
    or sum with ``graph()``.
    """

    def __init__(self, metadata: Optional[Metadata] = None) -> None:
        self.metadata = metadata
        self.stacks: List[Stack] = []
        self.threads: List[str] = []
        self._stack_ids: Dict[Stack, int] = {}
        self._thread_ids: Dict[str, int] = {}
        self._timestamps = array("q")
        self._thread_column = array("l")
        self._stack_column = array("l")
        self._weights: List[Number] = []

    @classmethod
    def from_columns(
        cls,
        stacks: List[Stack],
        threads: List[str],
        timestamps: "array[int]",
        thread_ids: "array[int]",
        stack_ids: "array[int]",
        weights: List[Number],
        metadata: Optional[Metadata] = None,
    ) -> "FlameChart":
        """A chart over columns another chart's ``columns()`` gave (e.g. from another process)."""
        chart = cls(metadata)
        chart.stacks, chart.threads = list(stacks), list(threads)
        chart._stack_ids = {stack: i for i, stack in enumerate(chart.stacks)}
        chart._thread_ids = {thread: i for i, thread in enumerate(chart.threads)}
        chart._timestamps, chart._thread_column = array("q", timestamps), array("l", thread_ids)
        chart._stack_column, chart._weights = array("l", stack_ids), list(weights)
        return chart

    def append(self, timestamp: int, thread: str, stack: Stack, weight: Number) -> None:
        stack_id = self._stack_ids.get(stack)
        if stack_id is None:
            stack_id = self._stack_ids[stack] = len(self.stacks)
            self.stacks.append(stack)
        thread_id = self._thread_ids.get(thread)
        if thread_id is None:
            thread_id = self._thread_ids[thread] = len(self.threads)
            self.threads.append(thread)
        self._timestamps.append(timestamp)
        self._thread_column.append(thread_id)
        self._stack_column.append(stack_id)
        self._weights.append(weight)

    def merged(self, other: "FlameChart") -> "FlameChart":
        """Both charts' samples in one chart, in time order (for processes recorded side by side)."""
        samples = sorted([*self.samples(), *other.samples()], key=lambda s: s.timestamp)
        chart = FlameChart(self.metadata)
        for sample in samples:
            chart.append(*sample)
        return chart

    def relabelled(self, shift: int = 0, root: Stack = (), thread_suffix: str = "") -> "FlameChart":
        """The same samples moved in time by ``shift`` ns, stacks under ``root``, threads renamed."""
        chart = FlameChart(self.metadata)
        for timestamp, thread, stack, weight in self.samples():
            chart.append(timestamp + shift, thread + thread_suffix, root + stack, weight)
        return chart

    def __len__(self) -> int:
        return len(self._timestamps)

    def samples(self) -> Iterator[ChartSample]:
        stacks, threads = self.stacks, self.threads
        for timestamp, thread_id, stack_id, weight in zip(
            self._timestamps, self._thread_column, self._stack_column, self._weights
        ):
            yield ChartSample(timestamp, threads[thread_id], stacks[stack_id], weight)

    def columns(self) -> Tuple["array[int]", "array[int]", "array[int]", List[Number]]:
        """(timestamps, thread ids, stack ids, weights): the raw columns, for writers that stream."""
        return self._timestamps, self._thread_column, self._stack_column, self._weights

    def graph(self) -> FlameGraph:
        """The flame graph of the chart: every stack's weights summed over time and threads."""
        from .metadata import EMPTY
        from .vector import FlameGraph

        totals: Dict[int, Number] = {}
        for stack_id, weight in zip(self._stack_column, self._weights):
            totals[stack_id] = totals.get(stack_id, 0) + weight
        values = {self.stacks[i]: v for i, v in totals.items() if v > 0}
        return FlameGraph._trusted(values, self.metadata or EMPTY)

    def __repr__(self) -> str:
        unit = self.metadata.unit if self.metadata else None
        return f"FlameChart({len(self)} samples, {len(self.threads)} threads, unit={unit!r})"
