"""compare loads numpy with OpenBLAS on one thread (its idle threads spin: CPU time), and
leaves the environment as it found it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CHECK = """
import os, sys
from flamespace.workflows.samples import import_numpy
before = dict(os.environ)
import_numpy()
assert "numpy" in sys.modules
assert dict(os.environ) == before, "the environment changed"
print(len(os.listdir("/proc/self/task")))
"""


def threads(env: dict) -> int:
    out = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, check=True)
    return int(out.stdout)


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads through Linux's /proc")
def test_numpy_is_loaded_on_one_thread_unless_the_user_chose():
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")}
    chosen = threads({**env, "OPENBLAS_NUM_THREADS": "2"})  # the user's choice is kept
    if chosen == 1:
        pytest.skip("this numpy's BLAS starts no threads of its own")
    assert chosen == 2
    assert threads(env) == 1


def test_a_plain_compare_imports_no_statistics_scipy_or_rich(tmp_path):
    """Start-up of compare: the normal quantile without ``statistics`` (fractions, decimal), the
    text report without rich, no scipy."""
    for side, value in (("a", 5), ("b", 6)):
        for run in range(3):
            (tmp_path / f"{side}{run}.folded").write_text(f"main;work {value + run}\nmain;idle 3\n")
    sides = [arg for side in "ab" for run in range(3) for arg in (f"-{side}", str(tmp_path / f"{side}{run}.folded"))]
    code = (
        "import sys, io; from flamespace.cli import main; sys.stdout = io.StringIO(); code = main(['compare', *sys.argv[1:]]); "
        "sys.stdout = sys.__stdout__; print(code, ' '.join(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code, *sides], capture_output=True, text=True, check=True).stdout.split()
    loaded = set(out[1:])
    assert out[0] in ("0", "3") and "flamespace.stats.comparison" in loaded  # it compared
    assert not loaded & {"statistics", "scipy", "rich", "fractions", "decimal"}, loaded & {"statistics", "scipy", "rich"}
