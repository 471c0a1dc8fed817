"""Is a change of the reported `detectable` size found 80% of the time? (issue 26 item 3)

Per cell (distribution, design, n): draw a null comparison, take stack 0's reported
detectable d from compare's own machinery (maxt.test + comparison._detectable), then draw a
FRESH comparison with d added to the candidate's stack 0 and test it again with maxt.test:
found or not. The share found estimates the achieved power (target 0.80); ± is its
Monte-Carlo standard error sqrt(p(1-p)/reps).

    nice -n 10 .venv/bin/python benchmarks/bench_power_detectable.py [--reps 300] [--pools tests/data/power/real_pools.npz]
        [--plan | --plan-only] [--pilots 20] [--plan-reps 40] [--resamples 0]

The synthetic pools and the measuring harness are tests/stats/power_harness.py (the CI tests use them too).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import zlib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.stats.power_harness import detectable_found, lognormal, negbin, plan_found, pool_drawer  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--permutations", type=int, default=400)
    ap.add_argument("--pools", default=None, help="an .npz of real pools (one matrix per name, runs × stacks)")
    ap.add_argument("--ns", default="5,10,20")
    ap.add_argument("--pools-only", action="store_true", help="skip the synthetic pools")
    ap.add_argument("--plan", action="store_true", help="also: the power reached at plan's n (10-run pilots)")
    ap.add_argument("--plan-only", action="store_true", help="only the plan table")
    ap.add_argument("--pilots", type=int, default=20, help="pilots per plan cell")
    ap.add_argument("--plan-reps", type=int, default=40, help="comparisons at the planned n per pilot")
    ap.add_argument("--resamples", type=int, default=None, help="plan's resamples (0: the formula alone)")
    args = ap.parse_args()
    cells = [] if args.pools_only else [("lognormal", lognormal), ("negbin", negbin)]
    if args.pools:
        with np.load(args.pools) as data:
            cells += [(f"real:{k}", pool_drawer(data[k])) for k in data.files]
    start = time.time()
    if not args.plan_only:
        print("| pool | design | n a side | found | ± (MC s.e.) | reps |")
        print("|---|---|---:|---:|---:|---:|")
    for name, draw in [] if args.plan_only else cells:
        for paired in (True, False):
            for n in [int(x) for x in args.ns.split(",")]:
                found, tried = detectable_found(
                    draw, n, paired, args.reps, args.permutations, seed=zlib.crc32(f"{name}{paired}{n}".encode())
                )
                p = found / tried if tried else float("nan")
                se = math.sqrt(p * (1 - p) / tried) if tried else float("nan")
                print(f"| {name} | {'paired' if paired else 'unpaired'} | {n} | {p:.3f} | {se:.3f} | {tried} |", flush=True)
    if args.plan or args.plan_only:
        print("\n| pool | design | change | median planned n | power reached | ± (MC s.e.) | comparisons | s per plan |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for name, draw in cells:
            for paired in (True, False):
                found, tried, planned, seconds = plan_found(
                    draw,
                    paired,
                    10,
                    0.2,
                    args.pilots,
                    args.plan_reps,
                    args.permutations,
                    seed=zlib.crc32(f"plan{name}{paired}".encode()),
                    resamples=args.resamples,
                )
                p = found / tried if tried else float("nan")
                se = math.sqrt(p * (1 - p) / tried) if tried else float("nan")
                each = seconds / args.pilots
                print(
                    f"| {name} | {'paired' if paired else 'unpaired'} | 20% | {np.median(planned):g} | {p:.3f} | {se:.3f} | {tried} | {each:.1f} |",
                    flush=True,
                )
    print(f"\n{time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
