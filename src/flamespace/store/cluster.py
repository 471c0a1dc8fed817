"""The store's aggregations on a Dask cluster, for stores too big for one machine's query.

:func:`engine` is the one place that decides where the aggregations of store/aggregate.py
run: on the Dask scheduler named by ``--cluster tcp://host:8786``, else by
``DASK_SCHEDULER_ADDRESS``, else embedded (DuckDB in this process). The cluster runs the same
primitive over the same Parquet fact files (a task per few row groups that hold selected
profiles: each worker reads them with pyarrow and sums by group and stack with numpy; the
small partial sums are added up here, with no shuffle), so the results are those of the
embedded engine (exactly, for whole-number values).

The workers read the parts by path: the store must be on a file system every worker sees
(the same machine, NFS, a mounted bucket), and run this module's :func:`partial`: flamespace
(with the store extra) must be installed where they run. The selection itself (which profiles a selector
names) stays a query of the small profiles table in this process.

Needs the extra ``flamespace[cluster]`` (dask's distributed, and the store's).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, List, Optional, Sequence, Tuple

from ._deps import StoreError
from ._deps import modules as store_modules
from .aggregate import Embedded, Engine, Grouped

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


def address(option: Optional[str] = None) -> Optional[str]:
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


def engine(option: Optional[str] = None) -> Engine:
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

    def grouped(self, snapshot: Snapshot, ids: Sequence[int], keys: Sequence[int] | np.ndarray,
                stacks: Optional[Sequence[int]] = None) -> Grouped:
        """One task per few row groups of the fact files (those whose profile range holds a
        selected id), each reading its rows and summing them by (key, stack) with numpy
        (:func:`partial`); the small partial sums are added up here. No shuffle: the selection
        (ids and keys, sorted) is sent to every worker once."""
        import numpy as np

        files, _ = snapshot.fact_files(ids)
        if not files or not len(ids):
            return Grouped.empty()
        order = np.argsort(np.asarray(ids, np.int64), kind="stable")
        selection = (np.asarray(ids, np.int64)[order], np.asarray(keys, np.int64)[order],
                     None if stacks is None else np.unique(np.asarray(stacks, np.int64)))
        tasks = plan(files, selection[0])
        if not tasks:
            return Grouped.empty()
        # one object, under a fresh key: a content-hashed key can be that of a previous call's
        # selection, which the scheduler may be releasing as this call scatters it again
        (shared,) = self.client.scatter([selection], broadcast=True, hash=False)
        futures = self.client.map(partial, tasks, selection=shared, pure=False)
        parts = self.client.gather(futures)
        return combine([p for p in parts if len(p[0])])


#: Row groups of a fact file one task reads (ROW_GROUP rows each: 128 Ki facts).
ROW_GROUPS_PER_TASK = 4


def plan(files: Sequence[str], ids: "np.ndarray") -> List[Tuple[str, Tuple[int, ...]]]:
    """(file, row groups) to read: the row groups whose profile range (Parquet statistics) holds
    one of the sorted ``ids``, in order, a few per task."""
    import numpy as np

    _, _, pq = store_modules()
    tasks: List[Tuple[str, Tuple[int, ...]]] = []
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
        tasks += [(path, tuple(wanted[i:i + ROW_GROUPS_PER_TASK])) for i in range(0, len(wanted), ROW_GROUPS_PER_TASK)]
    return tasks


Columns = Tuple["np.ndarray", "np.ndarray", "np.ndarray", "np.ndarray", "np.ndarray"]


def partial(task: Tuple[str, Tuple[int, ...]], selection: Tuple["np.ndarray", "np.ndarray", Optional["np.ndarray"]]) -> Columns:
    """Run on a worker: (keys, stacks, counts, Σ, Σ²) of one task's row groups, for the profiles
    of ``selection`` (sorted ids, their keys; a profile may have several) and its stacks (all if None)."""
    import numpy as np

    _, _, pq = store_modules()
    path, groups = task
    ids, keys, stacks = selection
    table = pq.ParquetFile(path).read_row_groups(list(groups), columns=["profile", "stack", "value"])
    profile = table.column("profile").to_numpy().astype(np.int64)
    stack = table.column("stack").to_numpy().astype(np.int64)
    value = table.column("value").to_numpy().astype(np.float64)
    if stacks is not None:
        keep = np.isin(stack, stacks)
        profile, stack, value = profile[keep], stack[keep], value[keep]
    left = np.searchsorted(ids, profile, "left")
    many = np.searchsorted(ids, profile, "right") - left  # the keys of each fact's profile (0 if not selected)
    rows: "np.ndarray" = np.repeat(np.arange(len(profile)), many)
    within = np.arange(len(rows)) - np.repeat(np.cumsum(many) - many, many)
    return sum_by_group(keys[np.repeat(left, many) + within], stack[rows], np.ones(len(rows), np.int64), value[rows], value[rows] ** 2)


def sum_by_group(keys: "np.ndarray", stacks: "np.ndarray", counts: "np.ndarray", sums: "np.ndarray", squares: "np.ndarray") -> Columns:
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
