"""Under CI=true a skipped check fails the run (tests/conftest.py), except the skips CI allows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TESTS = """
import pytest

def test_needs_a_tool():
    pytest.skip("needs a tool: apt-get install it")

def test_needs_flamegraph_pl():
    pytest.skip("set FLAMEGRAPH_PL to flamegraph.pl")

@pytest.mark.xfail(reason="known")
def test_expected_to_fail():
    assert False
"""


def run_with(ci: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_skips.py").write_text(TESTS)
    env = {**os.environ, "CI": ci, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "tests.conftest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "--rootdir",
            str(tmp_path),
            str(tmp_path / "test_skips.py"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )


def test_a_skip_fails_under_ci_unless_allowed(tmp_path: Path) -> None:
    done = run_with("true", tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 1 skipped, 1 xfailed" in done.stdout
    assert "skipped under CI=true, where this check must run: needs a tool" in done.stdout


def test_a_skip_stays_a_skip_on_a_users_machine(tmp_path: Path) -> None:
    done = run_with("", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 skipped, 1 xfailed" in done.stdout
