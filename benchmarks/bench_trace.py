"""The tracer's overhead: `flamespace trace` beside cProfile on call-heavy code.

    python benchmarks/bench_trace.py [--repeat 5]

Each workload runs in a fresh process, once plain, once under ``python -m cProfile -o FILE``
and once under ``flamespace trace -o FILE`` (folded output; also the function table, and
with ``--builtins``), interleaved round by round so that drift hits all alike. Two figures
per run: ``work``, the seconds the workload measures around its own work (the hook's cost
alone), and ``whole``, the whole process from the outside (start-up, the analysis of the
events and writing the output too). The table shows medians and slowdowns against plain.

Then, in this process: fib(27) plain, under the C hook alone (``_tracer`` start/stop, no
analysis) and under ``cProfile.Profile``, interleaved, seven times each (min and median).

Workloads: ``fib`` (recursive fib(27): 635,621 calls), ``methods`` (many small method
calls on objects) and ``mix`` (dict, string and JSON work: builtins do much of it).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Tuple

BIN = Path(sys.executable).parent
WORKLOAD = r'''
import json, sys, time

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def norm2(self):
        return self.dot(self)
    def dot(self, other):
        return self.x * other.x + self.y * other.y
    def moved(self, dx):
        return Point(self.x + dx, self.y)

def methods(n):
    total, p = 0, Point(1, 2)
    for i in range(n):
        p = p.moved(1)
        total += p.norm2() % 7
    return total

def mix(n):
    d = {}
    for i in range(n):
        d[f"key{i % 1000}"] = d.get(f"key{i % 1000}", 0) + i
    s = sum(len(("x%d" % i).upper().replace("X", "yy")) for i in range(n))
    data = [{"id": i, "name": f"item {i}", "tags": ["a", str(i)]} for i in range(n // 5)]
    return len(d) + s + len(json.loads(json.dumps(data)))

start = time.perf_counter()
kind = sys.argv[1]
if kind == "fib":
    fib(27)
elif kind == "methods":
    methods(200_000)
else:
    mix(200_000)
sys.stderr.write(f"WORK {time.perf_counter() - start:.6f}\n")
'''


def commands(script: str, out: str) -> Dict[str, List[str]]:
    python = sys.executable
    trace = [str(BIN / "flamespace"), "trace", "-q"]
    return {
        "plain": [python, script],
        "cProfile": [python, "-m", "cProfile", "-o", os.path.join(out, "run.prof"), script],
        "trace (folded)": [*trace, "-o", os.path.join(out, "run.folded"), "--", script],
        "trace (table)": [*trace, "-o", os.path.join(out, "run.txt"), "--", script],
        "trace --builtins": [*trace, "--builtins", "-o", os.path.join(out, "b.folded"), "--", script],
    }


def run(argv: List[str], kind: str) -> Tuple[float, float]:
    start = time.perf_counter()
    done = subprocess.run([*argv, kind], capture_output=True, text=True)
    whole = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr}")
    work = next(float(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("WORK "))
    return work, whole


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--kinds", default="fib,methods,mix")
    args = parser.parse_args()
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; "
          f"load before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as out:
        script = os.path.join(out, "workload.py")
        Path(script).write_text(WORKLOAD)
        peers = commands(script, out)
        for kind in args.kinds.split(","):
            times: Dict[str, List[Tuple[float, float]]] = {name: [] for name in peers}
            for name, argv in peers.items():  # warm-up (page cache, .pyc files)
                run(argv, kind)
            for _ in range(args.repeat):
                for name, argv in peers.items():
                    times[name].append(run(argv, kind))
            plain_work = statistics.median(w for w, _ in times["plain"])
            plain_whole = statistics.median(t for _, t in times["plain"])
            print(f"\n{kind} (median of {args.repeat})")
            print(f"  {'':18} {'work s':>8} {'slowdown':>8} {'whole s':>8} {'slowdown':>8}")
            for name, values in times.items():
                work = statistics.median(w for w, _ in values)
                whole = statistics.median(t for _, t in values)
                print(f"  {name:18} {work:8.3f} {work / plain_work:7.2f}x {whole:8.3f} {whole / plain_whole:7.2f}x")
    in_process()
    print(f"\nload after: {os.getloadavg()[0]:.2f}")


def in_process(rounds: int = 7) -> None:
    """The hooks alone, in one process: no start-up, no analysis, no output."""
    import cProfile

    from flamespace.collect import _tracer

    def fib(n: int) -> int:
        return n if n < 2 else fib(n - 1) + fib(n - 2)

    def plain_start() -> None:
        pass

    def tracer_start() -> None:
        _tracer.start(False, 10**8, "main")

    def tracer_stop() -> None:
        _tracer.stop()

    found: Dict[str, List[float]] = {}
    for _ in range(rounds):
        profile = cProfile.Profile()
        for name, start, stop in (("plain", plain_start, plain_start), ("flamespace hook", tracer_start, tracer_stop),
                                  ("cProfile", profile.enable, profile.disable)):
            start()
            began = time.perf_counter()
            fib(27)
            took = time.perf_counter() - began
            stop()
            found.setdefault(name, []).append(took)
    print(f"\nin process, fib(27), {rounds} rounds")
    base = statistics.median(found["plain"])
    for name, values in found.items():
        print(f"  {name:18} min {min(values):.3f} s  median {statistics.median(values):.3f} s  "
              f"({statistics.median(values) / base:.2f}x)")


if __name__ == "__main__":
    main()
