"""The regression gate end to end on a loaded machine: whole processes, the CLI as users run it.

    python benchmarks/bench_gate_load.py [--hogs 0,2,4] [--reps 3] [--experiment-runs 20] [--rate 1000]
        [--runs 80] [--aa-hogs 2] [--step-hogs 4] [--sizes 3,5,10,20] [--splits 400] [--shuffles 10]
        [--keep DIR | --pools DIR] [--skip-experiment] [--skip-aa] [--json FILE]

Two parts, while busy-loop processes (bench_load.py's hogs, started here and killed after)
compete for the CPUs:

1. **The paper's experiment** (the programs of ``tests/collect/test_experiment.py``, imported
   from there) at each of ``--hogs``, ``--reps`` times: ``flamespace collect -n 20 --rate
   1000 --baseline-cmd main.py --candidate-cmd main.py --candidate-env REGRESSION=1`` then
   ``flamespace compare --alternative two-sided --json`` at the default α = 0.05, and again
   with ``--max-missed 20%``. The candidate's ``a()`` sleeps 50 ms less and a 100 ms start-up
   sleep appears. Per repetition: the Δ and interval of the two changed stacks beside the
   nominal change and beside the programs' own clock (their real sleeps), whether exactly
   those two stacks were flagged, compare's exit code and the collection's wall time.
2. **A/A under load**: one ``flamespace collect -n RUNS`` of one program (bench_load.py's
   known-answer program: start-up imports, sleeps, busy loops, ~0.3 s) with ``--aa-hogs``
   hogs, and a second one whose ``--step-hogs`` hogs start only halfway through (a step in
   the load). Then many comparisons of two disjoint groups of a pool's runs with
   ``stats.compare`` at the gate's defaults (maxt, one-sided ``greater``, family-wise α = 0.05),
   in-process for speed. *random*: the groups are drawn at random (exchangeable by
   construction: the test's level on real profiles). *windows*: baseline = runs i..i+n-1,
   candidate = the next n (a collection that does not interleave: drift of the machine's load
   is confounded with the change). *alternate*: the same 2n runs taking turns, as ``collect``
   interleaves two programs. ``@step``: only the windows that hold the step. The rate of exit 3
   is given with its Monte-Carlo standard error and an exact binomial 95% interval. Also given:
   how often compare's drift warning (:func:`flamespace.stats.guards.drift_findings`)
   fired, in all and on the splits flagged; the stacks flagged; and the number of flagged
   windows that share no run ("events"). Caveat: splits of one pool share runs, so they are
   not independent collections, and for overlapping windows the binomial interval is far too
   narrow. ``--shuffles`` takes the same windows from the pool in random orders, with time
   order destroyed: their mean rate, and the share of them at or above the observed rate (a
   test of whether time order mattered).

Results: docs/performance.md, "The gate under load".
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import textwrap
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING
from collections.abc import Sequence

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]  # bench_load.py; the tests package (the experiment's programs)

from bench_load import start_hogs, stop_hogs, uptime, write_program  # noqa: E402
from _cli import executable  # noqa: E402  (the installed flamespace)
from tests.collect.test_experiment import A_LEAF, MAIN, SITECUSTOMIZE, STARTUP_LEAF, real_deltas  # noqa: E402

if TYPE_CHECKING:
    from flamespace.stats import Sample

MS = 1e6  # ns
NOMINAL = {A_LEAF: -50 * MS, STARTUP_LEAF: 100 * MS}
ALPHA = 0.05  # compare's default, the rate the gate promises
MAX_MISSED = "20%"  # the threshold compare's own warning names


def flamespace(*args: str, cwd: Path, env: dict[str, str] = None) -> subprocess.CompletedProcess:  # type: ignore[assignment]
    return subprocess.run([executable(), *args], cwd=cwd, capture_output=True, text=True, env=env)


# --- 1. the paper's experiment -------------------------------------------------------------


def experiment(directory: Path, runs: int, rate: str) -> dict:
    """One collection and comparison of the paper's two programs; what was found, as a dict."""
    directory.mkdir()
    (directory / "main.py").write_text(textwrap.dedent(MAIN))
    (directory / "sitecustomize.py").write_text(textwrap.dedent(SITECUSTOMIZE))
    path = f"PYTHONPATH={directory}"
    start = time.perf_counter()
    collected = flamespace(
        "collect",
        "-n",
        str(runs),
        "--rate",
        rate,
        "-o",
        "runs",
        "--baseline-cmd",
        "main.py",
        "--baseline-env",
        path,
        "--candidate-cmd",
        "main.py",
        "--candidate-env",
        path,
        "--candidate-env",
        "REGRESSION=1",
        cwd=directory,
    )
    seconds = time.perf_counter() - start
    if collected.returncode != 0:
        raise RuntimeError(f"collect failed (exit {collected.returncode}): {collected.stderr[-600:]}")
    compared = flamespace(
        "compare",
        "--baseline",
        "runs/baseline",
        "--candidate",
        "runs/candidate",
        "--alternative",
        "two-sided",
        "--json",
        cwd=directory,
    )
    if compared.returncode not in (0, 3):
        raise RuntimeError(f"compare failed (exit {compared.returncode}): {compared.stderr[-600:]}")
    result = json.loads(compared.stdout)
    real = real_deltas(directory / "slept.log")
    # the same comparison without the runs whose sampler fell behind (README, "Quality metadata")
    strict = flamespace(
        "compare",
        "--baseline",
        "runs/baseline",
        "--candidate",
        "runs/candidate",
        "--alternative",
        "two-sided",
        "--json",
        "--max-missed",
        MAX_MISSED,
        cwd=directory,
    )
    strict_stacks = {s["stack"][-1]: s for s in json.loads(strict.stdout)["stacks"]} if strict.returncode in (0, 3) else {}
    strict_runs = json.loads(strict.stdout).get("runs") if strict.returncode in (0, 3) else None
    flagged = [s for s in result["stacks"] if s["significant"]]
    found = {}
    for leaf in NOMINAL:
        # the stack with this leaf that was flagged, else the largest (a leaf can sit under several parents)
        stacks = sorted(
            (s for s in result["stacks"] if s["stack"][-1] == leaf),
            key=lambda s: (s["significant"], abs(s["delta"])),
            reverse=True,
        )
        change = stacks[0] if stacks else None
        found[leaf] = {
            "delta_ms": change["delta"] / MS if change else float("nan"),
            "lower_ms": change["lower"] / MS if change else float("nan"),
            "upper_ms": change["upper"] / MS if change else float("nan"),
            "significant": bool(change and change["significant"]),
            "real_ms": real[leaf] / MS,
            "nominal_ms": NOMINAL[leaf] / MS,
            "strict_delta_ms": strict_stacks[leaf]["delta"] / MS if leaf in strict_stacks else float("nan"),
        }
    return {
        "stacks": found,
        "flagged": [";".join(s["stack"][-2:]) for s in flagged],
        "exactly_two": sorted(s["stack"][-1] for s in flagged) == sorted(NOMINAL),
        "exit": compared.returncode,
        "strict_exit": strict.returncode,
        "strict_runs": strict_runs,
        "collect_s": seconds,
        "warnings": [line for line in (collected.stderr + compared.stderr).splitlines() if "warning" in line],
    }


def run_experiments(hog_levels: Sequence[int], reps: int, runs: int, rate: str, tmp: Path) -> list[dict]:
    found: list[dict] = []
    print(
        f"\n== The paper's experiment: collect -n {runs} --rate {rate}, compare --alternative two-sided "
        f"(α = {ALPHA}); Δ [interval] ms; nominal -50 (a) and +100 (start-up); real = the programs' own clock"
    )
    print(
        f"{'hogs':>4} {'rep':>3}  {'a(): Δ [interval]':<26} {'real':>7} {'start-up: Δ [interval]':<26} {'real':>7}"
        f"  {'exactly 2':<9} {'exit':>4} {'collect s':>9}  load"
    )
    for hogs in hog_levels:
        processes = start_hogs(hogs)
        try:
            time.sleep(1 if hogs else 0)  # let the hogs take the CPUs
            for rep in range(reps):
                before = uptime()
                try:
                    row = experiment(tmp / f"experiment-{hogs}-{rep}", runs, rate)
                except RuntimeError as exc:
                    print(f"{hogs:>4} {rep:>3}  {exc}")
                    continue
                row.update(hogs=hogs, rep=rep, load=[before, uptime()])
                found.append(row)
                cells = []
                for leaf in (A_LEAF, STARTUP_LEAF):
                    s = row["stacks"][leaf]
                    cells.append(
                        f"{s['delta_ms']:+7.1f} [{s['lower_ms']:+6.1f}, {s['upper_ms']:+6.1f}]"
                        f"{'' if s['significant'] else ' ns':<3}  {s['real_ms']:+7.1f}"
                    )
                print(
                    f"{hogs:>4} {rep:>3}  {cells[0]} {cells[1]}  {'yes' if row['exactly_two'] else 'NO':<9}"
                    f" {row['exit']:>4} {row['collect_s']:9.1f}  {row['load'][1]}"
                )
                print(
                    f"          --max-missed {MAX_MISSED}: a() {row['stacks'][A_LEAF]['strict_delta_ms']:+.1f}, start-up "
                    f"{row['stacks'][STARTUP_LEAF]['strict_delta_ms']:+.1f} ms, exit {row['strict_exit']}"
                )
                if not row["exactly_two"]:
                    print(f"          flagged: {row['flagged']}")
                for warning in row["warnings"]:
                    print(f"          {warning[:220]}")
        finally:
            stop_hogs(processes)
    if found:
        worst_nominal = max(abs(s["delta_ms"] - s["nominal_ms"]) for r in found for s in r["stacks"].values())
        worst_real = max(abs(s["delta_ms"] - s["real_ms"]) for r in found for s in r["stacks"].values())
        print(
            f"largest |Δ − nominal| {worst_nominal:.1f} ms, largest |Δ − real| {worst_real:.1f} ms; "
            f"exactly the two stacks in {sum(r['exactly_two'] for r in found)}/{len(found)}"
        )
    return found


# --- 2. A/A under load ---------------------------------------------------------------------


def collect_pool(runs: int, hogs: int, rate: str, tmp: Path, step: bool = False) -> tuple[Path, float, list[str]]:
    """``flamespace collect -n RUNS`` of the known-answer program under ``hogs`` hogs; with
    ``step``, the hogs start only once half the runs are written (a step in the machine's load
    halfway through one collection, as when another job lands on a CI runner)."""
    program, site_dir = write_program(tmp)
    env = {**os.environ, "KNOWN_ANSWER_OUT": str(tmp / "times.txt"), "PYTHONPATH": str(site_dir)}
    processes = [] if step else start_hogs(hogs)
    try:
        time.sleep(1 if processes else 0)
        load = [uptime()]
        start = time.perf_counter()
        child = subprocess.Popen(
            [executable(), "collect", "-n", str(runs), "--rate", rate, "-q", "-o", "pool", "--", str(program)],
            cwd=tmp,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if step:
            while child.poll() is None and len(list((tmp / "pool").glob("*.folded"))) < runs // 2:
                time.sleep(0.05)
            load.append(uptime())
            processes = start_hogs(hogs)
        _, stderr = child.communicate()
        seconds = time.perf_counter() - start
        load.append(uptime())
    finally:
        stop_hogs(processes)
    if child.returncode != 0:
        raise RuntimeError(f"collect failed (exit {child.returncode}): {stderr[-600:]}")
    late = [line for line in stderr.splitlines() if "fell behind" in line or "more runs" in line]
    print(f"  collect: {len(late)} warning line(s) on runs whose sampler fell behind; last: {late[-1][:160] if late else '-'}")
    return tmp / "pool", seconds, load


def binomial_interval(k: int, n: int) -> tuple[float, float]:
    """Clopper–Pearson (exact) 95% interval for a rate of k in n."""
    from scipy.stats import binomtest

    interval = binomtest(k, n).proportion_ci(0.95, method="exact")
    return interval.low, interval.high


def load_pool(pool: Path) -> tuple[Sample, list]:
    """The pool as compare reads it (guard rails included), its runs in collection order."""
    from flamespace.cli._samples import load_sides
    from flamespace.stats import Sample

    samples, screening = load_sides({"pool": [str(pool)]}, "compare")
    sample = samples["pool"]
    infos = sorted(screening.kept["pool"], key=lambda r: r.order or 0)
    rows = [sample.names.index(r.name) for r in infos]
    return Sample(sample.stacks, sample.matrix[rows], sample.metadata, [sample.names[i] for i in rows]), infos


def disjoint_events(starts: Sequence[int], width: int) -> int:
    """How many of the flagged windows (by start) share no run: overlapping windows share most of
    their runs, so a cluster of them flagged is one event, not many."""
    events, last = 0, None
    for start in sorted(starts):
        if last is None or start >= last + width:
            events, last = events + 1, start
    return events


def _coin_flips(alternating: Sequence[int], rng: random.Random) -> tuple[int, ...]:
    """``alternating`` (baseline runs, then candidate runs, pair k = the k-th of each) with the
    two runs of each pair swapped at random: the random order within a round that collect uses."""
    n = len(alternating) // 2
    pairs = [(a, b) if rng.random() < 0.5 else (b, a) for a, b in zip(alternating[:n], alternating[n:])]
    return tuple(a for a, _ in pairs) + tuple(b for _, b in pairs)


def aa_splits(
    sample: Sample, infos: list, sizes: Sequence[int], splits: int, seed: int, step: int | None = None, shuffles: int = 0
) -> list[dict]:
    """The gate's statistics on random and consecutive-window splits of one pool of runs.

    Overlapping windows share most of their runs, so their rate is a very noisy estimate and a
    binomial interval is far too narrow. ``shuffles``: the same windows are also taken from the
    pool in random orders (time order destroyed, so the runs are exchangeable); the share of
    shuffled orders whose rate reaches the one observed in collection order is a test of
    whether the time order (the machine's drift) mattered."""
    from flamespace.stats import Sample, compare
    from flamespace.stats.comparison import GATE_ALTERNATIVE
    from flamespace.stats.guards import drift_findings, run_times

    def part(picks: Sequence[int]) -> Sample:
        return Sample(sample.stacks, sample.matrix[list(picks)], sample.metadata, [sample.names[i] for i in picks])

    times = [r.run_time for r in infos]
    total = len(infos)
    rng = random.Random(seed)
    rows = []
    for n in sizes:
        if 2 * n > total:
            print(f"  n = {n}: needs {2 * n} runs, the pool has {total}; skipped")
            continue
        windows = [tuple(range(i, i + 2 * n)) for i in range(total - 2 * n + 1)]
        designs = {
            "random": [tuple(rng.sample(range(total), 2 * n)) for _ in range(splits)],
            "windows": windows,  # first n runs against the next n: a collection that does not interleave
            "alternate": [w[0::2] + w[1::2] for w in windows],  # the same runs taking turns, as collect does
        }
        if step is not None:  # the windows that hold the step in the load
            designs["windows@step"] = [w for w in windows if w[0] < step <= w[-1]]
            designs["alternate@step"] = [w[0::2] + w[1::2] for w in designs["windows@step"]]
        # the alternating designs again, tested as pairs (compare --pairing: run k of each side is a round)
        designs.update({f"{d} paired": designs[d] for d in list(designs) if d.startswith("alternate")})
        # what collect does now: rounds of two consecutive runs, which one is the baseline a coin flip
        for d in [d for d in list(designs) if d.startswith("alternate") and not d.endswith("paired")]:
            designs[d.replace("alternate", "rounds") + " paired"] = [_coin_flips(w, rng) for w in designs[d]]
        for design, chosen in designs.items():
            flagged = warned = warned_flagged = 0
            found: list[tuple[int, list[tuple[str, float]]]] = []  # (split, [(leaf, Δ ms)]) of each split flagged
            started = time.perf_counter()
            for number, picks in enumerate(chosen):
                base, cand = picks[:n], picks[n:]
                result = compare(
                    part(base), part(cand), seed=number, paired=design.endswith("paired"), alternative=GATE_ALTERNATIVE
                )
                findings = drift_findings(
                    run_times({"baseline": [infos[i] for i in base], "candidate": [infos[i] for i in cand]}),
                    [c.delta for c in result.kept],
                    result.unit,
                )
                warning = any(f.level == "warning" for f in findings)
                flagged += result.regressed
                warned += warning
                warned_flagged += warning and result.regressed
                if result.regressed:
                    found.append((number, [(c.stack[-1], c.delta / MS) for c in result.regressions]))
            count = len(chosen)
            rate = flagged / count
            null: list[float] = []
            if shuffles and design in ("windows", "alternate", "alternate paired", "rounds paired"):
                for _ in range(shuffles):
                    order = rng.sample(range(total), total)
                    null.append(
                        sum(
                            compare(
                                part([order[i] for i in p[:n]]),
                                part([order[i] for i in p[n:]]),
                                seed=k,
                                paired=design.endswith("paired"),
                                alternative=GATE_ALTERNATIVE,
                            ).regressed
                            for k, p in enumerate(chosen)
                        )
                        / count
                    )
            low, high = binomial_interval(flagged, count)
            # the run-time shift between the two sides (candidate − baseline median), the drift the test sees
            shifts = [statistics.median(times[i] for i in p[n:]) - statistics.median(times[i] for i in p[:n]) for p in chosen]
            rows.append(
                {
                    "n": n,
                    "design": design,
                    "splits": count,
                    "flagged": flagged,
                    "rate": rate,
                    "mc_se": math.sqrt(max(rate * (1 - rate), 1e-12) / count),
                    "ci95": [low, high],
                    "drift_warnings": warned,
                    "drift_warnings_when_flagged": warned_flagged,
                    "median_abs_shift_ms": 1e3 * statistics.median(abs(s) for s in shifts),
                    "disjoint_events": disjoint_events([number for number, _ in found], 2 * n) if design != "random" else None,
                    "leaves": Counter(leaf for _, changes in found for leaf, _ in changes).most_common(3),
                    "shuffled_rates": null,
                    "order_p": sum(r >= rate for r in null) / len(null) if null else None,
                    "flagged_splits": found,
                    "seconds": time.perf_counter() - started,
                }
            )
    return rows


def shuffled(row: dict) -> str:
    """The rate of the same windows in shuffled orders (mean), and the share of those at or above the observed rate."""
    null = row["shuffled_rates"]
    return f"{statistics.mean(null):.3f} {row['order_p']:.2f}" if null else ""


def run_aa(
    runs: int,
    hogs: int,
    rate: str,
    sizes: Sequence[int],
    splits: int,
    seed: int,
    tmp: Path,
    step: bool,
    keep: str | None = None,
    reuse: str | None = None,
    shuffles: int = 0,
) -> dict:
    how = f"no hogs for the first {runs // 2} runs, then {hogs}" if step else f"{hogs} hogs"
    print(
        f"\n== A/A under load: one collect -n {runs} --rate {rate} of the known-answer program, {how}; "
        f"stats.compare at its defaults (maxt, one-sided, family-wise α = {ALPHA})"
    )
    if reuse:
        pool, seconds, load = Path(reuse) / ("step" if step else "steady"), float("nan"), ["(pool reused)"]
    else:
        pool, seconds, load = collect_pool(runs, hogs, rate, tmp, step)
    if keep:
        shutil.copytree(pool, Path(keep) / ("step" if step else "steady"), dirs_exist_ok=True)
    sample, infos = load_pool(pool)
    times = [r.run_time for r in infos]
    third = max(1, len(times) // 3)
    quartiles = statistics.quantiles(times, n=4)
    print(
        f"  collected {len(infos)} runs in {seconds:.0f} s ({' / '.join(load)}); run time median "
        f"{statistics.median(times) * 1e3:.0f} ms, IQR {quartiles[0] * 1e3:.0f}-{quartiles[2] * 1e3:.0f} ms, "
        f"first third → last third {(statistics.median(times[-third:]) - statistics.median(times[:third])) * 1e3:+.0f} ms"
    )
    if step:
        half = len(times) // 2
        print(
            f"  run time median before the step {statistics.median(times[:half]) * 1e3:.0f} ms, "
            f"after {statistics.median(times[half:]) * 1e3:.0f} ms"
        )
    rows = aa_splits(sample, infos, sizes, splits, seed, len(infos) // 2 if step else None, shuffles)
    print(
        f"  {'n':>3} {'design':<21} {'splits':>6} {'exit 3':>6} {'rate':>6} {'± MC se':>8} {'exact 95%':>13}"
        f" {'drift warn':>10} {'warn|flag':>9} {'|shift| ms':>10} {'events':>6} {'s':>4} {'shuffled: mean p':>17}  stacks flagged most"
    )
    for r in rows:
        print(
            f"  {r['n']:>3} {r['design']:<21} {r['splits']:>6} {r['flagged']:>6} {r['rate']:6.3f} {r['mc_se']:8.3f}"
            f" {r['ci95'][0]:6.3f}-{r['ci95'][1]:.3f} {r['drift_warnings']:>10} {r['drift_warnings_when_flagged']:>9}"
            f" {r['median_abs_shift_ms']:10.1f} {'' if r['disjoint_events'] is None else r['disjoint_events']:>6}"
            f" {r['seconds']:4.0f} {shuffled(r):>17}  {', '.join(f'{leaf} ×{k}' for leaf, k in r['leaves'])[:90]}"
        )
    return {
        "runs": len(infos),
        "hogs": hogs,
        "step": step,
        "collect_s": seconds,
        "load": load,
        "run_times_s": times,
        "splits": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hogs", default="0,2,4", help="hog counts for the experiment, comma-separated")
    parser.add_argument("--reps", type=int, default=3, help="experiments per hog count")
    parser.add_argument("--experiment-runs", type=int, default=20, help="runs a side in the experiment")
    parser.add_argument("--rate", default="1000", help="sampling rate (Hz) of both parts")
    parser.add_argument("--runs", type=int, default=80, help="runs in the A/A pool")
    parser.add_argument("--aa-hogs", type=int, default=2, help="hogs while the A/A pool is collected")
    parser.add_argument(
        "--step-hogs", type=int, default=4, help="a second A/A pool whose hogs start halfway through the collection (0: none)"
    )
    parser.add_argument("--sizes", default="3,5,10,20", help="runs a side in the A/A splits")
    parser.add_argument("--splits", type=int, default=400, help="random splits per size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-experiment", action="store_true")
    parser.add_argument("--skip-aa", action="store_true")
    parser.add_argument("--keep", metavar="DIR", help="copy the A/A pools here (steady/, step/) for a closer look")
    parser.add_argument("--pools", metavar="DIR", help="analyse the pools a run with --keep DIR left instead of collecting")
    parser.add_argument("--shuffles", type=int, default=10, help="shuffled orders of the pool for the windows' null rate")
    parser.add_argument("--json", help="also write every figure here")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs; {uptime()} at the start")
    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="bench-gate-load-") as name:
        tmp = Path(name)
        if not args.skip_experiment:
            out["experiment"] = run_experiments(
                [int(h) for h in args.hogs.split(",")], args.reps, args.experiment_runs, args.rate, tmp
            )
        if not args.skip_aa:
            aa_dir = tmp / "aa"
            aa_dir.mkdir()
            sizes = [int(s) for s in args.sizes.split(",")]
            common = dict(keep=args.keep, reuse=args.pools, shuffles=args.shuffles)
            out["aa"] = run_aa(args.runs, args.aa_hogs, args.rate, sizes, args.splits, args.seed, aa_dir, step=False, **common)
            if args.step_hogs:
                step_dir = tmp / "aa-step"
                step_dir.mkdir()
                out["aa_step"] = run_aa(
                    args.runs, args.step_hogs, args.rate, sizes, args.splits, args.seed, step_dir, step=True, **common
                )
    print(f"\n{uptime()} at the end")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
