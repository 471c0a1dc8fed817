"""Time windows in the store: each profile keeps the window it covers (``time`` to ``time_end``),
and stores written before the ``time_end`` column read as windows of no length until gc rewrites them."""

from __future__ import annotations

from datetime import datetime

import pytest

from flamespace.core.metadata import Metadata
from flamespace.core.vector import FlameGraph
from flamespace.store import open_store
from flamespace.store import store as module

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")


def window(values, start, end=None, **labels):
    """A profile labelled with its window."""
    given = {"time": start, **({"time_end": end} if end else {}), **labels}
    return FlameGraph.from_texts(values, metadata=Metadata(unit="samples", labels=given)), f"{start}"


def written_before_windows(monkeypatch):
    """Make the store write parts as a flamespace before ``time_end`` did: no such column."""
    old_columns = tuple(c for c in module.PROFILE_COLUMNS if c != "time_end")
    new_schema = module.schema

    def old_schema(kind):
        found = new_schema(kind)
        return found.remove(found.get_field_index("time_end")) if kind == "profiles" else found

    monkeypatch.setattr(module, "PROFILE_COLUMNS", old_columns)
    monkeypatch.setattr(module, "schema", old_schema)


def test_a_profile_keeps_its_window(tmp_path):
    store = open_store(str(tmp_path / "s"))
    store.add([window({"a;b": 3}, "2026-11-01T10:00:00", "2026-11-01T10:00:10")])
    (row,) = store.snapshot().profiles()
    assert (row["time"], row["time_end"]) == (datetime(2026, 11, 1, 10, 0, 0), datetime(2026, 11, 1, 10, 0, 10))


def test_the_same_counts_in_two_windows_are_two_profiles(tmp_path):
    store = open_store(str(tmp_path / "s"))
    result = store.add([window({"a": 1}, "2026-11-01T10:00:00", "2026-11-01T10:00:10"), window({"a": 1}, "2026-11-01T10:00:10")])
    assert len(result.added) == 2


def test_a_part_written_before_windows_reads_as_windows_of_no_length_and_gc_migrates_it(tmp_path, monkeypatch):
    store = open_store(str(tmp_path / "s"))
    with monkeypatch.context() as patched:
        written_before_windows(patched)
        store.add([window({"a": 1}, "2026-11-01T09:00:00")])
        store._intern = None
    import pyarrow.parquet as pq

    (old_part,) = store.snapshot().manifest["parts"]
    assert "time_end" not in pq.read_schema(tmp_path / "s" / "parts" / old_part["name"] / "profiles.parquet").names
    store.add([window({"a": 2}, "2026-11-01T10:00:00", "2026-11-01T10:00:10")])
    snapshot = store.snapshot()
    rows = snapshot.profiles()
    assert [(r["time"], r["time_end"]) for r in rows] == [
        (datetime(2026, 11, 1, 9), datetime(2026, 11, 1, 9)),
        (datetime(2026, 11, 1, 10), datetime(2026, 11, 1, 10, 0, 10)),
    ]
    assert len(snapshot.select("store:since=2026-11-01T09:30")) == 1
    store.gc()
    (part,) = store.snapshot().manifest["parts"]
    assert "time_end" in pq.read_schema(tmp_path / "s" / "parts" / part["name"] / "profiles.parquet").names
    assert [(r["time"], r["time_end"]) for r in store.snapshot().profiles()] == [(r["time"], r["time_end"]) for r in rows]


def test_a_store_of_old_parts_only_reads(tmp_path, monkeypatch):
    store = open_store(str(tmp_path / "s"))
    with monkeypatch.context() as patched:
        written_before_windows(patched)
        store.add([window({"a": 1}, "2026-11-01T09:00:00")])
    (row,) = open_store(str(tmp_path / "s")).snapshot().profiles()
    assert row["time_end"] == row["time"] == datetime(2026, 11, 1, 9)


def test_conform_gives_an_old_profiles_table_its_window(tmp_path, monkeypatch):
    with monkeypatch.context() as patched:
        written_before_windows(patched)
        old = module.schema("profiles").empty_table()
    assert module.conform(old, "profiles").schema == module.schema("profiles")
