"""Which series `serve`'s alerts (and `history --metric`) should watch on a continuous CPU profile:
false alarms and power of ``value``, ``share`` and ``both`` when the load moves.

    python benchmarks/bench_alert_metric.py [--reps 200] [--windows 60] [--seed 0] [--compare]

Simulated windows of a service's CPU profile (10 s at 100 Hz, counts × 10 ms): 20 stacks with
expected counts 400 → 8 (geometric) plus the rest of the profile (500), each window's load a
factor lognormal(0, 0.15) shared by every stack (requests come and go), each stack's mix
lognormal(0, 0.1) on top, counts Poisson. Scenarios, the change at the middle window:

- *quiet*: nothing changes;
- *load step*: the load ×1.6 (more requests: every stack costs more, no code changed);
- *load ramp*: the load ×1 → ×2 across the windows (a busy hour coming);
- *regression*: stack 2 costs ×1.3 (its code got slower), the load as in *quiet*;
- *regression + load step*: both at the same window.

Per scenario and metric (`stats.history.analyse` at family-wise α = 0.05, the alert watcher's
test): the share of series with any change reported on a stack whose own cost did not change
(a false alert; Monte-Carlo s.e. in brackets), and with a regression the share in which stack 2's
change is found (power) with the size of its first change point (the truth: +30%). docs/serve.md
("Alerts") has the table.

``--compare``: the same windows, the first half against the second with ``stats.compare`` (maxt,
two-sided, α = 0.05; each window a run, as serve's compare of two time ranges): its values, its
shares (``normalize``) and each run over its load (``normalize_load``); "false" is the share of
comparisons that call a stack whose cost did not change significant, "found" that call stack 2's
change significant, with the median relative change reported.
"""

from __future__ import annotations

import argparse
import math
import time
from datetime import datetime, timedelta

import numpy as np

from flamespace.core.metadata import Metadata
from flamespace.stats import compare
from flamespace.stats.history import METRICS, ProfileRecord, analyse, history_of
from flamespace.stats.matrix import Sample

STACKS = 20
MEANS = np.geomspace(400.0, 8.0, STACKS)
REST = 500.0
TICK_NS = 10_000_000
REGRESSED = 2
REGRESSED_STACK = f"main;s{REGRESSED:02d}"
T0 = datetime(2026, 11, 1)


def load_of(scenario: str, windows: int) -> np.ndarray:
    """The load factor of each window, before its noise."""
    k = np.arange(windows)
    if scenario in ("load step", "regression + load step"):
        return np.where(k >= windows // 2, 1.6, 1.0)
    if scenario == "load ramp":
        return 1.0 + k / (windows - 1)
    return np.ones(windows)


def draw(rng: np.random.Generator, scenario: str, windows: int) -> list[ProfileRecord]:
    """One service's windows under ``scenario``."""
    load = load_of(scenario, windows) * rng.lognormal(0.0, 0.15, windows)
    cost = np.ones((windows, STACKS))
    if scenario.startswith("regression"):
        cost[windows // 2 :, REGRESSED] = 1.3
    mix = rng.lognormal(0.0, 0.1, (windows, STACKS))
    counts = rng.poisson(MEANS * cost * mix * load[:, None])
    rest = rng.poisson(REST * load)
    out = []
    for w in range(windows):
        values = {f"main;s{i:02d}": float(counts[w, i] * TICK_NS) for i in range(STACKS) if counts[w, i]}
        values["main;rest"] = float(rest[w] * TICK_NS)
        out.append(ProfileRecord(f"w{w:03d}", T0 + timedelta(seconds=10 * w), values))
    return out


SCENARIOS = ("quiet", "load step", "load ramp", "regression", "regression + load step")


def sample_of(records: list[ProfileRecord]) -> Sample:
    """The windows as a Sample (runs × stacks) for ``stats.compare``."""
    stacks = sorted({s for r in records for s in r.values})
    matrix = np.array([[r.values.get(s, 0.0) for s in stacks] for r in records])
    return Sample([tuple(s.split(";")) for s in stacks], matrix, Metadata(unit="ns"))


COMPARE_WAYS = {"value": {}, "share": {"normalize": True}, "normalised": {"normalize_load": True}}


def compare_table(reps: int, windows: int, seed: int) -> None:
    """The first half of the windows against the second, each window a run."""
    print(f"\n{reps} comparisons of {windows // 2} + {windows // 2} windows a cell (compare: maxt, two-sided, α = 0.05)")
    print("| scenario | compare | false | regression found | its size (median [10th-90th]) | seconds a comparison |")
    print("|---|---|---:|---:|---|---:|")
    grown = tuple(REGRESSED_STACK.split(";"))
    for scenario in ("quiet", "load step", "regression", "regression + load step"):
        for way, options in COMPARE_WAYS.items():
            rng = np.random.default_rng([seed, 100 + SCENARIOS.index(scenario)])
            false = found = 0
            sizes: list[float] = []
            started = time.perf_counter()
            for r in range(reps):
                records = draw(rng, scenario, windows)
                half = windows // 2
                result = compare(sample_of(records[:half]), sample_of(records[half:]), seed=r, **options)
                significant = {c.stack: c for c in result.kept}
                false += bool(set(significant) - {grown})
                found += grown in significant
                if scenario.startswith("regression") and grown in significant and way != "share":
                    sizes.append(significant[grown].relative)
            seconds = (time.perf_counter() - started) / reps
            f, p = false / reps, found / reps
            power = f"{p:.2f}" if scenario.startswith("regression") else ""
            size = "{:+.0%} [{:+.0%}, {:+.0%}]".format(*np.quantile(sizes, [0.5, 0.1, 0.9])) if sizes else ""
            print(f"| {scenario} | {way} | {f:.3f} ({math.sqrt(f * (1 - f) / reps):.3f}) | {power} | {size} | {seconds:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--windows", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--compare", action="store_true", help="compare's table instead of history's")
    args = parser.parse_args()
    if args.compare:
        compare_table(args.reps, args.windows, args.seed)
        return
    print(f"{args.reps} series of {args.windows} windows a cell; false = any change on a stack whose cost did not change")
    print("| scenario | metric | false alerts | regression found | its size (median [10th-90th]) | seconds a series |")
    print("|---|---|---:|---:|---|---:|")
    for scenario in SCENARIOS:
        for metric in METRICS:
            rng = np.random.default_rng([args.seed, SCENARIOS.index(scenario)])  # the same series for each metric
            false = found = 0
            sizes: list[float] = []
            started = time.perf_counter()
            for _ in range(args.reps):
                report = analyse(history_of(draw(rng, scenario, args.windows), "commit", top=STACKS + 1, unit="ns"), metric)
                changed = {s.stack: s.changes.points for s in report.stacks if s.changes.points}
                false += bool(set(changed) - {REGRESSED_STACK})
                found += REGRESSED_STACK in changed
                if (
                    scenario.startswith("regression") and metric != "share" and REGRESSED_STACK in changed
                ):  # a share's size is not the cost's
                    sizes.append(changed[REGRESSED_STACK][0].relative)
            seconds = (time.perf_counter() - started) / args.reps
            f, p = false / args.reps, found / args.reps
            power = f"{p:.2f}" if scenario.startswith("regression") else ""
            size = "{:+.0%} [{:+.0%}, {:+.0%}]".format(*np.quantile(sizes, [0.5, 0.1, 0.9])) if sizes else ""
            print(
                f"| {scenario} | {metric} | {f:.3f} ({math.sqrt(f * (1 - f) / args.reps):.3f}) | {power} | {size} | {seconds:.2f} |"
            )


if __name__ == "__main__":
    main()
