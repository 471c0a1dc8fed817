"""The paper's end-to-end experiment (Tornetta §3), through the CLI: collect, then compare.

``main.py``: ``c()`` calls ``b()`` then sleeps 50 ms, ``b()`` calls ``a()`` then sleeps
100 ms, ``a()`` sleeps 200 ms, or 150 ms when ``REGRESSION`` is set. ``sitecustomize.py``
(found through ``PYTHONPATH``) sleeps 100 ms at start-up when ``REGRESSION`` is set. So the
candidate's ``c;b;a`` stack shrinks by 50 ms and a start-up stack appears with 100 ms; every
other stack is the same program doing the same thing.

Slow (about 20 s: 20 runs of each side, one after the other, never side by side, so that
neither side's runs compete with the other's for the CPU) but it is the feature's test.
It measures wall time, so it is marked ``quiet``: ``make test`` runs it after the parallel
part of the suite, alone. On a machine busy with other work, sleeps overrun (a stall of
100 ms in one run moves a mean of 20 by 5 ms), and then the program itself did not sleep
50 ms less. So the program also measures its real sleeps: the profile's Δ must match them
within 3 ms plus the random part of the profiler's error (see RECORDER_ERROR_NS) and the nominal 50 and 100 ms within 5 ms (the issue's
check); when the real sleeps themselves missed the nominal times by more than 2 ms, the
machine did not run the experiment as written and it is run once more before judging.
If the second run was disturbed too (a 100 ms stall of one sleep in 20 runs, with 2 CPU hogs:
it happens), the profile is still held to the program's own clock, but not to the
nominal Δs, which the program did not do: the machine moved them, not the recorder.
``--rate 1000`` keeps the sampling error of each run's stack times near 1 ms, well inside
the ±5 ms asked. ``--alpha 0.002`` (with enough permutations to reach it): at the default
0.05 the test would fail one CI run in twenty by design (a family-wise error rate is a
rate); the two real changes have |t| in the hundreds and pass any α. ``--alternative
two-sided``: one of the two changes is a stack that shrank, which the gate's default
(one-sided, regressions only) does not test.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, Tuple

import pytest

import flamespace as fs

FLAMESPACE = os.path.join(os.path.dirname(sys.executable), "flamespace")
MS = 1e6  # ns

MAIN = """
import os
import sys
import time

REGRESSION = bool(os.environ.get("REGRESSION"))
slept = []  # a's real sleep (see the module docstring)


def a():
    start = time.perf_counter()
    time.sleep(0.15 if REGRESSION else 0.2)  # one line: the same stack on both sides
    slept.append(time.perf_counter() - start)


def b():
    a()
    time.sleep(0.1)


def c():
    b()
    time.sleep(0.05)


c()
with open("slept.log", "a") as log:
    log.write(f"{int(REGRESSION)} {slept[0]} {getattr(sys.modules.get('sitecustomize'), 'slept', 0)}\\n")
"""

SITECUSTOMIZE = """
import os
import time

if os.environ.get("REGRESSION"):
    start = time.perf_counter()
    time.sleep(0.1)
    slept = time.perf_counter() - start
"""

#: The recorder's systematic error on a Δ: docs/performance.md ("Accuracy under CPU load")
#: measured a median |error| per run of 0.5-0.8 ms (90th percentile 2.9-3.3 ms) with 0, 2 and 4
#: CPU hogs, on a machine at load 5.8-9.9. Before the fix of that section the start-up sleep
#: read +11 ms at the median with 4 hogs: that bug, time charged to the wrong frame (tens of
#: ms) or a sleep left out fails the check. Its random error is the other part of the
#: tolerance: Z standard errors of the runs' own errors (profile minus the program's clock).
#: A stall of the sampler (a gap of 30-100 ms, see ``longest_gap_ms``) can misplace that much
#: in one run; with 3 CPU hogs one such run moved a Δ by 3.3 ms. Such a run also widens the
#: standard error, which consistent misplacement in every run, a bug, does not.
RECORDER_ERROR_NS = 3 * MS
#: Two-sided normal tail 2e-6: the false-failure rate of the random part, per Δ.
Z = 4.75
#: Real sleeps (the program's own clock) this close to the nominal ones: the experiment ran as
#: written. Then a profile within RECORDER_ERROR_NS of the real Δ is within 5 ms of the nominal.
AS_WRITTEN_NS = 2 * MS

A_LEAF, STARTUP_LEAF = "a (main.py:12)", "<module> (sitecustomize.py:7)"


def flamespace(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([FLAMESPACE, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def experiment(directory: Path) -> Tuple[dict, Dict[str, float], Dict[str, float]]:
    """Collect and compare as a user would; the comparison (JSON), the real Δs (ns) and the
    standard error of the recorder's error on each Δ (ns)."""
    directory.mkdir()
    (directory / "main.py").write_text(textwrap.dedent(MAIN))
    (directory / "sitecustomize.py").write_text(textwrap.dedent(SITECUSTOMIZE))
    path = f"PYTHONPATH={directory}"
    collected = flamespace(
        "collect", "-n", "20", "--mode", "wall", "--rate", "1000", "-o", "runs",
        "--baseline-cmd", "main.py", "--baseline-env", path,
        "--candidate-cmd", "main.py", "--candidate-env", path, "--candidate-env", "REGRESSION=1",
        cwd=directory,
    )
    assert collected.returncode == 0, collected.stderr
    assert "next: flamespace compare --baseline runs/baseline --candidate runs/candidate" in collected.stderr
    compared = flamespace(
        "compare", "--baseline", "runs/baseline", "--candidate", "runs/candidate", "--json",
        "--alpha", "0.002", "--permutations", "2000", "--alternative", "two-sided", cwd=directory,
    )
    assert compared.returncode == 3, compared.stderr  # a stack appeared: a regression
    assert "20 pairs of runs from the same rounds" in compared.stderr  # collect's rounds, tested as pairs
    return json.loads(compared.stdout), real_deltas(directory / "slept.log"), standard_errors(directory)


def real_deltas(log: Path) -> Dict[str, float]:
    """Candidate mean − baseline mean of the real sleeps of a() and of sitecustomize, in ns."""
    sides: Dict[str, list] = {"0": [], "1": []}
    for line in log.read_text().splitlines():
        side, a_seconds, startup_seconds = line.split()
        sides[side].append((float(a_seconds), float(startup_seconds)))
    means = {side: [sum(column) / len(column) for column in zip(*rows)] for side, rows in sides.items()}
    return {leaf: 1e9 * (means["1"][i] - means["0"][i]) for i, leaf in enumerate((A_LEAF, STARTUP_LEAF))}


def standard_errors(directory: Path) -> Dict[str, float]:
    """Per leaf, the standard error of (candidate mean − baseline mean) of each run's profile
    time minus the program's own figure. slept.log has each side's runs in the order they
    ran, which is the order of the side's run files."""
    own: Dict[str, list] = {"0": [], "1": []}
    for line in (directory / "slept.log").read_text().splitlines():
        side, a_seconds, startup_seconds = line.split()
        own[side].append({A_LEAF: 1e9 * float(a_seconds), STARTUP_LEAF: 1e9 * float(startup_seconds)})
    variance = {A_LEAF: 0.0, STARTUP_LEAF: 0.0}
    for side, name in (("0", "baseline"), ("1", "candidate")):
        errors: Dict[str, list] = {A_LEAF: [], STARTUP_LEAF: []}
        for number, real in enumerate(own[side], 1):
            graph = fs.read(directory / "runs" / name / f"run-{number:03d}.folded")
            for leaf in errors:
                errors[leaf].append(sum(v for s, v in graph.items() if s[-1] == leaf) - real[leaf])
        for leaf, values in errors.items():
            variance[leaf] += statistics.variance(values) / len(values)
    return {leaf: math.sqrt(v) for leaf, v in variance.items()}


@pytest.mark.quiet
def test_the_papers_experiment_finds_exactly_the_two_changes(tmp_path):
    nominal = {A_LEAF: -50 * MS, STARTUP_LEAF: 100 * MS}

    def as_written(real: Dict[str, float]) -> bool:
        return all(abs(real[leaf] - nominal[leaf]) <= AS_WRITTEN_NS for leaf in nominal)

    result, real, error = experiment(tmp_path / "first")
    if not as_written(real):  # the program's own clock says the machine disturbed it
        result, real, error = experiment(tmp_path / "second")
    significant = {tuple(s["stack"]): s for s in result["stacks"] if s["significant"]}
    leaves = sorted(stack[-1] for stack in significant)
    assert leaves == [STARTUP_LEAF, A_LEAF], json.dumps(result["stacks"], indent=1)[:3000]
    change = {stack[-1]: s for stack, s in significant.items()}
    for leaf, expected in nominal.items():
        measured = (f"{leaf}: profile Δ {change[leaf]['delta'] / MS:.2f} ms, real Δ {real[leaf] / MS:.2f} ms, "
                    f"standard error of the recorder's error {error[leaf] / MS:.2f} ms")
        assert change[leaf]["delta"] == pytest.approx(real[leaf], abs=RECORDER_ERROR_NS + Z * error[leaf]), measured
        if as_written(real):  # else the machine, not the recorder, moved the Δ (see the module docstring)
            assert change[leaf]["delta"] == pytest.approx(expected, abs=5 * MS), measured

    shrunk = change[A_LEAF]
    assert [f.split(" (")[0] for f in shrunk["stack"]] == ["<module>", "c", "b", "a"]
    assert shrunk["kind"] == "shrunk"
    assert shrunk["lower"] <= shrunk["delta"] <= shrunk["upper"] < 0

    appeared = change[STARTUP_LEAF]
    assert appeared["stack"][0].startswith("main (") and "site" in appeared["stack"][0]
    assert "execsitecustomize" in appeared["stack"][1]
    assert appeared["kind"] == "appeared" and appeared["baseline"] == 0
    assert 0 < appeared["lower"] <= appeared["delta"] <= appeared["upper"]
    assert result["reduced"]["grown"] == 0 and result["reduced"]["disappeared"] == 0
