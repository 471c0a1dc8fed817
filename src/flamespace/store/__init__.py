"""The profile store: profiles kept with their labels (commit, branch, host, ...) in Parquet
parts queried by DuckDB, and selectors (``store:branch=main,last=30``) that name samples of them.

Needs the extra ``flamespace[store]`` (DuckDB, pyarrow); importing this package does not
import them, the first store operation does (:class:`StoreError` names the extra if missing).

    store = open_store()                     # --store PATH, $FLAMESPACE_STORE or .flamespace/store
    store.add_files(["run-001.folded"], labels={"branch": "main"})
    snapshot = store.snapshot()
    ids = snapshot.select("store:branch=main,last=30")
    mean = snapshot.graph(ids, mean=True)       # a FlameGraph
"""

from __future__ import annotations

from ._deps import EXTRA, StoreError
from .location import DEFAULT, ENV, resolve
from .selector import PREFIX, Selector, SelectorError, is_selector, parse_selector
from .store import AddResult, GcResult, Loss, ManifestError, Snapshot, Store, open_store, parse_age

__all__ = [
    "AddResult",
    "DEFAULT",
    "ENV",
    "EXTRA",
    "GcResult",
    "Loss",
    "ManifestError",
    "PREFIX",
    "Selector",
    "SelectorError",
    "Snapshot",
    "Store",
    "StoreError",
    "is_selector",
    "open_store",
    "parse_age",
    "parse_selector",
    "resolve",
]
