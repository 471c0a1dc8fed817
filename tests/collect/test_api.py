"""The Python API: profile() as a context manager and decorator, Rotation."""

from __future__ import annotations

import time

import pytest

import flamespace as fs

from .recorder_error import boundary_error_ns


def spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_profile_block_gives_a_graph_of_the_block():
    with fs.profile(rate=1000, threads=True) as p:
        started = time.perf_counter_ns()
        spin(0.2)
        spun = time.perf_counter_ns() - started  # our own clock: more than 0.2 s if a CPU was slow to come
    graph = fs.select(p.graph, include="^MainThread$")  # wall mode sees every thread (pytest's too)
    assert graph.metadata.unit == "ns"
    # Nothing from before or after the block (pytest's own work would be outside this function).
    here = test_profile_block_gives_a_graph_of_the_block.__name__
    assert all(any(f.startswith(here + " (") for f in s) for s in graph)
    # The spin took what our clock says, within the recorder's error (see boundary_error_ns):
    # a profile that missed part of the block, or charged the profiler's start to it, is off.
    in_spin = sum(v for s, v in graph.items() if any(f.startswith("spin (") for f in s))
    assert abs(in_spin - spun) <= boundary_error_ns(graph, 2), (in_spin, spun, graph.metadata.labels["longest_gap_ms"])


def test_the_time_after_the_last_tick_counts_as_a_gap():
    """A phase that ends the recording loses the time since the last tick; longest_gap_ms must
    cover it, or boundary_error_ns would not bound that end. At 1 Hz a 50 ms sleep sees no tick
    in 19 of 20 recordings (e^-0.05): before the gap was counted, the profile said 0 ms of sleep
    and a longest gap of 0 ms, every time."""
    with fs.profile(rate=1) as p:
        started = time.perf_counter_ns()
        time.sleep(0.05)
        slept = time.perf_counter_ns() - started
    graph = p.graph
    in_sleep = sum(v for s, v in graph.items() if any(f.startswith("test_the_time_after_the_last_tick") for f in s))
    assert in_sleep >= slept - boundary_error_ns(graph, 2), (in_sleep, slept, graph.metadata.labels["longest_gap_ms"])
    assert float(graph.metadata.labels["longest_gap_ms"]) >= slept / 1e6 - in_sleep / 1e6 - 0.1


def test_decorator_sums_calls_and_records_recursion_once():
    profiler = fs.profile(rate=1000)

    @profiler
    def work(n):
        spin(0.05)
        if n:
            work(n - 1)
        return n

    assert work(2) == 2
    assert work(0) == 0
    assert len(profiler.recordings) == 2
    assert work.profiler is profiler
    assert profiler.graph.total() > 0


def test_output_and_timeline(tmp_path):
    out = tmp_path / "block.speedscope.json"
    with fs.profile(rate=500, output=out, format="speedscope") as p:
        spin(0.1)
    assert p.chart is not None and len(p.chart) > 0
    assert fs.read(out).graph() == p.chart.graph()  # a speedscope file reads as a chart


def test_graph_before_recording_is_an_error():
    with pytest.raises(RuntimeError, match="nothing recorded"):
        fs.profile().graph


def test_rotation_writes_an_interval_file_and_keeps_the_newest(tmp_path):
    rotation = fs.Rotation(str(tmp_path / "p-{n}.folded"), keep=2)
    sampler = fs.Sampler(fs.SamplerOptions(rate=1000), on_interval=(0.05, rotation)).start()
    spin(0.4)
    sampler.stop()
    assert len(rotation.written) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.rsplit("/", 1)[1] for p in rotation.written)
    assert all(fs.read(path).total() > 0 for path in rotation.written)


def test_rotation_needs_a_pattern():
    with pytest.raises(fs.ArgumentError, match=r"\{n\}"):
        fs.Rotation("same.folded")


def test_snapshot_while_running():
    sampler = fs.Sampler(fs.SamplerOptions(rate=1000)).start()
    spin(0.1)
    first = sampler.snapshot()
    spin(0.1)
    final = sampler.stop().graph
    assert 0 < first.total() < final.total()


def test_a_wall_profile_leaves_out_threads_that_were_there_before_and_only_waited():
    """fs.profile() in IPython made the idle history thread half of a cell's profile: threads there
    before the block, other than the one entering it, count only while they run (a waiting one
    adds at most the CPU it takes to wait: far below 1% here, where its wall time would be half);
    threads the block starts, and the entering thread's own waits, count in full."""
    import threading
    import time

    import flamespace as fs

    waiting, before, started_inside = threading.Event(), threading.Event(), threading.Event()

    def history_thread():
        waiting.set()
        before.wait()

    history = threading.Thread(target=history_thread, name="history", daemon=True)
    history.start()
    waiting.wait()
    with fs.profile(rate=200, threads=True) as p:
        worker = threading.Thread(target=started_inside.wait, args=(0.3,), name="worker")
        worker.start()
        time.sleep(0.3)
        worker.join()
    before.set()
    history.join()
    by_thread: dict = {}
    for stack, value in p.graph.items():
        by_thread[stack[0]] = by_thread.get(stack[0], 0) + value
    assert by_thread.get("history", 0) < 0.01 * p.graph.total(), by_thread
    assert by_thread["MainThread"] > 0.15e9 and by_thread["worker"] > 0.15e9, (
        by_thread
    )  # 0.3 s each, less what a busy machine delays
