"""--mode alloc: bytes allocated during the run, sampled without bias."""

from __future__ import annotations

import statistics

import pytest

import flamespace as fs
from flamespace.collect.alloc import AllocRecorder, available

from .names import qualified
from .test_record import record, write

pytestmark = pytest.mark.skipif(available() is not None, reason=f"alloc mode unavailable: {available()}")

PROGRAM = """
def temporaries():
    for _ in range(300):
        bytearray(20_000)          # 6 MB, each block freed at once

def fewer():
    for _ in range(100):
        bytearray(20_000)          # 2 MB

temporaries()
fewer()
"""


def bytes_in(graph: fs.FlameGraph, function: str) -> float:
    return sum(v for s, v in graph.items() if any(f.startswith(function + " (") for f in s))


def test_every_allocation_recorded_exactly_with_interval_zero(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "prog.py", PROGRAM)
    code, out = record(tmp_path, "--mode", "alloc", "--bytes-per-sample", "0", "--", "prog.py")
    graph = fs.read(out)
    assert code == 0 and graph.metadata.unit == "bytes"
    # a bytearray of n bytes is one block of n + 1 bytes (its buffer) and one object
    assert 300 * 20_001 <= bytes_in(graph, "temporaries") < 300 * 20_200
    assert 100 * 20_001 <= bytes_in(graph, "fewer") < 100 * 20_200
    assert not any("flamespace" in f or "_bootstrap.py" in f for s in graph for f in s)


def test_count_weight_counts_allocations(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "prog.py", PROGRAM)
    code, out = record(tmp_path, "--mode", "alloc", "--weight", "count", "--bytes-per-sample", "0", "--", "prog.py")
    graph = fs.read(out)
    assert graph.metadata.unit == "count"
    buffers = sum(v for s, v in graph.items() if s[-1] == "temporaries (prog.py:4)")
    assert buffers == 600  # the object and its buffer, 300 times


def test_sampled_estimates_are_unbiased():
    def work():
        for _ in range(300):
            bytearray(20_000)

    def measure(interval, seed):
        recorder = AllocRecorder(interval=interval, seed=seed).start()
        work()
        raw = recorder.stop()
        name = qualified("test_sampled_estimates_are_unbiased.<locals>.work") + " ("
        return sum(v for s, v in raw.totals.items() if any(f.startswith(name) for f in s))

    exact = measure(0, 1)
    estimates = [measure(64 * 1024, seed) for seed in range(1, 41)]
    # the standard error of the mean of 40 estimates is about 1.5% here
    assert statistics.mean(estimates) == pytest.approx(exact, rel=0.05)
    assert statistics.stdev(estimates) > 0  # sampled, not exact


def test_the_default_sampling_interval_finds_the_big_allocators(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "prog.py", PROGRAM)
    code, out = record(tmp_path, "--mode", "alloc", "--seed", "3", "--", "prog.py")
    graph = fs.read(out)
    assert graph.metadata.labels["bytes_per_sample"] == "262144"
    assert bytes_in(graph, "temporaries") == pytest.approx(6e6, rel=0.35)
    assert bytes_in(graph, "fewer") == pytest.approx(2e6, rel=0.7)


def test_api_decorator_and_block(tmp_path):
    @fs.profile(mode="alloc", interval=0)
    def work():
        return [bytearray(1000) for _ in range(100)]

    work()
    graph = work.profiler.graph
    assert graph.metadata.metric == "alloc"
    assert 100_000 <= bytes_in(graph, qualified("test_api_decorator_and_block.<locals>.work.<locals>.<listcomp>")) < 110_000


def test_forked_children_record_their_own_allocations(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(
        tmp_path / "forks.py",
        """
import os
def parent_work():
    return [bytearray(10_000) for _ in range(100)]
def child_work():
    return [bytearray(10_000) for _ in range(300)]
parent_work()
pid = os.fork()
if pid == 0:
    child_work()
    os._exit(0)
os.waitpid(pid, 0)
""",
    )
    code, out = record(tmp_path, "--mode", "alloc", "--bytes-per-sample", "0", "--subprocesses", "--", "forks.py")
    graph = fs.read(out)
    by_root: dict = {}
    for stack, value in graph.items():
        key = (stack[0], next((f.split(" ")[0] for f in stack if f.endswith("work (forks.py:6)") or "_work" in f), None))
        by_root[key] = by_root.get(key, 0) + value
    child = [root for root, function in by_root if function == "child_work"]
    parent = [root for root, function in by_root if function == "parent_work"]
    assert len(child) == 1 and len(parent) == 1 and child != parent  # recorded once, in each process
    assert 3_000_000 <= by_root[(child[0], "child_work")] < 3_200_000


@pytest.mark.parametrize(
    "args, message",
    [
        (["--mode", "wall", "--bytes-per-sample", "10"], "applies to --mode alloc"),
        (["--mode", "alloc", "--duration", "1"], "--duration applies to the sampling modes"),
        (["--mode", "alloc", "--weight", "samples"], "the memory modes weigh by bytes or count"),
    ],
)
def test_alloc_usage_errors(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    assert fs.cli.main(["record", "-o", "x.folded", *args, "-c", "pass"]) == 1
    assert message in capsys.readouterr().err
