"""The profile store: round trips, dedupe, concurrent writers, killed writers, corrupt parts, gc."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flamespace.core.metadata import Metadata
from flamespace.core.vector import FlameGraph
from flamespace.diagnostics import Diagnostics
from flamespace.store import StoreError, open_store
from flamespace.store.store import MANIFEST
from .profiles import profiles, stored

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")

frames = st.sampled_from(["main", "a", "b", "parse (p.py:3)", "ü", "x y", "c_[k]"])
texts = st.lists(frames, min_size=1, max_size=5).map(";".join)
stacks_values = st.dictionaries(texts, st.integers(1, 10**9), min_size=1, max_size=12)


def total(items):
    merged: Counter = Counter()
    for values in items:
        merged.update(values)
    return dict(merged)


def items_of(values_list, unit="samples", start=0):
    """Profiles as Store.add takes them; a run label keeps equal contents apart."""
    return [
        (values, Metadata(unit=unit, labels={"run": str(start + i)}), f"run-{start + i}") for i, values in enumerate(values_list)
    ]


@settings(max_examples=15)
@given(st.lists(stacks_values, min_size=1, max_size=5), st.integers(1, 3))
def test_ingest_then_get_is_the_merged_input_exactly(values_list, batches):
    with tempfile.TemporaryDirectory() as root:
        store = open_store(os.path.join(root, "store"))
        items = items_of(values_list)
        for b in range(batches):  # in one part or several
            store.add(profiles(items[b::batches]), labels={"branch": "main"})
        snapshot = store.snapshot()
        ids = snapshot.select("store:branch=main")
        merged, metadata = stored(snapshot, ids)
        assert merged == total(values_list) and all(type(v) is int for v in merged.values())
        assert metadata.unit == "samples" and metadata.labels["branch"] == "main"
        mean, _ = stored(snapshot, ids, mean=True)
        assert mean == pytest.approx({k: v / len(values_list) for k, v in total(values_list).items()}, rel=1e-12)
        graph = snapshot.graph(ids)
        assert {";".join(s): v for s, v in graph.items()} == total(values_list)
        stacks, matrix, rows = snapshot.matrix(ids)
        assert rows == ids
        source = {r["id"]: r["source"] for r in snapshot.profiles(ids)}
        for ident, row in zip(rows, matrix):
            assert {s: int(v) for s, v in zip(stacks, row) if v} == values_list[int(source[ident].split("-")[1])]


def test_float_values_and_the_empty_stack_round_trip(tmp_path):
    store = open_store(str(tmp_path / "s"))
    values = {"a;b": 0.25, "": 3.5, "a": 1e-300, ";b": 2.0, ";": 1.5}  # frames named "" too
    store.add(profiles([(values, Metadata(unit="ms"), "one")]))
    snapshot = store.snapshot()
    assert stored(snapshot, snapshot.select("store:unit=ms"))[0] == values
    assert {tuple(s): v for s, v in snapshot.graph(snapshot.select("store:unit=ms")).items()} == {
        ("a", "b"): 0.25,
        (): 3.5,
        ("a",): 1e-300,
        ("", "b"): 2.0,
        ("", ""): 1.5,
    }


def test_the_same_profile_with_the_same_labels_is_stored_once(tmp_path):
    store = open_store(str(tmp_path / "s"))
    one = ({"a;b": 3, "a": 1}, Metadata(unit="samples", labels={"host": "h"}), "one.folded")
    first = store.add(profiles([one, one]), labels={"branch": "main"})
    assert len(first.added) == 1 and first.duplicates == [("one.folded", first.added[0])]
    again = open_store(str(tmp_path / "s")).add(profiles([one]), labels={"branch": "main"})  # a re-ingest (a fresh writer)
    assert again.added == [] and again.duplicates == [("one.folded", first.added[0])]
    snapshot = store.snapshot()
    assert snapshot.count() == 1
    assert stored(snapshot, snapshot.select("store:host=h"))[0] == {"a;b": 3, "a": 1}


def test_the_same_counts_under_other_labels_are_another_run(tmp_path):
    """Issue 26: every run of `flamespace trace` on unchanged code counts the same, and the
    second commit's runs were skipped as already stored: `history` had a hole there. (Failed
    before: the second add added nothing.)"""
    store = open_store(str(tmp_path / "s"))
    run = {"main;parse": 120, "main": 3}
    for commit in ("c1", "c2"):
        done = store.add(
            profiles([(run, Metadata(unit="calls", labels={"run": str(i)}), f"run-{i}") for i in (1, 2)]),
            labels={"commit": commit, "branch": "main"},
        )
        assert len(done.added) == 2 and done.duplicates == []
    again = open_store(str(tmp_path / "s")).add(
        profiles([(run, Metadata(unit="calls", labels={"run": "1"}), "run-1")]), labels={"commit": "c2", "branch": "main"}
    )
    assert again.added == [] and len(again.duplicates) == 1  # the same run, same labels: a re-ingest
    snapshot = store.snapshot()
    assert snapshot.count() == 4
    for commit in ("c1", "c2"):
        assert stored(snapshot, snapshot.select(f"store:commit={commit}"))[0] == {"main;parse": 240, "main": 6}


def test_a_run_of_a_collection_added_again_under_other_labels_is_the_same_run(tmp_path):
    """Its collection and run headers name it: a second `store add` with another --label is a re-ingest."""
    store = open_store(str(tmp_path / "s"))
    run = ({"a": 5}, Metadata(unit="ns", labels={"collection": "0123456789abcdef", "run": "1"}), "run-001.folded")
    first = store.add(profiles([run]), labels={"bench": "x"})
    again = store.add(profiles([run]), labels={"bench": "y"})
    assert len(first.added) == 1 and again.added == [] and again.duplicates == [("run-001.folded", first.added[0])]
    other = ({"a": 5}, Metadata(unit="ns", labels={"collection": "fedcba9876543210", "run": "1"}), "run-001.folded")
    assert len(store.add(profiles([other]), labels={"bench": "y"}).added) == 1  # another collection's run: another run


_WRITER = """
import sys
from flamespace.core.metadata import Metadata
from flamespace.core.vector import FlameGraph
from flamespace.store import open_store
def profiles(items): return [(FlameGraph.from_texts(v, metadata=m), s) for v, m, s in items]
store = open_store(sys.argv[1])
name = sys.argv[2]
for batch in range(8):
    store.add(profiles([({f"main;{name}{batch};f{i}": i + 1, "main;shared": 1}, Metadata(unit="samples", labels={"w": name, "b": str(batch), "i": str(i)}), name)
               for i in range(5)]), labels={"writer": name})
"""


def test_two_processes_ingest_at_once_and_lose_nothing(tmp_path):
    root = str(tmp_path / "s")
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER, root, name]) for name in ("x", "y")]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    snapshot = open_store(root).snapshot()
    assert snapshot.count() == 80 and len(snapshot.manifest["parts"]) == 16
    rows = snapshot.profiles()
    assert sorted(r["id"] for r in rows) == list(range(80))
    for name in ("x", "y"):
        merged, _ = stored(snapshot, snapshot.select(f"store:writer={name}"))
        expected = {f"main;{name}{b};f{i}": i + 1 for b in range(8) for i in range(5)}
        assert merged == {**expected, "main;shared": 40}
    # one id per distinct stack and frame, whoever interned it first
    db = snapshot.connection()
    assert db.execute("SELECT count(*) = count(DISTINCT (parent, frame)) FROM stacks").fetchone()[0]
    assert db.execute("SELECT count(*) = count(DISTINCT name) FROM frames").fetchone()[0]


_KILLED = """
import os, sys, time
from flamespace.core.metadata import Metadata
from flamespace.core.vector import FlameGraph
from flamespace.store import open_store, store as module
def profiles(items): return [(FlameGraph.from_texts(v, metadata=m), s) for v, m, s in items]
pause_in = sys.argv[3]
original = getattr(module, pause_in)
def paused(*args, **kwargs):
    if pause_in == "_write_table" and not args[3] == "stacks":
        return original(*args, **kwargs)
    if pause_in == "_write_table":
        original(*args, **kwargs)
    open(sys.argv[2], "w").close()
    time.sleep(60)
setattr(module, pause_in, paused)
open_store(sys.argv[1]).add(profiles([({"killed;stack": 5}, Metadata(unit="samples"), "killed")]), labels={"branch": "main"})
"""


@pytest.mark.parametrize("pause_in", ["_write_table", "write_manifest"])
def test_a_killed_ingest_leaves_nothing_visible(tmp_path, pause_in):
    root = str(tmp_path / "s")
    store = open_store(root)
    store.add(profiles([({"kept;stack": 1}, Metadata(unit="samples"), "kept")]), labels={"branch": "main"})
    flag = tmp_path / "flag"
    child = subprocess.Popen([sys.executable, "-c", _KILLED, root, str(flag), pause_in])
    deadline = time.monotonic() + 60
    while not flag.exists():
        assert child.poll() is None and time.monotonic() < deadline, "the writer never reached the pause"
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    leftovers = os.listdir(os.path.join(root, "tmp")) + os.listdir(os.path.join(root, "parts"))
    assert len(leftovers) == 2  # the kept part, and the killed writer's part (staged or moved, never listed)
    snapshot = open_store(root).snapshot()
    assert stored(snapshot, snapshot.select("store:branch=main"))[0] == {"kept;stack": 1}
    # the lock died with the writer: the next ingest goes through, and gc removes the leftovers
    assert open_store(root).add(profiles([({"next": 2}, Metadata(unit="samples"), "next")])).added == [1]
    done = open_store(root).gc()
    assert done.kept == 2 and done.deleted >= 1
    assert os.listdir(os.path.join(root, "tmp")) == []
    snapshot = open_store(root).snapshot()
    assert stored(snapshot, snapshot.select("store:unit=samples"))[0] == {"kept;stack": 1, "next": 2}


def _corrupt(path: str) -> None:
    """Flip bytes in the middle of a file, keeping its size."""
    data = bytearray(Path(path).read_bytes())
    middle = len(data) // 2
    data[middle : middle + 4] = bytes(b ^ 0xFF for b in data[middle : middle + 4])
    Path(path).write_bytes(bytes(data))


@pytest.mark.parametrize("kind", ["facts", "profiles", "stacks"])
def test_a_corrupt_part_is_named_and_skipped(tmp_path, kind):
    root = str(tmp_path / "s")
    store = open_store(root)
    store.add(profiles([({"a;first": 1}, Metadata(unit="samples"), "first")]), labels={"branch": "main"})
    store.add(
        profiles([({"a;second": 2}, Metadata(unit="samples"), "second"), ({"b": 3}, Metadata(unit="samples"), "third")]),
        labels={"branch": "main"},
    )
    bad = json.loads(Path(root, MANIFEST).read_text())["parts"][0]["name"]
    _corrupt(os.path.join(root, "parts", bad, f"{kind}.parquet"))
    if kind == "stacks":  # and its second copy (tests/store/test_repair.py: one copy is enough)
        _corrupt(os.path.join(root, "parts", bad, "mirror", f"{kind}.parquet"))
    diagnostics = Diagnostics()
    snapshot = open_store(root).snapshot(diagnostics)
    merged, _ = stored(snapshot, snapshot.select("store:branch=main"))
    # a lost dictionary takes the profiles that use its stacks with it ("a" is the first part's)
    assert merged == ({"a;second": 2, "b": 3} if kind != "stacks" else {"b": 3})
    warning = diagnostics.warnings[0]
    assert bad in warning and f"{kind}.parquet does not match its checksum" in warning
    diagnostics = Diagnostics()
    done = open_store(root).gc(diagnostics=diagnostics)
    # gc keeps every profile whose own files are sound (a lost stack table takes no profile
    # with it: they are kept, unreadable); what the corruption cost is said as lost, not removed
    lost = 0 if kind == "stacks" else 1
    assert (done.removed, done.kept, done.lost_profiles) == (0, 3 - lost, lost)
    assert done.unreadable == (2 if kind == "stacks" else 0)
    assert os.listdir(os.path.join(root, "corrupt")) == [bad] and [loss.part for loss in done.lost] == [bad]
    assert bad in diagnostics.warnings[0]
    diagnostics = Diagnostics()
    snapshot = open_store(root).snapshot(diagnostics)
    assert stored(snapshot, snapshot.select("store:branch=main"))[0] == merged
    assert len(diagnostics.warnings) == (1 if kind == "stacks" else 0)


def test_a_selector_that_matches_nothing_is_an_error(tmp_path):
    store = open_store(str(tmp_path / "s"))
    with pytest.raises(StoreError, match="it is empty"):
        store.snapshot().select("store:branch=main")
    store.add(profiles([({"a": 1}, Metadata(unit="samples"), "one")]), labels={"branch": "main"})
    with pytest.raises(StoreError, match=r"store:branch=dev matches no profile .*branch: main"):
        store.snapshot().select("store:branch=dev")


def test_selectors_filter_by_label_commit_prefix_time_and_last(tmp_path):
    store = open_store(str(tmp_path / "s"))
    day = datetime(2026, 11, 1, 12)
    for i in range(6):
        store.add(
            profiles([({f"s{i}": 1}, Metadata(unit="samples", labels={"time": (day + timedelta(days=i)).isoformat()}), f"p{i}")]),
            labels={"branch": "main" if i % 2 == 0 else "dev", "commit": f"abc{i}def", "bench": "parse"},
        )
    snapshot = store.snapshot()
    assert snapshot.select("store:branch=main") == [0, 2, 4]
    assert snapshot.select("store:branch=main,last=2") == [2, 4]
    assert snapshot.select("store:commit=abc3") == [3]
    assert snapshot.select("store:bench=parse,since=2026-11-04") == [3, 4, 5]
    assert snapshot.select("store:until=2026-11-02") == [0, 1]  # a date: the whole day
    assert snapshot.select("store:id=5") == [5]


def test_gc_keeps_the_last_of_each_branch_and_drops_old_ones(tmp_path):
    store = open_store(str(tmp_path / "s"))
    day = datetime(2026, 11, 1)
    for i in range(8):
        store.add(
            profiles(
                [({f"s;{i}": i + 1}, Metadata(unit="samples", labels={"time": (day + timedelta(days=i)).isoformat()}), f"p{i}")]
            ),
            labels={"branch": "main" if i < 5 else "dev"},
        )
    done = store.gc(keep_last=3)
    assert (done.removed, done.kept, done.parts_before, done.parts_after) == (2, 6, 8, 1)
    snapshot = store.snapshot()
    assert snapshot.select("store:branch=main") == [2, 3, 4]
    assert stored(snapshot, snapshot.select("store:branch=dev"))[0] == {"s;5": 6, "s;6": 7, "s;7": 8}
    done = store.gc(older_than=timedelta(days=3), now=day + timedelta(days=8))
    assert done.kept == 3 and store.snapshot().select("store:unit=samples") == [5, 6, 7]
    # new profiles after gc reuse the interned stacks
    store.add(profiles([({"s;5": 1}, Metadata(unit="samples", labels={"new": "1"}), "again")]))
    assert store.snapshot().connection().execute("SELECT count(*) FROM stacks").fetchone()[0] == 9  # "s" and s;0..7


def test_without_the_extra_the_error_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "duckdb", None)
    with pytest.raises(StoreError, match=r"flamespace\[store\]"):
        open_store("anywhere")


def test_the_store_place_is_decided_in_one_place(monkeypatch):
    from flamespace.store import location

    monkeypatch.delenv(location.ENV, raising=False)
    assert location.resolve() == os.path.join(".flamespace", "store")
    monkeypatch.setenv(location.ENV, "/x")
    assert location.resolve() == "/x" and location.resolve("/y") == "/y"


def test_gc_writes_parts_of_bounded_size_that_read_as_one(tmp_path, monkeypatch):
    from flamespace.store import store as module

    store = open_store(str(tmp_path / "s"))
    values = [{f"m;{i};{j}": i + j + 1 for j in range(3)} for i in range(7)]
    store.add(profiles(items_of(values)[:4]), labels={"branch": "main"})
    store.add(profiles(items_of(values)[4:]), labels={"branch": "main"})
    monkeypatch.setattr(module, "PART_FACTS", 5)
    done = store.gc()
    assert (done.parts_before, done.parts_after) == (2, 7)  # 3 facts a profile: one profile a part
    snapshot = store.snapshot()
    assert stored(snapshot, snapshot.select("store:branch=main"))[0] == total(values)
    assert stored(snapshot, snapshot.select("store:branch=main,last=2"))[0] == total(values[5:])
    assert sum(p["facts"] for p in snapshot.manifest["parts"]) == 21


def test_a_snapshot_stays_as_it_was_taken(tmp_path):
    store = open_store(str(tmp_path / "s"))
    store.add(profiles([({"a": 1}, Metadata(unit="samples"), "one")]), labels={"branch": "main"})
    store.add(profiles([({"b": 2}, Metadata(unit="samples"), "two")]), labels={"branch": "main"})
    before = store.snapshot()
    store.add(profiles([({"c": 3}, Metadata(unit="samples"), "three")]), labels={"branch": "main"})
    open_store(str(tmp_path / "s")).gc(keep_last=1)  # replaces the parts the snapshot reads
    assert stored(before, before.select("store:branch=main"))[0] == {"a": 1, "b": 2}
    after = store.snapshot()
    assert stored(after, after.select("store:branch=main"))[0] == {"c": 3}


def test_an_ingest_that_fails_midway_adds_nothing_and_leaves_no_stale_ids(tmp_path):
    from flamespace.errors import InputError

    root = str(tmp_path / "s")
    first = open_store(root)

    def failing():
        yield {"new;stack": 1}, Metadata(unit="samples"), "good"
        raise InputError("is damaged", "bad.folded")

    with pytest.raises(InputError):
        first.add(profiles(failing()))
    assert first.snapshot().count() == 0
    open_store(root).add(profiles([({"other;stack": 2}, Metadata(unit="samples"), "other")]))  # takes the ids the failure held
    first.add(profiles([({"new;stack": 3}, Metadata(unit="samples"), "again")]))
    snapshot = first.snapshot()
    assert stored(snapshot, [0])[0] == {"other;stack": 2} and stored(snapshot, [1])[0] == {"new;stack": 3}


def test_a_big_ingest_is_written_in_bounded_parts_that_appear_at_once(tmp_path, monkeypatch):
    from flamespace.store import store as module

    monkeypatch.setattr(module, "PART_FACTS", 4)
    store = open_store(str(tmp_path / "s"))
    values = [{f"m;{i};{j}": j + 1 for j in range(3)} for i in range(5)]
    result = store.add(profiles(items_of(values)), labels={"branch": "main"})
    assert result.added == [0, 1, 2, 3, 4]
    snapshot = store.snapshot()
    assert len(snapshot.manifest["parts"]) == 3 and snapshot.manifest["generation"] == 1  # one manifest update
    assert stored(snapshot, snapshot.select("store:branch=main"))[0] == total(values)


def test_add_takes_flame_graphs_however_they_keep_their_stacks(tmp_path):
    store = open_store(str(tmp_path / "s"))
    kept_as_texts = FlameGraph.from_texts({"a;b": 3, "a": 1}, unit="samples")
    of_tuples = FlameGraph({("a", "b"): 3, ("a",): 1}, unit="samples")
    first = store.add([(kept_as_texts, "one")], labels={"branch": "main"})
    again = store.add([(of_tuples, "two")], labels={"branch": "main"})
    assert len(first.added) == 1 and again.added == [] and len(again.duplicates) == 1  # the same content
    snapshot = store.snapshot()
    got = snapshot.graph(snapshot.select("store:branch=main"))
    assert got == of_tuples and got.unit == "samples" and type(got[("a", "b")]) is int
