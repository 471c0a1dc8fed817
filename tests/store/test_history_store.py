"""History and aggregations over the store (embedded DuckDB) against the in-memory reference."""

from __future__ import annotations

import numpy as np
import pytest

from flamespace.stats.history import analyse, history_of
from flamespace.store import aggregate
from flamespace.store.history import history
from .profiles import profiles, stored

from .history_data import COMMITS, RUNS, STEP, records, snapshot  # noqa: F401 (fixtures)


@pytest.mark.parametrize("by", ["commit", "day"])
@pytest.mark.parametrize("pattern, top", [(None, 20), (None, 2), ("parse", None)])
def test_store_history_equals_the_in_memory_one(snapshot, records, by, pattern, top):
    ids = snapshot.select("store:branch=main")
    stored = history(snapshot, ids, by, pattern, top)
    expected = history_of(records, by, pattern, top, unit="samples")
    assert stored.points == expected.points and stored.stacks == expected.stacks and stored.unit == "samples"
    for name in ("runs", "totals", "sums", "squares"):
        assert getattr(stored, name).tolist() == getattr(expected, name).tolist(), name  # whole numbers: exact


def test_the_commit_where_parse_doubled_is_named(snapshot):
    report = analyse(history(snapshot, snapshot.select("store:branch=main"), "commit"))
    found = {s.stack: [c.label for c in s.changes.points] for s in report.stacks}
    assert found["main;parse"] == [f"{STEP:02d}abc"]
    assert report.history.runs.tolist() == [RUNS] * COMMITS


def test_a_selection_narrows_the_history(snapshot):
    ids = snapshot.select("store:branch=main,last=9")
    h = history(snapshot, ids, "commit")
    assert h.points == tuple(f"{c:02d}abc" for c in range(COMMITS - 3, COMMITS))


def test_mean_and_matrix_match_the_stores_own(snapshot):
    ids = snapshot.select("store:branch=main,last=10")
    mean, _ = stored(snapshot, ids, mean=True)
    assert aggregate.mean(snapshot, ids) == mean
    texts, matrix, rows = snapshot.matrix(ids)
    got_texts, got, got_rows = aggregate.matrix(snapshot, ids)
    assert got_texts == texts and got_rows == rows and got.tolist() == matrix.tolist()


def test_moments_per_group(snapshot, records):
    ids = snapshot.select("store:branch=main")
    groups = {"before": ids[:6], "after": ids[-6:]}
    m = aggregate.moments(snapshot, groups)
    assert m.groups == ("before", "after") and m.n.tolist() == [6, 6]
    column = m.stacks.index("main;parse")
    before = [r.values["main;parse"] for r in records[:6]]
    assert m.sums[0, column] == sum(before) and m.squares[0, column] == sum(v * v for v in before)
    assert m.means()[0, column] == pytest.approx(np.mean(before))
    assert m.variances()[0, column] == pytest.approx(np.var(before, ddof=1))


def test_a_corrupt_part_is_left_out_with_a_warning(tmp_path, records):
    from flamespace.core.metadata import Metadata
    from flamespace.diagnostics import Diagnostics
    from flamespace.store import open_store

    store = open_store(str(tmp_path / "store"))
    items = [(r.values, Metadata(unit="samples", labels={"commit": r.commit, "time": r.time.isoformat(), "branch": "main"}),
              f"run-{i}.folded") for i, r in enumerate(records)]
    store.add(profiles(items[:18]))
    store.add(profiles(items[18:]))
    second = store.snapshot().parts[1]["name"]
    facts = tmp_path / "store" / "parts" / second / "facts.parquet"
    facts.write_bytes(facts.read_bytes()[:-8] + b"garbage!")  # same size, wrong checksum
    diagnostics = Diagnostics()
    snapshot = store.snapshot(diagnostics)
    h = history(snapshot, snapshot.select("store:branch=main"), "commit")
    assert h.runs.sum() == 18 and h.points == tuple(f"{c:02d}abc" for c in range(6))
    assert h.sums.tolist() == history_of(records[:18], "commit").sums.tolist()
    assert any(second in message for message in diagnostics.messages())
    assert aggregate.mean(snapshot, snapshot.select("store:branch=main")) == stored(snapshot, snapshot.select("store:branch=main"), mean=True)[0]
