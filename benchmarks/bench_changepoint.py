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
from typing import Callable

import numpy as np

from flamespace.stats.changepoint import MIN_SIZE, PERMUTATIONS, detect, split

NOISE: dict[str, Callable[[np.random.Generator, int], np.ndarray]] = {
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
    parser.add_argument("--timing", action="store_true", help="Only the timing-noise table (issue 26 item 6).")
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    if args.timing:
        timing(rng, args)
        return
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


def timing_series(rng: np.random.Generator, n: int, step: float, at: int) -> list:
    """Real-timing-like profiles: n points of 1-5 profiles each, 150 ms ± 4% (Gaussian), 2.5% of
    profiles stalled (doubled, as a 305 ms stall on a 150 ms stack), and a step of ``step`` from point ``at``."""
    out = []
    for i in range(n):
        runs = 150 * (1 + 0.04 * rng.normal(0, 1, int(rng.integers(1, 6))))
        runs[rng.random(runs.size) < 0.025] *= 2
        out.append(runs * (1 + step) if i >= at else runs)
    return out


def mean_cusum_p(points: list, alpha: float, rng: np.random.Generator) -> tuple:
    """The method before issue 26: point means, unweighted CUSUM, permutation p (one split)."""
    means = np.array([p.mean() for p in points])
    at, _, p = split(means, MIN_SIZE, PERMUTATIONS, rng)
    return (at if p <= alpha else None), (means[at:].mean() / means[:at].mean() - 1)


def timing(rng: np.random.Generator, args: argparse.Namespace) -> None:
    alpha, reps = args.alpha, args.reps
    print(
        f"Timing noise (150 ms ± 4%, 2.5% of profiles doubled, 1-5 profiles a point), α = {alpha}, {reps} series each;"
        " ± one Monte-Carlo s.e."
    )
    print("| n | step | method | change found (A/A: any; step: within ±2 points) | mean reported size | size within a third |")
    print("|---:|---:|---|---:|---:|---:|")
    for n in args.points:
        for step in (0.0, 0.08):
            at = n // 2
            tallies: dict[str, list] = {
                "mean CUSUM (before)": [],
                "winsorised, weighted (now)": [],
                "history path (point means, weighted)": [],
            }
            for r in range(reps):
                points = timing_series(rng, n, step, at)
                index, size = mean_cusum_p(points, alpha, np.random.default_rng(r))
                tallies["mean CUSUM (before)"].append((index, size))
                found = detect(points, alpha=alpha, seed=r).points
                tallies["winsorised, weighted (now)"].append(_first(found))
                means = np.array([p.mean() for p in points])
                found = detect(means, alpha=alpha, seed=r, weights=[p.size for p in points]).points
                tallies["history path (point means, weighted)"].append(_first(found))
            for method, rows in tallies.items():
                hits = [size for index, size in rows if index is not None and (step == 0 or abs(index - at) <= 2)]
                rate = len(hits) / reps
                sizes = f"{100 * np.mean(hits):+.1f}%" if hits and step else "–"
                close = f"{100 * np.mean([abs(h - step) <= step / 3 for h in hits]):.0f}%" if hits and step else "–"
                print(
                    f"| {n} | {100 * step:.0f}% | {method} | {100 * rate:.1f}% ± {100 * math.sqrt(rate * (1 - rate) / reps):.1f}"
                    f" | {sizes} | {close} |"
                )


def _first(found: tuple) -> tuple:
    return (found[0].index, found[0].relative) if found else (None, math.nan)


if __name__ == "__main__":
    main()
