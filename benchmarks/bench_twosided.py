"""Both directions in ``compare``: level and power of its two-sided default, against the others.

    nice -n 10 python benchmarks/bench_twosided.py [--n 5 10 20] [--reps 1000] [--p 90]
        [--models poisson negbin real] [--pairing unpaired paired] [--pool DIR] [--share 0.02]

Each replication draws a baseline and three candidates from one model (runs × p stacks,
Zipf-like weights w_j ∝ j^-1.1, T = 10,000 samples per run, a per-run slowdown
lognormal(0, 0.05) shared by the stacks of a run): the same model (A/A), and the model with
one stack (the one nearest --share of the total, by default 2%: mean ≈ 200 samples) at −20%
and at +20%.
``poisson``: counts ~ Poisson (the target's run-to-run CV ≈ 9%); ``negbin``: negative
binomial with dispersion 20 (skewed; CV ≈ 24%). ``real``: runs drawn without replacement
from a pool of recorded runs (--pool: a directory of profiles, e.g. ``flamespace collect -n 50
-o pool -- examples/workload.py``; the stacks compare's default filter keeps), baseline and
candidate disjoint, the changed stack's column multiplied by 0.8 or 1.2 in the candidate's
runs (unpaired only: the pool's runs are not pairs). Every candidate goes through ``compare``
(maxt, α = 0.05, 2000 relabellings, its default filter) in three designs, on the same data:

    two-sided       compare's default: max |t|, one family-wise error over both directions
    greater         the gate's (and compare's old default): regressions only, all of α for them
    each-at-alpha   greater and less each at α (a family-wise error of α per direction)

Reported, with Monte-Carlo standard errors: the A/A rate of any report (the family-wise
error the design promises), the A/A rate of a reported regression (what would exit 3), and
the power to find the −20% stack (reported as shrunk) and the +20% stack (as grown).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time

import numpy as np

from flamespace.stats import Sample, compare

ALPHA = 0.05
TOTAL = 10_000.0
SHARE = [0.02]  # the changed stack's share of the total (--share)
DESIGNS = ("two-sided", "greater", "each-at-alpha")
CHANGES = {"shrunk": 0.8, "grown": 1.2}


def means(p: int) -> np.ndarray:
    w = 1.0 / np.arange(1, p + 1) ** 1.1
    return TOTAL * w / w.sum()


def draw(rng: np.random.Generator, model: str, mu: np.ndarray, n: int) -> np.ndarray:
    """n runs × p stacks of counts with means ``mu`` and a shared per-run slowdown."""
    scaled = mu[None, :] * rng.lognormal(0.0, 0.05, size=(n, 1))
    if model == "poisson":
        return rng.poisson(scaled).astype(float)
    k = 20.0
    return rng.negative_binomial(k, k / (k + scaled)).astype(float)


def read_pool(directory: str) -> np.ndarray:
    """The runs × stacks matrix of a directory of profiles, the stacks compare would test."""
    from flamespace.formats import registry
    from flamespace.stats.matrix import FrequencyFilter

    files = sorted(os.path.join(directory, f) for f in os.listdir(directory) if not f.startswith("."))
    matrix = Sample.from_graphs([registry.read(f) for f in files]).matrix
    return matrix[:, FrequencyFilter().keep(matrix)]


def kinds(baseline: Sample, candidate: Sample, alternative: str, seed: int, paired: bool) -> dict[tuple, str]:
    result = compare(baseline, candidate, alternative=alternative, alpha=ALPHA, seed=seed, paired=paired)
    return {c.stack: str(c.kind) for c in result.kept}


def found(baseline: Sample, candidate: Sample, seed: int, paired: bool) -> dict[str, dict[tuple, str]]:
    """The stacks each design reports, with their kinds."""
    out = {alternative: kinds(baseline, candidate, alternative, seed, paired) for alternative in ("two-sided", "greater", "less")}
    out["each-at-alpha"] = {**out["less"], **out["greater"]}
    return out


def cell(model: str, p: int, n: int, reps: int, paired: bool, pool: np.ndarray | None = None) -> dict[str, dict[str, list[bool]]]:
    rng = np.random.default_rng(1000 * n + p + (7 if paired else 0) + (3 if model == "negbin" else 0))
    mu = means(p) if pool is None else pool.mean(axis=0)
    target = int(np.argmin(np.abs(mu / mu.sum() - SHARE[0])))
    stacks = [(f"s{j}",) for j in range(len(mu))]
    hits: dict[str, dict[str, list[bool]]] = {d: {"any": [], "regression": [], "shrunk": [], "grown": []} for d in DESIGNS}
    for r in range(reps):
        if pool is not None:  # 2n distinct runs: the first n the baseline, the others every candidate
            rows = rng.choice(len(pool), size=2 * n, replace=False)
            base, other = Sample(stacks, pool[rows[:n]]), pool[rows[n:]]
        else:
            base, other = Sample(stacks, draw(rng, model, mu, n)), draw(rng, model, mu, n)
        same = found(base, Sample(stacks, other), r, paired)
        changed = {}
        for kind, factor in CHANGES.items():
            if pool is not None:
                scaled = other.copy()
                scaled[:, target] *= factor
            else:
                shifted = mu.copy()
                shifted[target] *= factor
                scaled = draw(rng, model, shifted, n)
            changed[kind] = found(base, Sample(stacks, scaled), r, paired)
        for design in DESIGNS:
            hits[design]["any"].append(bool(same[design]))
            hits[design]["regression"].append(any(k in ("grown", "appeared") for k in same[design].values()))
            for kind in CHANGES:
                hits[design][kind].append(changed[kind][design].get(stacks[target]) == kind)
    return hits


def rate(values: list[bool]) -> tuple[float, float]:
    x = float(np.mean(values))
    return x, math.sqrt(max(x * (1 - x), 1e-12) / len(values))


def fmt(values: list[bool]) -> str:
    x, e = rate(values)
    return f"{x:.3f} ± {e:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[5, 10, 20], help="runs per side")
    parser.add_argument("--p", type=int, default=90, help="stacks")
    parser.add_argument("--reps", type=int, default=1000, help="replications per cell")
    parser.add_argument("--models", nargs="+", default=["poisson", "negbin"], choices=["poisson", "negbin", "real"])
    parser.add_argument("--pool", help="directory of recorded runs for the 'real' model")
    parser.add_argument(
        "--share", type=float, default=SHARE[0], help="the changed stack: the one nearest this share of the total"
    )
    parser.add_argument("--pairing", nargs="+", default=["unpaired", "paired"], choices=["unpaired", "paired"])
    args = parser.parse_args()
    SHARE[0] = args.share
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, load {os.getloadavg()[0]:.1f}",
        file=sys.stderr,
    )
    print(
        f"### Both directions: α = {ALPHA}, maxt, p = {args.p} stacks (synthetic models), the stack nearest {SHARE[0]:g} of the total "
        f"changed, {args.reps} replications per cell; "
        "rate ± Monte-Carlo s.e.\n"
    )
    print(
        "| model | runs | n | design | A/A: any report | A/A: a regression (exit 3) | −20% found (shrunk) | +20% found (grown) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for model in args.models:
        pool = read_pool(args.pool) if model == "real" and args.pool else None
        if model == "real" and pool is None:
            print("(real: no --pool given; skipped)", file=sys.stderr)
            continue
        for pairing in args.pairing if pool is None else ["unpaired"]:
            for n in args.n if pool is None else [n for n in args.n if 2 * n <= len(pool)]:
                start = time.perf_counter()
                hits = cell(model, args.p, n, args.reps, pairing == "paired", pool)
                for design in DESIGNS:
                    h = hits[design]
                    print(
                        f"| {model} | {pairing} | {n} | {design} | {fmt(h['any'])} | {fmt(h['regression'])} | "
                        f"{fmt(h['shrunk'])} | {fmt(h['grown'])} |",
                        flush=True,
                    )
                print(f"({model} {pairing} n={n}: {time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
