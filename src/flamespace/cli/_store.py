"""Store selectors where the CLI reads profiles: one profile (svg, text, top, ...: the merged
profile of what a selector names) and the runs of a side (compare, plan: one DuckDB query
for all of them, never a file per run); and ingesting what collect and gate record."""

from __future__ import annotations

from ._options import Option
from ._report import report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

    from ..collect import Collection, Program

    from .._types import Number
    from ..core.metadata import Metadata
    from ..core.vector import FlameGraph
    from .gate import Side

    import numpy as np

#: How a stored run is named in samples and messages: a selector that names it alone.
RUN_NAME = "store:id={}"

#: --cluster, for every command that aggregates stored profiles (store get, history, and compare
#: and plan on store: selectors); flamespace.store.cluster.engine decides what it means.
CLUSTER_OPTION = Option(
    ("--cluster",), "cluster", metavar="ADDRESS",
    help="Aggregate stored profiles on the Dask scheduler at ADDRESS (tcp://host:8786; default: "
         "$DASK_SCHEDULER_ADDRESS, else in this process). Needs flamespace[cluster].")


def read_selected(selector: str, mean: bool = False, store: Optional[str] = None, cluster: Optional[str] = None) -> FlameGraph:
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


def stored_runs(files: Dict[str, List[str]], cluster: Optional[str] = None) -> Dict[str, Tuple[None, Dict[str, Number], Metadata]]:
    """Replace each selector among the sides' ``files`` by the names of the runs it matches
    (:data:`RUN_NAME`), and return those runs as ``_read_run`` does for a file: (None, {stack
    text: value}, metadata). The values come from one runs × stacks aggregate over the store
    for all selectors, run where ``cluster`` says (:func:`flamespace.store.cluster.engine`)."""
    if not any(path.startswith("store:") for paths in files.values() for path in paths):
        return {}  # without importing the store (compare's start-up)
    import numpy as np

    from ..diagnostics import Diagnostics
    from ..store import is_selector, open_store
    from ..store.aggregate import matrix
    from ..store.cluster import engine

    diagnostics = Diagnostics()
    try:
        snapshot = open_store().snapshot(diagnostics)
        chosen: Dict[str, List[int]] = {}
        for side, paths in files.items():
            expanded: List[str] = []
            for path in paths:
                if is_selector(path):
                    ids = chosen[path] = snapshot.select(path)
                    expanded.extend(RUN_NAME.format(i) for i in ids)
                else:
                    expanded.append(path)
            files[side] = expanded
        wanted = sorted({i for ids in chosen.values() for i in ids})
        with engine(cluster) as where:
            texts, values, found = matrix(snapshot, wanted, where)  # a row a run: its Σ over one profile is its value
        runs: Dict[str, Tuple[None, Dict[str, Number], Metadata]] = {}
        rows = {row["id"]: row for row in snapshot.profiles(found)}
        for ident, row in zip(found, values):
            cast = int if rows[ident]["integral"] else float
            present = np.flatnonzero(row)  # in stack id order, as the store keeps a profile's facts
            run = {texts[s]: cast(v) for s, v in zip(present.tolist(), row[present].tolist())}
            runs[RUN_NAME.format(ident)] = (None, run, snapshot.metadata(rows[ident]))
    finally:
        report(diagnostics)
    for side, paths in files.items():  # a run whose part was corrupt (warned of) is left out
        files[side] = [p for p in paths if not p.startswith("store:id=") or p in runs]
    return runs


def store_collection(collection: Collection, labels: Mapping[str, Mapping[str, str]], command: str) -> None:
    """Add the runs ``collection`` wrote to the store (one part), each program's with its ``labels``
    (by program name); says how many on stderr."""
    from ..diagnostics import Diagnostics
    from ..formats import registry
    from ..store import open_store
    from ._report import warn

    def runs(program: Program) -> Iterator[Tuple[FlameGraph, str]]:
        for path in collection.profiles(program):
            yield registry.read_graph(path, diagnostics=diagnostics), path

    diagnostics = Diagnostics()
    target = open_store()
    added = duplicates = 0
    try:
        for program in collection.programs:  # a part each: the labels differ
            result = target.add(runs(program), labels[program.name], diagnostics)
            added, duplicates = added + len(result.added), duplicates + len(result.duplicates)
    finally:
        report(diagnostics)
    again = f" ({duplicates} skipped: the same runs were already stored)" if duplicates else ""
    warn(f"flamespace {command}: added {added} run(s) to the store {target.path}{again}")


def gate_labels(sides: Sequence[Side], root: str) -> Dict[str, Dict[str, str]]:
    """Each gate side's labels: its commit, and its branch (the ref as given, less a remote's
    ``origin/``; the checkout's branch for the working tree), and which side it was."""
    from ..store.labels import git_labels

    labels: Dict[str, Dict[str, str]] = {}
    for side in sides:
        branch = git_labels(root).get("branch") if side.ref == "working tree" else side.ref
        if branch and branch.startswith("origin/"):
            branch = branch[len("origin/"):]
        labels[side.name] = {"commit": side.commit, "side": side.name, **({"branch": branch} if branch else {})}
    return labels

