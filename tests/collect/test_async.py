"""--async: asyncio tasks shown as their awaiting chain, not as event-loop internals."""

from __future__ import annotations

import sys

import pytest

import flamespace as fs

from .test_record import record, write

PROGRAM = """
import asyncio, sys, time

def spin(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass

async def leaf(n):
    for _ in range(n):
        spin(0.01)
        await asyncio.sleep(0)

async def fetch(n):
    await leaf(n)

async def handler():
    await asyncio.gather(fetch(10), fetch(5))          # gathered coroutines
    await asyncio.wait_for(fetch(5), 5)                # through a waiter future
    if sys.version_info >= (3, 11):
        async with asyncio.TaskGroup() as group:       # a task group's child
            group.create_task(fetch(5))
    else:
        await fetch(5)

async def main():
    await asyncio.ensure_future(handler())             # a task awaiting a task

asyncio.run(main())
"""


def spin_stacks(graph: fs.FlameGraph) -> dict:
    return {s: v for s, v in graph.items() if s[-1].startswith("spin (")}


def test_async_shows_the_awaiting_chain(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "app.py", PROGRAM)
    code, out = record(tmp_path, "--async", "--mode", "cpu", "--rate", "200", "--", "app.py")
    assert code == 0
    stacks = spin_stacks(fs.read(out))
    total = sum(stacks.values())
    assert total > 0.15e9
    # (from 3.12, wait_for awaits the coroutine itself: its frame is really on the stack)
    chained = sum(
        v
        for s, v in stacks.items()
        if [f.split(" (")[0] for f in s if "asyncio/" not in f] == ["<module>", "main", "handler", "fetch", "leaf", "spin"]
    )
    assert chained / total > 0.95
    assert not any("base_events.py" in f or "events.py" in f for s in stacks for f in s)


def test_without_async_the_event_loop_is_in_the_stacks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "app.py", PROGRAM)
    code, out = record(tmp_path, "--mode", "cpu", "--rate", "200", "--", "app.py")
    stacks = spin_stacks(fs.read(out))
    assert all(any("_run_once (" in f for f in s) for s in stacks)
    assert not any("main (" in f for s in stacks for f in s)  # main awaits handler's task: not on its stack


def test_a_program_without_asyncio_is_unchanged(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(
        tmp_path / "plain.py",
        "import time\ndef f():\n    end = time.process_time() + 0.1\n    while time.process_time() < end:\n        pass\nf()\n",
    )
    code, out = record(tmp_path, "--async", "--mode", "cpu", "--", "plain.py")
    assert any(s[-1].startswith("f (plain.py:4)") for s in fs.read(out))


pytestmark = pytest.mark.skipif(sys.implementation.name != "cpython", reason="reads CPython's asyncio tasks")
