"""The tracer's overhead: `flamespace trace` beside the other Python profilers, in one run.

    python benchmarks/bench_trace.py [--repeat 5] [--kinds pass,fib,methods,mix] [--peers all]
                                     [--whole-only] [--before OTHER_TREE/src]

Each workload runs in a fresh process, plain and under each profiler, interleaved round by
round so that drift hits all alike: ``flamespace trace`` (folded output; also with
``--builtins`` and with ``--lines``), cProfile (``python -m cProfile``: it times builtins
too), the pure-Python ``profile`` module, yappi (wall clock; with ``-b`` for builtins),
viztracer (a tracer too: every call into its buffer, then a JSON trace) and pyinstrument (a
sampler: the floor of what any tracer can cost). A peer that is not installed is skipped
and named (``pip install -e '.[bench]'``). Two figures per run: ``work``, the seconds the
workload measures around its own work (the hook's cost alone), and ``whole``, the whole
process from the outside (start-up, the analysis of the events and writing the output too),
with its CPU time (user + system of the process and its children: steadier than wall time on a
busy machine) and how much longer than ``python -m cProfile``'s it took. The table shows
medians and slowdowns against plain, and ours against cProfile's.

Then, in this process: each workload plain, under the tracer's backends (the profile hook;
sys.monitoring on 3.12+; the frame evaluation function on 3.11.4+; with lines and with
builtins where the backend has them; start/stop and the analysis left out of the time) and
under ``cProfile.Profile``, interleaved, seven times each (medians).

Workloads: ``pass`` (a script that is only ``pass``: each tool's fixed cost, start-up to exit;
it has no ``work``), ``fib`` (recursive fib(25): 242,785 calls), ``methods`` (many small method
calls on objects) and ``mix`` (dict, string and JSON work: builtins do much of it).

    python benchmarks/bench_trace.py --outputs [--repeat 5] [--before OLD/src]

instead times the whole ``flamespace trace -o X`` of fib(27) (635,621 calls, 1.27 million
events) to each output, folded, speedscope and Chrome, interleaved round by round (medians,
and the peak memory of the process tree's largest process): the time-ordered outputs against
the folded one. ``--before`` adds the same commands run from another version's source tree
(its ``src`` with the C extensions built, e.g. ``git archive`` of a commit), in the same run.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _cli import executable, measure_rounds, medians, python_command, pythonpath_first  # benchmarks/: how to run and time the CLI

WORKLOAD = r"""
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
if kind.startswith("fib"):
    fib(int(kind[3:] or 25))
elif kind == "methods":
    methods(100_000)
else:
    mix(100_000)
sys.stderr.write(f"WORK {time.perf_counter() - start:.6f}\n")
"""


def commands(script: str, out: str, peers: str) -> dict[str, list[str]]:
    """name -> command line; peers not installed are left out (and named)."""
    import importlib.util

    python = sys.executable
    trace = [executable(), "trace", "-q"]
    found = {
        "plain": [python, script],
        "flamespace trace": [*trace, "-o", os.path.join(out, "run.folded"), "--", script],
        "flamespace --builtins": [*trace, "--builtins", "-o", os.path.join(out, "b.folded"), "--", script],
        "flamespace --lines": [*trace, "--lines", "-o", os.path.join(out, "l.lines.txt"), "--", script],
        "cProfile": [python, "-m", "cProfile", "-o", os.path.join(out, "run.prof"), script],
        "profile": [python, "-m", "profile", "-o", os.path.join(out, "run.pprof"), script],
        "yappi": [python, "-m", "yappi", "-c", "wall", "-o", os.path.join(out, "y.pstat"), script],
        "yappi -b": [python, "-m", "yappi", "-b", "-c", "wall", "-o", os.path.join(out, "yb.pstat"), script],
        "viztracer": [python, "-m", "viztracer", "--quiet", "-o", os.path.join(out, "v.json"), script],
        "pyinstrument": [python, "-m", "pyinstrument", "-r", "text", "-o", os.path.join(out, "p.txt"), script],
    }
    wanted = set(found) if peers == "all" else {"plain", *peers.split(",")}
    for name, module in (("yappi", "yappi"), ("yappi -b", "yappi"), ("viztracer", "viztracer"), ("pyinstrument", "pyinstrument")):
        if name in wanted and importlib.util.find_spec(module) is None:
            print(f"(skipped {name}: not installed)")
            wanted.discard(name)
    return {name: argv for name, argv in found.items() if name in wanted or name.startswith("flamespace")}


#: The fixed cost's script: nothing to do (``pass``), so each row is start-up, the tool's own work and exit.
TRIVIAL = "pass\n"


def run(argv: list[str], kind: str, trivial: str, env: dict[str, str] | None = None) -> tuple[float | None, float, float]:
    """(work s, whole s, CPU s) of one run; for ``pass`` the script is ``trivial`` and there is no work."""
    if kind == "pass":
        argv = [trivial if word.endswith("workload.py") else word for word in argv]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([*argv, kind], capture_output=True, text=True, env=env)
    whole = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr}")
    work = (
        None if kind == "pass" else next(float(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("WORK "))
    )
    return work, whole, cpu


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--kinds", default="pass,fib,methods,mix", help="pass (the fixed cost: a script that is only `pass`), fib, methods, mix"
    )
    parser.add_argument("--peers", default="all", help="all, or a comma-separated list of the peers' names")
    parser.add_argument("--in-process-only", action="store_true", help="only the hooks in this process")
    parser.add_argument("--whole-only", action="store_true", help="skip the in-process measurement of the hooks")
    parser.add_argument("--outputs", action="store_true", help="time the whole command to each output format instead")
    parser.add_argument(
        "--before",
        metavar="SRC",
        default=None,
        help="also run `flamespace trace` from another source tree (its src/ directory, on PYTHONPATH: "
        "an earlier version, its C extensions built in place), interleaved with the rest",
    )
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, not {args.repeat}")
    if args.in_process_only:
        return in_process()
    print(
        f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; "
        f"load before: {os.getloadavg()[0]:.2f}"
    )
    if args.outputs:
        outputs(args.repeat, args.before)
        print(f"\nload after: {os.getloadavg()[0]:.2f}")
        return
    with tempfile.TemporaryDirectory() as out:
        script = os.path.join(out, "workload.py")
        Path(script).write_text(WORKLOAD)
        trivial = os.path.join(out, "trivial.py")
        Path(trivial).write_text(TRIVIAL)
        peers = commands(script, out, args.peers)
        envs: dict[str, dict[str, str]] = {}
        if args.before:
            peers = {**peers, "flamespace trace, before": peers["flamespace trace"]}
            envs["flamespace trace, before"] = {**os.environ, "PYTHONPATH": os.path.abspath(args.before)}
        for kind in args.kinds.split(","):
            times: dict[str, list[tuple[float | None, float, float]]] = {name: [] for name in peers}
            for name, argv in peers.items():  # warm-up (page cache, .pyc files)
                run(argv, kind, trivial, envs.get(name))
            for _ in range(args.repeat):
                for name, argv in peers.items():
                    times[name].append(run(argv, kind, trivial, envs.get(name)))
            plain_work = _median([w for w, _, _ in times["plain"]])
            plain_whole = statistics.median(t for _, t, _ in times["plain"])
            cprofile_work = _median([w for w, _, _ in times["cProfile"]]) if "cProfile" in times else None
            cprofile_whole = statistics.median(t for _, t, _ in times["cProfile"]) if "cProfile" in times else None
            print(f"\n{kind} (median of {args.repeat}; load now {os.getloadavg()[0]:.2f})")
            print(
                f"  {'':26} {'work s':>8} {'slowdown':>8} {'/cProfile':>9} {'whole s':>8} {'slowdown':>8} "
                f"{'cpu s':>7} {'-cProfile':>9}"
            )
            for name, values in times.items():
                work = _median([w for w, _, _ in values])
                whole = statistics.median(t for _, t, _ in values)
                cpu = statistics.median(c for _, _, c in values)
                if work is None or plain_work is None:
                    work_columns = f"{'-':>8} {'':8} {'':>9}"
                else:
                    versus = f"{work / cprofile_work:8.2f}x" if cprofile_work else ""
                    work_columns = f"{work:8.3f} {work / plain_work:7.2f}x {versus:>9}"
                over = f"{(whole - cprofile_whole) * 1e3:+7.1f}ms" if cprofile_whole is not None else ""
                print(f"  {name:26} {work_columns} {whole:8.3f} {whole / plain_whole:7.2f}x {cpu:7.3f} {over:>9}")
    if not args.whole_only:
        in_process()
    print(f"\nload after: {os.getloadavg()[0]:.2f}")


OUTPUTS = {"folded": "run.folded", "speedscope": "run.speedscope.json", "chrome": "run.trace.json"}


def outputs(repeat: int, before: str | None, kind: str = "fib27") -> None:
    """The whole ``flamespace trace -o X`` per output format, this version (and ``before``'s)."""
    versions = {"now": None, **({"before": os.path.abspath(before)} if before else {})}
    with tempfile.TemporaryDirectory() as out:
        script = os.path.join(out, "workload.py")
        Path(script).write_text(WORKLOAD)
        runs = {
            (version, name): [
                *python_command(),
                "trace",
                "-q",
                "-o",
                os.path.join(out, f"{version}-{file}"),
                "--",
                script,
                kind,
            ]
            for version in versions
            for name, file in OUTPUTS.items()
        }
        found = measure_rounds({key: (argv, pythonpath_first(versions[key[0]])) for key, argv in runs.items()}, repeat)
        sizes = {name: os.path.getsize(os.path.join(out, f"now-{file}")) for name, file in OUTPUTS.items()}
    print(
        f"\nwhole `flamespace trace -o X` of {kind} (median of {repeat}; cpu: user + system of the process tree, "
        f"less hit by the load than the wall time; peak MB: the largest process's)"
    )
    print(f"  {'':8} {'':12} {'wall s':>8} {'/folded':>8} {'cpu s':>8} {'/folded':>8} {'peak MB':>8} {'file MB':>8}")
    for version in versions:
        folded = medians(found[(version, "folded")])
        for name in OUTPUTS:
            took, cpu, peak = medians(found[(version, name)])
            print(
                f"  {version:8} {name:12} {took:8.2f} {took / folded[0]:7.2f}x {cpu:8.2f} {cpu / folded[1]:7.2f}x "
                f"{peak:8.0f} {sizes[name] / 1e6:8.1f}"
            )


def in_process(rounds: int = 7) -> None:
    """The hooks alone, in one process: no start-up, no analysis, no output."""
    import cProfile

    from flamespace.collect.trace_engine import TraceRecorder, backends_here, default_backend

    namespace: dict[str, object] = {}
    exec(WORKLOAD.split("start = time.perf_counter()")[0], namespace)
    work = {
        "fib": lambda: namespace["fib"](25),
        "methods": lambda: namespace["methods"](100_000),  # type: ignore[operator]
        "mix": lambda: namespace["mix"](100_000),
    }  # type: ignore[operator]
    backends = [name for name in ("profile", "monitoring", "frame") if name in backends_here()]
    names = ["plain", "cProfile"] + [
        f"{b}{extra}" for b in backends for extra in (("",) if b == "frame" else ("", " +lines", " +builtins"))
    ]
    found: dict[tuple[str, str], list[float]] = {}
    for _ in range(rounds):
        for kind, run in work.items():
            for name in names:
                if name == "plain":
                    start, stop = (lambda: None), (lambda: None)
                elif name == "cProfile":
                    profile = cProfile.Profile()
                    start, stop = profile.enable, profile.disable
                else:
                    backend, _, extra = name.partition(" +")
                    recorder = TraceRecorder(backend=backend, line_times=extra == "lines", builtins=extra == "builtins")
                    start, stop = recorder.start, recorder.stop
                start()
                began = time.perf_counter()
                run()
                took = time.perf_counter() - began
                stop()
                found.setdefault((kind, name), []).append(took)
    print(
        f"\nin process (Python {platform.python_version()}), {rounds} rounds, medians; the tracer's "
        f"default backend here: {default_backend()} ({default_backend(lines=True)} with lines or builtins)"
    )
    print(f"  {'':10} {'':26} {'s':>8} {'slowdown':>8} {'/cProfile':>9}")
    for kind in work:
        base = statistics.median(found[(kind, "plain")])
        ours = statistics.median(found[(kind, "cProfile")])
        for name in names:
            value = statistics.median(found[(kind, name)])
            print(f"  {kind:10} {name:26} {value:8.3f} {value / base:7.2f}x {value / ours:8.2f}x")


if __name__ == "__main__":
    main()
