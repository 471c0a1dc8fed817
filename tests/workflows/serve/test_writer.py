"""The server's writer: batches pushes, answers once stored, compacts the parts it makes."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")

from flamespace.core.metadata import Metadata  # noqa: E402
from flamespace.core.vector import FlameGraph  # noqa: E402
from flamespace.store import open_store  # noqa: E402
from flamespace.workflows.serve.ingest import Pushed  # noqa: E402
from flamespace.workflows.serve.writer import Writer  # noqa: E402


def pushed(k: int) -> Pushed:
    graph = FlameGraph.from_texts({"main;work": k + 1, f"main;f{k % 5}": 2}, metadata=Metadata(unit="ns"))
    return Pushed(graph, {"service_name": "api", "time": f"2026-11-01T10:{k // 60:02d}:{k % 60:02d}"}, f"push {k}")


def test_pushes_one_at_a_time_stay_a_few_parts_and_all_are_stored(tmp_path):
    store = open_store(str(tmp_path / "s"))
    writer = Writer(open_store(store.path), compact_after=4)
    ids = [writer.submit([pushed(k)]).result(timeout=60) for k in range(40)]
    writer.close()
    snapshot = store.snapshot()
    assert sorted(i for (i,) in ids) == snapshot.profile_ids() and len(ids) == 40
    assert writer.compactions >= 9
    assert len(snapshot.manifest["parts"]) < 4 * 3  # 40 batches: fewer than compact_after parts in each of 3 tiers
    assert sorted(r["total"] for r in snapshot.profiles()) == sorted(float(k + 3) for k in range(40))


def test_a_closed_writer_stores_what_was_queued_and_refuses_more(tmp_path):
    store = open_store(str(tmp_path / "s"))
    writer = Writer(open_store(store.path))
    futures = [writer.submit([pushed(k), pushed(k + 100)]) for k in range(10)]
    writer.close()
    assert all(len(f.result(timeout=0)) == 2 for f in futures)
    assert store.snapshot().count() == 20
    with pytest.raises(RuntimeError, match="stopping"):
        writer.submit([pushed(1)]).result(timeout=0)
