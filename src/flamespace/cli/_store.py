"""Store selectors where the CLI reads one profile (svg, text, top, ...: the merged profile of
what a selector names), and what collect records added to the store. (The runs of a side,
for compare, plan and gate, are :mod:`flamespace.workflows.stored`'s.)"""

from __future__ import annotations

from ._options import Option
from ._report import report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..collect import Collection

    from ..core.vector import FlameGraph

#: --cluster, for every command that aggregates stored profiles (store get, history, and compare
#: and plan on store: selectors); flamespace.store.cluster.engine decides what it means.
CLUSTER_OPTION = Option(
    ("--cluster",),
    "cluster",
    metavar="ADDRESS",
    help="Aggregate stored profiles on the Dask scheduler at ADDRESS (tcp://host:8786; default: "
    "$DASK_SCHEDULER_ADDRESS, else in this process). Needs flamespace[cluster].",
)


def read_selected(selector: str, mean: bool = False, store: str | None = None, cluster: str | None = None) -> FlameGraph:
    """The merged (or mean) profile of the stored profiles ``selector`` names, summed where
    ``cluster`` says (:func:`flamespace.store.cluster.engine`); warnings on stderr."""
    from ..diagnostics import Diagnostics
    from ..store import open_store
    from ..store.cluster import engine

    diagnostics = Diagnostics()
    try:
        snapshot = open_store(store).snapshot(diagnostics)
        ids = snapshot.select(selector)
        with engine(cluster) as where:
            return snapshot.graph(ids, mean=mean, engine=where)
    finally:
        report(diagnostics)


def store_collection(collection: Collection, labels: Mapping[str, Mapping[str, str]], command: str) -> None:
    """Add the runs ``collection`` wrote to the store (:func:`flamespace.workflows.stored.store_collection`);
    says how many on stderr."""
    from ..workflows.stored import store_collection as add
    from ._report import warn

    warn(f"flamespace {command}: {add(collection, labels, report).describe()}")
