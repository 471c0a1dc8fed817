"""The paper's end-to-end experiment (Tornetta §3), through the CLI: collect, then compare.

``main.py``: ``c()`` calls ``b()`` then sleeps 50 ms, ``b()`` calls ``a()`` then sleeps
100 ms, ``a()`` sleeps 200 ms, or 150 ms when ``REGRESSION`` is set. ``sitecustomize.py``
(found through ``PYTHONPATH``) sleeps 100 ms at start-up when ``REGRESSION`` is set. So the
candidate's ``c;b;a`` stack shrinks by 50 ms and a start-up stack appears with 100 ms; every
other stack is the same program doing the same thing.

Slow (about 20 s: 20 runs of each side, one after the other, never side by side, so that
neither side's runs compete with the other's for the CPU) but it is the feature's test.
It measures wall time, so it is marked ``quiet``: ``make test`` runs it after the parallel
part of the suite, alone. The machine may still be busy (CI's is): sleeps overrun, by 200 ms
in one run with 2 CPU hogs, and then the program itself did not sleep 50 ms less. So the
program measures its own sleeps, and the test holds the profile to what the program did,
with a false-failure rate below 1 in 10,000 on any load:

- *Nothing else changed* (no third significant stack): ``--alpha`` ALPHA = 5e-5 is the
  permutation test's family-wise error rate, exact whatever the load (paired runs in random
  order are exchangeable); ``--permutations`` 200,000 resolves p to 5e-6.
- *The two changes are found* when the runs show them clearly: the paired t of the
  profiles' Δs (20 pairs) is at least DETECTABLE_T. Sign flips of 20 pairs of like size
  reach |t| = 12 only with every sign kept (one flip gives about 9): 2 in 2^20 per stack.
  Measured: |t| 9.2-161 gave the smallest adjusted p the permutations allow; with 2 CPU
  hogs (load 11), |t| 5.1-5.3 gave 4e-4: the machine hid the change. The program's own Δs
  do not tell (with 3 hogs their |t| was 17 while stalls of the sampler left the profiles'
  too low to find the change). Below DETECTABLE_T the experiment runs once more; if that
  run is as noisy, a change it hid is not required (its Δ is still held to the program's
  clock, below).
- *Each Δ is right*: within RECORDER_ERROR_NS (systematic) plus Z standard errors of the runs'
  own errors (profile minus the program's clock) of the program's own Δ; Z is Student's t with
  19 degrees of freedom (the fewest Welch's can have with 20 runs a side) at a two-sided
  2.5e-5, so the two Δs fail by chance at most 5e-5 together.

The issue's check, the nominal 50 and 100 ms within 5 ms, follows where the machine ran the
program as written (own Δs within 2 ms of the nominal; on a quiet machine the standard
errors are 0.3-0.5 ms). It is not asserted on its own: without the random part (standard
errors of 1.4-1.5 ms at load 9 without hogs) it fails by chance (the likely failure seen at load 6).
``--rate 1000`` keeps the sampling error of each run's stack times near 1 ms.
``--alternative two-sided``: one of the two changes is a stack that shrank, which the gate's
default (one-sided, regressions only) does not test.
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
#: Student's t, 19 degrees of freedom, two-sided 2.5e-5 (scipy.stats.t.isf(1.25e-5, 19)).
Z = 5.52
#: The family-wise error rate of the comparison: the chance of a third significant stack.
ALPHA = 5e-5
PERMUTATIONS = 200_000
#: The program's own paired t from which its change must be found (see the module docstring).
DETECTABLE_T = 12.0

A_LEAF, STARTUP_LEAF = "a (main.py:12)", "<module> (sitecustomize.py:7)"


def flamespace(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([FLAMESPACE, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def experiment(directory: Path) -> tuple[dict, dict[str, float], dict[str, float], dict[str, float]]:
    """Collect and compare as a user would; the comparison (JSON), the real Δs (ns), the
    standard error of the recorder's error on each Δ (ns) and the paired t of the profiles' Δs."""
    directory.mkdir()
    (directory / "main.py").write_text(textwrap.dedent(MAIN))
    (directory / "sitecustomize.py").write_text(textwrap.dedent(SITECUSTOMIZE))
    path = f"PYTHONPATH={directory}"
    collected = flamespace(
        "collect",
        "-n",
        "20",
        "--mode",
        "wall",
        "--rate",
        "1000",
        "-o",
        "runs",
        "--baseline-cmd",
        "main.py",
        "--baseline-env",
        path,
        "--candidate-cmd",
        "main.py",
        "--candidate-env",
        path,
        "--candidate-env",
        "REGRESSION=1",
        cwd=directory,
    )
    assert collected.returncode == 0, collected.stderr
    assert "next: flamespace compare --baseline runs/baseline --candidate runs/candidate" in collected.stderr
    compared = flamespace(
        "compare",
        "--baseline",
        "runs/baseline",
        "--candidate",
        "runs/candidate",
        "--json",
        "--alpha",
        str(ALPHA),
        "--permutations",
        str(PERMUTATIONS),
        "--alternative",
        "two-sided",
        cwd=directory,
    )
    assert compared.returncode == 3, compared.stderr  # a stack appeared: a regression
    assert "20 pairs of runs from the same rounds" in compared.stderr  # collect's rounds, tested as pairs
    return json.loads(compared.stdout), real_deltas(directory / "slept.log"), standard_errors(directory), profile_t(directory)


def real_deltas(log: Path) -> dict[str, float]:
    """Candidate mean − baseline mean of the real sleeps of a() and of sitecustomize, in ns."""
    sides: dict[str, list] = {"0": [], "1": []}
    for line in log.read_text().splitlines():
        side, a_seconds, startup_seconds = line.split()
        sides[side].append((float(a_seconds), float(startup_seconds)))
    means = {side: [sum(column) / len(column) for column in zip(*rows)] for side, rows in sides.items()}
    return {leaf: 1e9 * (means["1"][i] - means["0"][i]) for i, leaf in enumerate((A_LEAF, STARTUP_LEAF))}


def profile_t(directory: Path) -> dict[str, float]:
    """Per leaf, the paired t of the profiles' Δs (run i of each side make a pair, as
    collect's rounds do): how clearly the runs, as recorded on this machine, show the change."""
    d: dict[str, list] = {A_LEAF: [], STARTUP_LEAF: []}
    for number in range(1, len(list((directory / "runs" / "baseline").glob("run-*.folded"))) + 1):
        pair = [fs.read(directory / "runs" / side / f"run-{number:03d}.folded") for side in ("baseline", "candidate")]
        for leaf, values in d.items():
            base, cand = (sum(v for s, v in graph.items() if s[-1] == leaf) for graph in pair)
            values.append(cand - base)
    found = {}
    for leaf, values in d.items():
        spread = statistics.stdev(values) / math.sqrt(len(values))
        found[leaf] = statistics.mean(values) / spread if spread else math.inf
    return found


def standard_errors(directory: Path) -> dict[str, float]:
    """Per leaf, the standard error of (candidate mean − baseline mean) of each run's profile
    time minus the program's own figure. slept.log has each side's runs in the order they
    ran, which is the order of the side's run files."""
    own: dict[str, list] = {"0": [], "1": []}
    for line in (directory / "slept.log").read_text().splitlines():
        side, a_seconds, startup_seconds = line.split()
        own[side].append({A_LEAF: 1e9 * float(a_seconds), STARTUP_LEAF: 1e9 * float(startup_seconds)})
    variance = {A_LEAF: 0.0, STARTUP_LEAF: 0.0}
    for side, name in (("0", "baseline"), ("1", "candidate")):
        errors: dict[str, list] = {A_LEAF: [], STARTUP_LEAF: []}
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

    result, real, error, t = experiment(tmp_path / "first")
    if min(abs(t[leaf]) for leaf in nominal) < DETECTABLE_T:  # the machine's noise hid a change
        result, real, error, t = experiment(tmp_path / "second")
    stacks = json.dumps(result["stacks"], indent=1)[:3000]
    significant = {tuple(s["stack"]): s for s in result["stacks"] if s["significant"]}
    assert set(stack[-1] for stack in significant) <= set(nominal), stacks  # nothing else changed
    detectable = sorted(leaf for leaf in nominal if abs(t[leaf]) >= DETECTABLE_T)
    assert sorted(set(stack[-1] for stack in significant) & set(detectable)) == detectable, (t, stacks)
    change = {s["stack"][-1]: s for s in result["stacks"] if s["stack"][-1] in nominal}
    assert sorted(change) == sorted(nominal), stacks
    for leaf in nominal:
        measured = (
            f"{leaf}: profile Δ {change[leaf]['delta'] / MS:.2f} ms, real Δ {real[leaf] / MS:.2f} ms, "
            f"standard error of the recorder's error {error[leaf] / MS:.2f} ms, paired t {t[leaf]:.1f}"
        )
        assert change[leaf]["delta"] == pytest.approx(real[leaf], abs=RECORDER_ERROR_NS + Z * error[leaf]), measured

    shrunk = change[A_LEAF]
    assert [f.split(" (")[0] for f in shrunk["stack"]] == ["<module>", "c", "b", "a"]
    if shrunk["significant"]:
        assert shrunk["kind"] == "shrunk"
        assert shrunk["lower"] <= shrunk["delta"] <= shrunk["upper"] < 0

    appeared = change[STARTUP_LEAF]
    assert appeared["stack"][0].startswith("main (") and "site" in appeared["stack"][0]
    assert "execsitecustomize" in appeared["stack"][1]
    assert appeared["baseline"] == 0
    if appeared["significant"]:
        assert appeared["kind"] == "appeared" and 0 < appeared["lower"] <= appeared["delta"] <= appeared["upper"]
    assert result["reduced"]["grown"] == 0 and result["reduced"]["disappeared"] == 0
