"""The store's aggregations on a Dask cluster, for stores too big for one machine's query.

:func:`engine` is the one place that decides where the aggregations of store/aggregate.py
run: on the Dask scheduler named by ``--cluster tcp://host:8786``, else by
``DASK_SCHEDULER_ADDRESS``, else embedded (DuckDB in this process). The cluster runs the same
primitive over the same Parquet fact files (each worker reads its share of the row groups,
joins them with the small table of selected profiles and their groups, and sums), so the
results are those of the embedded engine (exactly, for whole-number values).

The workers read the parts by path: the store must be on a file system every worker sees
(the same machine, NFS, a mounted bucket). The selection itself (which profiles a selector
names) stays a query of the small profiles table in this process.

Needs the extra ``flamespace[cluster]`` (dask[dataframe], distributed, and the store's).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Optional, Sequence

from ._deps import StoreError
from .aggregate import Embedded, Engine, Grouped, fact_files

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
    """(dask.dataframe, distributed), or :class:`ClusterError` naming the extra to install."""
    try:
        import dask.dataframe
        import distributed
    except ImportError as exc:
        raise ClusterError(
            f"the Dask cluster path needs dask and distributed ({exc.name} is not installed): pip install '{EXTRA}'"
        ) from None
    return dask.dataframe, distributed


def engine(option: Optional[str] = None) -> Engine:
    """Where to aggregate: a :class:`Cluster` connected to :func:`address`'s scheduler, or :class:`Embedded`."""
    where = address(option)
    if where is None:
        return Embedded()
    _, distributed = modules()
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
        import numpy as np
        import pandas as pd

        dd, _ = modules()
        files, _ = fact_files(snapshot, ids)
        if not files or not len(ids):
            return Grouped.empty()
        chosen = np.asarray(ids, np.int32)
        # row groups carry min/max of profile: those outside the selection are not read
        bounds = [("profile", ">=", int(chosen.min())), ("profile", "<=", int(chosen.max()))]
        facts = dd.read_parquet(files, columns=["profile", "stack", "value"], filters=bounds)
        if stacks is not None:
            facts = facts[facts["stack"].isin(np.asarray(stacks, np.int32).tolist())]
        grouping = pd.DataFrame({"profile": chosen, "key": np.asarray(keys, np.int64)})
        joined = facts.merge(grouping, on="profile", how="inner")  # the small table goes to every partition
        joined = joined.assign(square=joined["value"] * joined["value"])
        summed = joined.groupby(["key", "stack"]).agg({"value": ["count", "sum"], "square": "sum"})
        table = self.client.compute(summed).result()
        table.columns = ["n", "s", "q"]
        table = table.reset_index()
        return Grouped.sorted(table["key"].to_numpy(), table["stack"].to_numpy(), table["n"].to_numpy(),
                              table["s"].to_numpy(), table["q"].to_numpy())
