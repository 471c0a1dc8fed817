"""Measuring achieved power: skewed synthetic runs, and the harness that asks whether `detectable`
and `plan` deliver the power they state (issue 26 item 3).

Used by tests/stats/test_power.py (CI checks with stated false-failure rates) and by
benchmarks/bench_power_detectable.py (the tables in docs/statistics.md, "plan checked by resampling").
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from flamespace.stats import maxt
from flamespace.stats.comparison import _detectable

#: draws n runs (rows) × stacks of one version
Drawer = Callable[[np.random.Generator, int], np.ndarray]

STACKS = 20
MEANS = np.geomspace(2000.0, 20.0, STACKS)


def lognormal(rng: np.random.Generator, n: int) -> np.ndarray:
    """Skewed, heavy right tail: each stack's time × lognormal(0, 0.5), plus a shared run-level slowdown."""
    slow = rng.lognormal(0.0, 0.05, (n, 1))
    return MEANS * slow * rng.lognormal(0.0, 0.5, (n, STACKS)) / math.exp(0.125)


def normal(rng: np.random.Generator, n: int) -> np.ndarray:
    """Light tails, a control: each stack's time × (1 + 0.3·N(0, 1)); shows the figure's own error without heavy tails."""
    return MEANS * (1.0 + 0.3 * rng.standard_normal((n, STACKS)))


def negbin(rng: np.random.Generator, n: int) -> np.ndarray:
    """Overdispersed sample counts (negative binomial, shape 4) with occasional 3x stalls (5% of cells)."""
    lam = MEANS * rng.gamma(4.0, 0.25, (n, STACKS))
    stall = np.where(rng.random((n, STACKS)) < 0.05, 3.0, 1.0)
    return rng.poisson(lam * stall).astype(float)


def pool_drawer(pool: np.ndarray) -> Drawer:
    """Rows of a recorded pool of real runs (stacks as columns), drawn with replacement."""

    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        return pool[rng.integers(0, len(pool), n)]

    return draw


def detectable_found(
    draw: Drawer, n: int, paired: bool, reps: int, permutations: int, seed: int, target: int = 0
) -> tuple[int, int]:
    """(found, tried): per rep, stack ``target``'s reported detectable d from a null comparison
    (maxt.test + compare's own ``_detectable``), then a FRESH comparison with d added to the
    candidate's stack, tested again. Reps whose d is ∞ (α out of reach) are not tried."""
    rng = np.random.default_rng(seed)
    found = tried = 0
    for r in range(reps):
        x1, x2 = draw(rng, n), draw(rng, n)
        res = maxt.test(x1, x2, 0.05, permutations, seed=r, alternative="two-sided", paired=paired, statistic="auto")
        d = float(_detectable(res, x1, x2, paired, 0.05)[target])
        if not math.isfinite(d):
            continue
        y1, y2 = draw(rng, n), draw(rng, n).copy()
        y2[:, target] += d
        again = maxt.test(y1, y2, 0.05, permutations, seed=r + 1, alternative="two-sided", paired=paired, statistic="auto")
        found += bool(again.significant[target])
        tried += 1
    return found, tried


def plan_pilot(
    draw: Drawer,
    paired: bool,
    pilot_runs: int,
    change: float,
    reps: int,
    permutations: int,
    rng: np.random.Generator,
    seed: int,
    resamples: int | None = None,
) -> tuple[int, int, int, float]:
    """One pilot (``pilot_runs`` runs from ``draw``): plan n for a ``change`` (relative) in the
    widest stack, then ``reps`` comparisons of n a side drawn from the TRUE distribution with
    that stack shifted by change·mean, tested with maxt.test. Returns (planned n, found, tried,
    CPU seconds spent planning); a plan of 0 or > 2,000 is not tried (found = tried = 0)."""
    import time

    from flamespace.core.metadata import Metadata
    from flamespace.stats import Sample, power, resampling

    pilot = draw(rng, pilot_runs)
    sample = Sample([("main", f"f{j}") for j in range(pilot.shape[1])], pilot, Metadata(unit="samples"))
    began = time.process_time()
    result = resampling.plan(sample, power.Change(change, True), paired=paired, top=1, resamples=resamples, seed=seed)
    seconds = time.process_time() - began
    n = result.runs
    if not n or n > 2000:
        return n, 0, 0, seconds
    shift = change * result.rows[0].mean
    target = int(sample.stacks.index(result.rows[0].stack))
    found = 0
    for r in range(reps):
        x1, x2 = draw(rng, n), draw(rng, n).copy()
        x2[:, target] += shift
        res = maxt.test(x1, x2, 0.05, permutations, seed=r, alternative="two-sided", paired=paired, statistic="auto")
        found += bool(res.significant[target])
    return n, found, reps, seconds


def plan_found(
    draw: Drawer,
    paired: bool,
    pilot_runs: int,
    change: float,
    pilots: int,
    reps: int,
    permutations: int,
    seed: int,
    resamples: int | None = None,
) -> tuple[int, int, list, float]:
    """Power reached at the n ``plan`` asks for, over ``pilots`` pilots (:func:`plan_pilot`).
    Returns (found, tried, the planned n of each pilot tried, CPU seconds spent planning)."""
    rng = np.random.default_rng(seed)
    found = tried = 0
    planned = []
    seconds = 0.0
    for k in range(pilots):
        n, hits, tries, spent = plan_pilot(draw, paired, pilot_runs, change, reps, permutations, rng, k, resamples)
        seconds += spent
        if tries:
            planned.append(n)
            found, tried = found + hits, tried + tries
    return found, tried, planned, seconds
