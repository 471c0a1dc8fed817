"""The page scripts' unit tests: Node's test runner over tests/js/ (``make test`` runs this).

    python -m tests.run_js [node --test options...]

Needs Node 20 or later (``apt-get install nodejs``). Without it the tests are skipped with a
note on a user's machine and fail under CI=true, where a skipped check must not pass for a run
one (as tests/conftest.py treats pytest's skips).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent / "js"
#: Node's first release whose test runner takes a folder and runs what is in it as we use it.
LEAST_NODE = 20


def node_major(node: str) -> int:
    """The major version of ``node`` (0 when it does not say)."""
    try:
        done = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=60)
        return int(done.stdout.strip().lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.SubprocessError):
        return 0


def main(argv: list[str]) -> int:
    in_ci = os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}
    node = shutil.which("node")
    major = node_major(node) if node else 0
    if major < LEAST_NODE:
        found = f"node {major} at {node}" if node else "no node on PATH"
        if in_ci:
            print(
                f"error: the page scripts' unit tests need Node {LEAST_NODE} or later ({found}): apt-get install nodejs",
                file=sys.stderr,
            )
            return 1
        print(f"skipped: the page scripts' unit tests need Node {LEAST_NODE} or later ({found}): apt-get install nodejs")
        return 0
    reporter = [] if any(arg.startswith("--test-reporter") for arg in argv) else ["--test-reporter=spec"]  # a line a test
    return subprocess.run([node, "--test", *reporter, *argv, str(TESTS)]).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
