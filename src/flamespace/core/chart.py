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
    from typing import Any
    from collections.abc import Iterator, Sequence

    from .metadata import Metadata
    from .._types import Number, Stack
    from .vector import FlameGraph

    _Sample = tuple[int, str, Stack, Number]
else:
    _Sample = tuple

    def array(*args):
        """array.array, imported on first use (it replaces this function)."""
        global array
        from array import array

        return array(*args)


#: The latest time (and the longest span) in ns a reader puts into a chart: timestamps are signed
#: 64-bit ns, and two times of at most this magnitude still differ by less than 2**63 (about 146
#: years each way; 2**62 also leaves room for a float's rounding, which turns 2**63 - 1 into 2**63).
LATEST_NS = 2**62


class ChartSample(_Sample):
    """One sample: when it was taken (ns from the chart's start), on which thread, what, how much.

    A named tuple written out (``collections.namedtuple`` costs start-up time): the same
    fields, tuple behaviour, repr and pickling."""

    __slots__ = ()
    _fields = ("timestamp", "thread", "stack", "weight")

    def __new__(cls, timestamp: int, thread: str, stack: Stack, weight: Number) -> ChartSample:
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

    def __getnewargs__(self) -> tuple[Any, ...]:
        return tuple(self)

    def _asdict(self) -> dict[str, Any]:
        return dict(zip(self._fields, self))

    def _replace(self, **changes: Any) -> ChartSample:
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

    def __init__(self, metadata: Metadata | None = None) -> None:
        self.metadata = metadata
        self.stacks: list[Stack] = []
        self.threads: list[str] = []
        self._stack_ids: dict[Stack, int] = {}
        self._thread_ids: dict[str, int] = {}
        self._timestamps = array("q")
        self._thread_column = array("l")
        self._stack_column = array("l")
        self._weights: list[Number] | array[int] = []

    @classmethod
    def from_columns(
        cls,
        stacks: list[Stack],
        threads: list[str],
        timestamps: Sequence[int],
        thread_ids: Sequence[int],
        stack_ids: Sequence[int],
        weights: Sequence[Number],
        metadata: Metadata | None = None,
    ) -> FlameChart:
        """A chart over columns another chart's ``columns()`` gave (e.g. from another process),
        or numpy arrays of them (copied as machine words, not element by element). Integer
        weights given as an ``array('q')`` or an integer numpy array stay in one: 8 bytes a
        sample, no Python object each."""
        chart = cls(metadata)
        chart.stacks, chart.threads = list(stacks), list(threads)
        chart._stack_ids = {stack: i for i, stack in enumerate(chart.stacks)}
        chart._thread_ids = {thread: i for i, thread in enumerate(chart.threads)}
        chart._timestamps, chart._thread_column = _column("q", timestamps), _column("l", thread_ids)
        chart._stack_column = _column("l", stack_ids)
        integral = getattr(weights, "typecode", None) == "q" or getattr(getattr(weights, "dtype", None), "kind", None) == "i"
        chart._weights = _column("q", weights) if integral else list(weights)
        return chart

    @classmethod
    def from_segments(
        cls,
        stacks: list[Stack],
        threads: list[str],
        segments: list[tuple[bytes, bytes, bytes, bytes]],
        origin: int,
        metadata: Metadata | None = None,
    ) -> FlameChart:
        """A chart over a tracer's stretches: per thread (its index in ``threads``), their end
        times, nodes and lengths as int64 bytes, and each node's stack id (-1: no stack, left
        out) as int64 bytes; times count from ``origin``. The columns are made from these on
        first use, with numpy, so the traced process need not import numpy (a tenth of a
        second) and sends the bytes as they are."""
        chart = cls(metadata)
        chart.stacks, chart.threads = list(stacks), list(threads)
        chart._stack_ids = {stack: i for i, stack in enumerate(chart.stacks)}
        chart._thread_ids = {thread: i for i, thread in enumerate(chart.threads)}
        for name in _COLUMNS:  # made by __getattr__ when first asked for
            delattr(chart, name)
        chart.__dict__["_segments"] = (list(segments), origin)
        return chart

    @classmethod
    def in_time_order(
        cls,
        stacks: list[Stack],
        threads: list[str],
        times: Any,
        thread_ids: Any,
        stack_ids: Any,
        weights: Any,
        metadata: Metadata | None = None,
    ) -> FlameChart:
        """The chart ``append`` would make of these samples (numpy columns: int64 times, ids into
        ``stacks`` and ``threads``, int64 or object weights) taken in time order (a stable sort:
        of one time, in the order given). ``stacks`` and ``threads`` may repeat a value: both
        are one, as for ``append``. For readers of long traces, with array operations."""
        import numpy

        order = numpy.argsort(times, kind="stable")
        unique_stacks: list[Stack] = []
        unique_threads: list[str] = []
        columns = [
            times[order],
            _interned(threads, unique_threads)[thread_ids[order]],
            _interned(stacks, unique_stacks)[stack_ids[order]],
            weights[order],
        ]
        return _first_seen(unique_stacks, unique_threads, columns, metadata)

    if not TYPE_CHECKING:  # hidden from mypy, which would take any misspelt attribute for a column

        def __getattr__(self, name):
            """The columns of a chart :meth:`from_segments` made, built on first use."""
            pending = self.__dict__.get("_segments")
            if pending is None or name not in _COLUMNS:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            self.__dict__.update(_segment_columns(*pending))
            del self.__dict__["_segments"]
            return self.__dict__[name]

    def append(self, timestamp: int, thread: str, stack: Stack, weight: Number) -> None:
        stack_id = self._stack_ids.get(stack)
        if stack_id is None:
            stack_id = self._stack_ids[stack] = len(self.stacks)
            self.stacks.append(stack)
        thread_id = self._thread_ids.get(thread)
        if thread_id is None:
            thread_id = self._thread_ids[thread] = len(self.threads)
            self.threads.append(thread)
        self._timestamps.append(timestamp)  # first: if it is refused, nothing was added
        try:
            self._weights.append(weight)  # type: ignore[arg-type]  # a list's, or an int into the array
        except (
            TypeError,
            OverflowError,
        ):  # a weight that is no int64 into a chart of int64 weights (from_columns): a list from now on
            self._weights = [*self._weights, weight]
        self._thread_column.append(thread_id)
        self._stack_column.append(stack_id)

    def merged(self, other: FlameChart) -> FlameChart:
        """Both charts' samples in one chart, in time order (for processes recorded side by side;
        a stable sort: of one time, this chart's first). Stacks and threads are numbered as
        they first come, as ``append`` numbers them; with array operations, as traces are long."""
        import numpy

        stacks, threads = list(self.stacks), list(self.threads)
        parts = []
        for chart in (self, other):
            times, thread_ids, stack_ids, weights = chart._arrays()
            parts.append(
                (times, _interned(chart.threads, threads)[thread_ids], _interned(chart.stacks, stacks)[stack_ids], weights)
            )
        columns = [numpy.concatenate([part[k] for part in parts]) for k in range(4)]
        order = numpy.argsort(columns[0], kind="stable")
        return _first_seen(stacks, threads, [column[order] for column in columns], self.metadata)

    def relabelled(self, shift: int = 0, root: Stack = (), thread_suffix: str = "") -> FlameChart:
        """The same samples moved in time by ``shift`` ns, stacks under ``root``, threads renamed."""
        times, thread_ids, stack_ids, weights = self._arrays()
        if len(times) and not (-(2**63) <= int(times.min()) + shift and int(times.max()) + shift < 2**63):
            raise OverflowError(f"moved by {shift} ns, the chart's times leave the signed 64-bit range")
        return _first_seen(
            [root + stack for stack in self.stacks],
            [thread + thread_suffix for thread in self.threads],
            [times + shift, thread_ids, stack_ids, weights],
            self.metadata,
        )

    def _arrays(self) -> tuple[Any, Any, Any, Any]:
        """The columns as numpy arrays (views where they can be): integer weights as int64, any
        others as an object array of the same Python numbers (so nothing is rounded)."""
        import numpy

        weights: Any = _numpy(self._weights) if not isinstance(self._weights, list) else numpy.array(self._weights)
        if weights.dtype.kind != "i" or weights.dtype.itemsize > 8:  # floats, mixed, huge ints: as they are
            weights = numpy.empty(len(self._weights), dtype=object)
            weights[:] = self._weights
        return _numpy(self._timestamps), _numpy(self._thread_column), _numpy(self._stack_column), weights

    def __len__(self) -> int:
        return len(self._timestamps)

    @property
    def unit(self) -> str | None:
        """The weights' unit (as :attr:`FlameGraph.unit`), if the metadata says."""
        return self.metadata.unit if self.metadata else None

    def samples(self) -> Iterator[ChartSample]:
        stacks, threads = self.stacks, self.threads
        for timestamp, thread_id, stack_id, weight in zip(
            self._timestamps, self._thread_column, self._stack_column, self._weights
        ):
            yield ChartSample(timestamp, threads[thread_id], stacks[stack_id], weight)

    def columns(self) -> tuple[array[int], array[int], array[int], Sequence[Number]]:
        """(timestamps, thread ids, stack ids, weights): the raw columns, for writers that stream."""
        return self._timestamps, self._thread_column, self._stack_column, self._weights

    def per_thread(self) -> dict[int, list[tuple[int, int, Number]]]:
        """Each thread's (timestamp, stack id, weight) samples in time order, threads (by id) in
        the order their first sample comes."""
        threads: dict[int, list[tuple[int, int, Number]]] = {}
        for timestamp, thread_id, stack_id, weight in zip(
            self._timestamps, self._thread_column, self._stack_column, self._weights
        ):
            threads.setdefault(thread_id, []).append((timestamp, stack_id, weight))
        return threads

    def thread_columns(self, by_name: bool = False) -> list[tuple[int, Any, Any, Any]]:
        """Each thread's (thread id, timestamps, stack ids, weights) as numpy arrays in time order,
        threads in the order their first sample comes (as :meth:`per_thread`), without a Python
        object per sample: the writers of long traces work on these. Integer weights come as
        int64, any others as an object array of the same Python numbers (so nothing is
        rounded). ``by_name``: threads of one name are one (its id: the first's)."""
        import numpy

        times, thread_ids, stack_ids, weights = self._arrays()
        if by_name and len(set(self.threads)) < len(self.threads):
            first: dict[str, int] = {}
            thread_ids = numpy.array([first.setdefault(name, i) for i, name in enumerate(self.threads)])[thread_ids]
        first_index: Any = numpy.full(len(self.threads), len(thread_ids), dtype=numpy.intp)  # each thread's first sample
        numpy.minimum.at(first_index, thread_ids, numpy.arange(len(thread_ids)))
        found = [int(thread) for thread in numpy.argsort(first_index, kind="stable") if first_index[thread] < len(thread_ids)]
        if len(found) <= 1:
            return [(found[0], times, stack_ids, weights)] if found else []
        order: Any = numpy.argsort(thread_ids, kind="stable")  # stable: each thread's samples keep their order
        bounds: Any = numpy.searchsorted(thread_ids[order], numpy.arange(len(self.threads) + 1))
        return [
            (thread, *(column[order[bounds[thread] : bounds[thread + 1]]] for column in (times, stack_ids, weights)))
            for thread in found
        ]

    def time_scale(self) -> float | None:
        """Nanoseconds per unit of weight when the weights are times (``ns``, ``ms``, ...), else None."""
        from .units import TIME_UNITS

        unit = self.metadata.unit if self.metadata else None
        return TIME_UNITS.get(unit) if unit else None

    def intervals(self) -> dict[int, list[tuple[Number, Number, int]]]:
        """Each thread's (start, end, stack id) per sample, in time order (see :func:`intervals`):
        in ns from the chart's start when the weights are times, else in weight units."""
        scale = self.time_scale()
        return {thread: list(intervals(samples, scale)) for thread, samples in self.per_thread().items()}

    def graph(self) -> FlameGraph:
        """The flame graph of the chart: every stack's weights summed over time and threads."""
        from .metadata import EMPTY
        from .vector import FlameGraph

        totals: dict[int, Number] = {}
        for stack_id, weight in zip(self._stack_column, self._weights):
            totals[stack_id] = totals.get(stack_id, 0) + weight
        values = {self.stacks[i]: v for i, v in totals.items() if v > 0}
        return FlameGraph._trusted(values, self.metadata or EMPTY)

    def __repr__(self) -> str:
        unit = self.metadata.unit if self.metadata else None
        return f"FlameChart({len(self)} samples, {len(self.threads)} threads, unit={unit!r})"

    def _repr_html_(self) -> str | None:
        """In a notebook: the HTML flame chart, a lane per thread, in an iframe (core/display.py; the text output stays the repr)."""
        from .display import html

        return html(self)


def _interned(values: list[Any], into: list[Any]) -> Any:
    """The index of each of ``values`` in ``into`` (a numpy array), those not there appended."""
    import numpy

    index = {value: i for i, value in enumerate(into)}
    for value in values:
        if value not in index:
            index[value] = len(into)
            into.append(value)
    return numpy.array([index[value] for value in values], dtype=numpy.int64).reshape(-1)


def _first_seen(stacks: list[Stack], threads: list[str], columns: list[Any], metadata: Metadata | None) -> FlameChart:
    """A chart of numpy columns (times, thread ids, stack ids, weights) whose stacks and threads
    are numbered again as they first come in it, those of no sample left out: as ``append``
    would have numbered them."""
    import numpy

    def renumbered(ids: Any, values: list[Any]) -> tuple[Any, list[Any]]:
        first: Any = numpy.full(len(values), len(ids), dtype=numpy.intp)
        numpy.minimum.at(first, ids, numpy.arange(len(ids)))
        present = numpy.flatnonzero(first < len(ids))
        present = present[numpy.argsort(first[present], kind="stable")]
        code: Any = numpy.zeros(len(values), dtype=numpy.intp)
        code[present] = numpy.arange(len(present))
        return code[ids], [values[i] for i in present.tolist()]

    times, thread_ids, stack_ids, weights = columns
    thread_ids, threads = renumbered(thread_ids, threads)
    stack_ids, stacks = renumbered(stack_ids, stacks)
    return FlameChart.from_columns(
        stacks, threads, times, thread_ids, stack_ids, weights if weights.dtype != object else weights.tolist(), metadata
    )


#: FlameChart's columns, in the order of :meth:`FlameChart.columns`.
_COLUMNS = ("_timestamps", "_thread_column", "_stack_column", "_weights")


def _segment_columns(segments: list[tuple[bytes, bytes, bytes, bytes]], origin: int) -> dict[str, array[int]]:
    """The columns of :meth:`FlameChart.from_segments`' stretches: those with a stack, in time
    order (a stable sort: stretches of one time keep the threads' order). Made a column at a
    time, so that little more than the bytes and the columns is in memory at once."""
    import numpy

    if len(segments) == 1 and array("l").itemsize == 8:  # one thread (the default): in place, in the columns
        return _thread_segment_columns(*segments[0], origin)
    stack_ids, kept = [], []
    for times, nodes, weights, node_stacks in segments:
        ids = numpy.frombuffer(node_stacks, dtype=numpy.int64)[numpy.frombuffer(nodes, dtype=numpy.int64)]
        kept.append(None if (ids >= 0).all() else ids >= 0)
        stack_ids.append(ids if kept[-1] is None else ids[kept[-1]])
    lengths = [len(ids) for ids in stack_ids]
    order = None
    if len(segments) > 1:
        time_column = numpy.concatenate([_kept(segment[0], keep) for segment, keep in zip(segments, kept)])
        order = numpy.argsort(time_column, kind="stable")

    def column(typecode: str, parts: list[Any]) -> array[int]:
        if order is None:
            return _column(typecode, parts[0] if parts else numpy.zeros(0, dtype=numpy.int64))
        return _column(typecode, numpy.concatenate(parts)[order])

    return {
        "_timestamps": column("q", [_kept(segment[0], keep) - origin for segment, keep in zip(segments, kept)]),
        "_thread_column": column("l", [numpy.full(length, k) for k, length in enumerate(lengths)]),
        "_stack_column": column("l", stack_ids),
        "_weights": column("q", [_kept(segment[2], keep) for segment, keep in zip(segments, kept)]),
    }


def _thread_segment_columns(times: bytes, nodes: bytes, weights: bytes, node_stacks: bytes, origin: int) -> dict[str, array[int]]:
    """:func:`_segment_columns` of one thread, made in the columns themselves: each is its
    bytes copied once, then changed in place (no other array as long), as fresh memory costs
    the time of touching it, here as much as the work."""
    import numpy

    stack_column, time_column, weight_column = array("l"), array("q"), array("q")
    stack_column.frombytes(nodes)
    time_column.frombytes(times)
    weight_column.frombytes(weights)
    columns = (stack_column, time_column, weight_column)
    if len(stack_column):
        views = [numpy.frombuffer(column, dtype=numpy.int64) for column in columns]
        numpy.take(numpy.frombuffer(node_stacks, dtype=numpy.int64), views[0], out=views[0])
        keep = views[0] >= 0
        count = int(keep.sum())
        if count < len(keep):  # stretches of no stack (a root frame's own time): left out
            for k in range(3):
                views[k][:count] = views[k][keep]
        views[1][:count] -= origin
        del views  # the arrays cannot shrink while a view of them is alive
        for column in columns:
            del column[count:]
    return {
        "_timestamps": time_column,
        "_thread_column": array("l", [0]) * len(time_column),
        "_stack_column": stack_column,
        "_weights": weight_column,
    }


def _kept(data: bytes, keep: Any) -> Any:
    """The int64 values of ``data`` where ``keep`` is true (all when it is None)."""
    import numpy

    values = numpy.frombuffer(data, dtype=numpy.int64)
    return values if keep is None else values[keep]


def _column(typecode: str, values: Any) -> array[int]:
    """``values`` as an array of ``typecode``; numpy arrays and arrays of that type copied as bytes."""
    column = array(typecode)
    if getattr(values, "typecode", None) == typecode:
        return values[:]  # type: ignore[no-any-return]  # a copy, by memcpy
    elif hasattr(values, "dtype"):
        import numpy

        column.frombytes(memoryview(numpy.ascontiguousarray(values, dtype=f"i{column.itemsize}")).cast("B"))
    else:
        column.extend(values)
    return column


def _numpy(column: array[int]) -> Any:
    """A numpy view of an integer array column (no copy)."""
    import numpy

    return numpy.frombuffer(column, dtype=f"i{column.itemsize}") if len(column) else numpy.zeros(0, dtype=f"i{column.itemsize}")


def interval_arrays(timestamps: Any, weights: Any, scale: float | None) -> tuple[Any, Any]:
    """(starts, ends) of one thread's samples (numpy arrays of timestamps and weights), placed
    as :func:`intervals` places them. Integer timestamps and weights with whole ns per unit
    (or no time) are placed with array operations, in int64, to the same numbers; anything
    else goes through :func:`intervals` itself and comes back as object arrays of its numbers.

    With ``d`` the running maximum over groups of one timestamp of ``timestamp - W`` (``W``:
    the weights summed up to the group's last sample), a sample ends at ``d +`` the weights
    summed up to it: :func:`intervals`' ``cursor = max(timestamp, previous cursor + weights)``
    unrolled."""
    import numpy

    n = len(timestamps)
    if not n:
        return numpy.zeros(0, dtype=numpy.int64), numpy.zeros(0, dtype=numpy.int64)
    factor = None if scale is None else int(scale) if scale == int(scale) else None
    whole = timestamps.dtype.kind == "i" and weights.dtype.kind == "i" and (scale is None or factor is not None)
    if whole:
        span = float(numpy.abs(weights).sum(dtype=float)) * (factor or 1) + float(numpy.abs(timestamps).max())
        whole = span < 2.0**61  # int64 arithmetic cannot overflow
    if whole:
        lengths = numpy.asarray(weights, dtype=numpy.int64)
        if factor is not None and factor != 1:
            lengths = lengths * factor
        reach = numpy.cumsum(lengths)
        if scale is None:
            return reach - lengths, reach
        timestamps = numpy.asarray(timestamps, dtype=numpy.int64)
        if n == 1 or (timestamps[1:] > timestamps[:-1]).all():  # one sample a time (a trace's): no groups
            ends = timestamps - reach
        else:
            new: Any = numpy.empty(n, dtype=bool)
            new[:1] = True
            numpy.not_equal(timestamps[1:], timestamps[:-1], out=new[1:])
            group = numpy.cumsum(new) - 1
            last = numpy.append(numpy.flatnonzero(new)[1:] - 1, n - 1)  # each group's last sample
            ends = (timestamps[last] - reach[last])[group]
        numpy.maximum.accumulate(ends, out=ends)
        ends += reach
        return ends - lengths, ends
    placed = list(intervals(list(zip(timestamps.tolist(), [0] * n, weights.tolist())), scale))
    placed_starts: Any = numpy.empty(n, dtype=object)
    placed_ends: Any = numpy.empty(n, dtype=object)
    placed_starts[:] = [start for start, _, _ in placed]
    placed_ends[:] = [end for _, end, _ in placed]
    return placed_starts, placed_ends


def intervals(samples: list[tuple[int, int, Number]], scale: float | None) -> Iterator[tuple[Number, Number, int]]:
    """(start, end, stack id) of one thread's (timestamp, stack id, weight) samples, in time order.

    Weights in a time unit (``scale``: ns per unit): a sample covers the ``weight * scale`` ns
    before its timestamp. Samples of one timestamp (a tick's running and ``[idle]`` parts)
    are laid end to end so that together they end at it, and no sample starts before the
    previous one ended; a start after the previous end is a gap (nothing of the thread ran,
    or nothing was recorded). Weights that are no time (``scale`` None: samples, bytes) have
    no length in time: the samples are laid end to end from 0, each as wide as its weight.
    The speedscope and Chrome writers and the flame chart renderers share this reading.
    """
    if scale is None:
        position: Number = 0
        for _, stack_id, weight in samples:
            yield position, position + weight, stack_id
            position += weight
        return
    factor: Number = int(scale) if scale == int(scale) else scale  # whole ns stay ints
    cursor: Number = -float("inf")
    start: Number
    i, n = 0, len(samples)
    while i < n:
        timestamp, stack_id, weight = samples[i]
        if i + 1 == n or samples[i + 1][0] != timestamp:  # one sample at this time: most are
            start = timestamp - weight * factor
            if start < cursor:
                start = cursor
            cursor = start + weight * factor
            yield start, cursor, stack_id
            i += 1
            continue
        j = i + 1
        while j < n and samples[j][0] == timestamp:
            j += 1
        start = timestamp - sum(w for _, _, w in samples[i:j]) * factor
        if start < cursor:
            start = cursor
        for _, stack_id, weight in samples[i:j]:
            end = start + weight * factor
            yield start, end, stack_id
            start = end
        cursor = start
        i = j
