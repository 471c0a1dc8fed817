"""maxt's statistic and intervals at few runs and many stacks: Welch's t against the moderated t.

    nice -n 10 .venv/bin/python benchmarks/bench_maxt_moderated.py [--reps 400] [--models negbin timing]
        [--designs 3x3 5x5 10x10 20x20 3x10 5x5p 10x10p] [--intervals shift centred]

Every replication calls ``maxt.test`` (α = 0.05, 2000 relabellings, one-sided ``greater``, the
default variance floor) on two matrices of runs × p stacks, once with Welch's t and once with
the moderated t (``statistic="moderated"``, stats/moderation.py), on the same data and seed.

Models (p = 200 stacks; Zipf-like weights w_j ∝ j^-1.1, T = 10,000 samples a run; a per-run
slowdown lognormal(0, 0.05) shared by the stacks of a run; paired designs add a per-round
drift lognormal(0, 0.10) shared by the two runs of a round):

    poisson   counts ~ Poisson(T·w_j·s_i)
    negbin    negative binomial, mean T·w_j·s_i, dispersion 20 (skewed, overdispersed)
    timing    real-run-like: time in ns (1 ms a sample), each stack's per-run factor
              lognormal(0, cv_j) with cv_j from 0.03 to 0.4, and sampler stalls (2% of cells gain
              an exponential stall of 3× the stack's mean) — heavy-tailed, stacks unlike each other;
              the changed stack's cv is 0.1, below most stacks' (the median is 0.22)
    timing-mid  the same, the changed stack's cv the median one
    even      time in ns as ``timing``, every stack with cv 0.1 and no stalls (the issue's 3-vs-10
              case: 200 stacks alike in their noise; tests/stats/test_moderation.py's pool)

A/A: both groups from the model; level = share of replications with any stack significant.
Power: the stack nearest 2% of the total grows by 40% in every candidate run; power = share
of replications in which it was found (and in which its p was ≤ 0.01). Coverage: share of the power replications in which every
stack's interval holds its true Δ (0, or the growth), target 1 − 2α = 0.90 (``--alternative
two-sided``: 1 − α = 0.95). Rates ± their
Monte-Carlo standard error. ``--no-tie-band``: the intervals as they were built before (for the
before/after coverage table).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time

import numpy as np

from flamespace.stats import maxt

ALPHA = 0.05
#: --alternative: the tested direction (compare's default is two-sided, gate's greater)
ALTERNATIVE = ["greater"]
P = 200
TOTAL = 10_000.0
GROWTH = 0.4
NS_PER_SAMPLE = 1e6


def weights(p: int) -> np.ndarray:
    w = 1.0 / np.arange(1, p + 1) ** 1.1
    return w / w.sum()


class Model:
    """Draws runs of one model; ``factor`` multiplies each stack's mean in every run."""

    def __init__(self, name: str, p: int = P) -> None:
        self.name, self.p = name, p
        self.mu = TOTAL * weights(p)
        self.cv = np.full(p, 0.1) if name == "even" else np.random.default_rng(7).uniform(0.03, 0.4, size=p)
        self.j = int(np.argmin(np.abs(weights(p) - 0.02)))
        # the changed stack: 10% run-to-run, quieter than most (3 + 10 runs, +40%: t ≈ 6, the case),
        # or (timing-mid) as noisy as the median stack
        self.cv[self.j] = float(np.median(self.cv)) if name == "timing-mid" else 0.1

    def draw(
        self, rng: np.random.Generator, n: int, factor: np.ndarray | None = None, rounds: np.ndarray | None = None
    ) -> np.ndarray:
        scale = rng.lognormal(0.0, 0.05, size=(n, 1)) * (1.0 if rounds is None else rounds[:, None])
        means = self.mu[None, :] * scale * (1.0 if factor is None else factor[None, :])
        if self.name == "poisson":
            return rng.poisson(means).astype(float)
        if self.name == "negbin":
            k = 20.0
            return rng.negative_binomial(k, k / (k + means)).astype(float)
        noisy = means * rng.lognormal(-0.5 * self.cv**2, self.cv, size=means.shape)
        stall = 0.0 if self.name == "even" else 0.02
        stalls = (rng.random(means.shape) < stall) * rng.exponential(3.0 * self.mu[None, :], size=means.shape)
        return rng.poisson(noisy + stalls).astype(float) * NS_PER_SAMPLE

    def true_delta(self) -> np.ndarray:
        """Δ of the power replications: the growth of stack j (its expected value, stalls included)."""
        delta = np.zeros(self.p)
        mean = self.mu[self.j] * math.exp(0.05**2 / 2)
        if self.name.startswith("timing"):
            mean = mean + 0.02 * 3.0 * self.mu[self.j]
        if self.name in ("timing", "timing-mid", "even"):
            mean *= NS_PER_SAMPLE
        delta[self.j] = GROWTH * mean
        return delta

    def factor(self) -> np.ndarray:
        f = np.ones(self.p)
        f[self.j] = 1 + GROWTH
        return f


def parse_design(text: str) -> tuple[int, int, bool]:
    paired = text.endswith("p")
    a, b = text.rstrip("p").split("x")
    return int(a), int(b), paired


def pair(model: Model, rng: np.random.Generator, n1: int, n2: int, paired: bool, grown: bool) -> tuple[np.ndarray, np.ndarray]:
    rounds = rng.lognormal(0.0, 0.10, size=n1) if paired else None
    x1 = model.draw(rng, n1, None, rounds)
    x2 = model.draw(rng, n2, model.factor() if grown else None, rounds)
    return x1, x2


def run_cell(model: Model, design: str, reps: int, seed: int) -> dict[str, dict[str, list[float]]]:
    n1, n2, paired = parse_design(design)
    rng = np.random.default_rng(seed)
    truth = model.true_delta()
    out: dict[str, dict[str, list[float]]] = {
        k: {"aa": [], "power": [], "power01": [], "coverage": [], "width": []} for k in ("welch", "moderated")
    }
    for r in range(reps):
        a1, a2 = pair(model, rng, n1, n2, paired, False)
        b1, b2 = pair(model, rng, n1, n2, paired, True)
        for key in ("welch", "moderated"):
            aa = maxt.test(a1, a2, ALPHA, 2000, seed=r, paired=paired, statistic=key, alternative=ALTERNATIVE[0])
            ab = maxt.test(b1, b2, ALPHA, 2000, seed=r, paired=paired, statistic=key, alternative=ALTERNATIVE[0])
            out[key]["aa"].append(bool(aa.significant.any()))
            out[key]["power"].append(bool(ab.significant[model.j]))
            out[key]["power01"].append(bool(ab.p_adjusted[model.j] <= 0.01))
            out[key]["coverage"].append(bool(np.all((ab.lower <= truth) & (truth <= ab.upper))))
            width = (ab.upper - ab.lower)[model.j] / truth[model.j]
            out[key]["width"].append(float(width) if np.isfinite(width) else math.nan)
    return out


def rate(values: list[float]) -> str:
    x = float(np.mean(values))
    return f"{x:.3f} ± {math.sqrt(max(x * (1 - x), 1e-12) / len(values)):.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--models",
        nargs="+",
        default=["poisson", "negbin", "timing"],
        choices=["poisson", "negbin", "timing", "timing-mid", "even"],
    )
    parser.add_argument("--designs", nargs="+", default=["3x3", "5x5", "10x10", "20x20", "3x10", "5x5p", "10x10p"])
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--alternative", default="greater", choices=["greater", "two-sided"])
    parser.add_argument(
        "--no-tie-band",
        action="store_true",
        help="intervals as before issue 26: the critical value without the tie band (maxt._beyond_ties)",
    )
    args = parser.parse_args()
    ALTERNATIVE[0] = args.alternative
    if args.no_tie_band:
        maxt._beyond_ties = lambda value: value
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, "
        f"load {' '.join(f'{x:.1f}' for x in os.getloadavg())}",
        file=sys.stderr,
    )
    print(
        f"### maxt: Welch's t against the moderated t; α = {ALPHA}, {ALTERNATIVE[0]}, p = {P}, {args.reps} replications a cell, "
        f"+{100 * GROWTH:g}% on the stack nearest 2%\n"
    )
    print("| model | design | statistic | A/A level | power | power at p ≤ 0.01 | coverage | median width / Δ |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.models:
        model = Model(name)
        for i, design in enumerate(args.designs):
            start = time.perf_counter()
            out = run_cell(model, design, args.reps, 1000 * i + 17)
            for key, h in out.items():
                print(
                    f"| {name} | {design} | {key} | {rate(h['aa'])} | {rate(h['power'])} | {rate(h['power01'])} | {rate(h['coverage'])} | "
                    f"{np.nanmedian(h['width']):.2f} |",
                    flush=True,
                )
            print(f"({name} {design}: {time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
