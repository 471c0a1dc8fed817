"""The store's aggregations on a Dask cluster, for stores too big for one machine's query.

:func:`engine` is the one place that decides where the aggregations of store/aggregate.py
run: on the Dask scheduler named by ``--cluster tcp://host:8786``, else by
``DASK_SCHEDULER_ADDRESS``, else embedded (DuckDB in this process). The cluster runs the same
primitive over the same Parquet fact files (a task per few row groups that hold selected
profiles: each worker reads them with pyarrow and sums by group and stack with numpy; the
small partial sums are added up here, with no shuffle), so the results are those of the
embedded engine (exactly, for whole-number values).

Medians (:meth:`Cluster.medians`, the levels ``history`` tests) cannot be added up from
partial results: the facts are **grouped by key first, then the median taken**. Each task
splits its selected facts into one piece per reducer by key (key mod the cluster's threads);
each reducer gathers its piece of every task (fetched from the worker that holds it; only the
followed stacks' facts move) and takes the median of each (key, stack) it holds, the key's
profiles without the stack counting as zeros (:func:`padded_medians`), so only the medians
come back here. Each group is whole in one reducer, so the result does not depend on how the
work is cut, and equals the embedded engine's (the same two middle values, averaged alike).

The workers read the parts by path: the store must be on a file system every worker sees
(the same machine, NFS, a mounted bucket), and run this module's :func:`partial`: flamespace
(with the store extra) must be installed where they run. The selection itself (which profiles a selector
names) stays a query of the small profiles table in this process.

Needs the extra ``flamespace[cluster]`` (dask's distributed, and the store's).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Optional
from collections.abc import Sequence

from ._deps import StoreError
from ._deps import modules as store_modules
from .aggregate import Embedded, Engine, Grouped, Medians

if TYPE_CHECKING:
    import numpy as np

    from .store import Snapshot

#: What to install for the cluster path.
EXTRA = "flamespace[cluster]"
#: The environment variable naming the scheduler when no --cluster is given (Dask's own).
ENV = "DASK_SCHEDULER_ADDRESS"
#: Seconds to wait for the scheduler before saying it cannot be reached.
CONNECT_TIMEOUT = 10


class ClusterError(StoreError):
    """A cluster that cannot be used: the extra is missing, or the scheduler does not answer."""


def address(option: str | None = None) -> str | None:
    """The scheduler to use: ``option`` (``--cluster``), else $DASK_SCHEDULER_ADDRESS, else None (embedded)."""
    return option or os.environ.get(ENV) or None


def modules() -> Any:
    """distributed (Dask's cluster client), or :class:`ClusterError` naming the extra to install."""
    try:
        import distributed
    except ImportError as exc:
        raise ClusterError(
            f"the Dask cluster path needs dask's distributed ({exc.name} is not installed): pip install '{EXTRA}'"
        ) from None
    return distributed


def engine(option: str | None = None) -> Engine:
    """Where to aggregate: a :class:`Cluster` connected to :func:`address`'s scheduler, or :class:`Embedded`."""
    where = address(option)
    if where is None:
        return Embedded()
    distributed = modules()
    try:
        client = distributed.Client(where, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {where}: {exc}") from None
    return Cluster(client, owned=True)


class Cluster(Engine):
    """The aggregations on the cluster a ``distributed.Client`` is connected to."""

    def __init__(self, client: Any, owned: bool = False) -> None:
        self.client = client
        self.owned = owned
        self.name = f"Dask cluster at {client.scheduler.address}"

    def close(self) -> None:
        if self.owned:
            self.client.close()

    def grouped(
        self, snapshot: Snapshot, ids: Sequence[int], keys: Sequence[int] | np.ndarray, stacks: Sequence[int] | None = None
    ) -> Grouped:
        """One task per few row groups of the fact files (those whose profile range holds a
        selected id), each reading its rows and summing them by (key, stack) with numpy
        (:func:`partial`); the small partial sums are added up here. No shuffle: the selection
        (ids and keys, sorted) is sent to every worker once."""
        import numpy as np

        files, _ = snapshot.fact_files(ids)
        if not files or not len(ids):
            return Grouped.empty()
        order = np.argsort(np.asarray(ids, np.int64), kind="stable")
        selection = (
            np.asarray(ids, np.int64)[order],
            np.asarray(keys, np.int64)[order],
            None if stacks is None else np.unique(np.asarray(stacks, np.int64)),
        )
        tasks = plan(files, selection[0])
        if not tasks:
            return Grouped.empty()
        # one object, under a fresh key: a content-hashed key can be that of a previous call's
        # selection, which the scheduler may be releasing as this call scatters it again
        (shared,) = self.client.scatter([selection], broadcast=True, hash=False)
        futures = self.client.map(partial, tasks, selection=shared, pure=False)
        parts = self.client.gather(futures)
        return combine([p for p in parts if len(p[0])])

    def medians(
        self,
        snapshot: Snapshot,
        ids: Sequence[int],
        keys: Sequence[int] | np.ndarray,
        totals: Sequence[float] | np.ndarray,
        stacks: Sequence[int] | None = None,
    ) -> Medians:
        """The facts grouped by key on the cluster, then each group's median (module docstring):
        a task per few row groups (:func:`pieces`), a reducer per thread of the cluster (:func:`reduce_medians`)."""
        import numpy as np

        files, _ = snapshot.fact_files(ids)
        if not files or not len(ids):
            return Medians.empty()
        key_array = np.asarray(keys, np.int64)
        order = np.argsort(np.asarray(ids, np.int64), kind="stable")
        selection = (
            np.asarray(ids, np.int64)[order],
            key_array[order],
            None if stacks is None else np.unique(np.asarray(stacks, np.int64)),
            np.asarray(totals, np.float64)[order],
        )
        tasks = plan(files, selection[0])
        if not tasks:
            return Medians.empty()
        reducers = max(1, sum(self.client.nthreads().values()))
        (shared,) = self.client.scatter([selection], broadcast=True, hash=False)  # a fresh key: see grouped
        staged = self.client.map(pieces, tasks, selection=shared, reducers=reducers, pure=False)
        runs = np.bincount(key_array)
        reduced = [
            self.client.submit(reduce_medians, self.client.map(piece, staged, reducer=r, pure=False), runs, pure=False)
            for r in range(reducers)
        ]
        got = [m for m in self.client.gather(reduced) if len(m[0])]
        if not got:
            return Medians.empty()
        return Medians.sorted(*(np.concatenate([m[i] for m in got]) for i in range(4)))


#: Row groups of a fact file one task reads (ROW_GROUP rows each: 128 Ki facts).
ROW_GROUPS_PER_TASK = 4


def plan(files: Sequence[str], ids: np.ndarray) -> list[tuple[str, tuple[int, ...]]]:
    """(file, row groups) to read: the row groups whose profile range (Parquet statistics) holds
    one of the sorted ``ids``, in order, a few per task."""
    import numpy as np

    _, _, pq = store_modules()
    tasks: list[tuple[str, tuple[int, ...]]] = []
    for path in files:
        meta = pq.ParquetFile(path).metadata
        column = meta.schema.names.index("profile")
        wanted = []
        for g in range(meta.num_row_groups):
            stats = meta.row_group(g).column(column).statistics
            if stats is None or not stats.has_min_max:
                wanted.append(g)
                continue
            first = int(np.searchsorted(ids, stats.min, "left"))
            if first < len(ids) and ids[first] <= stats.max:
                wanted.append(g)
        tasks += [(path, tuple(wanted[i : i + ROW_GROUPS_PER_TASK])) for i in range(0, len(wanted), ROW_GROUPS_PER_TASK)]
    return tasks


Columns = tuple["np.ndarray", "np.ndarray", "np.ndarray", "np.ndarray", "np.ndarray"]
#: What every task is sent: the selected ids (sorted), their keys, the stacks to keep (all if None), and for medians their totals.
Selection = tuple["np.ndarray", "np.ndarray", Optional["np.ndarray"]]
WithTotals = tuple["np.ndarray", "np.ndarray", Optional["np.ndarray"], "np.ndarray"]


def partial(task: tuple[str, tuple[int, ...]], selection: Selection) -> Columns:
    """Run on a worker: (keys, stacks, counts, Σ, Σ²) of one task's row groups, for the profiles
    of ``selection`` (sorted ids, their keys; a profile may have several) and its stacks (all if None)."""
    import numpy as np

    at, stack, value = selected_facts(task, selection)
    return sum_by_group(selection[1][at], stack, np.ones(len(at), np.int64), value, value**2)


def selected_facts(
    task: tuple[str, tuple[int, ...]], selection: Selection | WithTotals
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Run on a worker: the facts of one task's row groups that belong to the profiles of
    ``selection`` (sorted ids first, then per-id columns; its third item the stacks to keep, all if
    None), as (index into the selection, stack, value): a fact once for each place its profile holds."""
    import numpy as np

    _, _, pq = store_modules()
    path, groups = task
    ids, stacks = selection[0], selection[2]
    table = pq.ParquetFile(path).read_row_groups(list(groups), columns=["profile", "stack", "value"])
    profile = table.column("profile").to_numpy().astype(np.int64)
    stack = table.column("stack").to_numpy().astype(np.int64)
    value = table.column("value").to_numpy().astype(np.float64)
    if stacks is not None:
        keep = np.isin(stack, stacks)
        profile, stack, value = profile[keep], stack[keep], value[keep]
    left = np.searchsorted(ids, profile, "left")
    many = np.searchsorted(ids, profile, "right") - left  # the keys of each fact's profile (0 if not selected)
    rows: np.ndarray = np.repeat(np.arange(len(profile)), many)
    within = np.arange(len(rows)) - np.repeat(np.cumsum(many) - many, many)
    return np.repeat(left, many) + within, stack[rows], value[rows]


Facts = tuple["np.ndarray", "np.ndarray", "np.ndarray", "np.ndarray"]


def pieces(task: tuple[str, tuple[int, ...]], selection: WithTotals, reducers: int) -> list[Facts]:
    """Run on a worker: one task's selected facts as (keys, stacks, values, shares), cut into one
    piece per reducer by key (key mod ``reducers``). ``selection``: sorted ids, their keys, the
    stacks to keep (all if None), their profiles' totals."""
    import numpy as np

    at, stack, value = selected_facts(task, selection)
    keys, totals = selection[1][at], selection[3][at]
    share = np.divide(value, totals, out=np.zeros_like(value), where=totals != 0)
    reducer = keys % reducers
    return [(keys[mine], stack[mine], value[mine], share[mine]) for mine in (reducer == r for r in range(reducers))]


def piece(parts: list[Facts], reducer: int) -> Facts:
    """Run on the worker that holds a task's pieces: the one for ``reducer`` (only it moves on)."""
    return parts[reducer]


def reduce_medians(parts: Sequence[Facts], runs: np.ndarray) -> Facts:
    """Run on a worker: (keys, stacks, median value, median share) of every (key, stack) in the
    pieces of one reducer, ``runs[key]`` the profiles of each key."""
    import numpy as np

    keys, stacks, values, shares = (np.concatenate([p[i] for p in parts]) for i in range(4))
    at, stack, middle = padded_medians(keys, stacks, values, runs)
    return at, stack, middle, padded_medians(keys, stacks, shares, runs)[2]


def padded_medians(
    keys: np.ndarray, stacks: np.ndarray, values: np.ndarray, runs: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(keys, stacks, medians) per (key, stack), in that order: the median of the group's values
    padded with zeros to ``runs[key]`` (the profiles without the stack), the mean of the two
    middle ones for an even count, as the embedded engine's query reads them."""
    import numpy as np

    order = np.lexsort((values, stacks, keys))
    keys, stacks, values = keys[order], stacks[order], values[order]
    if not len(keys):
        return keys, stacks, values
    new: np.ndarray = np.ones(len(keys), bool)
    new[1:] = (keys[1:] != keys[:-1]) | (stacks[1:] != stacks[:-1])
    starts = np.flatnonzero(new)
    count = np.diff(np.append(starts, len(keys)))
    below = np.add.reduceat((values < 0).astype(np.int64), starts)
    n = np.asarray(runs, np.int64)[keys[starts]]
    zeros = n - count

    def element(j: np.ndarray) -> np.ndarray:
        inside = np.clip(np.where(j < below, j, j - zeros), 0, count - 1)
        return np.where((j >= below) & (j < below + zeros), 0.0, values[starts + inside])

    return keys[starts], stacks[starts], (element((n - 1) // 2) + element(n // 2)) / 2


def sum_by_group(keys: np.ndarray, stacks: np.ndarray, counts: np.ndarray, sums: np.ndarray, squares: np.ndarray) -> Columns:
    """Rows summed by (key, stack), in (key, stack) order: one int64 code a pair, counted by
    ``bincount`` over the codes when their range is small, else over ``unique``'s inverse."""
    import numpy as np

    if not len(keys):
        return keys, stacks, counts, sums, squares
    width = int(stacks.max()) + 1
    code = keys * width + stacks
    size = (int(keys.max()) + 1) * width
    if size <= max(4 * len(code), 1 << 20):
        index, present = code, None
    else:
        present, index = np.unique(code, return_inverse=True)
        size = len(present)
    n = np.bincount(index, weights=counts, minlength=size)
    total = np.bincount(index, weights=sums, minlength=size)
    total2 = np.bincount(index, weights=squares, minlength=size)
    if present is None:
        present = np.flatnonzero(n)
        n, total, total2 = n[present], total[present], total2[present]
    return present // width, present % width, n.astype(np.int64), total, total2


def combine(parts: Sequence[Columns]) -> Grouped:
    """The tasks' partial sums added up (in task order)."""
    import numpy as np

    if not parts:
        return Grouped.empty()
    columns = [np.concatenate([p[i] for p in parts]) for i in range(5)]
    return Grouped.sorted(*sum_by_group(*columns))
