"""Store selectors where the CLI reads profiles: one profile (svg, text, top, ...: the merged
profile of what a selector names) and the runs of a side (compare, plan: one DuckDB query
for all of them, never a file per run); and ingesting what collect and gate record."""

from __future__ import annotations

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


def read_selected(selector: str, mean: bool = False, store: Optional[str] = None) -> FlameGraph:
    """The merged (or mean) profile of the stored profiles ``selector`` names; warnings on stderr."""
    from ..diagnostics import Diagnostics
    from ..store import open_store

    diagnostics = Diagnostics()
    try:
        snapshot = open_store(store).snapshot(diagnostics)
        return snapshot.graph(snapshot.select(selector), mean=mean)
    finally:
        report(diagnostics)


def read_selected_texts(selector: str) -> Tuple[Dict[str, Number], Metadata]:
    """:func:`read_selected` as stack texts and values (for sub, scale)."""
    from ..diagnostics import Diagnostics
    from ..store import open_store

    diagnostics = Diagnostics()
    try:
        snapshot = open_store().snapshot(diagnostics)
        return snapshot.merged(snapshot.select(selector))
    finally:
        report(diagnostics)


def stored_runs(files: Dict[str, List[str]]) -> Dict[str, Tuple[None, Dict[str, Number], Metadata]]:
    """Replace each selector among the sides' ``files`` by the names of the runs it matches
    (:data:`RUN_NAME`), and return those runs as ``_read_run`` does for a file: (None, {stack
    text: value}, metadata). The values come from one query over the store for all selectors."""
    if not any(path.startswith("store:") for paths in files.values() for path in paths):
        return {}  # without importing the store (compare's start-up)
    from ..diagnostics import Diagnostics
    from ..store import is_selector, open_store

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
        profiles, stacks, values = snapshot.facts(wanted)
        texts = dict(zip(sorted(set(stacks.tolist())), snapshot.stack_texts(sorted(set(stacks.tolist())))))
        runs: Dict[str, Tuple[None, Dict[str, Number], Metadata]] = {}
        rows = {row["id"]: row for row in snapshot.profiles(wanted)}
        integral = {i: bool(row["integral"]) for i, row in rows.items()}
        bounds = _bounds(profiles)
        for ident, (start, stop) in bounds.items():
            cast = int if integral[ident] else float
            run = {texts[s]: cast(v) for s, v in zip(stacks[start:stop].tolist(), values[start:stop].tolist())}
            runs[RUN_NAME.format(ident)] = (None, run, snapshot.metadata(rows[ident]))
    finally:
        report(diagnostics)
    for side, paths in files.items():  # a run whose part was corrupt (warned of) is left out
        files[side] = [p for p in paths if not p.startswith("store:id=") or p in runs]
    return runs


def _bounds(profiles: "np.ndarray") -> Dict[int, Tuple[int, int]]:
    """Where each profile's rows start and stop in the sorted profile column."""
    import numpy as np

    column = np.asarray(profiles)
    if not len(column):
        return {}
    starts = np.flatnonzero(np.r_[True, column[1:] != column[:-1]])
    stops = np.r_[starts[1:], len(column)]
    return {int(column[a]): (int(a), int(b)) for a, b in zip(starts, stops)}


def store_collection(collection: Collection, labels: Mapping[str, Mapping[str, str]], command: str) -> None:
    """Add the runs ``collection`` wrote to the store (one part), each program's with its ``labels``
    (by program name); says how many on stderr."""
    from ..diagnostics import Diagnostics
    from ..formats import registry
    from ..store import open_store
    from ._report import warn

    def runs(program: Program) -> Iterator[Tuple[Mapping[str, Number], Metadata, str]]:
        for path in collection.profiles(program):
            values, metadata = registry.read_texts(path, diagnostics=diagnostics)
            yield values, metadata, path

    diagnostics = Diagnostics()
    target = open_store()
    added = duplicates = 0
    try:
        for program in collection.programs:  # a part each: the labels differ
            result = target.add(runs(program), labels[program.name], diagnostics)
            added, duplicates = added + len(result.added), duplicates + len(result.duplicates)
    finally:
        report(diagnostics)
    again = f" ({duplicates} already there)" if duplicates else ""
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

