"""What pairing a stored baseline with new runs by round number cost (issue 26, item 2).

Before: `compare --baseline store:... --candidate NEW` paired run i of one collection with
run i of another (their round numbers matched by chance), dropped the runs beyond the shorter
side and called the test paired. Now runs of different collections are tested unpaired with
every run. This measures, on synthetic runs with a machine load shared by the two runs of a
round of one collection, the maxt test's rejection rate (level when nothing changed, power
when one stack grew) for:

- ``false pairs``: 30 stored baseline runs (collection A) and 40 new runs (collection B),
  paired by round number, 10 new runs dropped (the old behaviour);
- ``unpaired``: the same runs tested unpaired, all 70 (the new behaviour);
- ``true pairs``: 30 rounds of one collection, both halves, paired (the reference).

Usage: nice -n 10 python benchmarks/sim_stored_pairs.py [--reps 400] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from flamespace.stats.comparison import CompareOptions, compare
from flamespace.stats.matrix import Sample

STACKS = 20
#: Mean of each stack (ms): a few wide ones, many narrow ones.
MEANS = np.array([200.0, 100.0, 50.0] + [10.0] * (STACKS - 3))
#: Each stack's own run-to-run noise (log-normal sd) and the load of a round (shared by its two runs).
NOISE, LOAD = 0.15, 0.2
BASELINE_RUNS, CANDIDATE_RUNS = 30, 40
#: The change for power: stack 1 grows by this share.
GROWTH = 0.20


def rounds(rng: np.random.Generator, n: int) -> np.ndarray:
    """A load factor per round of one collection."""
    return rng.lognormal(0.0, LOAD, n)


def runs(rng: np.random.Generator, load: np.ndarray, grown: bool) -> np.ndarray:
    """One run per round: each stack's mean × the round's load × its own noise."""
    means = MEANS.copy()
    if grown:
        means[1] *= 1 + GROWTH
    return means * load[:, None] * rng.lognormal(0.0, NOISE, (len(load), STACKS))


def rejected(x1: np.ndarray, x2: np.ndarray, paired: bool, seed: int) -> bool:
    stacks = [("main", f"s{j}") for j in range(STACKS)]
    options = CompareOptions(alternative="greater", paired=paired, seed=seed)
    result = compare(Sample(stacks, x1), Sample(stacks, x2), options=options)
    return bool(result.regressed)


def cell(rng: np.random.Generator, design: str, grown: bool, seed: int) -> bool:
    if design == "true pairs":
        load = rounds(rng, BASELINE_RUNS)
        return rejected(runs(rng, load, False), runs(rng, load, grown), True, seed)
    stored = runs(rng, rounds(rng, BASELINE_RUNS), False)  # collection A
    new = runs(rng, rounds(rng, CANDIDATE_RUNS), grown)  # collection B
    if design == "false pairs":
        return rejected(stored, new[:BASELINE_RUNS], True, seed)
    return rejected(stored, new, False, seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.process_time()
    print(f"maxt, one-sided (greater), alpha 0.05, 2000 relabellings; {args.reps} repetitions a cell")
    print("| design | runs used | level (A/A) | power (+20% in one stack) |")
    print("|---|---|---|---|")
    for design, used in (("false pairs", "30 + 30 (10 dropped)"), ("unpaired", "30 + 40"), ("true pairs", "30 + 30")):
        rates = []
        for grown in (False, True):
            hits = sum(cell(rng, design, grown, seed) for seed in range(args.reps))
            rate = hits / args.reps
            rates.append(f"{rate:.3f} ± {math.sqrt(rate * (1 - rate) / args.reps):.3f}")
        print(f"| {design} | {used} | {rates[0]} | {rates[1]} |")
    print(f"(CPU {time.process_time() - started:.0f} s)")


if __name__ == "__main__":
    main()
