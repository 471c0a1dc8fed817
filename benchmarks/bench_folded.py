"""Folded-format speed and memory: parse, write, merge, sub; flamespace beside its peers.

    python benchmarks/bench_folded.py [--repeat 5] [--quick]

Generates (once, under benchmarks/.data/) a folded file of 200,000 distinct stacks with
depth 1..60 (about 110 MB) and 50 files of 5,000 stacks. Every measurement runs in a fresh
child process so peak RSS (from wait4) belongs to that task alone; the table shows medians.

Peers, run side by side in the same invocation:
- pyrometry (the flame-graph algebra's reference implementation; ``pip install pyrometry``):
  its ``FlameGraph.loads`` and ``+``. Its parser copies the graph for every line, so it is run
  on the small files only.
- FlameGraph's Perl scripts, if FLAMEGRAPH_DIR points at a checkout of
  github.com/brendangregg/FlameGraph (never committed here): ``stackcollapse-recursive.pl``
  reads folded stacks, sums and writes them sorted (our parse + write), and
  ``difffolded.pl`` is the peer of ``flamespace sub``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data"
BIG = DATA / "big.folded"
SMALL_DIR = DATA / "runs"


def generate_big(path: Path, stacks: int = 200_000, max_depth: int = 60, seed: int = 1) -> None:
    """Distinct stacks drawn from a shared vocabulary, so frames repeat as in real profiles."""
    rng = random.Random(seed)
    # ~17-character frames: 30 frames on average make the ~550-byte lines of the target file
    vocabulary = [f"m{rng.randrange(40)}.fn{i} (f{i % 700}:{rng.randrange(1, 900)})" for i in range(8000)]
    seen = set()
    with open(path, "w") as out:
        while len(seen) < stacks:
            depth = rng.randint(1, max_depth)
            stack = ";".join(rng.choice(vocabulary) for _ in range(depth))
            if stack in seen:
                continue
            seen.add(stack)
            out.write(f"{stack} {rng.randint(1, 5000)}\n")


def generate_runs(directory: Path, files: int = 50, stacks: int = 5000, seed: int = 2,
                  sample_seed: Optional[int] = None) -> None:
    """Runs of one program: mostly the same stacks with noisy counts. Another ``sample_seed``
    draws other runs of the same program (same stacks to choose from: ``seed``)."""
    rng = random.Random(seed)
    vocabulary = [f"m{i % 50}.fn{i} (f{i % 50}:{i % 400 + 1})" for i in range(2000)]
    universe = [";".join(rng.choice(vocabulary) for _ in range(rng.randint(2, 40))) for _ in range(stacks * 2)]
    if sample_seed is not None:
        rng = random.Random(sample_seed)
    directory.mkdir(parents=True, exist_ok=True)
    for index in range(files):
        chosen = rng.sample(universe, stacks)
        with open(directory / f"run{index:02d}.folded", "w") as out:
            out.writelines(f"{s} {rng.randint(1, 200)}\n" for s in chosen)


def run_child(argv: List[str], stdout_path: Optional[str] = None) -> Tuple[float, float, str]:
    """Run argv; return (wall seconds, peak RSS in MB, stdout)."""
    out = open(stdout_path or os.devnull, "w") if stdout_path != "PIPE" else subprocess.PIPE
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE, text=True)
    captured = proc.stdout.read() if out is subprocess.PIPE else ""
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    err = proc.stderr.read()
    if out is not subprocess.PIPE:
        out.close()
    if status != 0:
        raise RuntimeError(f"{argv} failed: {err}")
    return elapsed, usage.ru_maxrss / 1024, captured


def python_task(code: str) -> Tuple[float, float, float]:
    """Run Python code that prints the seconds of its timed part; (inner s, wall s, RSS MB)."""
    wall, _, out = run_child([sys.executable, "-c", code], "PIPE")
    elapsed, rss = out.strip().splitlines()[-1].split()
    return float(elapsed), wall, float(rss)


# Python tasks print their timed seconds and VmHWM, the peak RSS of this process image only
# (a forked child's ru_maxrss would include its parent's memory from before exec).
TIMED = (
    "import time, sys\n{setup}\nt = time.perf_counter()\n{body}\nelapsed = time.perf_counter() - t\n"
    "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]\n"
    "print(elapsed, int(hwm) / 1024)\n"
)


def measure(tasks: Dict[str, object], repeat: int) -> Dict[str, Dict[str, float]]:
    """Medians of ``repeat`` runs of each task, taken in turn (a, b, a, b, ...), so that load
    from other processes falls on every task alike."""
    runs: Dict[str, list] = {name: [] for name in tasks}
    for _ in range(repeat):
        for name, task in tasks.items():
            runs[name].append(task() if callable(task) else python_task(task))  # type: ignore[operator]
    results: Dict[str, Dict[str, float]] = {}
    for name, samples in runs.items():
        inner = statistics.median(s[0] for s in samples)
        wall = statistics.median(s[1] for s in samples)
        rss = statistics.median(s[2] for s in samples)
        results[name] = {"seconds": inner, "wall": wall, "rss_mb": rss}
        print(f"  {name:<52} {inner:8.3f} s  (process {wall:6.3f} s, peak RSS {rss:7.1f} MB)", file=sys.stderr)
    return results


def shell_task(command: str) -> Tuple[float, float, float]:
    wall, rss, _ = run_child(["bash", "-c", command])
    return wall, wall, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--generate", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate:
        DATA.mkdir(exist_ok=True)
        generate_big(BIG)
        generate_runs(SMALL_DIR)
        return
    if not BIG.exists() or not SMALL_DIR.exists():
        # in a child process, so this process stays small and its children inherit no bulk
        print("generating the input files ...", file=sys.stderr)
        subprocess.run([sys.executable, __file__, "--generate"], check=True)
    size_mb = BIG.stat().st_size / 1e6
    runs = sorted(str(p) for p in SMALL_DIR.glob("*.folded"))
    exe = str(Path(sys.executable).parent / "flamespace")
    perl_dir = os.environ.get("FLAMEGRAPH_DIR")
    have_pyrometry = subprocess.run([sys.executable, "-c", "import pyrometry"], capture_output=True).returncode == 0

    tasks: Dict[str, object] = {
        "python start-up + import flamespace": TIMED.format(setup="", body="import flamespace"),
        "parse big file (flamespace.read)": TIMED.format(
            setup="import flamespace as fs", body=f"g = fs.read({str(BIG)!r})"
        ),
        "write big file (flamespace.write)": TIMED.format(
            setup=f"import flamespace as fs; g = fs.read({str(BIG)!r})", body="fs.write(g, '/dev/null')"
        ),
        "merge 50 x 5,000 (flamespace.sum_graphs of read, shared stack cache)": TIMED.format(
            setup=f"import flamespace as fs; files = {runs!r}; cache = {{}}",
            body="m = fs.sum_graphs(fs.read(f, stack_cache=cache) for f in files)",
        ),
        "merge 50 x 5,000 (flamespace merge CLI, whole process)": lambda: shell_task(f"{exe} merge {' '.join(runs)} > /dev/null"),
        "parse + write big (flamespace merge CLI, whole process)": lambda: shell_task(f"{exe} merge {BIG} > /dev/null"),
        "sub two runs (flamespace sub CLI)": lambda: shell_task(f"{exe} sub -n {runs[0]} {runs[1]} > /dev/null"),
    }
    if have_pyrometry:
        tasks["parse one 5,000-stack run (pyrometry FlameGraph.load)"] = TIMED.format(
            setup="from pathlib import Path; from pyrometry.flamegraph import FlameGraph",
            body=f"g = FlameGraph.load(Path({runs[0]!r}))",
        )
        tasks["parse one 5,000-stack run (flamespace.read)"] = TIMED.format(
            setup="import flamespace as fs", body=f"g = fs.read({runs[0]!r})"
        )
        tasks["merge 50 x 5,000 (pyrometry load and +)"] = TIMED.format(
            setup=f"from pathlib import Path; from pyrometry.flamegraph import FlameGraph; files = {runs!r}",
            body="m = FlameGraph()\nfor f in files: m = m + FlameGraph.load(Path(f))",
        )
    if perl_dir:
        recursive = os.path.join(perl_dir, "stackcollapse-recursive.pl")
        difffolded = os.path.join(perl_dir, "difffolded.pl")
        tasks["parse + write big (stackcollapse-recursive.pl)"] = lambda: shell_task(f"perl {recursive} {BIG} > /dev/null")
        tasks["merge 50 x 5,000 (cat | stackcollapse-recursive.pl)"] = lambda: shell_task(
            f"cat {' '.join(runs)} | perl {recursive} > /dev/null"
        )
        tasks["sub two runs (difffolded.pl -n | sort)"] = lambda: shell_task(
            f"perl {difffolded} -n {runs[0]} {runs[1]} | LC_ALL=C sort > /dev/null"
        )

    print(f"big file: {size_mb:.0f} MB, 200,000 stacks; runs: 50 files x 5,000 stacks; median of {args.repeat}", file=sys.stderr)
    results = measure(tasks, args.repeat)
    parse = results["parse big file (flamespace.read)"]
    print()
    print(f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"parse throughput: {size_mb / parse['seconds']:.0f} MB/s, peak RSS {parse['rss_mb']:.0f} MB "
          f"(targets: >= 50 MB/s, <= 500 MB)")
    merge = results["merge 50 x 5,000 (flamespace merge CLI, whole process)"]
    print(f"merge 50 x 5,000: {merge['seconds']:.3f} s (target < 1 s)")
    print()
    print("| task | median s | whole process s | peak RSS MB |")
    print("|---|---:|---:|---:|")
    for name, r in results.items():
        print(f"| {name} | {r['seconds']:.3f} | {r['wall']:.3f} | {r['rss_mb']:.0f} |")
    if args.json:
        args.json.write_text(json.dumps({"size_mb": size_mb, "results": results}, indent=2))


if __name__ == "__main__":
    main()
