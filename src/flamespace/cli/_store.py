"""Store selectors where the CLI reads profiles: one profile (svg, text, top, ...: the merged
profile of what a selector names) and the runs of a side (compare, plan: one DuckDB query
for all of them, never a file per run); and ingesting what collect and gate record."""

from __future__ import annotations

from ._common import report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Mapping, Optional, Sequence, Tuple

    from .._types import Number
    from ..core.metadata import Metadata
    from ..core.vector import FlameGraph

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
    from ..diagnostics import Diagnostics
    from ..store import is_selector, open_store

    if not any(is_selector(path) for paths in files.values() for path in paths):
        return {}
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


def _bounds(profiles: Sequence[int]) -> Dict[int, Tuple[int, int]]:
    """Where each profile's rows start and stop in the sorted profile column."""
    import numpy as np

    column = np.asarray(profiles)
    if not len(column):
        return {}
    starts = np.flatnonzero(np.r_[True, column[1:] != column[:-1]])
    stops = np.r_[starts[1:], len(column)]
    return {int(column[a]): (int(a), int(b)) for a, b in zip(starts, stops)}


def ingest(paths: Sequence[str], labels: Mapping[str, str], store: Optional[str] = None, quiet: bool = False,
           command: str = "store add") -> int:
    """Add profile files to the store with ``labels``; says what was added on stderr. Returns how many."""
    from ..diagnostics import Diagnostics
    from ..store import open_store
    from ._report import warn

    diagnostics = Diagnostics()
    target = open_store(store)
    try:
        result = target.add_files(paths, labels, diagnostics)
    finally:
        report(diagnostics)
    if not quiet:
        again = f"; {len(result.duplicates)} already stored" if result.duplicates else ""
        warn(f"flamespace {command}: added {len(result.added)} profile(s) to the store {target.path}{again}")
    return len(result.added)

