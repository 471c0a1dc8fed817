"""A sample of flame graphs (many runs of one program) as a runs × stacks matrix.

The statistics need every run as a vector over the same stacks: the union of the supports,
where a run that never reached a stack has 0 there.
"""

from __future__ import annotations

import math
from .._record import Record, record
from typing import TYPE_CHECKING, Any, Callable, overload
from collections.abc import Iterable, Iterator, Mapping, Sequence

from ..core.metadata import Metadata
from ..core.stacks import StackTable, order_key
from ..core.vector import FlameGraph, stack_texts
from ..errors import ArgumentError, UnitMismatchError

if TYPE_CHECKING:  # numpy is imported only when a sample is built
    from .._types import Stack
    import numpy as np


class TextStacks(Sequence["Stack"]):
    """A sequence of stacks kept as their texts and split by ``table`` only when one is asked
    for (the stacks of a sample of runs: a comparison of 10,000 stacks that reports ten needs
    ten splits, not 10,000). Equal to any sequence of the same stacks (a tuple of frame tuples
    included); two built on one table compare and align by their texts."""

    __slots__ = ("texts", "table")

    def __init__(self, texts: Iterable[str], table: StackTable) -> None:
        self.texts: tuple[str, ...] = tuple(texts)
        self.table = table

    @overload
    def __getitem__(self, index: int) -> Stack: ...
    @overload
    def __getitem__(self, index: slice) -> TextStacks: ...

    def __getitem__(self, index: int | slice) -> Stack | TextStacks:
        if isinstance(index, slice):
            return TextStacks(self.texts[index], self.table)
        return self.table.stack(self.texts[index])

    def __len__(self) -> int:
        return len(self.texts)

    def __iter__(self) -> Iterator[Stack]:
        return map(self.table.stack, self.texts)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TextStacks):
            return self.texts == other.texts if self.table is other.table else tuple(self) == tuple(other)
        return isinstance(other, (tuple, list)) and tuple(self) == tuple(other)

    __hash__ = None  # type: ignore[assignment]  # (as a list: compared by value)

    def __repr__(self) -> str:
        return f"TextStacks({len(self.texts)} stacks)"

    def same_table(self, other: object) -> bool:
        """Whether ``other`` keeps its stacks as texts of the same table (then two samples can be
        aligned by their texts, without a split)."""
        return isinstance(other, TextStacks) and other.table is self.table


class Sample:
    """n runs over the union of their supports: ``matrix[i, j]`` is run i's value at ``stacks[j]``.

    Build it with :meth:`from_graphs`; ``unit`` is the runs' common unit (mixing units is an
    error, since the numbers would not be comparable). Runs that keep their stacks as texts
    (read from folded text) make a sample whose ``stacks`` are a :class:`TextStacks`, as
    :meth:`from_rows` makes: frames are then split only for the stacks someone looks at.
    """

    __slots__ = ("stacks", "matrix", "metadata", "names")

    def __init__(
        self, stacks: Sequence[Stack], matrix: np.ndarray, metadata: Metadata = Metadata(), names: Sequence[str] | None = None
    ) -> None:
        import numpy as np

        matrix = np.asarray(matrix, dtype=np.float64)
        if matrix.ndim != 2 or matrix.shape[1] != len(stacks):
            raise ArgumentError(f"the matrix must be runs × {len(stacks)} stacks; got shape {matrix.shape}")
        self.stacks: Sequence[Stack] = stacks if isinstance(stacks, TextStacks) else tuple(stacks)
        self.matrix = matrix
        self.metadata = metadata
        self.names: tuple[str, ...] = tuple(names) if names is not None else tuple(f"run {i + 1}" for i in range(len(matrix)))

    @classmethod
    def from_graphs(cls, graphs: Iterable[FlameGraph], names: Sequence[str] | None = None) -> Sample:
        """The runs as rows over the sorted union of their supports; units must agree. Runs that
        all keep their stacks as texts are aligned by text (:meth:`from_rows`): no stack split."""
        import numpy as np

        graphs = list(graphs)
        texts = [stack_texts(graph) for graph in graphs]
        if graphs and all(t is not None for t in texts):
            rows = RunRows()
            indices = [rows.add(t) for t in texts if t is not None]
            return cls.from_rows(rows, indices, names=names, metadata=[graph.metadata for graph in graphs])
        names = list(names) if names is not None else [f"run {i + 1}" for i in range(len(graphs))]
        if len(names) != len(graphs):
            raise ArgumentError(f"{len(names)} names for {len(graphs)} runs")
        metadata = Metadata()
        for graph, name in zip(graphs, names):
            try:
                metadata = metadata.combine(graph.metadata)
            except UnitMismatchError:
                raise UnitMismatchError(
                    f"{name} is in {graph.unit!r} but earlier runs are in {metadata.unit!r}; a sample must use one unit"
                ) from None
        stacks = sorted(set().union(*(g.support() for g in graphs))) if graphs else []
        index: dict[Stack, int] = {s: j for j, s in enumerate(stacks)}
        matrix = np.zeros((len(graphs), len(stacks)))
        for i, graph in enumerate(graphs):
            columns = [index[s] for s in graph]
            matrix[i, columns] = list(graph.values())
        return cls(stacks, matrix, metadata, names)

    @classmethod
    def from_rows(
        cls,
        rows: RunRows,
        indices: Sequence[int],
        table: StackTable | None = None,
        names: Sequence[str] | None = None,
        metadata: Sequence[Metadata] = (),
    ) -> Sample:
        """The runs ``indices`` of ``rows`` as a sample over the stack texts they reach, in the
        order of their frames, split by ``table`` (default: a new one that keeps its splits) only
        when a stack is asked for (:class:`TextStacks`): at most one split per distinct stack,
        none for stacks nobody looks at; samples built on one table align by text. ``metadata``
        (one per run) must agree in unit, as in :meth:`from_graphs`."""
        names = list(names) if names is not None else [f"run {i + 1}" for i in range(len(indices))]
        if len(names) != len(indices):
            raise ArgumentError(f"{len(names)} names for {len(indices)} runs")
        combined = Metadata()
        for meta, name in zip(metadata, names):
            try:
                combined = combined.combine(meta)
            except UnitMismatchError:
                raise UnitMismatchError(
                    f"{name} is in {meta.unit!r} but earlier runs are in {combined.unit!r}; a sample must use one unit"
                ) from None
        table = table or StackTable({})
        keys, matrix = rows.matrix(indices, table)
        return cls(TextStacks(keys, table), matrix, combined, names)

    @property
    def n(self) -> int:
        """Number of runs."""
        return int(self.matrix.shape[0])

    @property
    def p(self) -> int:
        """Number of stacks."""
        return len(self.stacks)

    @property
    def unit(self) -> str | None:
        return self.metadata.unit

    def totals(self) -> np.ndarray:
        """Each run's total (the width of its flame graph)."""
        return self.matrix.sum(axis=1)

    def normalized(self) -> Sample:
        """Each run divided by its own total: shares, for runs of different length or load."""
        import numpy as np

        totals = self.totals()
        safe = np.where(totals > 0, totals, 1.0)
        return Sample(self.stacks, self.matrix / safe[:, None], self.metadata.replace(unit="share"), self.names)

    def over(self, stacks: Sequence[Stack]) -> np.ndarray:
        """The matrix re-indexed to ``stacks`` (0 where this sample never saw a stack); when both
        are :class:`TextStacks` of one table, by their texts (no split)."""
        own = self.stacks
        if isinstance(own, TextStacks) and isinstance(stacks, TextStacks) and own.same_table(stacks):
            return self._over(own.texts, stacks.texts)
        return self._over(own, stacks)

    def _over(self, own: Sequence[Any], stacks: Sequence[Any]) -> np.ndarray:
        import numpy as np

        index = {s: j for j, s in enumerate(own)}
        out = np.zeros((self.n, len(stacks)))
        known = [(k, index[s]) for k, s in enumerate(stacks) if s in index]
        if known:
            target, source = zip(*known)
            out[:, list(target)] = self.matrix[:, list(source)]
        return out

    def renamed(self, rename: Callable[[Stack], Stack]) -> Sample:
        """Every stack through ``rename`` (frames renamed: ``compare --map``), the columns of stacks
        that become one summed. Stacks kept as texts stay texts (joined with ';', as folded writes them)."""
        import numpy as np

        kept = self.stacks
        if isinstance(kept, TextStacks):
            keys: list[Any] = [";".join(rename(kept.table.stack(text))) for text in kept.texts]
            unique: list[Any] = kept.table.sorted(set(keys))
        else:
            keys = [rename(stack) for stack in kept]
            unique = sorted(set(keys))
        index = {key: j for j, key in enumerate(unique)}
        matrix = np.zeros((self.n, len(unique)))
        np.add.at(matrix, (slice(None), [index[key] for key in keys]), self.matrix)
        stacks: Sequence[Stack] = TextStacks(unique, kept.table) if isinstance(kept, TextStacks) else unique
        return Sample(stacks, matrix, self.metadata, self.names)

    def runs(self, indices: Sequence[int]) -> Sample:
        """The runs at ``indices``, in that order."""
        return Sample(self.stacks, self.matrix[list(indices)], self.metadata, [self.names[i] for i in indices])

    def graph(self, i: int) -> FlameGraph:
        """Run ``i`` as a flame graph again."""
        row = self.matrix[i].tolist()
        kept = self.stacks
        if isinstance(kept, TextStacks):  # kept as texts: no split
            return FlameGraph.from_texts(dict(zip(kept.texts, row)), metadata=self.metadata, stacks=kept.table.stacks)
        return FlameGraph._trusted({s: v for s, v in zip(kept, row) if v}, self.metadata)

    def __len__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        return f"Sample({self.n} runs × {self.p} stacks, unit={self.unit!r})"


class RunRows:
    """Runs read one at a time as {key: value} (a key per stack: its text), kept as rows over
    a column per key in the order first seen: the runs × stacks matrix of a sample is built
    from them in one pass, without a flame graph per run.

    Also counts, per group of runs (a side), in how many runs each key is non-zero and the
    range of its non-zero values, so that :meth:`surely_varying` can tell, before every run is
    read, how many stacks must vary (a method limit such as Hotelling's can then refuse early).
    """

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self._rows: list[tuple[np.ndarray, np.ndarray]] = []
        self._groups: dict[str, list[np.ndarray]] = {}  # group -> [present count, min, max]
        self._runs: dict[str, int] = {}
        self._ranks: dict[StackTable | None, np.ndarray] = {}

    def add(self, values: Mapping[str, float], group: str | None = None) -> int:
        """Add a run; returns its row number. ``group``: count it in that group's statistics."""
        import numpy as np

        index = self.index
        try:  # most runs of a sample reach only stacks seen before: one C-level lookup each
            columns = np.fromiter(map(index.__getitem__, values), dtype=np.intp, count=len(values))
        except KeyError:
            columns = np.fromiter([index.setdefault(key, len(index)) for key in values], dtype=np.intp, count=len(values))
        return self._append(columns, values.values(), group)

    def add_columns(self, columns: bytes, values: Sequence[float], group: str | None = None) -> int:
        """Add a run already turned into columns of :attr:`index` (native intp bytes, as
        :class:`flamespace.formats.folded.ColumnReader` reads them) and their values; as :meth:`add`."""
        import numpy as np

        return self._append(np.frombuffer(columns, dtype=np.intp), values, group)

    def _append(self, columns: np.ndarray, values: Iterable[float], group: str | None) -> int:
        import numpy as np

        row = np.fromiter(values, dtype=np.float64, count=len(columns))
        self._rows.append((columns, row))
        if group is not None:
            self._count(group, columns, row)
        return len(self._rows) - 1

    def _count(self, group: str, columns: np.ndarray, row: np.ndarray) -> None:
        import numpy as np

        size = len(self.index)
        stats = self._groups.get(group)
        if stats is None:
            stats = [np.zeros(0), np.zeros(0), np.zeros(0)]
        if len(stats[0]) < size:  # new columns: seen in no run of this group yet
            grow = size - len(stats[0])
            stats = [
                np.concatenate([stats[0], np.zeros(grow)]),
                np.concatenate([stats[1], np.full(grow, np.inf)]),
                np.concatenate([stats[2], np.full(grow, -np.inf)]),
            ]
        nonzero = row != 0
        columns, row = columns[nonzero], row[nonzero]
        stats[0][columns] += 1
        stats[1][columns] = np.minimum(stats[1][columns], row)
        stats[2][columns] = np.maximum(stats[2][columns], row)
        self._groups[group] = stats
        self._runs[group] = self._runs.get(group, 0) + 1

    @property
    def columns(self) -> int:
        """Distinct keys seen so far (it can only grow)."""
        return len(self.index)

    def surely_varying(self, present_in: int, by_value: bool = True) -> int:
        """How many keys certainly vary between the runs of some group (counted groups only)
        and are non-zero in at least ``present_in`` runs of all groups: 0 in one run and not in
        another of its group, or (``by_value``) two non-zero values more than 1e-9 apart relatively. More runs can
        only add to them (a run left out later excepted: count only runs that will be kept)."""
        import numpy as np

        size = len(self.index)
        present = np.zeros(size)
        varying: np.ndarray = np.zeros(size, dtype=bool)
        for group, (count, low, high) in self._groups.items():
            count, low, high = (
                np.concatenate([a, np.full(size - len(a), fill)]) for a, fill in ((count, 0.0), (low, np.inf), (high, -np.inf))
            )
            present += count
            varying |= (count > 0) & (count < self._runs[group])
            if by_value:  # beyond rounding: hotelling calls a variance of 1e-24 of the mean² none
                varying |= (count > 0) & (high - low > 1e-9 * np.maximum(np.abs(low), np.abs(high)))
        return int((varying & (present >= present_in)).sum())

    def matrix(self, indices: Sequence[int], table: StackTable | None = None) -> tuple[list[str], np.ndarray]:
        """The keys (stack texts) the runs ``indices`` reach (non-zero somewhere), in the order
        of their frames (split by ``table`` only if a frame holds a '\\0'), and their runs × keys matrix."""
        import numpy as np

        keys = list(self.index)
        full = np.zeros((len(indices), len(keys)))
        for i, k in enumerate(indices):
            columns, row = self._rows[k]
            full[i, columns] = row
        reached = np.flatnonzero((full != 0).any(axis=0))
        rank = self._rank(keys, table)  # every key's place in sorted order, shared by the sides
        chosen = reached[np.argsort(rank[reached], kind="stable")].tolist()
        return [keys[j] for j in chosen], full[:, chosen]

    def _rank(self, keys: list[str], table: StackTable | None) -> np.ndarray:
        """Each column's rank among all keys in frame order (one sort for all the samples built
        from these rows on one table, until a key is added)."""
        import numpy as np

        cached = self._ranks.get(table)
        if cached is not None and len(cached) == len(keys):
            return cached
        sort_keys = list(map(order_key(keys, table), keys))
        rank: np.ndarray = np.empty(len(keys), dtype=np.intp)
        rank[sorted(range(len(keys)), key=sort_keys.__getitem__)] = np.arange(len(keys), dtype=np.intp)
        self._ranks[table] = rank
        return rank


@record
class FrequencyFilter(Record):
    """Keep stacks present (non-zero) in at least ``min_runs`` runs and ``min_fraction`` of all runs.

    Counted over both samples pooled, never per group, so the filter cannot favour stacks that
    differ between the groups (which would bias the tests). Rare stacks cannot be significant
    anyway; dropping them makes the multiple-testing correction less harsh.
    """

    min_runs: int = 2
    min_fraction: float = 0.05

    def __post_init__(self) -> None:
        if self.min_runs < 0:
            raise ArgumentError(f"min_runs must be ≥ 0, not {self.min_runs}")
        if not 0 <= self.min_fraction <= 1:
            raise ArgumentError(f"min_fraction must be between 0 and 1, not {self.min_fraction}")

    def threshold(self, runs: int) -> int:
        """The number of runs a stack must appear in, out of ``runs``."""
        return max(self.min_runs, math.ceil(self.min_fraction * runs - 1e-9))

    def keep(self, matrix: np.ndarray) -> np.ndarray:
        """Boolean mask over the columns of the pooled ``matrix``."""
        return (matrix != 0).sum(axis=0) >= self.threshold(matrix.shape[0])

    def describe(self) -> str:
        return f"stacks present in ≥ {self.min_runs} runs and ≥ {100 * self.min_fraction:g}% of runs"


NO_FILTER = FrequencyFilter(0, 0.0)


def align(
    baseline: Sample, candidate: Sample, frequency: FrequencyFilter = FrequencyFilter()
) -> tuple[Sequence[Stack], np.ndarray, np.ndarray, int]:
    """Both samples over the same stacks (the filtered union, a :class:`TextStacks` when both
    samples keep their stacks as texts of one table); also how many stacks were dropped."""
    import numpy as np

    first, second = baseline.stacks, candidate.stacks
    if isinstance(first, TextStacks) and isinstance(second, TextStacks) and first.same_table(second):  # by text: no split
        texts = list(first.texts) if first.texts == second.texts else first.table.sorted(set(first.texts) | set(second.texts))
        x1, x2 = baseline._over(first.texts, texts), candidate._over(second.texts, texts)
        mask = frequency.keep(np.vstack([x1, x2])) if texts else np.zeros(0, dtype=bool)
        kept = TextStacks([s for s, k in zip(texts, mask.tolist()) if k], first.table)
        return kept, x1[:, mask], x2[:, mask], int(len(texts) - mask.sum())
    union = sorted(set(first) | set(second))
    x1, x2 = baseline.over(union), candidate.over(union)
    mask = frequency.keep(np.vstack([x1, x2])) if union else np.zeros(0, dtype=bool)
    stacks = [s for s, k in zip(union, mask) if k]
    return stacks, x1[:, mask], x2[:, mask], int(len(union) - mask.sum())
