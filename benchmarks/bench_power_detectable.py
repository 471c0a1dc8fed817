"""Is a change of the reported `detectable` size found 80% of the time? (issue 26 item 3)

Per cell (distribution, design, n): draw a null comparison, take stack 0's reported
detectable d from compare's own machinery (maxt.test + comparison._detectable), then draw a
FRESH comparison with d added to the candidate's stack 0 and test it again with maxt.test:
found or not. The share found estimates the achieved power (target 0.80); ± is its
Monte-Carlo standard error sqrt(p(1-p)/reps).

    nice -n 10 .venv/bin/python benchmarks/bench_power_detectable.py [--reps 300] [--pools tests/data/power/real_pools.npz]
        [--plan | --plan-only] [--pilots 20] [--plan-reps 40] [--resamples 0]
        [--change 0.2] [--out results.jsonl] [--only 'negbin paired']

The synthetic pools and the measuring harness are tests/stats/power_harness.py (the CI tests use them too).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import zlib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.stats.power_harness import detectable_found, lognormal, negbin, normal, plan_pilot, pool_drawer  # noqa: E402


def plan_table(cells: list, args: argparse.Namespace) -> None:
    """Power reached at plan's n, pilot by pilot (each its own seed, so a run can resume from ``--out``).

    ± (pilots) is the standard error of the mean of the per-pilot shares found: it holds the
    between-pilot variation (a plan depends on its pilot) and the binomial noise of each
    share; ± (MC) is the binomial part alone, √(p(1−p)/comparisons)."""
    done: dict[tuple[str, bool, int], dict] = {}
    if args.out and Path(args.out).exists():
        for line in Path(args.out).read_text().splitlines():
            rec = json.loads(line)
            if rec["change"] == args.change and rec["resamples"] == args.resamples and rec["reps"] == args.plan_reps:
                done[(rec["pool"], rec["paired"], rec["pilot"])] = rec
    print(
        "\n| pool | design | change | median planned n | power reached | ± (pilots) | ± (MC) | pilots | comparisons | CPU s per plan |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, draw in cells:
        for paired in (True, False):
            design = "paired" if paired else "unpaired"
            if args.only and args.only not in f"{name} {design}":
                continue
            records = []
            for k in range(args.pilots):
                rec = done.get((name, paired, k))
                if rec is None:
                    rng = np.random.default_rng([zlib.crc32(f"plan{name}{paired}".encode()), k])
                    n, found, tried, seconds = plan_pilot(
                        draw, paired, 10, args.change, args.plan_reps, args.permutations, rng, k, args.resamples
                    )
                    rec = dict(
                        pool=name, paired=paired, pilot=k, change=args.change, resamples=args.resamples, reps=args.plan_reps
                    )
                    rec.update(n=n, found=found, tried=tried, seconds=seconds)
                    if args.out:
                        with open(args.out, "a") as f:
                            f.write(json.dumps(rec) + "\n")
                records.append(rec)
            tried_ = [r for r in records if r["tried"]]
            shares = np.array([r["found"] / r["tried"] for r in tried_])
            found, tried = sum(r["found"] for r in tried_), sum(r["tried"] for r in tried_)
            p = found / tried if tried else float("nan")
            between = float(shares.std(ddof=1) / math.sqrt(len(shares))) if len(shares) > 1 else float("nan")
            mc = math.sqrt(p * (1 - p) / tried) if tried else float("nan")
            median = np.median([r["n"] for r in tried_]) if tried_ else float("nan")
            each = float(np.mean([r["seconds"] for r in records]))
            print(
                f"| {name} | {design} | {args.change:.0%} | {median:g} | {p:.3f} | {between:.3f} | {mc:.3f} | {len(tried_)} | {tried} | {each:.2f} |",
                flush=True,
            )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--permutations", type=int, default=400)
    ap.add_argument("--pools", default=None, help="an .npz of real pools (one matrix per name, runs × stacks)")
    ap.add_argument("--ns", default="5,10,20")
    ap.add_argument("--pools-only", action="store_true", help="skip the synthetic pools")
    ap.add_argument("--control", action="store_true", help="also the light-tailed control pool (normal runs)")
    ap.add_argument("--plan", action="store_true", help="also: the power reached at plan's n (10-run pilots)")
    ap.add_argument("--plan-only", action="store_true", help="only the plan table")
    ap.add_argument("--pilots", type=int, default=20, help="pilots per plan cell")
    ap.add_argument("--plan-reps", type=int, default=40, help="comparisons at the planned n per pilot")
    ap.add_argument("--resamples", type=int, default=None, help="plan's resamples (0: the formula alone)")
    ap.add_argument("--change", type=float, default=0.2, help="the relative change plan plans for")
    ap.add_argument("--out", default=None, help="plan: a JSON-lines file of per-pilot results; pilots already in it are skipped")
    ap.add_argument("--only", default=None, help="plan: only the cells whose 'pool design' contains this text")
    args = ap.parse_args()
    cells = [] if args.pools_only else [("lognormal", lognormal), ("negbin", negbin)]
    cells += [("normal", normal)] if args.control else []
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
        plan_table(cells, args)
    print(f"\n{time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
