"""Profiler overhead and accuracy: flamespace record beside pyinstrument, cProfile, py-spy,
and for memory, tracemalloc and memray.

    python benchmarks/bench_overhead.py [--repeat 5] [--accuracy-seconds 10] [--accuracy-runs 5]

Overhead: each workload times its own work (start-up excluded) and prints the seconds;
every profiler runs the same script in a fresh process, interleaved round by round so
drift hits all alike. The table shows the median time and the slowdown against no
profiler. Workloads: ``cpu`` (recursion, dict and string work, a JSON round trip) and
``threads`` (the same split over four threads).

Accuracy: a known-answer program (spin 40%, sleep 30%, spin 20%, sleep 10% of the time)
recorded in wall mode at 100 Hz; the error is the total absolute difference between the
measured and the true shares of the four functions (0 = perfect, 2 = all wrong), median
of several runs. py-spy runs with --idle so that it also counts sleeping time.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

from _cli import executable, peer  # benchmarks/: the installed flamespace and its peers

WORKLOAD = r"""
import json, sys, threading, time

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def dict_work(n):
    d = {}
    for i in range(n):
        d[f"key{i % 1000}"] = d.get(f"key{i % 1000}", 0) + i
    return len(d)

def string_work(n):
    return sum(len(("x%d" % i).upper().replace("X", "yy")) for i in range(n))

def json_work(n):
    data = [{"id": i, "name": f"item {i}", "tags": ["a", "b", str(i)]} for i in range(n)]
    return len(json.loads(json.dumps(data)))

def unit(scale):
    fib(20 + scale)
    dict_work(150_000)
    string_work(150_000)
    json_work(30_000)

def main(kind):
    start = time.perf_counter()
    if kind == "cpu":
        for _ in range(8):
            unit(1)
    else:
        threads = [threading.Thread(target=unit, args=(1,)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    print(f"WORK {time.perf_counter() - start:.6f}", file=sys.stderr)

main(sys.argv[1])
"""

KNOWN_ANSWER = r"""
import sys, time

def spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass

def spin_long(s): spin(s)
def spin_short(s): spin(s)
def sleep_long(s): time.sleep(s)
def sleep_short(s): time.sleep(s)

total = float(sys.argv[1])
rounds = int(total * 10)
for _ in range(rounds):  # interleaved in 100 ms rounds
    spin_long(0.04); sleep_long(0.03); spin_short(0.02); sleep_short(0.01)
"""
EXPECTED = {"spin_long": 0.4, "sleep_long": 0.3, "spin_short": 0.2, "sleep_short": 0.1}


def profilers(tmp: Path) -> dict[str, Callable[[list[str]], list[str]] | None]:
    """name -> function from a script command (script + args) to the full command line."""
    python = sys.executable
    flamespace = executable()
    found: dict[str, Callable[[list[str]], list[str]] | None] = {
        "none": lambda cmd: [python, *cmd],
        "flamespace 100 Hz": lambda cmd: [
            flamespace,
            "record",
            "-q",
            "--rate",
            "100",
            "-o",
            str(tmp / "f100.folded"),
            "--",
            *cmd,
        ],
        "flamespace 1000 Hz": lambda cmd: [
            flamespace,
            "record",
            "-q",
            "--rate",
            "1000",
            "-o",
            str(tmp / "f1000.folded"),
            "--",
            *cmd,
        ],
        "cProfile": lambda cmd: [python, "-m", "cProfile", "-o", str(tmp / "c.prof"), *cmd],
        # memory: bytes allocated per stack (sampled), beside tracemalloc and memray (every allocation)
        "flamespace alloc": lambda cmd: [flamespace, "record", "-q", "--mode", "alloc", "-o", str(tmp / "a.folded"), "--", *cmd],
        "tracemalloc": lambda cmd: [python, "-X", "tracemalloc=1", *cmd],
    }
    memray = peer("memray")
    found["memray"] = (lambda cmd: [memray, "run", "-f", "-q", "-o", str(tmp / "m.bin"), *cmd]) if memray else None
    pyinstrument = peer("pyinstrument")
    found["pyinstrument"] = (lambda cmd: [pyinstrument, "-r", "text", "-o", str(tmp / "p.txt"), *cmd]) if pyinstrument else None
    pyspy = peer("py-spy")
    found["py-spy 100 Hz"] = (
        (lambda cmd: [pyspy, "record", "-r", "100", "-f", "raw", "-o", str(tmp / "s.txt"), "--", python, *cmd]) if pyspy else None
    )
    return found


def work_seconds(command: list[str]) -> float:
    result = subprocess.run(command, capture_output=True, text=True)
    for line in result.stderr.splitlines():
        if line.startswith("WORK "):
            return float(line.split()[1])
    raise RuntimeError(f"{' '.join(command[:4])}... printed no timing (exit {result.returncode}): {result.stderr[-500:]}")


def overhead(repeat: int, tmp: Path) -> None:
    script = tmp / "workload.py"
    script.write_text(WORKLOAD)
    tools = profilers(tmp)
    for kind in ("cpu", "threads"):
        times: dict[str, list[float]] = {name: [] for name, make in tools.items() if make}
        for _ in range(repeat):
            for name, make in tools.items():
                if make:
                    try:
                        times[name].append(work_seconds(make([str(script), kind])))
                    except RuntimeError as exc:
                        print(f"  {name}: {exc}", file=sys.stderr)
        base = statistics.median(times["none"])
        print(f"\nOverhead, workload '{kind}' (median of {repeat}; work time only):")
        print(f"  {'profiler':<20} {'seconds':>8} {'slowdown':>9}")
        for name in tools:
            if not tools[name]:
                print(f"  {name:<20} {'not installed':>18}")
            elif times[name]:
                median = statistics.median(times[name])
                print(f"  {name:<20} {median:8.3f} {100 * (median / base - 1):+8.1f}%")


def shares(path: Path) -> dict[str, float]:
    """Share of each known-answer function in a folded file (flamespace's or py-spy's)."""
    totals = dict.fromkeys(EXPECTED, 0.0)
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        stack, _, count = line.rpartition(" ")
        for frame in reversed(stack.split(";")):
            name = frame.split(" (")[0]
            if name in totals:
                totals[name] += float(count)
                break
    whole = sum(totals.values()) or 1.0
    return {name: value / whole for name, value in totals.items()}


def accuracy(seconds: float, runs_each: int, tmp: Path) -> None:
    script = tmp / "known.py"
    script.write_text(KNOWN_ANSWER)
    runs = {
        "flamespace 100 Hz": [
            executable(),
            "record",
            "-q",
            "--rate",
            "100",
            "-o",
            str(tmp / "k.folded"),
            "--",
            str(script),
            str(seconds),
        ],
    }
    pyspy = peer("py-spy")
    if pyspy:
        runs["py-spy 100 Hz --idle"] = [
            pyspy,
            "record",
            "--idle",
            "-r",
            "100",
            "-f",
            "raw",
            "-o",
            str(tmp / "k-spy.txt"),
            "--",
            sys.executable,
            str(script),
            str(seconds),
        ]
    outputs = {"flamespace 100 Hz": tmp / "k.folded", "py-spy 100 Hz --idle": tmp / "k-spy.txt"}
    print(
        f"\nAccuracy on the known-answer program ({seconds:g} s, wall time; expected shares {EXPECTED}; "
        f"{runs_each} runs each, interleaved):"
    )
    errors: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(runs_each):
        for name, command in runs.items():
            subprocess.run(command, capture_output=True, check=True)
            measured = shares(outputs[name])
            errors[name].append(sum(abs(measured[f] - EXPECTED[f]) for f in EXPECTED))
    for name, values in errors.items():
        each = ", ".join(f"{100 * e:.1f}" for e in values)
        print(f"  {name:<22} total abs. error: median {100 * statistics.median(values):5.2f}%  (runs: {each})")
    floor = ideal_sampler_error(100.0, seconds)
    print(
        f"  {'an ideal sampler':<22} total abs. error: mean {100 * floor:5.2f}%  "
        "(simulated: Poisson times, time weights; the noise no sampler at this rate and length avoids)"
    )


def ideal_sampler_error(rate: float, seconds: float, runs: int = 400) -> float:
    """Mean share error of a perfect Poisson sampler on the known-answer program: its noise floor."""
    import random

    phases = [(name, EXPECTED[name] / 10) for name in EXPECTED]  # seconds per 100 ms round
    generator = random.Random(1)
    errors = []
    for _ in range(runs):
        totals = dict.fromkeys(EXPECTED, 0.0)
        now = last = 0.0
        while True:
            now += generator.expovariate(rate)
            if now > seconds:
                break
            offset = now % 0.1
            for name, length in phases:
                if offset < length:
                    totals[name] += now - last
                    break
                offset -= length
            last = now
        whole = sum(totals.values())
        errors.append(sum(abs(totals[n] / whole - EXPECTED[n]) for n in EXPECTED))
    return statistics.mean(errors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--accuracy-seconds", type=float, default=10.0)
    parser.add_argument("--accuracy-runs", type=int, default=5)
    args = parser.parse_args()
    print(
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, {platform.system()} {platform.release()}"
    )
    with tempfile.TemporaryDirectory() as directory:
        tmp = Path(directory)
        overhead(args.repeat, tmp)
        accuracy(args.accuracy_seconds, args.accuracy_runs, tmp)


if __name__ == "__main__":
    main()
