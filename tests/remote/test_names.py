"""Thread names read from outside (threading._active and each Thread's _name) on every CPython here."""

from __future__ import annotations

import json

import pytest

import flamespace as fs

from .targets import NAMED_THREADS, PYTHONS, Target, flamespace, python


def innermost_function(thread: dict) -> str:
    return thread["frames"][0].split(" (")[0] if thread["frames"] else ""


@pytest.mark.parametrize("name", list(PYTHONS))
def test_dump_names_threads_as_threading_does(name, tmp_path):
    """A named thread, a numbered one, a dummy (a thread threading learnt of late) and one threading never
    knew: the first three by threading's names, the last by its kernel id. (Failed before: every thread but
    the main one was 'Thread <kernel id>'.)"""
    with Target(python(name), NAMED_THREADS, tmp_path) as target:
        done = flamespace("dump", "--pid", str(target.pid), "--json")
    assert done.returncode == 0, done.stderr
    threads = {innermost_function(thread): thread for thread in json.loads(done.stdout)["threads"]}
    assert threads["<module>"]["name"] == "MainThread"
    assert threads["named_sleeper"]["name"] == "worker ✓ 1"
    assert threads["numbered_sleeper"]["name"] in ("Thread-1", "Thread-1 (numbered_sleeper)")  # 3.10+ add the target
    assert threads["dummy_sleeper"]["name"].startswith("Dummy-")
    unknown = threads["unknown_sleeper"]
    assert unknown["name"] == f"Thread {unknown['native_id']}"


def test_record_threads_roots_are_threading_names(tmp_path):
    with Target(python("3.12"), NAMED_THREADS, tmp_path) as target:
        done = flamespace("record", "--pid", str(target.pid), "-d", "0.3", "--threads", "-o", str(tmp_path / "t.folded"))
    assert done.returncode == 0, done.stderr
    roots = {stack[0] for stack in fs.read(tmp_path / "t.folded")}
    assert {"MainThread", "worker ✓ 1", "Thread-1 (numbered_sleeper)"} <= roots
    assert any(root.startswith("Dummy-") for root in roots)
