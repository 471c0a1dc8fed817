"""History's change points through the store, as users run them: `flamespace history` on a store.

    nice -n 10 .venv/bin/python benchmarks/bench_changepoint_store.py [--reps 400] [--points 30] [--metric value]
    nice -n 10 .venv/bin/python benchmarks/bench_changepoint_store.py --cost STORE [--flamespace EXE ...]

Power and false alarms (issue 26 item 6): for each noise pool, one store of ``--reps`` series
(label ``series=r``), each series ``--points`` commits of 1-5 profiles (uniform: unequal
points), with the followed stack stepped +8% from the middle commit (or flat). Each series
is run through the CLI in this process (``flamespace history store:series=r --stack '^STACK$'
--format json``: one stack, so α = 0.05 for it) and its first change read from the JSON: the
share of series where a change is found (A/A: any change; step: within ±2 commits of it),
with its Monte-Carlo standard error, the mean reported relative size, and the share of found
sizes within a third of 8%. "before" is the same store query's point means (sums / profiles)
tested as history tested them before this change (the JSON's ``values``, weighted by the
points' profiles, through ``detect`` with analyse's arguments): the sum-per-point path.
"runs given": the same series' runs handed to ``detect`` directly (each point's median of its
runs, weighted by their number): what the store path should now match.

Pools (whole profiles drawn, so a profile's stacks stay together):
- ``timing``: the synthetic pool of bench_changepoint.py --timing: the stack is 150 ms × (1 +
  4% N(0, 1)), 2.5% of profiles stalled (doubled, a 305 ms stall on a 150 ms stack), beside a
  300 ms ± 2% rest;
- ``mixed`` / ``work``: the real recorded pools of tests/data/power/real_pools.npz (40 runs
  each of two programs, `flamespace collect` at 1000 Hz on a loaded 2-core machine), runs drawn
  with replacement; the followed stack is mixed's second widest (45.8 ms, robust sd 2.9%,
  stalls to 1.64×) or work's widest (26.7 ms, robust sd 8.5%).

``--cost STORE``: seconds of ``EXE history store:branch=main --store STORE`` (default top 20
stacks), median of ``--repeat`` runs in a fresh process each, for each ``--flamespace`` EXE
(e.g. main's venv and this branch's): the store made by ``bench_store.py --dir``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from datetime import datetime, timedelta
from typing import Callable

import numpy as np

from flamespace.cli import main as cli
from flamespace.core.metadata import Metadata
from flamespace.stats.changepoint import MIN_SIZE, PERMUTATIONS, SEED, detect
from flamespace.store import open_store

from _cli import executable  # benchmarks/: the installed flamespace

POOLS = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "power", "real_pools.npz")
START = datetime(2026, 11, 1)
STEP = 0.08
ALPHA = 0.05


def timing_pool(rng: np.random.Generator, size: int) -> tuple[list[str], np.ndarray]:
    """``size`` synthetic profiles (bench_changepoint.py's timing noise) as (stack texts, rows × stacks in ns)."""
    work = 150e6 * (1 + 0.04 * rng.normal(size=size))
    work[rng.random(size) < 0.025] *= 2
    rest = 300e6 * (1 + 0.02 * rng.normal(size=size))
    return ["main;work", "main;rest"], np.column_stack([work, rest])


def real_pool(name: str, column: int) -> Callable[[np.random.Generator, int], tuple[list[str], np.ndarray]]:
    """Profiles drawn with replacement from a recorded pool, the followed stack first."""
    pool = np.load(POOLS)[name]
    order = [column] + [j for j in range(pool.shape[1]) if j != column]
    texts = [f"main;{name}{j:02d}" for j in order]

    def draw(rng: np.random.Generator, size: int) -> tuple[list[str], np.ndarray]:
        return texts, pool[rng.integers(0, len(pool), size)][:, order]

    return draw


SOURCES = {"timing": timing_pool, "mixed": real_pool("mixed", 1), "work": real_pool("work", 0)}


def build(
    root: str, source: Callable, reps: int, points: int, step: float, rng: np.random.Generator
) -> tuple[str, list[list[np.ndarray]]]:
    """A store of ``reps`` series; the followed stack's text and, per series, its runs' values per
    point (in the store's profiles: each profile's share when ``share``)."""
    items = []
    texts: list[str] = []
    given: dict[str, list[list[np.ndarray]]] = {"value": [], "share": []}
    for r in range(reps):
        counts = rng.integers(1, 6, points)
        texts, rows = source(rng, int(counts.sum()))
        rows = rows.copy()
        point = np.repeat(np.arange(points), counts)
        rows[point >= points // 2, 0] *= 1 + step
        rows = np.rint(rows)
        given["value"].append([rows[point == c, 0] for c in range(points)])
        given["share"].append([rows[point == c, 0] / rows[point == c].sum(axis=1) for c in range(points)])
        for k, (c, values) in enumerate(zip(point.tolist(), np.rint(rows).astype(np.int64).tolist())):
            labels = {
                "series": str(r),
                "commit": f"s{r}c{c:02d}",
                "run": str(k),
                "time": (START + timedelta(hours=c, minutes=k)).isoformat(),
            }
            items.append(({t: v for t, v in zip(texts, values) if v}, Metadata(unit="ns", labels=labels), f"{r}-{k}"))
    open_store(root).add(items)
    return texts[0], given


def run_history(root: str, series: int, stack: str, metric: str) -> dict:
    """`flamespace history` on one series, in this process; its JSON."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli(
            [
                "history",
                f"store:series={series}",
                "--store",
                root,
                "--stack",
                f"^{stack}$",
                "--metric",
                metric,
                "--alpha",
                str(ALPHA),
                "--format",
                "json",
            ]
        )
    if code != 0:
        raise SystemExit(f"flamespace history exited {code} on series {series}")
    return json.loads(out.getvalue())


def before(report: dict, metric: str) -> tuple[int | None, float]:
    """The sum-per-point path: the point means (or merged shares) tested as history tested them before."""
    stack = report["stacks"][0]
    series = stack["values"] if metric == "value" else stack["shares"]
    weights = [p["profiles"] for p in report["points"]]
    found = detect(
        series, None, report["stack_alpha"], max(PERMUTATIONS, math.ceil(20 / ALPHA) - 1), MIN_SIZE, SEED, weights=weights
    ).points
    return (found[0].index, found[0].relative) if found else (None, math.nan)


def runs_given(runs: list[np.ndarray]) -> tuple[int | None, float]:
    """The reference: the runs themselves given to ``detect`` (medians per point, weighted by runs), as history's own arguments."""
    found = detect(runs, None, ALPHA, max(PERMUTATIONS, math.ceil(20 / ALPHA) - 1), MIN_SIZE, SEED).points
    return (found[0].index, found[0].relative) if found else (None, math.nan)


def now(report: dict) -> tuple[int | None, float]:
    changes = report["stacks"][0]["changes"]
    if not changes:
        return None, math.nan
    return changes[0]["index"], math.nan if changes[0]["relative"] is None else changes[0]["relative"]


def true_change(source: Callable, step: float, metric: str) -> float:
    """The relative change of the followed stack's level a step makes: ``step`` for its value; for
    its share, with share s of the total before, (1 + step) / (1 + step · s) − 1 (the total grows too)."""
    if metric == "value":
        return step
    _, rows = source(np.random.default_rng(0), 100_000)
    share = float(np.median(rows[:, 0] / rows.sum(axis=1)))
    return (1 + step) / (1 + step * share) - 1


def cell(rows: list[tuple[int | None, float]], step: float, at: int, truth: float) -> str:
    """Found rate ± its s.e., mean reported size, share of sizes within a third of ``truth``."""
    hits = [size for index, size in rows if index is not None and (step == 0 or abs(index - at) <= 2)]
    rate = len(hits) / len(rows)
    text = f"{100 * rate:.1f}% ± {100 * math.sqrt(rate * (1 - rate) / len(rows)):.1f}"
    if not step or not hits:
        return text + " | – | –"
    within = np.mean([abs(h - truth) <= abs(truth) / 3 for h in hits])
    return text + f" | {100 * np.mean(hits):+.1f}% | {100 * within:.0f}%"


def power(args: argparse.Namespace) -> None:
    rng = np.random.default_rng(2026)
    print(
        f"`flamespace history` on a store: {args.points} commits of 1-5 profiles, steps from commit "
        f"{args.points // 2}, one stack followed (α = {ALPHA}), metric {args.metric}, {args.reps} series a row; "
        "± one Monte-Carlo s.e."
    )
    print("| pool | step | path | change found (A/A: any; step: within ±2 commits) | mean reported size | size within a third |")
    print("|---|---:|---|---:|---:|---:|")
    for name in args.pools:
        for step in args.steps:
            workdir = tempfile.mkdtemp(prefix="bench-cp-store-")
            try:
                root = os.path.join(workdir, "store")
                stack, given = build(root, SOURCES[name], args.reps, args.points, step, rng)
                started = time.perf_counter()
                reports = [run_history(root, r, stack, args.metric) for r in range(args.reps)]
                seconds = (time.perf_counter() - started) / args.reps
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
            at, truth = args.points // 2, true_change(SOURCES[name], step, args.metric)
            shown = f"{100 * step:.0f}%" + (f" (share {100 * truth:+.1f}%)" if step and args.metric == "share" else "")
            print(
                f"| {name} | {shown} | sum per point (before) | "
                f"{cell([before(r, args.metric) for r in reports], step, at, truth)} |"
            )
            print(
                f"| {name} | {shown} | store medians (now; {seconds:.2f} s a run) | "
                f"{cell([now(r) for r in reports], step, at, truth)} |"
            )
            print(
                f"| {name} | {shown} | runs given to detect (reference) | "
                f"{cell([runs_given(g) for g in given[args.metric]], step, at, truth)} |",
                flush=True,
            )


def cost(args: argparse.Namespace) -> None:
    print(
        f"`history store:branch=main --store {args.cost} --format json` (top 20 stacks), seconds, "
        f"median of {args.repeat} fresh processes (the executables taking turns)"
    )
    print("| flamespace | median s | min s |")
    print("|---|---:|---:|")
    times: dict[str, list[float]] = {exe: [] for exe in args.flamespace or [executable()]}
    for _ in range(args.repeat):
        for exe in times:  # in turn: a change of the machine's load falls on both
            started = time.perf_counter()
            subprocess.run(
                [exe, "history", "store:branch=main", "--store", args.cost, "--format", "json"],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            times[exe].append(time.perf_counter() - started)
    for exe, seconds in times.items():
        print(f"| {exe} | {statistics.median(seconds):.2f} | {min(seconds):.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--points", type=int, default=30)
    parser.add_argument("--metric", choices=("value", "share"), default="value")
    parser.add_argument("--steps", type=float, nargs="+", default=[0.0, STEP], help="relative steps (0: A/A)")
    parser.add_argument("--pools", nargs="+", choices=sorted(SOURCES), default=["timing", "mixed", "work"])
    parser.add_argument("--cost", metavar="STORE", default=None, help="time history over this store instead")
    parser.add_argument("--flamespace", nargs="+", help="the executables --cost times (default: this environment's)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.cost:
        cost(args)
    else:
        power(args)


if __name__ == "__main__":
    main()
