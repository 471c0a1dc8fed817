"""History series of stored profiles: grouped by stack and commit (or day) by the store's query.

The points come from the small profiles table (commit, time, total of each selected profile,
named and ordered by :func:`..stats.history.assign_points`, as for profiles in memory); the
stacks to follow from one aggregate over the facts (Σ value per stack, then
:func:`..stats.history.choose_stacks`); the series from one more, grouped by (point, stack)
and restricted to those stacks, with one more for each (point, stack)'s median over the
point's profiles of its value and share (a profile without the stack counting 0: the robust
level the change points are tested on, so one stalled run does not carry its point): no
profile is ever loaded whole. Either engine of store/aggregate.py runs the aggregates
(embedded DuckDB or a Dask cluster).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from collections.abc import Sequence

from ..stats.history import TOP, History, assign_points, check_by, choose_stacks, with_loads_of
from .aggregate import Embedded, readable, stack_sums

if TYPE_CHECKING:
    import numpy as np

    from .aggregate import Engine
    from .store import Snapshot


def history(
    snapshot: Snapshot,
    ids: Sequence[int],
    by: str = "commit",
    pattern: str | None = None,
    top: int | None = TOP,
    engine: Engine | None = None,
    load_stacks: int = 0,
) -> History:
    """The :class:`~..stats.history.History` of the stored profiles ``ids`` (e.g. ``snapshot.select(selector)``).

    ``load_stacks``: when the stacks followed are a pattern's or fewer than this, each point's load
    (``--metric normalised``) is read from the ``load_stacks`` largest instead (a second aggregation)."""
    import numpy as np

    from ._deps import StoreError

    check_by(by)
    run = engine or Embedded()
    rows = _profile_columns(snapshot, ids)
    if not len(rows["id"]):
        raise StoreError(f"none of the {len(ids)} selected profile(s) could be read from the store {snapshot.root}")
    units = sorted(set(rows["unit"]))
    if len(units) > 1:
        raise StoreError(
            f"the selected profiles are in different units ({', '.join(u or 'none' for u in units)}): "
            "select one unit, e.g. add unit=ns to the selector"
        )
    points, point = assign_points(rows["commit"], rows["time"], by)
    chosen = rows["id"]
    keys = np.asarray(point, np.int64)
    runs = np.bincount(keys, minlength=len(points)).astype(float)
    totals = np.bincount(keys, weights=rows["total"], minlength=len(points))
    stack_ids, sums = stack_sums(snapshot, chosen, run)
    texts = snapshot.stack_texts(stack_ids.tolist())
    by_text = {t: s for t, s in zip(texts, sums.tolist()) if s}
    followed = choose_stacks(by_text, pattern, top)
    id_of = dict(zip(texts, stack_ids.tolist()))
    wanted = [id_of[t] for t in followed]
    got = run.grouped(snapshot, chosen, keys, wanted)
    matrix, squares = _by_stack_and_point(wanted, len(points), got.stacks, got.keys, got.sums, got.squares)
    middle = run.medians(snapshot, chosen, keys, rows["total"], wanted)
    medians, median_shares = _by_stack_and_point(wanted, len(points), middle.stacks, middle.keys, middle.values, middle.shares)
    found = History(by, points, runs, totals, tuple(followed), matrix, squares, units[0], medians, median_shares)
    if load_stacks and (pattern is not None or (top is not None and top < load_stacks)):
        return with_loads_of(found, history(snapshot, ids, by, None, load_stacks, engine))
    return found


def _by_stack_and_point(
    wanted: Sequence[int], points: int, stacks: np.ndarray, keys: np.ndarray, *columns: np.ndarray
) -> list[np.ndarray]:
    """Each column of an engine's (key, stack) rows as a stacks × points matrix, rows in the order of
    ``wanted``; 0 where no profile of a point holds the stack."""
    import numpy as np

    row_of = {s: i for i, s in enumerate(wanted)}
    at = np.fromiter((row_of[s] for s in stacks.tolist()), dtype=np.intp, count=len(stacks))
    out = []
    for column in columns:
        matrix = np.zeros((len(wanted), points))
        matrix[at, keys] = column
        out.append(matrix)
    return out


def _profile_columns(snapshot: Snapshot, ids: Sequence[int]) -> dict[str, Any]:
    """id, commit, time (datetime), total and unit of the profiles ``ids`` that can be read, oldest
    first: one query of the small profiles table, without the labels' JSON of every row."""
    import numpy as np

    _, found = snapshot.fact_files(ids)  # also registers ids as the table `selected`
    got = (
        snapshot.database()
        .execute("SELECT id, commit, time, total, unit FROM profiles SEMI JOIN selected USING (id) ORDER BY time, id")
        .fetchnumpy()
    )
    rows: dict[str, Any] = {
        "id": [int(i) for i in got["id"]],
        "commit": [None if c is None else str(c) for c in _values(got["commit"])],
        "time": np.asarray(got["time"], dtype="datetime64[us]").tolist(),
        "total": np.asarray(got["total"], np.float64),
        "unit": ["" if u is None else str(u) for u in _values(got["unit"])],
    }
    if found < len(rows["id"]) or snapshot.incomplete:  # a corrupt part (warned of): its profiles are left out here too
        kept = set(readable(snapshot, rows["id"]))
        keep = [k for k, i in enumerate(rows["id"]) if i in kept]
        rows = {name: [column[k] for k in keep] if isinstance(column, list) else column[keep] for name, column in rows.items()}
    return rows


def _values(column: Any) -> list[Any]:
    """A fetched VARCHAR column as a list, NULLs as None (DuckDB hands them over as a masked array)."""
    import numpy as np

    if isinstance(column, np.ma.MaskedArray):
        return [None if masked else value for value, masked in zip(column.data.tolist(), np.ma.getmaskarray(column).tolist())]
    return list(column.tolist())
