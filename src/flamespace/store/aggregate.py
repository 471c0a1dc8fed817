"""The store's aggregations, written once over one primitive that each engine runs.

The primitive (:meth:`Engine.grouped`): for the facts of the profiles ``ids``, each profile
given a group ``key``, the count, sum and sum of squares of the values by (key, stack).
Everything else is that primitive with different keys: the mean profile (one key), the runs
× stacks matrix (a key per profile), moments per group and stack (a key per side of a
comparison), history series (a key per commit or day: store/history.py). The embedded
engine runs it as one DuckDB query over the Parquet parts that hold ``ids``
(:class:`Embedded`); the Dask engine runs the same over the same files on a cluster
(store/cluster.py); :func:`.cluster.engine` decides which.

One aggregate is not a sum: :meth:`Engine.medians`, the median per (key, stack) over the
key's profiles of each profile's value (and of its share of the profile's total), a profile
without the stack counting as 0. ``history`` tests change points on it, so one stalled run
cannot carry its point (a sum can). The embedded engine takes it from each group's sorted
list of values in the same query shape; the Dask engine groups the facts by key on the
cluster first, then takes each group's median (store/cluster.py).

Both give identical numbers where the values are whole numbers (the store's ``integral``
profiles: samples, ns, bytes; sums of squares while below 2⁵³), because sums of integers in
floating point do not depend on their order; otherwise they agree to rounding.
"""

from __future__ import annotations

from .._record import Record, record
from typing import TYPE_CHECKING
from collections.abc import Mapping, Sequence

from ._deps import StoreError, modules

if TYPE_CHECKING:
    import numpy as np

    from .store import Snapshot


@record
class Grouped(Record):
    """Per (key, stack), sorted by key then stack id: profiles with a non-zero value, Σ value, Σ value²."""

    keys: np.ndarray
    stacks: np.ndarray
    counts: np.ndarray
    sums: np.ndarray
    squares: np.ndarray

    @classmethod
    def empty(cls) -> Grouped:
        import numpy as np

        return cls(np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int64), np.zeros(0), np.zeros(0))

    @classmethod
    def sorted(cls, keys: np.ndarray, stacks: np.ndarray, counts: np.ndarray, sums: np.ndarray, squares: np.ndarray) -> Grouped:
        """The columns as an engine returned them, put in (key, stack) order and fixed types."""
        import numpy as np

        keys, stacks = np.asarray(keys, np.int64), np.asarray(stacks, np.int32)
        order = np.lexsort((stacks, keys))
        return cls(
            keys[order],
            stacks[order],
            np.asarray(counts, np.int64)[order],
            np.asarray(sums, np.float64)[order],
            np.asarray(squares, np.float64)[order],
        )


@record
class Medians(Record):
    """Per (key, stack), sorted by key then stack id: the median over the key's profiles of the
    stack's value and of its share of each profile's total (a profile without the stack
    counting 0, a profile of total 0 giving share 0); a median is the mean of the two middle
    values when a key holds an even number of profiles."""

    keys: np.ndarray
    stacks: np.ndarray
    values: np.ndarray
    shares: np.ndarray

    @classmethod
    def empty(cls) -> Medians:
        import numpy as np

        return cls(np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0), np.zeros(0))

    @classmethod
    def sorted(cls, keys: np.ndarray, stacks: np.ndarray, values: np.ndarray, shares: np.ndarray) -> Medians:
        """The columns as an engine returned them, put in (key, stack) order and fixed types."""
        import numpy as np

        keys, stacks = np.asarray(keys, np.int64), np.asarray(stacks, np.int32)
        order = np.lexsort((stacks, keys))
        return cls(keys[order], stacks[order], np.asarray(values, np.float64)[order], np.asarray(shares, np.float64)[order])


class Engine:
    """Where the aggregations run. Subclasses implement :meth:`grouped` over the fact files."""

    name = "engine"

    def grouped(
        self, snapshot: Snapshot, ids: Sequence[int], keys: Sequence[int] | np.ndarray, stacks: Sequence[int] | None = None
    ) -> Grouped:
        """The primitive of the module docstring: ``keys[i]`` is the group of profile ``ids[i]``;
        only the stack ids ``stacks`` when given."""
        raise NotImplementedError

    def medians(
        self,
        snapshot: Snapshot,
        ids: Sequence[int],
        keys: Sequence[int] | np.ndarray,
        totals: Sequence[float] | np.ndarray,
        stacks: Sequence[int] | None = None,
    ) -> Medians:
        """:class:`Medians` per (key, stack) of the profiles ``ids`` (``keys[i]`` the group of
        ``ids[i]``, ``totals[i]`` its total), over the stack ids ``stacks`` when given."""
        raise NotImplementedError

    def close(self) -> None:
        """Release what the engine holds (a cluster connection)."""

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Embedded(Engine):
    """DuckDB in this process: the default."""

    name = "embedded (DuckDB)"

    def grouped(
        self, snapshot: Snapshot, ids: Sequence[int], keys: Sequence[int] | np.ndarray, stacks: Sequence[int] | None = None
    ) -> Grouped:
        facts = _facts(snapshot, ids, keys, stacks)
        if facts is None:
            return Grouped.empty()
        got = (
            snapshot.database()
            .execute(
                f"SELECT g.key AS key, f.stack AS stack, count(*) AS n, sum(f.value) AS s, sum(f.value * f.value) AS q "
                f"{facts} GROUP BY g.key, f.stack"
            )
            .fetchnumpy()
        )
        return Grouped.sorted(got["key"], got["stack"], got["n"], got["s"], got["q"])

    def medians(
        self,
        snapshot: Snapshot,
        ids: Sequence[int],
        keys: Sequence[int] | np.ndarray,
        totals: Sequence[float] | np.ndarray,
        stacks: Sequence[int] | None = None,
    ) -> Medians:
        """Each (key, stack)'s values and shares sorted into a list (``list_sort(list(...))``), and
        the middle one or two of the key's n profiles read from it, the n − c profiles without
        the stack standing as zeros between the negative values and the rest: one query, no
        profile's values leave DuckDB."""
        import numpy as np

        _, pa, _ = modules()
        facts = _facts(snapshot, ids, keys, stacks, totals)
        if facts is None:
            return Medians.empty()
        key_array = np.asarray(keys, np.int64)
        present = np.unique(key_array)
        db = snapshot.database()
        db.register("runs", pa.table({"key": pa.array(present), "n": pa.array(np.bincount(key_array)[present].astype(np.int64))}))
        got = db.execute(
            "WITH picked AS (SELECT g.key AS key, f.stack AS stack, f.value AS v, "
            f"CASE WHEN g.total = 0 THEN 0.0 ELSE f.value / g.total END AS s {facts}), "
            "lists AS (SELECT key, stack, count(*) AS c, list_sort(list(v)) AS v, count(*) FILTER (WHERE v < 0) AS v_below, "
            "list_sort(list(s)) AS s, count(*) FILTER (WHERE s < 0) AS s_below FROM picked GROUP BY key, stack) "
            f"SELECT l.key AS key, l.stack AS stack, {_middle('v')} AS v, {_middle('s')} AS s "
            "FROM lists AS l JOIN runs AS r ON l.key = r.key"
        ).fetchnumpy()
        return Medians.sorted(got["key"], got["stack"], got["v"], got["s"])


def _facts(
    snapshot: Snapshot,
    ids: Sequence[int],
    keys: Sequence[int] | np.ndarray,
    stacks: Sequence[int] | None,
    totals: Sequence[float] | np.ndarray | None = None,
) -> str | None:
    """The FROM ... WHERE clause of the facts of ``ids`` (as ``f``) joined to their keys (and
    totals) (as ``g``), restricted to ``stacks``; None when no fact file holds them."""
    import numpy as np

    _, pa, _ = modules()
    files, _ = snapshot.fact_files(ids)
    if not files:
        return None
    db = snapshot.database()
    columns = {"profile": pa.array(np.asarray(ids, np.int32)), "key": pa.array(np.asarray(keys, np.int64))}
    if totals is not None:
        columns["total"] = pa.array(np.asarray(totals, np.float64))
    db.register("grouping", pa.table(columns))
    low, high = int(min(ids)), int(max(ids))  # row groups outside are skipped by their statistics
    where = f"WHERE f.profile BETWEEN {low} AND {high}"
    if stacks is not None:
        db.register("chosen", pa.table({"stack": pa.array(np.asarray(stacks, np.int32))}))
        where += " AND f.stack IN (SELECT stack FROM chosen)"
    listed = "[" + ", ".join("'" + f.replace("'", "''") + "'" for f in files) + "]"
    return f"FROM read_parquet({listed}) AS f JOIN grouping AS g ON f.profile = g.profile {where}"


def _middle(column: str) -> str:
    """SQL for the median of the sorted list ``l.<column>`` (of l.c values, l.<column>_below of them
    negative) padded with r.n − l.c zeros: the mean of the elements at (n − 1) // 2 and n // 2."""

    def element(j: str) -> str:
        below, zeros = f"l.{column}_below", "(r.n - l.c)"
        return (
            f"(CASE WHEN {j} < {below} THEN l.{column}[{j} + 1] WHEN {j} < {below} + {zeros} THEN 0.0 "
            f"ELSE l.{column}[{j} - {zeros} + 1] END)"
        )

    return f"(({element('((r.n - 1) // 2)')} + {element('(r.n // 2)')}) / 2)"


def readable(snapshot: Snapshot, ids: Sequence[int]) -> list[int]:
    """The profiles of ``ids`` the store can read, in order: those of a corrupt part, or whose
    stacks a corrupt part defined, are left out (warned of), as the store's own queries do."""
    _, found = snapshot.fact_files(ids)
    if found == len(ids) and not snapshot.incomplete:
        return list(ids)
    present = set(snapshot.facts(ids)[0].tolist())
    return [i for i in ids if i in present]


def stack_sums(snapshot: Snapshot, ids: Sequence[int], engine: Engine | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(stack ids, Σ value) over the profiles ``ids``, in stack id order."""
    import numpy as np

    got = (engine or Embedded()).grouped(snapshot, ids, np.zeros(len(ids), np.int64))
    return got.stacks, got.sums


def mean(snapshot: Snapshot, ids: Sequence[int], engine: Engine | None = None) -> dict[str, float]:
    """The mean profile of ``ids`` by stack text (what ``Snapshot.graph(ids, mean=True)`` holds), for history."""
    found = readable(snapshot, ids)
    if not found:
        raise StoreError(f"none of the {len(ids)} selected profile(s) could be read from the store {snapshot.root}")
    stacks, sums = stack_sums(snapshot, found, engine)
    texts = snapshot.stack_texts(stacks.tolist())
    return {t: v / len(found) for t, v in zip(texts, sums.tolist()) if v}


def matrix(snapshot: Snapshot, ids: Sequence[int], engine: Engine | None = None) -> tuple[list[str], np.ndarray, list[int]]:
    """(stack texts, runs × stacks matrix, profile ids of the rows), as ``Snapshot.matrix``: rows
    in the order of ``ids`` (those that could be read), stacks in id order."""
    import numpy as np

    found = readable(snapshot, ids)
    got = (engine or Embedded()).grouped(snapshot, found, np.arange(len(found), dtype=np.int64))
    columns, inverse = np.unique(got.stacks, return_inverse=True)
    out = np.zeros((len(found), len(columns)))
    out[got.keys, inverse] = got.sums
    return snapshot.stack_texts(columns.tolist()), out, found


@record
class Moments(Record):
    """Per group (rows, in the order given) and stack (columns, in id order): profiles, Σ value, Σ value².

    A profile without a stack counts as a 0 for it, so every stack's n is its group's size.
    """

    groups: tuple[str, ...]
    stacks: tuple[str, ...]
    n: np.ndarray
    sums: np.ndarray
    squares: np.ndarray

    def means(self) -> np.ndarray:
        return self.sums / self.n[:, None]

    def variances(self) -> np.ndarray:
        """Unbiased variances (nan for a group of one profile)."""
        import numpy as np

        n: np.ndarray = self.n[:, None].astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(n > 1, np.maximum(self.squares - self.sums**2 / n, 0.0) / (n - 1), np.nan)


def moments(snapshot: Snapshot, groups: Mapping[str, Sequence[int]], engine: Engine | None = None) -> Moments:
    """:class:`Moments` of each named group of profiles (e.g. the baseline and the candidate of a comparison)."""
    import numpy as np

    names = tuple(groups)
    found = [readable(snapshot, groups[g]) for g in names]
    ids = [i for f in found for i in f]
    keys = [k for k, f in enumerate(found) for _ in f]
    got = (engine or Embedded()).grouped(snapshot, ids, keys)
    columns, inverse = np.unique(got.stacks, return_inverse=True)
    sums = np.zeros((len(names), len(columns)))
    squares = np.zeros((len(names), len(columns)))
    sums[got.keys, inverse] = got.sums
    squares[got.keys, inverse] = got.squares
    texts = tuple(snapshot.stack_texts(columns.tolist()))
    return Moments(names, texts, np.array([len(f) for f in found], dtype=np.int64), sums, squares)
