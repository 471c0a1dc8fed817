"""top --pid's screen: a pure function of (table, size, sort), held to golden text (tests/data/top_live/);
and its rows from a recorder's stacks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from flamespace.cli._live_top import LiveRow, LiveTable, LiveView, build_rows, render

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "top_live"
#: FLAMESPACE_REGENERATE=1 rewrites the golden files (then read the diff before committing it).
REGENERATE = os.environ.get("FLAMESPACE_REGENERATE") == "1"

TABLE = LiveTable(
    "flamespace top: pid 4242 (Python 3.12.1): python server.py --port 8000",
    "512 ticks over 5.1 s (100 a second); 100% = one thread all the time",
    "Threads (2): MainThread running, worker-1 waiting",
    (
        LiveRow("handle (server.py)", 0.25, 0.9, 1_200_000_000, 4_500_000_000),
        LiveRow("parse (json/decoder.py)", 0.6, 0.6, 3_000_000_000, 3_000_000_000),
        LiveRow("wait (<stdlib>/threading.py)", 1.0, 1.0, 5_100_000_000, 5_100_000_000),
        LiveRow("<module> (server.py)", 0.0, 1.9, 0, 9_600_000_000),
    ),
)

CASES = {
    "own-80x12": (TABLE, 80, 12, "own", None),
    "total-72x9": (TABLE, 72, 9, "total", None),
    "own_time-80x12": (TABLE, 80, 12, "own_time", None),
    "total_time-80x12-limit2": (TABLE, 80, 12, "total_time", 2),
    "name-80x12": (TABLE, 80, 12, "name", None),
    "paused-empty-60x4": (TABLE.replace(paused=True, rows=()), 60, 4, "own", None),
    "paused-empty-80x12": (TABLE.replace(paused=True, rows=()), 80, 12, "own", None),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_screen_is_the_golden_text(case):
    table, width, height, sort, limit = CASES[case]
    lines = render(table, width, height, sort, limit)
    path = GOLDEN / f"{case}.txt"
    if REGENERATE:
        path.write_text("\n".join(lines) + "\n")
    assert "\n".join(lines) + "\n" == path.read_text()
    assert len(lines) <= height and all(len(line) <= width for line in lines)


def test_rows_hold_the_last_refreshs_shares_and_the_runs_times():
    """%Own/%Total are shares of the last refresh's wall time (two threads can make 200%); OwnTime/TotalTime
    the run's; a function seen in the run but not lately keeps its times at 0%."""
    interval = {("main (a.py)", "spin (a.py)"): 500, ("worker (a.py)", "spin (a.py)"): 500}
    run = {**{stack: 3 * value for stack, value in interval.items()}, ("main (a.py)", "old (a.py)"): 700}
    rows = {row.name: row for row in build_rows(interval, run, 1000, "function")}
    assert rows["spin (a.py)"] == LiveRow("spin (a.py)", 1.0, 1.0, 3000, 3000)
    assert rows["main (a.py)"] == LiveRow("main (a.py)", 0.0, 0.5, 0, 2200)
    assert rows["old (a.py)"] == LiveRow("old (a.py)", 0.0, 0.0, 700, 700)


class _Sink:
    def __init__(self) -> None:
        self.totals: dict = {}


class _Recorder:
    """What LiveView reads of a recorder: its sink's totals, its quality, its last stacks."""

    def __init__(self) -> None:
        from flamespace.collect.raw import Quality

        self.sink, self.quality, self.last_stacks = _Sink(), Quality(), []

        class _Process:
            pid = os.getpid()

        self.process = _Process()


def test_the_view_shows_what_came_since_the_last_refresh_and_resets_on_r():
    recorder = _Recorder()
    view = LiveView(recorder, "function", "main", "title")  # type: ignore[arg-type]  # a stand-in
    recorder.sink.totals = {("MainThread", "f (a.py:1)"): 100, ("other", "g (a.py:2)"): 50}
    first = {row.name: row.own_ns for row in view.refresh().rows}
    assert first == {"f (a.py)": 100}  # --thread main: MainThread's stacks, without its root
    recorder.sink.totals[("MainThread", "f (a.py:1)")] = 300
    assert {row.name: row.own_ns for row in view.refresh().rows} == {"f (a.py)": 300}
    view.press("r", "own")
    recorder.sink.totals[("MainThread", "f (a.py:1)")] = 340
    assert {row.name: row.own_ns for row in view.refresh().rows} == {"f (a.py)": 40}
    assert view.press("4", "own") == ("total_time", False) and view.press("q", "own") == ("own", True)
