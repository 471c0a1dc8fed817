"""A traced run's time-ordered outputs (speedscope, Chrome) read back to its chart, exactly."""

from __future__ import annotations

import pickle
import subprocess
import sys
import threading
import time

import pytest

import flamespace as fs
from flamespace.collect.trace_engine import available
from flamespace.formats import registry

from ..formats.test_chart_writers import oracle_chrome, oracle_speedscope

pytestmark = pytest.mark.skipif(available() is not None, reason=f"no tracer here: {available()}")


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def worker():
    for _ in range(3):
        fib(8)
        time.sleep(0.001)  # a gap in the thread's timeline: nothing of it runs


@pytest.fixture(scope="module")
def chart():
    with fs.trace(chart=True) as t:
        threads = [threading.Thread(target=worker, name=f"worker {k}") for k in range(2)]
        for thread in threads:
            thread.start()
        fib(12)
        for thread in threads:
            thread.join()
    found = t.chart()
    assert found is not None and len(found) > 1000
    return found


def stretches(chart):
    """Per thread name, (end, stack, length) of every stretch between events, times from the
    earliest start: the chart's samples as placed in time, a stack's contiguous samples as one."""
    per_thread = {}
    for thread_id, placed in chart.intervals().items():
        rows = per_thread.setdefault(chart.threads[thread_id], [])
        for start, end, stack_id in placed:
            stack = chart.stacks[stack_id]
            if rows and rows[-1][0] == start and rows[-1][1] == stack:
                rows[-1] = (end, stack, rows[-1][2] + end - start)
            elif end > start:
                rows.append((end, stack, end - start))
    origin = min(chart_start for chart_start, *_ in (next(iter(p)) for p in chart.intervals().values()))
    return {thread: [(end - origin, stack, length) for end, stack, length in rows] for thread, rows in per_thread.items()}


@pytest.mark.parametrize(
    "format, ending, oracle", [("speedscope", ".speedscope.json", oracle_speedscope), ("chrome", ".trace.json", oracle_chrome)]
)
def test_a_traced_runs_output_reads_back_to_its_stacks_and_times_exactly(chart, tmp_path, format, ending, oracle):
    path = tmp_path / f"run{ending}"
    registry.write(chart, str(path), format)
    assert path.read_text(encoding="utf-8") == oracle(chart)  # the bytes the per-event writer wrote
    back = registry.read(str(path))
    assert isinstance(back, fs.FlameChart)
    assert dict(back.graph().items()) == dict(chart.graph().items())  # exact integer ns per stack
    assert all(type(value) is int for value in dict(back.graph().items()).values())
    read = {}
    for sample in back.samples():
        read.setdefault(sample.thread, []).append((sample.timestamp, sample.stack, sample.weight))
    assert read == stretches(chart)  # every stretch of every thread at its time, to the ns


def test_a_chart_unpickled_where_no_chart_was_made_writes_the_same(chart, tmp_path):
    """The CLI's parent process: the chart comes from the traced child, pickled, and is written there."""
    data = tmp_path / "chart.pickle"
    data.write_bytes(pickle.dumps(chart))
    code = (
        "import pickle, sys; from flamespace.formats import registry; "
        "registry.write(pickle.load(open(sys.argv[1], 'rb')), sys.argv[2], sys.argv[3])"
    )
    for format, ending in (("speedscope", ".speedscope.json"), ("chrome", ".trace.json")):
        out = tmp_path / f"fresh{ending}"
        subprocess.run([sys.executable, "-c", code, str(data), str(out), format], check=True)
        here = tmp_path / f"here{ending}"
        registry.write(chart, str(here), format)
        assert out.read_bytes() == here.read_bytes()
