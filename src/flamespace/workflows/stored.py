"""The store where samples of runs meet it: stored runs as a side of a comparison, and the
runs a collection (collect, gate) recorded added to it."""

from __future__ import annotations

from .._record import Record, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable
    from collections.abc import Iterator, Mapping, Sequence

    from .._types import Number
    from ..collect import Collection, Program
    from ..core.metadata import Metadata
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics
    from .workspace import Side

#: How a stored run is named in samples and messages: a selector that names it alone.
RUN_NAME = "store:id={}"


def stored_runs(
    files: dict[str, list[str]],
    cluster: str | None = None,
    on_diagnostics: Callable[[Diagnostics], None] | None = None,
    store: str | None = None,
) -> dict[str, tuple[None, dict[str, Number], Metadata]]:
    """Replace each selector among the sides' ``files`` by the names of the runs it matches
    (:data:`RUN_NAME`), and return those runs as ``_read_run`` does for a file: (None, {stack
    text: value}, metadata). The values come from one runs × stacks aggregate over the store
    for all selectors, run where ``cluster`` says (:func:`flamespace.store.cluster.engine`).
    What the store warned of (a corrupt part) is handed to ``on_diagnostics``. ``store``: the
    store's directory (default: :func:`flamespace.store.resolve`'s)."""
    if not any(path.startswith("store:") for paths in files.values() for path in paths):
        return {}  # without importing the store (compare's start-up)
    import numpy as np

    from ..diagnostics import Diagnostics
    from ..store import is_selector, open_store
    from ..store.aggregate import matrix
    from ..store.cluster import engine

    diagnostics = Diagnostics()
    try:
        snapshot = open_store(store).snapshot(diagnostics)
        chosen: dict[str, list[int]] = {}
        for side, paths in files.items():
            expanded: list[str] = []
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
        runs: dict[str, tuple[None, dict[str, Number], Metadata]] = {}
        rows = {row["id"]: row for row in snapshot.profiles(found)}
        for ident, row in zip(found, values):
            cast = int if rows[ident]["integral"] else float
            present = np.flatnonzero(row)  # in stack id order, as the store keeps a profile's facts
            run = {texts[s]: cast(v) for s, v in zip(present.tolist(), row[present].tolist())}
            runs[RUN_NAME.format(ident)] = (None, run, snapshot.metadata(rows[ident]))
    finally:
        if on_diagnostics is not None:
            on_diagnostics(diagnostics)
    for side, paths in files.items():  # a run whose part was corrupt (warned of) is left out
        files[side] = [p for p in paths if not p.startswith("store:id=") or p in runs]
    return runs


@record
class Stored(Record):
    """What :func:`store_collection` added: how many runs, how many were there already, and where."""

    added: int
    duplicates: int
    path: str

    def describe(self) -> str:
        """ "added 8 run(s) to the store PATH (2 skipped: ...)", as the commands say it."""
        again = f" ({self.duplicates} skipped: the same runs were already stored)" if self.duplicates else ""
        return f"added {self.added} run(s) to the store {self.path}{again}"


def store_collection(
    collection: Collection, labels: Mapping[str, Mapping[str, str]], on_diagnostics: Callable[[Diagnostics], None] | None = None
) -> Stored:
    """Add the runs ``collection`` wrote to the store (a part a program), each program's with its
    ``labels`` (by program name); what its readers skipped is handed to ``on_diagnostics``."""
    from ..diagnostics import Diagnostics
    from ..formats import registry
    from ..store import open_store

    def runs(program: Program) -> Iterator[tuple[FlameGraph, str]]:
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
        if on_diagnostics is not None:
            on_diagnostics(diagnostics)
    return Stored(added, duplicates, str(target.path))


def gate_labels(sides: Sequence[Side], root: str) -> dict[str, dict[str, str]]:
    """Each gate side's labels: its commit, and its branch (the ref as given, less a remote's
    ``origin/``; the checkout's branch for the working tree), and which side it was."""
    from ..store.labels import git_labels

    labels: dict[str, dict[str, str]] = {}
    for side in sides:
        branch = git_labels(root).get("branch") if side.ref == "working tree" else side.ref
        if branch and branch.startswith("origin/"):
            branch = branch[len("origin/") :]
        labels[side.name] = {"commit": side.commit, "side": side.name, **({"branch": branch} if branch else {})}
    return labels
