"""The sampler's achieved rate and its aliasing error, quiet and loaded, beside py-spy and Austin.

    python benchmarks/bench_rate.py [--runs 5] [--hogs 0,2,4] [--rates 100,1000] [--seconds 5]
                                    [--profilers outside,inside,py-spy,austin] [--baseline-src OLD/src]
                                    [--json FILE]
    python benchmarks/bench_rate.py --lateness [--hogs 0,2,4]
    python benchmarks/bench_rate.py --ideal

The program under test has a 10 ms cycle: ``work_a``, ``work_b`` and ``work_c`` each spin
until the thread has used 5, 3 and 2 ms of CPU, for ``--seconds``; it times each call with
``time.perf_counter_ns`` (its own clock) and writes the wall time of each function to a side
file. A sampler whose intervals fall in step with the cycle sees the same part of it at each
sample; one that falls behind takes fewer samples than asked. Each run is a whole process under
``flamespace record`` (wall mode, ns) with its sampler ``outside`` the program (``--sampler
outside``: the launcher reads the child's memory), ``outside-plain`` (the same without asking for the
sampling thread's priority: real-time where allowed, else a short slice), ``outside-user`` (as a
user without the privilege of real-time scheduling: the short slice), ``inside`` (``--sampler inside``: the in-process
engine), ``none`` (the program alone, for its cycles), ``py-spy record`` (raw counts) or ``austin`` (µs of wall time), taking turns, while 0, 2
or 4 busy-loop processes (hogs) compete for the CPUs. The program's own run time is printed too
("cycles": how many 10 ms cycles it completed in its fixed run time: fewer is the profiler's cost
to it, or the machine's load), and "other CPU": the CPU time of the run's processes besides the
program's work (its main thread), in % of one core over the run: the profiler's own cost (its
process, or its thread inside the program) and the start-up; ``none`` gives the start-up alone.

Per cell: the achieved rate (flamespace: its ``rate_achieved`` header; py-spy and Austin: their
samples over the program's own run time), flamespace's ``missed_share``, and the largest
error, in percentage points, of the three functions' shares of their total against the
program's own clock ("max error"): medians over runs, with the 10th-90th percentiles.
``uptime`` is printed beside each load level.

``--lateness``: where a late tick's time goes. A probe thread waits on the sampler's own
``_waiter`` 3,000 times at 1,000 Hz (schedule kept, as the engine does) while the main thread
spins (holding the GIL) or sleeps (leaving it free); ``Waiter.woke_ns`` splits each tick's
lateness into the operating system's (due to woken) and the GIL's (woken to holding it).
``--ideal``: the same max error for ideal samplers of the cycle (numpy, seeded: 2,000 runs a
cell): exponential or uniform ±50% intervals, time or count weights, 3, 5 and 10 s at 100 Hz,
what no real sampler can beat.

Results: docs/statistics.md ("The recorder under load").
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_load import start_hogs, stop_hogs, uptime  # noqa: E402  (benchmarks/ is no package)
from _cli import launch, peer, record_args  # noqa: E402  (how to run the CLI and find the peers)

FUNCTIONS = ("work_a", "work_b", "work_c")

PROGRAM = r"""
import os, sys, time
T, CPU = time.perf_counter_ns, time.thread_time_ns
def spin(ns):
    end = CPU() + ns
    while CPU() < end:
        pass
def work_a():
    spin(5_000_000)
def work_b():
    spin(3_000_000)
def work_c():
    spin(2_000_000)
def main(seconds):
    own = {"work_a": 0, "work_b": 0, "work_c": 0}
    start = T()
    stop = start + int(seconds * 1e9)
    cycles = 0
    while T() < stop:
        cycles += 1
        for name, work in (("work_a", work_a), ("work_b", work_b), ("work_c", work_c)):
            t = T()
            work()
            own[name] += T() - t
    with open(os.environ["CYCLE_OUT"], "w") as f:
        for name, ns in own.items():
            f.write(f"{name} {ns}\n")
        f.write(f"elapsed {T() - start}\n")
        f.write(f"cycles {cycles}\n")
        f.write(f"main_cpu {time.thread_time_ns()}\n")
main(float(sys.argv[1]))
"""


PROBE = r"""
import sys, time, threading, json
from flamespace.collect._waiter import Waiter
from flamespace.collect.engine import GRAB_MICROSECONDS
mode, ticks, interval = sys.argv[1], 3000, 1_000_000
woken, held = [], []
def probe():
    waiter = Waiter()
    waiter.reset()
    due = time.monotonic_ns() + interval
    for _ in range(ticks):
        waiter.wait(due - time.monotonic_ns(), GRAB_MICROSECONDS)
        now = time.monotonic_ns()
        woken.append(waiter.woke_ns() - due)
        held.append(now - waiter.woke_ns())
        due = (now if now - due > interval else due) + interval
thread = threading.Thread(target=probe)
thread.start()
if mode == "spin":
    while thread.is_alive():
        pass
thread.join()
print(json.dumps({"os": woken, "gil": held}))
"""


def lateness(hogs_levels: list[int]) -> None:
    """Print the probe's split of lateness (µs: median, 90th, 99th percentile, mean) per load."""
    print("Lateness of a 1,000 Hz tick, µs: median / p90 / p99 / mean; OS: due to woken, GIL: woken to holding it")
    for hogs in hogs_levels:
        processes = start_hogs(hogs)
        try:
            before = uptime()
            for mode in ("sleep", "spin"):
                result = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True)
                parts = json.loads(result.stdout)
                cells = []
                for part in ("os", "gil"):
                    values = sorted(parts[part])
                    at = lambda q: values[int(q * (len(values) - 1))] / 1e3  # noqa: E731
                    cells.append(
                        f"{part.upper()} {at(0.5):.0f} / {at(0.9):.0f} / {at(0.99):.0f} / {statistics.mean(values) / 1e3:.0f}"
                    )
                print(f"  {hogs} hogs ({before}), main thread {mode:<5}: {';  '.join(cells)}")
        finally:
            stop_hogs(processes)


def ideal(runs: int = 2000) -> None:
    """Median max error (points) of ideal samplers of the 10 ms cycle at 100 Hz (no lateness)."""
    import numpy as np

    rng = np.random.default_rng(26)
    truth = np.array([50.0, 30.0, 20.0])
    designs = {"exponential": lambda n: rng.exponential(1.0, n), "uniform ±50%": lambda n: rng.uniform(0.5, 1.5, n)}
    print(
        "Ideal samplers, 100 Hz, 10 ms cycle (5/3/2 ms): median max error, points "
        f"({runs} runs a cell; Monte-Carlo s.e. about 2%)"
    )
    for name, draw in designs.items():
        for seconds in (3, 5, 10):
            errors = {"time": [], "count": []}
            for _ in range(runs):
                gaps = draw(int(seconds * 150) + 50) * 10.0  # ms
                times = rng.uniform(0, 10) + np.cumsum(gaps)
                keep = times < times[0] + seconds * 1000
                gaps, phase = gaps[keep], times[keep] % 10.0
                part = np.where(phase < 5, 0, np.where(phase < 8, 1, 2))
                for weight, w in (("time", gaps), ("count", np.ones_like(gaps))):
                    share = np.array([w[part == k].sum() for k in range(3)]) / w.sum() * 100
                    errors[weight].append(float(np.max(np.abs(share - truth))))
            print(
                f"  {name:<13} {seconds:>3} s: time weights {statistics.median(errors['time']):.2f}, "
                f"count weights {statistics.median(errors['count']):.2f}"
            )


def shares(times: dict[str, float]) -> dict[str, float]:
    total = sum(times[name] for name in FUNCTIONS)
    return {name: 100.0 * times[name] / total if total else 0.0 for name in FUNCTIONS}


def profile_times(path: Path, kind: str) -> tuple[dict[str, float], int, dict[str, str]]:
    """Weight under each work function (ns, µs or counts: only shares are compared), the number of
    samples (lines for py-spy's raw counts and Austin's one line a sample), and ``#`` headers."""
    times = dict.fromkeys(FUNCTIONS, 0.0)
    headers: dict[str, str] = {}
    samples = 0
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            key, _, value = line[1:].partition(":")
            headers[key.strip()] = value.strip()
            continue
        stack, _, count = line.rpartition(" ")
        if not stack or not count.strip().isdigit():
            continue
        samples += int(count) if kind == "py-spy" else 1
        for name in FUNCTIONS:
            if name in stack:
                times[name] += float(count)
                break
    return times, samples, headers


def command_for(kind: str, rate: float, program: Path, seconds: float, out: Path, tool: str | None) -> list[str]:
    run = [sys.executable, str(program), f"{seconds:g}"]
    if kind == "py-spy":
        return [tool or "py-spy", "record", "-r", f"{rate:g}", "-f", "raw", "-o", str(out), "--", *run]
    if kind == "austin":
        return [tool or "austin", "-i", f"{int(1e6 / rate)}", "-o", str(out), *run]
    sampler = {"outside": "outside", "outside-plain": "outside", "outside-user": "outside", "inside": "inside"}.get(kind)
    cli = {"outside-plain": PLAIN_PRIORITY_CLI, "outside-user": USER_PRIORITY_CLI}.get(kind, FLAMESPACE_CLI)
    return [sys.executable, "-c", cli, *record_args(rate, out, [str(program), f"{seconds:g}"], sampler)]


#: flamespace's CLI under this interpreter (the baseline's too: PYTHONPATH names its source tree).
FLAMESPACE_CLI = launch("main")
#: flamespace's CLI with the sampling thread's priority left as it is (what a user without privileges gets).
PLAIN_PRIORITY_CLI = "import flamespace.collect.outside as o; o.RAISE_PRIORITY = False; " + FLAMESPACE_CLI
#: ... and as a user without the privilege of real-time scheduling gets it (a short slice on Linux 6.12+).
USER_PRIORITY_CLI = (
    "import os\ndef refused(*args): raise PermissionError(1, 'Operation not permitted')\n"
    "os.sched_setscheduler = refused\n" + FLAMESPACE_CLI
)


def run_once(kind: str, rate: float, program: Path, seconds: float, tmp: Path, tool: str | None) -> dict[str, float]:
    """One whole process under one profiler: its achieved rate, missed_share (NaN but for
    flamespace) and max share error (points). ``tool``: the profiler's executable, or for the
    baseline the source tree to run flamespace from."""
    side, out = tmp / "own.txt", tmp / f"out-{kind}.txt"
    side.unlink(missing_ok=True)
    out.unlink(missing_ok=True)
    env = {**os.environ, "CYCLE_OUT": str(side)}
    if kind == "baseline":
        env["PYTHONPATH"] = str(tool)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    if kind == "none":  # the program alone: how many cycles it completes unprofiled, at this load
        subprocess.run([sys.executable, str(program), f"{seconds:g}"], env=env, check=True)
        own = {name: float(ns) for name, ns in (line.split() for line in side.read_text().splitlines())}
        figures = {"rate": float("nan"), "missed_share": float("nan"), "max_error": float("nan"), "cycles": own["cycles"]}
        return {**figures, "cost": extra_cpu(before, own, time.monotonic() - started)}
    result = subprocess.run(command_for(kind, rate, program, seconds, out, tool), env=env, capture_output=True, text=True)
    wall = time.monotonic() - started
    if result.returncode != 0 or not side.exists() or not out.exists():
        raise RuntimeError(f"{kind} failed (exit {result.returncode}): {result.stderr[-400:]}")
    own = {name: float(ns) for name, ns in (line.split() for line in side.read_text().splitlines())}
    truth = shares(own)
    times, samples, headers = profile_times(out, kind)
    measured = shares(times)
    error = max(abs(measured[name] - truth[name]) for name in FUNCTIONS)
    if kind in FLAMESPACE_KINDS:
        achieved = float(headers.get("rate_achieved", "nan"))
        missed = float(headers.get("missed_share", "nan"))
    else:
        achieved, missed = samples / (own["elapsed"] / 1e9), float("nan")
    return {
        "rate": achieved,
        "missed_share": missed,
        "max_error": error,
        "cycles": own["cycles"],
        "cost": extra_cpu(before, own, wall),
    }


def extra_cpu(before: resource.struct_rusage, own: dict[str, float], wall: float) -> float:
    """The CPU the run took besides the program's own work (its main thread's CPU time), as % of one core
    over the run: the profiler's cost (its process, or its thread in the program), plus start-up."""
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return 100.0 * (spent - own["main_cpu"] / 1e9) / wall


#: The profilers run through flamespace's CLI (their headers say the achieved rate).
FLAMESPACE_KINDS = ("flamespace", "outside", "outside-plain", "outside-user", "inside", "baseline", "none")


def spread(values: list[float]) -> str:
    """median [10th-90th percentile] of values."""
    values = sorted(v for v in values if v == v)
    if not values:
        return "-"
    low, high = values[int(0.1 * (len(values) - 1))], values[int(round(0.9 * (len(values) - 1)))]
    return f"{statistics.median(values):.1f} [{low:.1f}-{high:.1f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per profiler, rate and load level")
    parser.add_argument("--hogs", default="0,2,4", help="numbers of busy-loop processes, comma-separated")
    parser.add_argument("--rates", default="100,1000", help="sampling rates (Hz), comma-separated")
    parser.add_argument("--seconds", type=float, default=5.0, help="how long the cycle program runs")
    parser.add_argument(
        "--profilers",
        default="outside,inside,py-spy,austin",
        help="any of none (the program alone), outside, outside-plain, outside-user, inside, flamespace (the default sampler), py-spy, austin",
    )
    parser.add_argument(
        "--baseline-src",
        metavar="DIR",
        help="also run flamespace from this source tree "
        "(the src/ of another checkout, C extensions built in place), as 'baseline'",
    )
    parser.add_argument("--json", help="also write every run's figures here")
    parser.add_argument("--ideal", action="store_true", help="only simulate ideal samplers of the cycle (numpy)")
    parser.add_argument("--lateness", action="store_true", help="only split the lateness of ticks into the OS's and the GIL's")
    args = parser.parse_args()
    if args.ideal:
        ideal()
        return
    if args.lateness:
        lateness([int(h) for h in args.hogs.split(",")])
        return
    tools: dict[str, str | None] = dict.fromkeys(FLAMESPACE_KINDS)
    if args.baseline_src:
        tools["baseline"] = str(Path(args.baseline_src).resolve())
        args.profilers += ",baseline"
    for kind in args.profilers.split(","):
        if kind not in FLAMESPACE_KINDS:
            tools[kind] = peer(kind)
            if tools[kind] is None:
                print(f"{kind} not found: left out", file=sys.stderr)
    kinds = [k for k in args.profilers.split(",") if k in FLAMESPACE_KINDS or tools.get(k)]
    print(
        f"10 ms cycle (5/3/2 ms of CPU), {args.seconds:g} s a run, {args.runs} runs a cell, {os.cpu_count()} CPUs; "
        "median [10th-90th percentile]"
    )
    every: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="bench-rate-") as name:
        tmp = Path(name)
        program = tmp / "cycle.py"
        program.write_text(PROGRAM)
        for hogs in [int(h) for h in args.hogs.split(",")]:
            processes = start_hogs(hogs)
            try:
                before = uptime()
                cells: dict[tuple[str, float], list[dict[str, float]]] = {}
                for _ in range(args.runs):
                    for rate in [float(r) for r in args.rates.split(",")]:
                        for kind in kinds:  # interleaved, so drift in the load hits all alike
                            try:
                                cells.setdefault((kind, rate), []).append(
                                    run_once(kind, rate, program, args.seconds, tmp, tools[kind])
                                )
                            except RuntimeError as exc:
                                print(f"  {kind}: {exc}", file=sys.stderr)
                after = uptime()
            finally:
                stop_hogs(processes)
            print(f"\n{hogs} hogs ({before} before, {after} after)")
            print(
                f"  {'profiler':<13} {'asked Hz':>8} {'achieved Hz':>22} {'missed %':>18} {'max error (points)':>20}"
                f" {'cycles':>20} {'other CPU % core':>18}"
            )
            for (kind, rate), runs in cells.items():
                print(
                    f"  {kind:<13} {rate:8g} {spread([r['rate'] for r in runs]):>22}"
                    f" {spread([100 * r['missed_share'] for r in runs]):>18} {spread([r['max_error'] for r in runs]):>20}"
                    f" {spread([r['cycles'] for r in runs]):>20} {spread([r['cost'] for r in runs]):>18}"
                )
                every.extend({"hogs": hogs, "profiler": kind, "rate_asked": rate, **r, "load": [before, after]} for r in runs)
    if args.json:
        Path(args.json).write_text(json.dumps(every, indent=1))


if __name__ == "__main__":
    main()
