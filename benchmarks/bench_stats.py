"""Error rates, power, interval coverage and speed of the two-sample methods of ``flamespace compare``.

    python benchmarks/bench_stats.py [--models poisson negbin real] [--n 3 5 10 20 50]
        [--p 20 90 300 2000] [--reps 300] [--reps-small 1000] [--reps-large 100] [--pool DIR] [--floors]

Every replication goes through ``compare`` with the gate's defaults (one-sided ``greater``,
α = 0.05, 2000 relabellings, the default frequency filter) and one method:

    maxt         exact/random permutation max-t, family-wise (the default)
    maxt+bh      per-stack permutation p-values, Benjamini–Hochberg
    welch        Welch t per stack, Holm (family-wise)
    welch+bh     Welch t per stack, Benjamini–Hochberg
    hotelling    Tornetta's T², closed testing (two-sided by nature); n/a when p ≥ n1 + n2 − 1

Models (runs × p stacks; stack weights Zipf-like w_j ∝ j^-1.1, T = 10,000 per run, and a
per-run slowdown s_i ~ lognormal(0, 0.05) shared by all stacks of a run, which correlates them):

    poisson      counts ~ Poisson(T·w_j·s_i)
    negbin       counts ~ negative binomial, mean T·w_j·s_i, dispersion 20 (skewed, overdispersed)
    real         runs drawn without replacement from a pool of real runs (--pool: a directory of
                 profiles, e.g. ``flamespace collect -n 100 -o pool -- examples/workload.py``),
                 split into two groups; p is then the pool's own (the --p values are ignored)

A/A: both groups from the same model; the false-positive rate (FPR) is the share of
replications in which any stack was declared significant, with its Monte-Carlo standard
error. Power: one mid-weight stack (nearest 2% of the total; in the pool, the stack nearest
2% of the mean total) grows by 4 of its standard errors (4·sd·sqrt(2/n)), so power is
comparable across n; power is the share of replications in which that stack was found.
Coverage: the share of power replications in which every tested stack's interval contains
its true Δ (0, or the injected growth): simultaneous coverage, whose target is 1 − 2α = 0.90
for the one-sided tests' two-sided intervals (FWER methods; for the FDR methods it is
reported for reference: they promise false-coverage control among the selected only).

--plan-check SEED: whether ``flamespace plan``'s answers reach their power.

--floors: the study behind the variance floor (maxt's statistic with no floor, the
resolution floor δ²/12, and a SAM-like floor s0² = the median stack variance).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from flamespace.errors import ArgumentError
from flamespace.stats import Sample
from flamespace.stats import compare as compare_both_ways
from flamespace.stats.comparison import GATE_DEFAULTS


def compare(*args: Any, **kwargs: Any) -> Comparison:
    """compare with the gate's defaults (one-sided greater): the question these tables answer."""
    return compare_both_ways(*args, options=GATE_DEFAULTS, **kwargs)


if TYPE_CHECKING:
    from flamespace.stats.comparison import Comparison

ALPHA = 0.05
#: label -> (method, fdr)
METHODS: dict[str, tuple[str, str | None]] = {
    "maxt": ("maxt", None),
    "maxt+bh": ("maxt", "bh"),
    "welch": ("welch", None),
    "welch+bh": ("welch", "bh"),
    "hotelling": ("hotelling", None),
}
EFFECT_SE = 4.0  # the injected growth, in standard errors of Δ


def weights(p: int) -> np.ndarray:
    w = 1.0 / np.arange(1, p + 1) ** 1.1
    return w / w.sum()


#: Samples per run in the simulated models (--total).
TOTAL = [10_000.0]


def simulate(rng: np.random.Generator, model: str, p: int, n: int, factor: np.ndarray | None = None, k: float = 20) -> np.ndarray:
    """n runs × p stacks of counts; ``factor`` multiplies each stack's mean (growth)."""
    mu = TOTAL[0] * weights(p) * (1.0 if factor is None else factor)
    means = mu[None, :] * rng.lognormal(0.0, 0.05, size=(n, 1))
    if model == "poisson":
        return rng.poisson(means).astype(float)
    return rng.negative_binomial(k, k / (k + means)).astype(float)


def target(means: np.ndarray) -> int:
    share = means / means.sum()
    return int(np.argmin(np.abs(share - 0.02)))


def sample(matrix: np.ndarray, stacks: list[tuple]) -> Sample:
    return Sample(stacks, matrix)


class Model:
    """Draws (baseline, same, grown) matrices and knows the true Δ of the grown stack."""

    def __init__(self, name: str, p: int, pool: np.ndarray | None, rng: np.random.Generator) -> None:
        self.name, self.rng = name, rng
        if name == "real":
            assert pool is not None
            self.pool = pool
            self.p = pool.shape[1]
            self.means, sd = pool.mean(axis=0), pool.std(axis=0, ddof=1)
        else:
            self.p = p
            big = simulate(np.random.default_rng(0), name, p, 4000)
            self.means, sd = big.mean(axis=0), big.std(axis=0, ddof=1)
        self.j = target(self.means)
        self.sd = float(sd[self.j])
        self.stacks = [(f"s{i}",) for i in range(self.p)]

    def draw(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        growth = EFFECT_SE * self.sd * math.sqrt(2.0 / n)
        if self.name == "real":
            rows = self.rng.choice(len(self.pool), size=3 * n if 3 * n <= len(self.pool) else 2 * n, replace=False)
            base, same = self.pool[rows[:n]], self.pool[rows[n : 2 * n]]
            other = (
                self.pool[rows[2 * n : 3 * n]]
                if len(rows) == 3 * n
                else self.pool[self.rng.choice(len(self.pool), n, replace=False)]
            )
            grown = other.copy()
            grown[:, self.j] += growth  # the same shift in every run: Δ = growth exactly in expectation
            return base, same, grown, growth
        factor = np.ones(self.p)
        factor[self.j] = 1 + growth / self.means[self.j]
        return (
            simulate(self.rng, self.name, self.p, n),
            simulate(self.rng, self.name, self.p, n),
            simulate(self.rng, self.name, self.p, n, factor),
            growth,
        )


def replicate(model: Model, n: int, reps: int, methods: list[str]) -> dict[str, dict[str, list[float]]]:
    hits: dict[str, dict[str, list[float]]] = {m: {"fpr": [], "power": [], "coverage": []} for m in methods}
    for r in range(reps):
        base, same, grown, growth = model.draw(n)
        a, s, g = (sample(x, model.stacks) for x in (base, same, grown))
        for label in methods:
            method, fdr = METHODS[label]
            try:
                aa = compare(a, s, method, ALPHA, fdr=fdr, seed=r)
                ab = compare(a, g, method, ALPHA, fdr=fdr, seed=r)
            except ArgumentError:
                continue
            hits[label]["fpr"].append(any(c.significant for c in aa.changes))
            target_stack = model.stacks[model.j]
            hits[label]["power"].append(any(c.significant and c.stack == target_stack for c in ab.changes))
            truth = {target_stack: growth}
            hits[label]["coverage"].append(all(c.lower <= truth.get(c.stack, 0.0) <= c.upper for c in ab.changes))
    return hits


def rate(values: list[float]) -> tuple[float, float]:
    if not values:
        return math.nan, math.nan
    x = float(np.mean(values))
    return x, math.sqrt(max(x * (1 - x), 1e-12) / len(values))


def fmt(pair: tuple[float, float], se: bool = True) -> str:
    x, e = pair
    if math.isnan(x):
        return "n/a"
    return f"{x:.3f} ± {e:.3f}" if se else f"{x:.3f}"


def read_pool(directory: str) -> np.ndarray:
    from flamespace.formats import registry

    files = sorted(os.path.join(directory, f) for f in os.listdir(directory) if not f.startswith("."))
    graphs = [registry.read(f) for f in files]
    pool = Sample.from_graphs(graphs)
    from flamespace.stats.matrix import FrequencyFilter

    keep = FrequencyFilter().keep(pool.matrix)
    return pool.matrix[:, keep]


def floors_study(reps: int, ns: list[int], p: int, model_name: str, pool: np.ndarray | None) -> None:
    """maxt's power and A/A rate with three variance floors (the statistic only changes)."""
    from flamespace.stats import maxt
    from flamespace.stats._result import variance_floor
    from flamespace.stats.matrix import FrequencyFilter

    choices: dict[str, Callable[[np.ndarray], float]] = {
        "none": lambda x: 0.0,
        "resolution δ²/12": variance_floor,
        "SAM-like median variance": lambda x: float(np.median(x.var(axis=0, ddof=1))),
    }
    rng = np.random.default_rng(1)
    model = Model(model_name, p, pool, rng)
    print(
        f"\n### Variance floor study: maxt, {model_name}, p = {model.p}, {reps} replications, "
        f"growth {EFFECT_SE:g} s.e. of the stack nearest 2%; also a rare stack (mean ≈ 1) appearing at +3\n"
    )
    print("| n | floor | A/A FPR | power (mid stack) | power (rare stack +3) |")
    print("|---|---|---|---|---|")
    rare = int(np.argmin(np.abs(model.means - 1.0)))
    for n in ns:
        counts = {k: [[], [], []] for k in choices}
        for r in range(reps):
            base, same, grown, _ = model.draw(n)
            grown = grown.copy()
            grown[:, rare] += 3
            for key, floor in choices.items():
                for slot, other in ((0, same), (1, grown)):
                    pooled = np.vstack([base, other])
                    keep = FrequencyFilter().keep(pooled)
                    index = {j: i for i, j in enumerate(np.flatnonzero(keep))}
                    out = maxt.test(base[:, keep], other[:, keep], ALPHA, 2000, seed=r, floor=floor(pooled[:, keep]))
                    if slot == 0:
                        counts[key][0].append(bool(out.significant.any()))
                    else:
                        counts[key][1].append(model.j in index and bool(out.significant[index[model.j]]))
                        counts[key][2].append(rare in index and bool(out.significant[index[rare]]))
        for key, (fpr, power, power_rare) in counts.items():
            print(f"| {n} | {key} | {fmt(rate(fpr))} | {fmt(rate(power))} | {fmt(rate(power_rare))} |", flush=True)


def plan_check(seed: int, trials: int = 4, reps: int = 60) -> None:
    """Does ``flamespace plan``'s n reach its 80% power? A 10-run pilot, a plan for one of the 5
    widest stacks, then ``reps`` comparisons at the planned n with that change."""
    from flamespace.stats import power

    rng = np.random.default_rng(seed)
    print(f"\n### plan check (seed {seed}): 10-run pilot, planned n, power in {reps} comparisons\n")
    print("| model | p | change | stack | planned n | power |")
    print("|---|---|---|---|---|---|")
    reached = []
    for model, p, rel in (("negbin", 90, 0.25), ("poisson", 300, 0.10), ("negbin", 20, 0.25)):
        stacks = [(f"s{i}",) for i in range(p)]
        for _ in range(trials):
            planned = power.plan(Sample(stacks, simulate(rng, model, p, 10)), power.Change(rel, True), top=5)
            row = planned.rows[int(rng.integers(len(planned.rows)))]
            j, n = int(row.stack[0][1:]), row.runs
            if not 0 < n <= 150:
                continue
            factor = np.ones(p)
            factor[j] = 1 + rel
            hits = sum(
                any(
                    c.significant and c.stack == row.stack
                    for c in compare(
                        Sample(stacks, simulate(rng, model, p, n)), Sample(stacks, simulate(rng, model, p, n, factor)), seed=r
                    ).changes
                )
                for r in range(reps)
            )
            reached.append(hits / reps)
            print(f"| {model} | {p} | +{100 * rel:g}% | {row.stack[0]} | {n} | {hits / reps:.2f} |", flush=True)
    print(f"\nmedian power {np.median(reached):.2f}; ≥ 0.8 in {sum(x >= 0.8 for x in reached)} of {len(reached)}")


def timing(repeat: int) -> None:
    import statistics

    rng = np.random.default_rng(0)
    stacks = [(f"s{i}",) for i in range(5000)]
    base, cand = sample(simulate(rng, "negbin", 5000, 50), stacks), sample(simulate(rng, "negbin", 5000, 50), stacks)
    print(f"\n### Speed: 100 runs × 5,000 stacks (median of {repeat})\n")
    print("| method | median s |")
    print("|---|---|")
    for label in ("maxt", "maxt+bh", "welch"):
        method, fdr = METHODS[label]
        times = []
        for r in range(repeat):
            start = time.perf_counter()
            compare(base, cand, method, ALPHA, fdr=fdr, seed=r)
            times.append(time.perf_counter() - start)
        print(f"| {label}{' (2000 relabellings)' if method == 'maxt' else ''} | {statistics.median(times):.3f} |")
    try:
        from pyrometry.stats import hotelling_two_sample_test
    except ImportError:
        print("\n(pyrometry not installed: pip install pyrometry for the side-by-side Hotelling timing)")
        return
    from flamespace.stats.hotelling import test as hotelling

    x1, x2 = simulate(rng, "negbin", 90, 50), simulate(rng, "negbin", 90, 50)
    ours, theirs = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        hotelling(x1, x2, ALPHA, "two-sided")
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        hotelling_two_sample_test(x1, x2, ALPHA)
        theirs.append(time.perf_counter() - start)
    a, b = statistics.median(ours), statistics.median(theirs)
    print(
        f"\nHotelling on 100 runs × 90 stacks (Scheffé decisions: more than {12} varying stacks): "
        f"flamespace {a * 1e3:.2f} ms, pyrometry {b * 1e3:.2f} ms (ratio {a / b:.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["poisson", "negbin", "real"], choices=["poisson", "negbin", "real"])
    parser.add_argument("--n", type=int, nargs="+", default=[3, 5, 10, 20, 50], help="runs per side")
    parser.add_argument("--p", type=int, nargs="+", default=[20, 90, 300, 2000], help="stacks (simulated models)")
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    parser.add_argument("--reps", type=int, default=300, help="replications per cell")
    parser.add_argument("--reps-large", type=int, default=100, help="replications where p ≥ 2000 or n ≥ 50")
    parser.add_argument("--reps-small", type=int, default=1000, help="replications where n ≤ 5 (exact enumeration: cheap)")
    parser.add_argument("--pool", help="directory of real runs for the 'real' model")
    parser.add_argument("--floors", action="store_true", help="run the variance-floor study instead")
    parser.add_argument("--total", type=float, default=10_000, help="samples per run in the simulated models")
    parser.add_argument("--plan-check", type=int, metavar="SEED", help="check flamespace plan's runs by simulation instead")
    parser.add_argument("--repeat", type=int, default=5, help="timings per method")
    parser.add_argument("--no-speed", action="store_true")
    args = parser.parse_args()
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, load {os.getloadavg()[0]:.1f}",
        file=sys.stderr,
    )
    TOTAL[0] = args.total
    if args.plan_check is not None:
        plan_check(args.plan_check)
        return
    if args.floors:
        floors_study(args.reps, args.n, args.p[0], args.models[0], read_pool(args.pool) if args.pool else None)
        return
    print(
        f"### Simulation: α = {ALPHA}, one-sided (greater), T = {args.total:g} samples per run, {args.reps} replications per cell "
        f"({args.reps_small} where n ≤ 5, {args.reps_large} where p ≥ 2000 or n ≥ 50); rate ± Monte-Carlo s.e.\n"
    )
    print("| model | p | n | method | A/A false-positive rate | power (+4 s.e.) | coverage |")
    print("|---|---|---|---|---|---|---|")
    for name in args.models:
        if name == "real":
            if not args.pool:
                print("(real: no --pool given; skipped)", file=sys.stderr)
                continue
            pool = read_pool(args.pool)
            grid = [(pool.shape[1], n) for n in args.n if 2 * n <= len(pool)]
        else:
            pool = None
            grid = [(p, n) for p in args.p for n in args.n]
        for p, n in grid:
            start = time.perf_counter()
            reps = args.reps_large if p >= 2000 or n >= 50 else args.reps_small if n <= 5 else args.reps
            model = Model(name, p, pool, np.random.default_rng(1000 * n + p))
            hits = replicate(model, n, reps, args.methods)
            for label in args.methods:
                h = hits[label]
                print(
                    f"| {name} | {model.p} | {n} | {label} | {fmt(rate(h['fpr']))} | {fmt(rate(h['power']))} | "
                    f"{fmt(rate(h['coverage']), se=False)} |",
                    flush=True,
                )
            print(f"({name} p={p} n={n}: {time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    if not args.no_speed:
        timing(args.repeat)


if __name__ == "__main__":
    main()
