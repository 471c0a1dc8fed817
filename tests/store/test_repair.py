"""A damaged store loses only what was damaged, and says so: gc after corruption, the mirrored
stack table, the manifest's previous generation and the parts' own descriptions, ids that never
repeat, `store check` (changes nothing) and `store repair`. Corruption is real: bytes flipped or
cut in the files of a store written by flamespace."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from flamespace.core.metadata import Metadata
from flamespace.diagnostics import Diagnostics
from flamespace.store import StoreError, open_store
from flamespace.store import store as module
from flamespace.store.repair import check, repair
from flamespace.store.store import CORRUPT, MANIFEST, PREVIOUS, ManifestError
from .profiles import profiles, stored

from .test_store import _corrupt

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")


def runs(prefix: str, n: int, step: int = 1):
    """n profiles with stacks of their own (``prefix``) and shared ones."""
    return [
        (
            {f"main;{prefix}{i};g{j}": j + step for j in range(20)} | {"main;shared": i + 1},
            Metadata(unit="samples", labels={"run": f"{prefix}{i}"}),
            f"{prefix}{i}",
        )
        for i in range(n)
    ]


def two_parts(root: str):
    """The issue's store: 200 profiles compacted by gc into one part that holds the whole stack
    table, then 5 more in a part of their own that use its stacks."""
    store = open_store(root)
    store.add(profiles(runs("r", 200)[:100]), labels={"branch": "main"})
    store.add(profiles(runs("r", 200)[100:]), labels={"branch": "main"})
    store.gc()  # the two parts it replaces stay in parts/ for an hour (readers may use them)
    store.add(profiles(runs("r", 5, step=2)), labels={"branch": "main"})  # the same stacks, other values
    manifest = json.loads(Path(root, MANIFEST).read_text())
    return store, [p["name"] for p in manifest["parts"]]


def everything(root: str):
    snapshot = open_store(root).snapshot()
    return stored(snapshot, snapshot.profile_ids())[0]


def tree(root: str):
    """Every file under ``root`` with its size and modification time (what `check` must not change)."""
    found = {}
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if name != ".lock":
                stat = os.stat(path)
                found[os.path.relpath(path, root)] = (stat.st_size, stat.st_mtime_ns)
    return found


def test_a_flipped_stack_table_costs_nothing_gc_keeps_every_profile(tmp_path):
    """Before: gc said "removed 205 profile(s), kept 0" and the next gc deleted the intact part."""
    root = str(tmp_path / "s")
    _, (big, _) = two_parts(root)
    before = everything(root)
    _corrupt(os.path.join(root, "parts", big, "stacks.parquet"))
    diagnostics = Diagnostics()
    done = open_store(root).gc(diagnostics=diagnostics)
    assert (done.removed, done.kept, done.lost_profiles, done.unreadable) == (0, 205, 0, 0)
    assert "its copy in mirror/ is sound" in diagnostics.warnings[0]
    assert everything(root) == before
    done = open_store(root).gc()
    assert (done.removed, done.kept) == (0, 205) and everything(root) == before


def test_a_stack_table_lost_with_its_copy_keeps_the_profiles_aside_not_deleted(tmp_path):
    root = str(tmp_path / "s")
    _, (big, small) = two_parts(root)
    for path in ("stacks.parquet", "mirror/stacks.parquet"):
        _corrupt(os.path.join(root, "parts", big, path))
    done = open_store(root).gc()
    # every profile's own files are sound: kept (unreadable: their stacks are gone), never counted as removed
    assert (done.removed, done.kept, done.unreadable) == (0, 205, 205)
    assert [(loss.part, loss.profiles) for loss in done.lost] == [(big, 0)]
    assert "stacks.parquet does not match its checksum" in str(done.lost[0]) and CORRUPT in str(done.lost[0])
    assert sorted(os.listdir(os.path.join(root, CORRUPT, big))) == [
        "facts.parquet",
        "frames.parquet",
        "mirror",
        "part.json",
        "profiles.parquet",
        "stacks.parquet",
    ]
    done = open_store(root).gc()  # the next gc deletes nothing of them either
    assert (done.removed, done.kept) == (0, 205) and os.listdir(os.path.join(root, CORRUPT)) == [big]
    assert len(open_store(root).snapshot().profile_ids()) == 205
    report = check(open_store(root))
    assert not report.problems and any("205 profile(s) are kept but cannot be read" in n for n in report.notes)


def test_a_truncated_fact_file_is_lost_to_corruption_not_to_retention(tmp_path):
    """Before: "removed 0, kept 5" while 200 profiles left the store unsaid."""
    root = str(tmp_path / "s")
    _, (big, _) = two_parts(root)
    facts = Path(root, "parts", big, "facts.parquet")
    data = facts.read_bytes()
    facts.write_bytes(data[: len(data) // 2])
    done = open_store(root).gc()
    assert (done.removed, done.kept, done.lost_profiles) == (0, 5, 200)
    assert f"{len(data) // 2:,} bytes, the manifest says {len(data):,}" in str(done.lost[0])
    assert "200 profile(s) lost to corruption" in str(done.lost[0])
    assert Path(root, CORRUPT, big, "facts.parquet").read_bytes() == data[: len(data) // 2]  # kept aside as it was
    quarantined = json.loads(Path(root, MANIFEST).read_text())["quarantined"]
    assert [(q["name"], q["lost"]) for q in quarantined] == [(big, 200)]


def test_a_flipped_stack_table_is_reported_by_check_and_restored_by_repair(tmp_path):
    root = str(tmp_path / "s")
    _, (big, _) = two_parts(root)
    before = everything(root)
    stacks = os.path.join(root, "parts", big, "stacks.parquet")
    _corrupt(stacks)
    files = tree(root)
    report = check(open_store(root))
    assert len(report.problems) == 1 and big in report.problems[0] and "stacks.parquet" in report.problems[0]
    assert tree(root) == files  # check changes nothing
    done = repair(open_store(root))
    assert done.done == [f"restored {stacks} from {os.path.join(root, 'parts', big, 'mirror', 'stacks.parquet')}"]
    assert not done.lost and not done.unrepaired
    assert Path(stacks).read_bytes() == Path(root, "parts", big, "mirror", "stacks.parquet").read_bytes()
    assert not check(open_store(root)).problems and everything(root) == before


def _flip_json(path: str) -> None:
    text = Path(path).read_text()
    Path(path).write_text(text.replace('"next_profile": 205', '"next_profile": 5'))


@pytest.mark.parametrize("damage", ["flip", "truncate", "delete", "counter"])
def test_a_damaged_manifest_is_rebuilt_from_its_previous_generation_and_the_parts(tmp_path, damage):
    root = str(tmp_path / "s")
    two_parts(root)
    before = everything(root)
    path = os.path.join(root, MANIFEST)
    if damage == "flip":
        _corrupt(path)
    elif damage == "truncate":
        Path(path).write_bytes(Path(path).read_bytes()[:100])
    elif damage == "delete":
        os.remove(path)
    else:  # valid JSON, a lowered counter: only the checksum shows it
        _flip_json(path)
    with pytest.raises(ManifestError, match="store repair"):
        open_store(root).snapshot()
    with pytest.raises(ManifestError, match="store repair"):
        open_store(root).add(profiles(runs("new", 1)))
    files = tree(root)
    report = check(open_store(root))
    assert MANIFEST in report.problems[0] and len(report.problems) == 1
    assert tree(root) == files
    done = repair(open_store(root))
    assert done.done[0].startswith(f"rebuilt {MANIFEST} from {PREVIOUS}") and not done.lost and not done.unrepaired
    assert everything(root) == before
    assert not check(open_store(root)).problems
    assert open_store(root).add(profiles(runs("new", 1))).added == [205]  # ids go on where they were


def test_without_a_previous_generation_the_manifest_is_rebuilt_from_the_parts_alone(tmp_path):
    root = str(tmp_path / "s")
    store, _ = two_parts(root)  # gc's replaced parts are still in parts/ (grace for readers)
    before = everything(root)
    retired = json.loads(Path(root, MANIFEST).read_text())["retired"]
    assert retired and all(os.path.isdir(os.path.join(root, "parts", r["name"])) for r in retired)
    os.remove(os.path.join(root, MANIFEST))
    os.remove(os.path.join(root, PREVIOUS))
    done = repair(open_store(root))
    assert "no readable MANIFEST.prev.json" in done.done[0] and not done.lost and not done.unrepaired
    assert everything(root) == before  # the parts gc replaced are not counted twice


def test_ingest_never_repeats_an_id_below_a_lowered_counter(tmp_path):
    root = str(tmp_path / "s")
    store = open_store(root)
    store.add(profiles(runs("a", 3)))
    manifest = module.read_manifest(root)
    manifest["next_profile"] = 1
    module.write_manifest(root, manifest)
    assert open_store(root).add(profiles(runs("b", 1))).added == [3]
    ids = open_store(root).snapshot().profile_ids()
    assert ids == [0, 1, 2, 3]


def _duplicated(root: str, monkeypatch) -> None:
    """A store with profile id 0 twice, as ingest made it before it skipped past stored ids."""
    open_store(root).add(
        profiles(
            [
                ({"a;b": 1}, Metadata(unit="samples", labels={"r": "1"}), "one"),
                ({"a;c": 2}, Metadata(unit="samples", labels={"r": "2"}), "two"),
            ]
        )
    )
    manifest = module.read_manifest(root)
    manifest["next_profile"] = 0
    module.write_manifest(root, manifest)
    with monkeypatch.context() as patch:  # the counter as the manifest says, as ingest took it before
        patch.setattr(module, "_next_ids", lambda manifest, intern: {k: manifest[f"next_{k}"] for k in module.COUNTERS})
        open_store(root).add(profiles([({"a;b": 5}, Metadata(unit="samples", labels={"r": "3"}), "three")]))


def test_a_profile_id_used_twice_is_found_by_check_and_given_a_new_id_by_repair(tmp_path, monkeypatch):
    root = str(tmp_path / "s")
    _duplicated(root, monkeypatch)
    snapshot = open_store(root).snapshot()
    assert snapshot.profile_ids() == [0, 0, 1]
    with pytest.raises(StoreError, match="profile id 0 is stored 2 times"):  # before: silently the sum of both
        snapshot.select("store:id=0")
    report = check(open_store(root))
    assert any("profile id 0 is used by 2 profiles" in p for p in report.problems)
    done = repair(open_store(root))
    assert any("the one in part" in d and "(three) is now id 2" in d for d in done.done) and not done.lost
    snapshot = open_store(root).snapshot()
    assert snapshot.profile_ids() == [0, 1, 2]
    assert [stored(snapshot, snapshot.select(f"store:id={i}"))[0] for i in range(3)] == [{"a;b": 1}, {"a;c": 2}, {"a;b": 5}]
    assert not check(open_store(root)).problems
    again = open_store(root).add(profiles([({"a;b": 5}, Metadata(unit="samples", labels={"r": "3"}), "three")]))
    assert again.added == [] and again.duplicates == [("three", 2)]  # its labels and identity kept through repair
    assert open_store(root).snapshot().select("store:r=3") == [2]
    assert open_store(root).add(profiles(runs("n", 1))).added == [3]


def test_parts_written_after_the_previous_generation_by_two_writers_are_set_aside_not_guessed(tmp_path):
    root = str(tmp_path / "s")
    store = open_store(root)
    store.add(profiles(runs("a", 1)))
    # a writer killed after moving its part into parts/ (never committed), then another's commit
    generation = module.read_manifest(root)
    killed = store._write_part(
        {kind: module.schema(kind).empty_table() for kind in module.KINDS},
        module.modules()[2],
        0,
        module._part_meta(generation, "killed", {"profile": 1, "frame": 0, "stack": 0}),
    )
    store.add(profiles(runs("b", 1)))
    os.remove(os.path.join(root, MANIFEST))
    done = repair(open_store(root))
    assert any("2 writers" in d and killed["name"] in d for d in done.lost)
    assert killed["name"] in os.listdir(os.path.join(root, CORRUPT))
    assert open_store(root).snapshot().profile_ids() == [0]  # the last generation before the damage
    assert not done.unrepaired


def test_a_store_without_problems_is_left_as_it_is(tmp_path):
    root = str(tmp_path / "s")
    two_parts(root)
    files = tree(root)
    assert not check(open_store(root)).problems
    done = repair(open_store(root))
    assert not done.problems and not done.done and tree(root) == files
    with pytest.raises(StoreError, match="there is no store"):
        check(open_store(str(tmp_path / "none")))


def test_an_older_store_without_part_descriptions_is_described_by_repair(tmp_path):
    root = str(tmp_path / "s")
    two_parts(root)
    for name in os.listdir(os.path.join(root, "parts")):
        os.remove(os.path.join(root, "parts", name, "part.json"))
        shutil.rmtree(os.path.join(root, "parts", name, "mirror"))
    report = check(open_store(root))
    assert len(report.problems) == 2 and all("has no part.json" in p for p in report.problems)
    done = repair(open_store(root))
    assert len(done.done) == 2 and not check(open_store(root)).problems


def test_a_damaged_previous_generation_is_a_problem_repair_replaces(tmp_path):
    root = str(tmp_path / "s")
    two_parts(root)
    Path(root, PREVIOUS).write_text("{")
    report = check(open_store(root))
    assert len(report.problems) == 1 and PREVIOUS in report.problems[0]
    done = repair(open_store(root))
    assert done.done == [f"replaced the damaged {PREVIOUS} by the current manifest"]
    assert not check(open_store(root)).problems


def test_a_first_ingest_under_way_is_an_empty_store_but_a_lost_manifest_is_not(tmp_path):
    root = str(tmp_path / "s")
    store = open_store(root)
    os.makedirs(os.path.join(root, "tmp"))
    os.makedirs(os.path.join(root, "parts"))
    store._write_part(
        {kind: module.schema(kind).empty_table() for kind in module.KINDS},
        module.modules()[2],
        0,
        module._part_meta(module.empty_manifest(), "first", {"profile": 0, "frame": 0, "stack": 0}),
    )
    assert open_store(root).snapshot().count() == 0  # not visible yet, and no error
    store.add(profiles(runs("a", 2)))
    store.add(profiles(runs("b", 2)))
    os.remove(os.path.join(root, MANIFEST))
    os.remove(os.path.join(root, PREVIOUS))
    # before: the next add began a new manifest (id 0 again) and the next gc deleted every other part as unlisted
    with pytest.raises(ManifestError, match="is missing but the store holds parts"):
        open_store(root).add(profiles(runs("c", 1)))
    with pytest.raises(ManifestError, match="is missing but the store holds parts"):
        open_store(root).gc()


def test_a_frame_id_defined_twice_is_reported_and_not_guessed(tmp_path, monkeypatch):
    root = str(tmp_path / "s")
    open_store(root).add(profiles([({"a;b": 1}, Metadata(unit="samples"), "one")]))
    with monkeypatch.context() as patch:  # stack and frame counters back at 0, as a lowered manifest gave before
        patch.setattr(module, "_next_ids", lambda manifest, intern: {"profile": manifest["next_profile"], "frame": 0, "stack": 0})
        open_store(root).add(profiles([({"x;y": 2}, Metadata(unit="samples"), "two")]))
    report = check(open_store(root))
    assert any("frame id 0 is defined twice, differently" in p for p in report.problems)  # "a" and "x"
    done = repair(open_store(root))
    assert any("raised next_stack from 0 to 2" in d for d in done.done)
    assert [p for p in done.unrepaired if "defined twice" in p] == [p for p in report.problems if "defined twice" in p]


def test_a_part_written_on_the_lost_manifest_was_never_committed_and_is_not_restored(tmp_path):
    root = str(tmp_path / "s")
    store = open_store(root)
    store.add(profiles(runs("a", 1)))
    store.add(profiles(runs("b", 1)))  # generation 2; MANIFEST.prev.json is generation 1
    current = module.read_manifest(root)
    killed = store._write_part(
        {kind: module.schema(kind).empty_table() for kind in module.KINDS},
        module.modules()[2],
        0,
        module._part_meta(current, "killed", {"profile": 2, "frame": 0, "stack": 0}),
    )
    _corrupt(os.path.join(root, MANIFEST))
    done = repair(open_store(root))
    assert any(killed["name"] in d and "not restored" in d for d in done.done) and not done.lost
    assert open_store(root).snapshot().profile_ids() == [0, 1]


def test_a_manifest_an_older_flamespace_wrote_again_is_not_taken_for_damaged(tmp_path):
    """An older flamespace keeps the keys it does not know, the stale seal included."""
    root = str(tmp_path / "s")
    two_parts(root)
    path = Path(root, MANIFEST)
    manifest = json.loads(path.read_text())
    manifest["generation"] += 1  # what the older write_manifest does, and nothing more
    path.write_text(json.dumps(manifest))
    assert len(open_store(root).snapshot().profile_ids()) == 205 and not check(open_store(root)).problems
    manifest["next_profile"] = 7  # but damage within a sealed generation is found
    manifest["generation"] -= 1
    path.write_text(json.dumps(manifest))
    with pytest.raises(ManifestError, match="does not match its checksum"):
        open_store(root).snapshot()
