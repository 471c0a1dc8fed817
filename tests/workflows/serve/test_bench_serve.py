"""benchmarks/bench_serve.py refuses, in one line and before starting a server, a store too small for its queries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "benchmarks" / "bench_serve.py"


def test_bench_serve_refuses_fewer_windows_than_its_compare_query_needs():
    """With 20 windows each of the 20 services has one: the compare query (two halves of at least
    two runs each) had no baseline and the run ended on a 404 after the pushes."""
    done = subprocess.run(
        [sys.executable, str(BENCH), "--pushes", "20", "--windows", "20", "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "error: --windows 20: give at least 80:" in done.stderr.splitlines()[-1], done.stderr
