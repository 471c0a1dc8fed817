"""`flamespace svg` of case (a) of bench_svg.py, two source trees side by side, runs interleaved.

    mkdir -p /tmp/before && git archive REV src | tar -x -C /tmp/before
    python benchmarks/bench_svg_ab.py /tmp/before/src src [--runs 100]

Both trees are byte-compiled first (as ``pip install`` does), so no run pays for compiling
modules. The same interpreter runs ``flamespace.cli.main`` with PYTHONPATH set to each tree (A B B A
...), so machine load falls on both alike: bench_svg.py measures one tree at a time, which on
a shared machine cannot tell two trees apart. Prints median and minimum wall time per tree.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
from pathlib import Path

from _cli import compile_package, python_command  # benchmarks/: how to run the CLI

EXAMPLE = (
    Path(__file__).resolve().parents[2] / "shared" / "peer-fixtures" / "flamegraph-examples" / "example-perf-stacks-collapsed.txt"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs=2, metavar="SRC")
    parser.add_argument("--runs", type=int, default=100)
    args = parser.parse_args()
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, not {args.runs}")
    for src in args.sources:
        compile_package(src)
    times: dict = {src: [] for src in args.sources}
    for i in range(args.runs):
        for src in args.sources if i % 2 else reversed(args.sources):
            env = {**os.environ, "PYTHONPATH": src}
            started = time.perf_counter()
            subprocess.run([*python_command("main"), "svg", str(EXAMPLE)], stdout=subprocess.DEVNULL, check=True, env=env)
            times[src].append(time.perf_counter() - started)
    print(f"load average {os.getloadavg()[0]:.1f}; {args.runs} runs per tree, interleaved")
    for src, seconds in times.items():
        print(f"{src}: median {1000 * statistics.median(seconds):.1f} ms, min {1000 * min(seconds):.1f} ms")


if __name__ == "__main__":
    main()
