"""Which way of computing `detectable` is found 80% of the time? Variants on the same comparisons.

bench_power_detectable.py measures compare's own figure: a null comparison gives stack 0's d, a
FRESH comparison with d added is tested. Here the fresh comparison is summarised once by its
threshold d* (the smallest shift of stack 0 that maxt.test finds; found at d ⇔ d ≥ d*, checked
on 600 comparisons: no disagreement), so any variant of the figure is scored on the same
comparisons without testing again. Variants:

- ``linear``: compare's figure (power.detectable: the noise of ŝe linearised, t quantile);
- ``exact``: the same model solved by quadrature, E_{S,S'}[Φ((δS − cS')/√(1 + h c² S'²))] = 0.8
  with S², S'² ~ χ²_d/d, 1/d = 1/df + κ/(2·runs) (as power.assured_padding models a variance);
- ``no-tails``: linear with κ = 0;
- ``true-tails`` and ``exact-true-tails``: linear and exact given the pool's true excess kurtosis of
  stack 0 (of one run unpaired, of a pair's difference paired; from 200,000 draws) instead of the
  runs' shrunk G₂: what the figure would read if the tails were known.

    nice -n 10 .venv/bin/python benchmarks/sim_detectable_variants.py --reps 2000 [--cells negbin:u10,real:mixed:p6]

The pools are tests/stats/power_harness.py's (lognormal, negbin, normal) and the recorded ones
(tests/data/power/real_pools.npz). docs/statistics.md, "What the linear figure hides", has the table.
"""

from __future__ import annotations

import argparse
import math
import sys
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.stats.power_harness import lognormal, negbin, normal, pool_drawer  # noqa: E402

from flamespace.stats import maxt, power  # noqa: E402
from flamespace.stats.comparison import detectable_inputs  # noqa: E402
from flamespace.stats._tails import normal_ppf  # noqa: E402

PERMUTATIONS = 400
QUANTILES = 32


def threshold(y1: np.ndarray, y2: np.ndarray, paired: bool, seed: int, scale: float) -> float:
    """The smallest shift of y2's stack 0 that maxt.test (two-sided, α = 0.05) finds (bisection, 14 steps)."""

    def found(d: float) -> bool:
        z = y2.copy()
        z[:, 0] += d
        res = maxt.test(y1, z, 0.05, PERMUTATIONS, seed=seed, alternative="two-sided", paired=paired, statistic="auto")
        return bool(res.significant[0])

    low, high = 0.0, scale
    while not found(high):
        low, high = high, 2 * high
        if high > scale * 1e4:
            return math.inf
    for _ in range(14):
        middle = (low + high) / 2
        low, high = (low, middle) if found(middle) else (middle, high)
    return high


def exact_detectable(c: float, se: float, df: float, kurtosis: float, runs: int, h: float, target: float = 0.8) -> float:
    """δ·se with E_{S,S'}[Φ((δS − cS')/√(1 + h c² S'²))] = target; S = √(χ²_d/d) at QUANTILES quantiles (Wilson–Hilferty)."""
    from scipy.special import ndtr

    if not math.isfinite(c):
        return math.inf
    d = 1.0 / (1.0 / max(df, 1.0) + max(kurtosis, 0.0) / (2.0 * runs))
    zq = np.array([normal_ppf((k + 0.5) / QUANTILES) for k in range(QUANTILES)])
    s = np.sqrt(np.maximum(1 - 2 / (9 * d) + zq * math.sqrt(2 / (9 * d)), 1e-12) ** 3)
    a, b = s[:, None], c * s[None, :]
    spread = np.sqrt(1 + h * (c * s[None, :]) ** 2)

    def reach(delta: float) -> float:
        return float(ndtr((delta * a - b) / spread).mean())

    low, high = 0.0, 2 * max(c, 1.0) + 2
    while reach(high) < target:
        low, high = high, 2 * high
        if high > 1e6:
            return math.inf
    for _ in range(40):
        middle = (low + high) / 2
        low, high = (low, middle) if reach(middle) >= target else (middle, high)
    return high * se


def true_kurtosis(draw, paired: bool) -> float:
    """Stack 0's excess kurtosis in the pool itself (of a pair's difference when ``paired``), from 200,000 draws."""
    rng = np.random.default_rng(2026)
    x = draw(rng, 200_000)[:, 0] - (draw(rng, 200_000)[:, 0] if paired else 0.0)
    r = x - x.mean()
    return float((r**4).mean() / (r**2).mean() ** 2 - 3.0)


def figures(x1: np.ndarray, x2: np.ndarray, paired: bool, seed: int, kurtosis: float) -> dict[str, float]:
    """Stack 0's figure by each variant, from one null comparison and compare's own inputs to the figure
    (``kurtosis``: the pool's true one, for the true-tails variants)."""
    res = maxt.test(x1, x2, 0.05, PERMUTATIONS, seed=seed, alternative="two-sided", paired=paired, statistic="auto")
    inputs = detectable_inputs(res, x1, x2, paired, 0.05)
    assert inputs is not None
    first = {name: value[:1] if isinstance(value, np.ndarray) else value for name, value in inputs.items()}  # stack 0
    c, se, df = (float(first[k][0]) for k in ("critical", "se", "df"))
    shrunk, runs, noise = float(first["kurtosis"][0]), first["runs"], float(first["noise"][0])
    return {
        "linear": float(power.detectable(**first)[0]),
        "exact": exact_detectable(c, se, df, shrunk, runs, noise),
        "no-tails": float(power.detectable(**{**first, "kurtosis": 0.0})[0]),
        "true-tails": float(power.detectable(**{**first, "kurtosis": kurtosis})[0]),
        "exact-true-tails": exact_detectable(c, se, df, kurtosis, runs, noise),
    }


def cell(draw, paired: bool, n: int, reps: int, seed: int) -> dict[str, tuple[float, int]]:
    """Per variant: (share found, comparisons tried) over ``reps`` null + fresh comparison pairs."""
    kurtosis = true_kurtosis(draw, paired)
    rng = np.random.default_rng(seed)
    found: dict[str, int] = {}
    tried: dict[str, int] = {}
    for r in range(reps):
        x1, x2 = draw(rng, n), draw(rng, n)
        each = figures(x1, x2, paired, r, kurtosis)
        y1, y2 = draw(rng, n), draw(rng, n)
        scale = 4 * max(each["no-tails"] / 6, 1e-9) if math.isfinite(each["no-tails"]) else 1.0
        dstar = threshold(y1, y2, paired, r + 1, scale)
        for name, d in each.items():
            if math.isfinite(d):
                tried[name] = tried.get(name, 0) + 1
                found[name] = found.get(name, 0) + (d >= dstar)
    return {name: (found[name] / tried[name], tried[name]) for name in tried}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--cells", default=None, help="pool:design+n, comma-separated (e.g. negbin:u10,real:mixed:p6)")
    args = ap.parse_args()
    with np.load(ROOT / "tests/data/power/real_pools.npz") as data:
        pools = {"lognormal": lognormal, "negbin": negbin, "normal": normal}
        pools.update({f"real:{k}": pool_drawer(data[k]) for k in data.files})
    designs = [("p", 6), ("p", 10), ("p", 20), ("u", 5), ("u", 6), ("u", 10), ("u", 20)]
    wanted = [c.rsplit(":", 1) for c in args.cells.split(",")] if args.cells else None
    variants = ("linear", "exact", "no-tails", "true-tails", "exact-true-tails")
    print("| pool | design | n | linear (compare's) | exact | no tails | true tails | exact, true tails | comparisons |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, draw in pools.items():
        for design, n in designs:
            if wanted and [name, f"{design}{n}"] not in wanted:
                continue
            shares = cell(draw, design == "p", n, args.reps, zlib.crc32(f"variants{name}{design}{n}".encode()))
            row = " | ".join(f"{shares[v][0]:.3f}" if v in shares else "-" for v in variants)
            tried = max(t for _, t in shares.values())
            print(f"| {name} | {'paired' if design == 'p' else 'unpaired'} | {n} | {row} | {tried} |", flush=True)


if __name__ == "__main__":
    main()
