"""False-positive rate, power and location of ``stats.changepoint.detect`` (flamespace history's test).

    python benchmarks/bench_changepoint.py [--reps 1000] [--points 10 30 100] [--alpha 0.05]

A/A: flat series of n points (Gaussian, lognormal σ = 0.3, Poisson mean 20, and Gaussian
with AR(1) correlation 0.3 between neighbours: the assumption broken); the share of series
that report any change, with its Monte-Carlo standard error, against α. Power: one step of
d standard deviations (d = 1, 2, 3) at the middle and at 80% of the series; the share of
series in which a change is found within ±2 points of the step, and the share that report
more than one change (a second, false one: after a split each side is tested at α again).
Also: seconds a series.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Callable, Dict

import numpy as np

from flamespace.stats.changepoint import detect

NOISE: Dict[str, Callable[[np.random.Generator, int], np.ndarray]] = {
    "gaussian": lambda rng, n: rng.normal(0, 1, n),
    "lognormal": lambda rng, n: (rng.lognormal(0, 0.3, n) - math.exp(0.045)) / 0.31,
    "poisson": lambda rng, n: (rng.poisson(20, n) - 20) / math.sqrt(20),
}


def ar1(rng: np.random.Generator, n: int, rho: float = 0.3) -> np.ndarray:
    e = rng.normal(0, 1, n)
    x = np.empty(n)
    x[0] = e[0]
    for i in range(1, n):
        x[i] = rho * x[i - 1] + math.sqrt(1 - rho * rho) * e[i]
    return x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--points", type=int, nargs="+", default=[10, 30, 100])
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--skip-aa", action="store_true", help="Only the power table.")
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    if not args.skip_aa:
        aa(rng, args)
    power(rng, args)


def aa(rng: np.random.Generator, args: argparse.Namespace) -> None:
    alpha, reps = args.alpha, args.reps
    print(f"A/A: share of flat series reporting a change (α = {alpha}, {reps} series each; ± one Monte-Carlo s.e.)")
    print("| noise | " + " | ".join(f"n = {n}" for n in args.points) + " |")
    print("|---|" + "---:|" * len(args.points))
    noises = dict(NOISE, **{"AR(1) ρ = 0.3": ar1})
    for name, noise in noises.items():
        cells = []
        for n in args.points:
            found = sum(bool(detect(noise(rng, n), alpha=alpha, seed=r).points) for r in range(reps))
            rate = found / reps
            cells.append(f"{100 * rate:.1f}% ± {100 * math.sqrt(rate * (1 - rate) / reps):.1f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()


def power(rng: np.random.Generator, args: argparse.Namespace) -> None:
    alpha, reps = args.alpha, args.reps
    print(f"Power: a step of d σ (Gaussian noise); found within ±2 points / more than one change reported ({reps} series each)")
    print("| n | step at | d = 1 | d = 2 | d = 3 | s a series |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in args.points:
        for where in (0.5, 0.8):
            at = int(round(n * where))
            cells = []
            started = time.perf_counter()
            for d in (1, 2, 3):
                hit = extra = 0
                for r in range(reps):
                    x = rng.normal(0, 1, n)
                    x[at:] += d
                    indices = [c.index for c in detect(x, alpha=alpha, seed=r).points]
                    hit += any(abs(i - at) <= 2 for i in indices)
                    extra += len(indices) > 1
                cells.append(f"{100 * hit / reps:.0f}% / {100 * extra / reps:.1f}%")
            seconds = (time.perf_counter() - started) / (3 * reps)
            print(f"| {n} | {at} | " + " | ".join(cells) + f" | {seconds:.4f} |")


if __name__ == "__main__":
    main()
