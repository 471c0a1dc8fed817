"""History series of stored profiles: grouped by stack and commit (or day) by the store's query.

The points come from the small profiles table (commit, time, total of each selected profile,
named and ordered by :func:`..stats.history.assign_points`, as for profiles in memory); the
stacks to follow from one aggregate over the facts (Σ value per stack, then
:func:`..stats.history.choose_stacks`); the series from one more, grouped by (point, stack)
and restricted to those stacks: no profile is ever loaded whole. Either engine of
store/aggregate.py runs the two aggregates (embedded DuckDB or a Dask cluster).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence

from ..stats.history import TOP, History, assign_points, check_by, choose_stacks
from .aggregate import Embedded, fact_files, stack_sums

if TYPE_CHECKING:
    from .aggregate import Engine
    from .store import Snapshot


def history(snapshot: Snapshot, ids: Sequence[int], by: str = "commit", pattern: Optional[str] = None,
            top: Optional[int] = TOP, engine: Optional[Engine] = None) -> History:
    """The :class:`~..stats.history.History` of the stored profiles ``ids`` (e.g. ``snapshot.select(selector)``)."""
    import numpy as np

    from ._deps import StoreError

    check_by(by)
    run = engine or Embedded()
    _, found = fact_files(snapshot, ids)
    rows = snapshot.profiles(ids)
    if found < len(rows):  # a corrupt part (warned of): its profiles are left out of the series too
        readable = set(snapshot.facts(ids)[0].tolist())
        rows = [r for r in rows if r["id"] in readable]
    if not rows:
        raise StoreError(f"none of the {len(ids)} selected profile(s) could be read from the store {snapshot.root}")
    units = sorted({r["unit"] or "" for r in rows})
    if len(units) > 1:
        raise StoreError(f"the selected profiles are in different units ({', '.join(u or 'none' for u in units)}): "
                         "select one unit, e.g. add unit=ns to the selector")
    points, point = assign_points([r["commit"] for r in rows], [r["time"] for r in rows], by)
    chosen = [r["id"] for r in rows]
    keys = np.asarray(point, np.int64)
    runs = np.bincount(keys, minlength=len(points)).astype(float)
    totals = np.bincount(keys, weights=[float(r["total"]) for r in rows], minlength=len(points))
    stack_ids, sums = stack_sums(snapshot, chosen, run)
    texts = snapshot.stack_texts(stack_ids.tolist())
    by_text = {t: s for t, s in zip(texts, sums.tolist()) if s}
    followed = choose_stacks(by_text, pattern, top)
    id_of = dict(zip(texts, stack_ids.tolist()))
    wanted = [id_of[t] for t in followed]
    got = run.grouped(snapshot, chosen, keys, wanted)
    row_of = {s: i for i, s in enumerate(wanted)}
    matrix = np.zeros((len(followed), len(points)))
    squares = np.zeros((len(followed), len(points)))
    rows_at = np.fromiter((row_of[s] for s in got.stacks.tolist()), dtype=np.intp, count=len(got.stacks))
    matrix[rows_at, got.keys] = got.sums
    squares[rows_at, got.keys] = got.squares
    return History(by, points, runs, totals, tuple(followed), matrix, squares, units[0])

