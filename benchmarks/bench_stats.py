"""Error rates, power and speed of the two-sample methods of ``flamespace compare``.

    python benchmarks/bench_stats.py [--reps 300] [--permutations 1000] [--p 20 90 300]

Simulation: flame-graph-like samples. Stack weights are Zipf-like (w_j ∝ j^-1.1), counts are
negative binomial (mean T·w_j·s_i, dispersion 20, T = 10,000 per run) and every run i has a
slowdown factor s_i ~ lognormal(0, 0.05) shared by all its stacks, which correlates them.
n1 = n2 = 50, α = 0.05. A/A: both groups from the same model; the false-positive rate is
the share of replications in which anything was declared significant. Power: one
mid-weight stack (the one nearest 2% of the total) grows by 15% in the candidate; power is
the share of replications in which that stack was found; for auto, its paired difference
from the best single method (± its standard error). Every replication goes through
``compare`` with its default frequency filter; hotelling is n/a where p ≥ n1 + n2 − 1.

Speed: 100 runs × 5,000 stacks (50 per side), median of --repeat timings of ``compare`` per
method (maxt with --permutations permutations); pyrometry's Hotelling on 100 × 90 beside ours.
"""

from __future__ import annotations

import argparse
import math
import platform
import statistics
import sys
import time
from typing import Dict, List, Optional

import numpy as np

from flamespace.errors import ArgumentError
from flamespace.stats import Sample, compare
from flamespace.stats.comparison import choose_method

METHODS = ("hotelling", "welch", "maxt")
N = 50
ALPHA = 0.05


def weights(p: int) -> np.ndarray:
    w = 1.0 / np.arange(1, p + 1) ** 1.1
    return w / w.sum()


def simulate(rng: np.random.Generator, p: int, n: int, grow: Optional[int] = None, total: float = 10_000, k: float = 20) -> np.ndarray:
    """n runs × p stacks of counts; ``grow`` is the index of a stack made 15% larger."""
    mu = total * weights(p)
    if grow is not None:
        mu = mu.copy()
        mu[grow] *= 1.15
    slowdown = rng.lognormal(0.0, 0.05, size=(n, 1))
    means = mu[None, :] * slowdown
    return rng.negative_binomial(k, k / (k + means)).astype(float)


def sample(matrix: np.ndarray) -> Sample:
    return Sample([(f"s{j}",) for j in range(matrix.shape[1])], matrix)


def target(p: int) -> int:
    return int(np.argmin(np.abs(weights(p) - 0.02)))


def replicate(p: int, reps: int, permutations: int, seed: int) -> Dict[str, Dict[str, List[bool]]]:
    """Per method and replication: was anything found under A/A ("fpr"), was the grown stack found ("power")."""
    rng = np.random.default_rng(seed)
    j = target(p)
    hits: Dict[str, Dict[str, List[bool]]] = {m: {"fpr": [], "power": []} for m in METHODS}
    for r in range(reps):
        base = sample(simulate(rng, p, N))
        same = sample(simulate(rng, p, N))
        grown = sample(simulate(rng, p, N, grow=j))
        for method in METHODS:
            for key, cand in (("fpr", same), ("power", grown)):
                try:
                    c = compare(base, cand, method, ALPHA, permutations=permutations, seed=r)
                except ArgumentError:
                    continue
                found = [ch.stack for ch in c.changes if ch.significant]
                hits[method][key].append(bool(found) if key == "fpr" else (f"s{j}",) in found)
    return hits


def rate(values: List[bool]) -> float:
    return float(np.mean(values)) if values else math.nan


def fmt(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:.3f}"


def timing(repeat: int, permutations: int) -> None:
    rng = np.random.default_rng(0)
    base, cand = sample(simulate(rng, 5000, N)), sample(simulate(rng, 5000, N))
    print(f"\n### Speed: {2 * N} runs × 5,000 stacks (median of {repeat})\n")
    print("| method | median s |")
    print("|---|---|")
    for method in ("welch", "maxt"):
        times = []
        for r in range(repeat):
            start = time.perf_counter()
            compare(base, cand, method, ALPHA, permutations=permutations, seed=r)
            times.append(time.perf_counter() - start)
        label = f"maxt ({permutations} permutations)" if method == "maxt" else method
        print(f"| {label} | {statistics.median(times):.3f} |")
    try:
        from pyrometry.stats import hotelling_two_sample_test
    except ImportError:
        print("\n(pyrometry not installed: pip install pyrometry for the side-by-side Hotelling timing)")
        return
    from flamespace.stats.hotelling import test as hotelling

    x1, x2 = simulate(rng, 90, N), simulate(rng, 90, N)
    ours, theirs = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        hotelling(x1, x2, ALPHA)
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        hotelling_two_sample_test(x1, x2, ALPHA)
        theirs.append(time.perf_counter() - start)
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"\nHotelling on {2 * N} runs × 90 stacks: flamespace {a * 1e3:.2f} ms, pyrometry {b * 1e3:.2f} ms (ratio {a / b:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--p", type=int, nargs="+", default=[20, 90, 300])
    parser.add_argument("--repeat", type=int, default=5, help="timings per method")
    parser.add_argument("--no-speed", action="store_true")
    args = parser.parse_args()
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}", file=sys.stderr)
    mc = math.sqrt(ALPHA * (1 - ALPHA) / args.reps)
    print(f"### Simulation: n1 = n2 = {N}, α = {ALPHA}, {args.reps} replications "
          f"(Monte-Carlo s.e. of a rate near α: {mc:.3f})\n")
    print("| p | method | false-positive rate | power (one stack +15%) |")
    print("|---|---|---|---|")
    for p in args.p:
        start = time.perf_counter()
        hits = replicate(p, args.reps, args.permutations, seed=p)
        auto = choose_method(p, N, N)
        for method in METHODS:
            print(f"| {p} | {method} | {fmt(rate(hits[method]['fpr']))} | {fmt(rate(hits[method]['power']))} |")
        best = max((m for m in METHODS if hits[m]["power"]), key=lambda m: rate(hits[m]["power"]))
        diff = np.array(hits[auto]["power"], float) - np.array(hits[best]["power"], float)
        gap = f"{diff.mean():+.3f} ± {diff.std(ddof=1) / math.sqrt(len(diff)):.3f} vs {best}" if best != auto else "best"
        print(f"| {p} | auto (= {auto}) | {fmt(rate(hits[auto]['fpr']))} | {fmt(rate(hits[auto]['power']))} ({gap}) |")
        print(f"({p}: {time.perf_counter() - start:.0f} s)", file=sys.stderr)
    if not args.no_speed:
        timing(args.repeat, args.permutations)


if __name__ == "__main__":
    main()
