"""Store.compact: consecutive parts rewritten as one, every profile and id kept (what serve runs
after many small pushes)."""

from __future__ import annotations

import pytest

from flamespace.core.metadata import Metadata
from flamespace.core.vector import FlameGraph
from flamespace.formats import folded
from flamespace.store import open_store
from flamespace.store.repair import check

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")


def one(values, k):
    labels = {"service_name": "api", "time": f"2026-11-01T10:00:{k:02d}", "time_end": f"2026-11-01T10:00:{k + 1:02d}"}
    return FlameGraph.from_texts(values, metadata=Metadata(unit="ns", labels=labels)), f"push {k}"


def test_compacting_parts_keeps_every_profile_its_id_and_window(tmp_path):
    store = open_store(str(tmp_path / "s"))
    for k in range(6):
        store.add([one({"main;work": 10 + k, f"main;f{k}": k + 1}, k)])
    before = store.snapshot()
    rows = before.profiles()
    graph = folded.texts(before.graph(before.profile_ids()))
    names = [p["name"] for p in before.manifest["parts"]]
    made = store.compact(names[1:])
    after = store.snapshot()
    assert [p["name"] for p in after.manifest["parts"]] == [names[0], made]
    assert after.profiles() == rows
    assert folded.texts(after.graph(after.profile_ids())) == graph
    assert [folded.texts(after.graph([i])) for i in after.profile_ids()] == [
        folded.texts(before.graph([i])) for i in before.profile_ids()
    ]
    assert not check(store).problems
    again = store.add([one({"main;work": 10, "main;f0": 1}, 0), one({"main;new": 1}, 7)])
    assert (len(again.added), [i for _, i in again.duplicates]) == (1, [rows[0]["id"]])
    assert again.added[0] > max(r["id"] for r in rows)


def test_compact_refuses_parts_that_are_not_consecutive_or_listed(tmp_path):
    store = open_store(str(tmp_path / "s"))
    for k in range(3):
        store.add([one({"a": k + 1}, k)])
    names = [p["name"] for p in store.snapshot().manifest["parts"]]
    assert store.compact([names[0], names[2]]) is None
    assert store.compact([names[0], "nope"]) is None
    assert store.compact(names[:1]) is None
    assert [p["name"] for p in store.snapshot().manifest["parts"]] == names


def test_the_writer_keeps_what_it_knows_across_its_own_compaction(tmp_path):
    """serve compacts every few batches: the ids it interned stay valid, so the next add reads no
    part again, and its stacks get the ids a store read afresh gives them."""
    store = open_store(str(tmp_path / "s"))
    for k in range(4):
        store.add([one({"main;work": 10 + k, f"main;f{k}": 1}, k)])
    names = [p["name"] for p in store.snapshot().manifest["parts"]]
    made = store.compact(names)
    assert store._intern is not None and store._intern.parts == {made}
    store.add([one({"main;work": 3, "main;f1": 2, "main;later": 5}, 9)])
    fresh = open_store(str(tmp_path / "s"))
    fresh.add([one({"main;later": 1, "main;f2": 1}, 10)])
    snapshot = fresh.snapshot()
    assert [folded.texts(snapshot.graph([i])) for i in snapshot.profile_ids()][-2:] == [
        {"main;work": 3, "main;f1": 2, "main;later": 5},
        {"main;later": 1, "main;f2": 1},
    ]
    assert not check(store).problems


def test_a_second_writer_follows_the_first_ones_compaction_without_reading_the_store_again(tmp_path):
    """Two serve processes on one store: one compacts what both wrote; the other's intern knew every
    replaced part, so it renames them and reads nothing again; the ids it gives stay the store's."""
    first, second = open_store(str(tmp_path / "s")), open_store(str(tmp_path / "s"))
    for k in range(4):
        (first if k % 2 else second).add([one({"main;work": 10 + k, f"main;f{k}": 1}, k)])
    second.add([one({"main;f0": 5}, 8)])
    first.add([one({"main;f1": 5}, 9)])
    known = first._intern
    made = second.compact([p["name"] for p in second.snapshot().manifest["parts"]])
    first.add([one({"main;work": 3, "main;f3": 2, "main;later": 5}, 10)])
    assert first._intern is known and made in known.parts
    second.add([one({"main;later": 1, "main;f2": 1}, 11)])
    snapshot = open_store(str(tmp_path / "s")).snapshot()
    assert [folded.texts(snapshot.graph([i])) for i in snapshot.profile_ids()][-2:] == [
        {"main;work": 3, "main;f3": 2, "main;later": 5},
        {"main;later": 1, "main;f2": 1},
    ]
    assert not check(first).problems
