"""Is a change of the reported `detectable` size found 80% of the time? (issue 26 item 3)

Per cell (distribution, design, n): draw a null comparison, take stack 0's reported
detectable d from compare's own machinery (maxt.test + comparison._detectable), then draw a
FRESH comparison with d added to the candidate's stack 0 and test it again with maxt.test:
found or not. The share found estimates the achieved power (target 0.80); ± is its
Monte-Carlo standard error sqrt(p(1-p)/reps).

    nice -n 10 .venv/bin/python benchmarks/bench_power_detectable.py [--reps 300] [--pools tests/data/power_pools.npz]
"""

from __future__ import annotations

import argparse
import math
import time
import zlib

import numpy as np

from flamespace.stats import maxt
from flamespace.stats.comparison import _detectable

STACKS = 20
MEANS = np.geomspace(2000.0, 20.0, STACKS)


def lognormal(rng: np.random.Generator, n: int) -> np.ndarray:
    """Skewed, heavy right tail: each stack's time × lognormal(0, 0.5), plus a shared run-level slowdown."""
    slow = rng.lognormal(0.0, 0.05, (n, 1))
    return MEANS * slow * rng.lognormal(0.0, 0.5, (n, STACKS)) / math.exp(0.125)


def negbin(rng: np.random.Generator, n: int) -> np.ndarray:
    """Overdispersed sample counts (negative binomial, shape 4) with occasional 3x stalls."""
    lam = MEANS * rng.gamma(4.0, 0.25, (n, STACKS))
    stall = np.where(rng.random((n, STACKS)) < 0.05, 3.0, 1.0)
    return rng.poisson(lam * stall).astype(float)


def pool_drawer(pool: np.ndarray):
    """Bootstrap rows of a recorded pool of real runs (stacks as columns)."""
    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        return pool[rng.integers(0, len(pool), n)]
    return draw


def found_share(draw, n: int, paired: bool, reps: int, permutations: int, seed: int, target: int = 0) -> tuple:
    rng = np.random.default_rng(seed)
    found = tried = 0
    for r in range(reps):
        x1, x2 = draw(rng, n), draw(rng, n)
        res = maxt.test(x1, x2, 0.05, permutations, seed=r, alternative="two-sided", paired=paired, statistic="auto")
        d = float(_detectable(res, x1, x2, paired)[target])
        if not math.isfinite(d):
            continue
        y1, y2 = draw(rng, n), draw(rng, n)
        y2 = y2.copy()
        y2[:, target] += d
        again = maxt.test(y1, y2, 0.05, permutations, seed=r + 1, alternative="two-sided", paired=paired, statistic="auto")
        found += bool(again.significant[target])
        tried += 1
    return found, tried


def plan_power(draw, paired: bool, pilot_runs: int, change: float, pilots: int, reps: int, permutations: int, seed: int) -> tuple:
    """Power reached at the n ``plan`` asks for: per pilot, plan n for a ``change`` (relative) in
    the stacks that matter, then draw comparisons of n runs a side from the TRUE distribution with
    stack 0 shifted by change·mean and test them with maxt.test. Returns (found, tried, median n)."""
    from flamespace.core.metadata import Metadata
    from flamespace.stats import Sample, power

    rng = np.random.default_rng(seed)
    found = tried = 0
    planned = []
    for k in range(pilots):
        pilot = draw(rng, pilot_runs)
        sample = Sample([("main", f"f{j}") for j in range(STACKS)], pilot, Metadata(unit="samples"))
        result = power.plan(sample, power.Change(change, True), paired=paired, top=1)
        n = result.runs
        if not n or n > 400:
            continue
        planned.append(n)
        shift = change * result.rows[0].mean
        target = int(sample.stacks.index(result.rows[0].stack))
        for r in range(reps):
            x1, x2 = draw(rng, n), draw(rng, n).copy()
            x2[:, target] += shift
            res = maxt.test(x1, x2, 0.05, permutations, seed=r, alternative="two-sided", paired=paired, statistic="auto")
            found += bool(res.significant[target])
            tried += 1
    return found, tried, float(np.median(planned)) if planned else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--permutations", type=int, default=400)
    ap.add_argument("--pools", default=None, help="an .npz of real pools (one matrix per name, runs × stacks)")
    ap.add_argument("--ns", default="5,10,20")
    ap.add_argument("--pools-only", action="store_true", help="skip the synthetic pools")
    ap.add_argument("--plan", action="store_true", help="also: the power reached at plan's n (10-run pilots)")
    args = ap.parse_args()
    cells = [] if args.pools_only else [("lognormal", lognormal), ("negbin", negbin)]
    if args.pools:
        with np.load(args.pools) as data:
            cells += [(f"real:{k}", pool_drawer(data[k])) for k in data.files]
    print("| pool | design | n a side | found | ± (MC s.e.) | reps |")
    print("|---|---|---:|---:|---:|---:|")
    start = time.time()
    for name, draw in cells:
        for paired in (True, False):
            for n in [int(x) for x in args.ns.split(",")]:
                found, tried = found_share(draw, n, paired, args.reps, args.permutations, seed=zlib.crc32(f"{name}{paired}{n}".encode()))
                p = found / tried if tried else float("nan")
                se = math.sqrt(p * (1 - p) / tried) if tried else float("nan")
                print(f"| {name} | {'paired' if paired else 'unpaired'} | {n} | {p:.3f} | {se:.3f} | {tried} |", flush=True)
    if args.plan:
        print("\n| pool | design | change | median planned n | power reached | ± (MC s.e.) | comparisons |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for name, draw in [("lognormal", lognormal), ("negbin", negbin)]:
            for paired in (True, False):
                found, tried, n = plan_power(draw, paired, 10, 0.2, 20, 40, args.permutations, seed=zlib.crc32(f"plan{name}{paired}".encode()))
                p = found / tried if tried else float("nan")
                se = math.sqrt(p * (1 - p) / tried) if tried else float("nan")
                print(f"| {name} | {'paired' if paired else 'unpaired'} | 20% | {n:g} | {p:.3f} | {se:.3f} | {tried} |", flush=True)
    print(f"\n{time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
