"""What the profiled child of ``flamespace record -c pass`` costs before the program's first line.

Compares source trees side by side (each ``SRC`` is a ``src/`` directory holding the
``flamespace`` package, its C extensions built), e.g. this tree against a revision::

    mkdir -p /tmp/before && git archive REV src | tar -x -C /tmp/before
    cp src/flamespace/collect/*.so /tmp/before/src/flamespace/collect/
    python benchmarks/bench_record_startup.py /tmp/before/src src

Two figures per tree, runs interleaved (A B A B) so that machine load falls on both alike:

* import time: the sum over flamespace's modules (and ``math``, ``threading``, which only the
  sampler imports) of the minimum self time (``python -X importtime``) in the child's import
  sequence, ``python -S``, the bootstrap, then the sampler's modules. The minimum of many runs
  is what a quiet machine would show; it also tells with and without ``.pyc`` files apart
  (compile them with ``python -m compileall SRC``; PYTHONDONTWRITEBYTECODE=1 never writes them).
* the child: wall time of the exact command each tree's launcher builds for ``-c pass``, per
  recorder mode (min, median, quartiles).

With ``--whole`` (no SRC needed) it measures the installed CLI instead, whole processes beside
``python -c pass``, in turn: ``flamespace record -c pass`` (its fixed cost; the target is 50 ms
at most) and what each further run of ``flamespace collect -c pass`` adds (the slope between
``-n 1`` and ``-n N``) over python's start-up; wall and CPU (user + system of the process and
the children it waited for), medians::

    python benchmarks/bench_record_startup.py --whole --runs 21 [--samplers outside,inside]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from _cli import executable  # benchmarks/: the installed flamespace

CHILD_ARGV = r"""
import sys, json
from flamespace.collect import launcher
from flamespace.collect.target import parse_command
from flamespace.collect.sampler import SamplerOptions
from flamespace.collect.memory import MemoryOptions
mode = sys.argv[1]
options = SamplerOptions(mode=mode) if mode in ("wall", "cpu") else MemoryOptions(mode=mode)
config = launcher._child_config(parse_command(["-c", "pass"]), options, sys.argv[2], False)
print(json.dumps(launcher.child_argv(sys.executable, [], config)))
"""

IMPORTS = "import sys; sys.path.insert(0, {src!r}); import flamespace.collect._bootstrap; import flamespace.collect.engine"
LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|\s+(.*)$")


def import_self_times(src: str) -> dict[str, int]:
    """Self import time (µs) of each module of interest, in one fresh ``python -S``."""
    done = subprocess.run(
        [sys.executable, "-S", "-X", "importtime", "-c", IMPORTS.format(src=src)], capture_output=True, text=True, check=True
    )
    found = {}
    for line in done.stderr.splitlines():
        match = LINE.match(line)
        if match and ("flamespace" in match.group(3) or match.group(3).strip() in ("math", "threading")):
            found[match.group(3).strip()] = int(match.group(1))
    return found


def child_seconds(src: str, mode: str) -> float:
    """Wall time of the profiled child of ``-c pass`` as ``src``'s launcher starts it."""
    out_dir = tempfile.mkdtemp(prefix="bench-startup-")
    try:
        env = {**os.environ, "PYTHONPATH": src}
        argv = json.loads(
            subprocess.run(
                [sys.executable, "-c", CHILD_ARGV, mode, out_dir], env=env, capture_output=True, text=True, check=True
            ).stdout
        )
        started = time.perf_counter()
        subprocess.run(argv, check=True)
        seconds = time.perf_counter() - started
        if not any(name.endswith(".raw") for name in os.listdir(out_dir)):
            raise SystemExit(f"{src}: the child saved no profile")
        return seconds
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


def timed(argv: list[str]) -> tuple[float, float]:
    """(wall s, CPU s of the process and the children it waited for) of one run of ``argv``."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"{argv} failed (wait status {status})")
    return wall, usage.ru_utime + usage.ru_stime


def whole(runs: int, collect_runs: int, samplers: list[str]) -> None:
    """record's and collect's fixed cost over python's start-up, whole processes, in turn, with each
    ``--sampler`` of ``samplers`` ("default": record's own choice)."""
    exe = executable()
    out_dir = tempfile.mkdtemp(prefix="bench-whole-")
    try:
        tasks = {"python -c pass": [sys.executable, "-c", "pass"]}
        for sampler in samplers:
            flags = [] if sampler == "default" else ["--sampler", sampler]
            collect = [exe, "collect", *flags, "-o", out_dir, "--warmup", "0", "--overwrite", "-q", "-c", "pass"]
            tasks[f"record {sampler}"] = [exe, "record", "-q", *flags, "-o", os.devnull, "-c", "pass"]
            tasks[f"collect {sampler} -n 1"] = [*collect, "-n", "1"]
            tasks[f"collect {sampler} -n {collect_runs}"] = [*collect, "-n", str(collect_runs)]
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in tasks}
        load = os.getloadavg()[0]
        for _ in range(runs):
            for name, argv in tasks.items():
                samples[name].append(timed(argv))
        print(f"load average {load:.1f} before, {os.getloadavg()[0]:.1f} after; medians of {runs} runs, in turn")
        medians = {name: (statistics.median(w for w, _ in s), statistics.median(c for _, c in s)) for name, s in samples.items()}
        python_wall, python_cpu = medians["python -c pass"]
        for name, (wall, cpu) in medians.items():
            print(f"  {name:36s} wall {1000 * wall:7.1f} ms  CPU {1000 * cpu:7.1f} ms")
        for sampler in samplers:
            record_wall, record_cpu = medians[f"record {sampler}"]
            print(
                f"  {sampler}: record's fixed cost over python: wall +{1000 * (record_wall - python_wall):.1f} ms, "
                f"CPU +{1000 * (record_cpu - python_cpu):.1f} ms (target: 50 ms)"
            )
            one_wall, one_cpu = medians[f"collect {sampler} -n 1"]
            many_wall, many_cpu = medians[f"collect {sampler} -n {collect_runs}"]
            per_wall = (many_wall - one_wall) / (collect_runs - 1) - python_wall
            per_cpu = (many_cpu - one_cpu) / (collect_runs - 1) - python_cpu
            print(
                f"  {sampler}: collect, each further run over python's start-up: wall +{1000 * per_wall:.1f} ms, "
                f"CPU +{1000 * per_cpu:.1f} ms"
            )
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="*", metavar="SRC")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--modes", default="wall,live,alloc")
    parser.add_argument("--whole", action="store_true", help="the installed CLI's fixed cost (see above)")
    parser.add_argument("--collect-runs", type=int, default=10, help="runs of the longer collect (with --whole)")
    parser.add_argument(
        "--samplers", default="default", help="with --whole: record's --sampler values to measure, e.g. outside,inside"
    )
    args = parser.parse_args()
    if args.collect_runs < 2:
        parser.error("--collect-runs must be at least 2: a run's cost is the difference between collect -n 1 and -n N")
    if args.whole:
        whole(args.runs, args.collect_runs, args.samplers.split(","))
        return
    if not args.sources:
        parser.error("give at least one SRC, or --whole")
    sources = [os.path.abspath(s) for s in args.sources]
    modes = args.modes.split(",")
    imports: dict[str, dict[str, list[int]]] = {s: {} for s in sources}
    children: dict[str, dict[str, list[float]]] = {s: {m: [] for m in modes} for s in sources}
    load = os.getloadavg()[0]
    for _ in range(args.runs):
        for src in sources:
            for module, micros in import_self_times(src).items():
                imports[src].setdefault(module, []).append(micros)
            for mode in modes:
                children[src][mode].append(child_seconds(src, mode))
    print(f"load average {load:.1f} before, {os.getloadavg()[0]:.1f} after; {args.runs} runs per figure, interleaved")
    for src in sources:
        total = sum(min(times) for times in imports[src].values())
        print(f"\n{src}\n  import time (sum of minimum self times): {total / 1000:.2f} ms")
        for module, times in imports[src].items():
            print(f"    {module:36s} {min(times):6d} µs")
        for mode, times in children[src].items():
            times.sort()
            quartile = len(times) // 4
            print(
                f"  child {mode:6s} min {1000 * times[0]:6.1f}  median {1000 * statistics.median(times):6.1f}  "
                f"quartiles {1000 * times[quartile]:6.1f}-{1000 * times[-1 - quartile]:6.1f} ms"
            )


if __name__ == "__main__":
    main()
