"""Folded-format speed and memory: parse, write, merge, sub; flamespace beside its peers.

    python benchmarks/bench_folded.py [--repeat 5] [--quick]

Generates (once, under benchmarks/.data/) a folded file of 200,000 distinct stacks with
depth 1..60 (about 130 MB), 50 files of 5,000 stacks and two files of 100,000 stacks (for
sub). Every measurement runs in a fresh child process so peak RSS and CPU time (from wait4)
belong to that task alone; the table shows medians. CPU time (user + system) is shown beside
wall time: on a loaded machine it says what a task costs when wall time says mostly how long
it waited for a core.

    --tasks WORD[,WORD]  run only the tasks whose name holds one of the words
    BASELINE_SRC=/path/to/other/src  also runs the merge and sub CLI of another checkout

Peers, run side by side in the same invocation:
- pyrometry (the flame-graph algebra's reference implementation; ``pip install pyrometry``):
  its ``FlameGraph.loads`` and ``+``. Its parser copies the graph for every line, so it is run
  on the small files only.
- FlameGraph's Perl scripts, if FLAMEGRAPH_DIR points at a checkout of
  github.com/brendangregg/FlameGraph (never committed here): ``stackcollapse-recursive.pl``
  reads folded stacks, sums and writes them sorted (our parse + write), and
  ``difffolded.pl`` is the peer of ``flamespace sub``.
- A three-line Perl hash sum (PERL_HASH_SUM below; needs only perl): the peer of
  ``flamespace merge``; it sums by stack text and prints sorted, as merge does.
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

from _cli import shell_command  # benchmarks/: how to run the CLI

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data"
BIG = DATA / "big.folded"
SMALL_DIR = DATA / "runs"
SUB_A = DATA / "sub_a.folded"
SUB_B = DATA / "sub_b.folded"

#: merge's peer: sum the count after the last whitespace by stack text, print sorted.
PERL_HASH_SUM = "perl -ne 'if (/^(.*)\\s+(\\d+(?:\\.\\d*)?)$/) { $h{$1} += $2 }  END { print \"$_ $h{$_}\\n\" for sort keys %h }'"


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


def generate_runs(directory: Path, files: int = 50, stacks: int = 5000, seed: int = 2, sample_seed: int | None = None) -> None:
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


def generate_pair(a: Path, b: Path, stacks: int = 100_000, seed: int = 3) -> None:
    """Two profiles of one program (before, after): 100,000 stacks each, most of them shared."""
    rng = random.Random(seed)
    vocabulary = [f"m{i % 60}.fn{i} (f{i % 60}:{i % 500 + 1})" for i in range(4000)]
    universe = list({";".join(rng.choice(vocabulary) for _ in range(rng.randint(2, 40))) for _ in range(stacks * 3 // 2)})
    for path in (a, b):
        chosen = rng.sample(universe, stacks)
        with open(path, "w") as out:
            out.writelines(f"{s} {rng.randint(1, 200)}\n" for s in chosen)


def run_child(argv: list[str], stdout_path: str | None = None) -> tuple[float, float, str, float]:
    """Run argv; return (wall seconds, peak RSS in MB, stdout, CPU seconds of it and its children)."""
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
    return elapsed, usage.ru_maxrss / 1024, captured, usage.ru_utime + usage.ru_stime


def python_task(code: str) -> tuple[float, float, float, float]:
    """Run Python code that prints the seconds of its timed part; (inner s, wall s, RSS MB, CPU s of the timed part)."""
    wall, _, out, _ = run_child([sys.executable, "-c", code], "PIPE")
    elapsed, rss, cpu = out.strip().splitlines()[-1].split()
    return float(elapsed), wall, float(rss), float(cpu)


# Python tasks print their timed seconds and VmHWM, the peak RSS of this process image only
# (a forked child's ru_maxrss would include its parent's memory from before exec).
TIMED = (
    "import time, sys\n{setup}\nt = time.perf_counter(); c = time.process_time()\n{body}\n"
    "elapsed = time.perf_counter() - t; cpu = time.process_time() - c\n"
    "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]\n"
    "print(elapsed, int(hwm) / 1024, cpu)\n"
)


def measure(tasks: dict[str, object], repeat: int) -> dict[str, dict[str, float]]:
    """Medians of ``repeat`` runs of each task, taken in turn (a, b, a, b, ...), so that load
    from other processes falls on every task alike."""
    runs: dict[str, list] = {name: [] for name in tasks}
    for _ in range(repeat):
        for name, task in tasks.items():
            runs[name].append(task() if callable(task) else python_task(task))  # type: ignore[operator]
    results: dict[str, dict[str, float]] = {}
    for name, samples in runs.items():
        inner = statistics.median(s[0] for s in samples)
        wall = statistics.median(s[1] for s in samples)
        rss = statistics.median(s[2] for s in samples)
        cpu = statistics.median(s[3] for s in samples)
        results[name] = {"seconds": inner, "wall": wall, "rss_mb": rss, "cpu": cpu}
        print(f"  {name:<52} {inner:8.3f} s  (process {wall:6.3f} s, CPU {cpu:6.3f} s, peak RSS {rss:7.1f} MB)", file=sys.stderr)
    return results


def shell_task(command: str) -> tuple[float, float, float, float]:
    wall, rss, _, cpu = run_child(["bash", "-c", command])
    return wall, wall, rss, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--tasks", help="run only the tasks whose name holds one of these comma-separated words")
    parser.add_argument("--generate", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate:
        DATA.mkdir(exist_ok=True)
        if not BIG.exists():
            generate_big(BIG)
        if not SMALL_DIR.exists():
            generate_runs(SMALL_DIR)
        generate_pair(SUB_A, SUB_B)
        return
    if not BIG.exists() or not SMALL_DIR.exists() or not SUB_B.exists():
        # in a child process, so this process stays small and its children inherit no bulk
        print("generating the input files ...", file=sys.stderr)
        subprocess.run([sys.executable, __file__, "--generate"], check=True)
    load_before = " ".join(f"{x:.1f}" for x in os.getloadavg())
    size_mb = BIG.stat().st_size / 1e6
    runs = sorted(str(p) for p in SMALL_DIR.glob("*.folded"))
    exe = shell_command()
    perl_dir = os.environ.get("FLAMEGRAPH_DIR")
    have_pyrometry = subprocess.run([sys.executable, "-c", "import pyrometry"], capture_output=True).returncode == 0

    tasks: dict[str, object] = {
        "python start-up + import flamespace": TIMED.format(setup="", body="import flamespace"),
        "parse big file, frames split (flamespace.read, first stack asked for)": TIMED.format(
            setup="import flamespace as fs", body=f"g = fs.read({str(BIG)!r}); next(iter(g))"
        ),
        "parse big file, stacks kept as texts (flamespace.read)": TIMED.format(
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
        "sub 2 x 100,000 (flamespace sub -n CLI)": lambda: shell_task(f"{exe} sub -n {SUB_A} {SUB_B} > /dev/null"),
        "merge 50 x 5,000 (Perl hash sum)": lambda: shell_task(f"{PERL_HASH_SUM} {' '.join(runs)} > /dev/null"),
    }
    baseline = os.environ.get("BASELINE_SRC")
    if baseline:  # the same commands from another checkout's source (e.g. before a change)
        old = shell_command(baseline)
        tasks["merge 50 x 5,000 (baseline merge CLI)"] = lambda: shell_task(f"{old} merge {' '.join(runs)} > /dev/null")
        tasks["sub 2 x 100,000 (baseline sub -n CLI)"] = lambda: shell_task(f"{old} sub -n {SUB_A} {SUB_B} > /dev/null")
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
        tasks["sub 2 x 100,000 (difffolded.pl -n)"] = lambda: shell_task(f"perl {difffolded} -n {SUB_A} {SUB_B} > /dev/null")
        tasks["sub 2 x 100,000 (difffolded.pl -n | sort)"] = lambda: shell_task(
            f"perl {difffolded} -n {SUB_A} {SUB_B} | LC_ALL=C sort > /dev/null"
        )
    if args.tasks:
        words = args.tasks.split(",")
        tasks = {name: task for name, task in tasks.items() if any(word in name for word in words)}

    print(f"big file: {size_mb:.0f} MB, 200,000 stacks; runs: 50 files x 5,000 stacks; median of {args.repeat}", file=sys.stderr)
    results = measure(tasks, args.repeat)
    print()
    print(
        f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"load average before/after: {load_before} / {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    for label, key, target in [
        ("parse big file, stacks kept as texts (flamespace.read)", "parse (read)", ">= 100 MB/s"),
        ("parse big file, frames split (flamespace.read, first stack asked for)", "parse (read, frames)", ""),
    ]:
        if label in results:
            r = results[label]
            print(
                f"{key}: {size_mb / r['seconds']:.0f} MB/s wall, {size_mb / r['cpu']:.0f} MB/s CPU, "
                f"peak RSS {r['rss_mb']:.0f} MB {('(target ' + target + ')') if target else ''}"
            )
    for ours, peer, what in [
        ("sub 2 x 100,000 (flamespace sub -n CLI)", "sub 2 x 100,000 (difffolded.pl -n)", "sub / difffolded.pl"),
        ("sub 2 x 100,000 (flamespace sub -n CLI)", "sub 2 x 100,000 (difffolded.pl -n | sort)", "sub / (difffolded.pl | sort)"),
        ("merge 50 x 5,000 (flamespace merge CLI, whole process)", "merge 50 x 5,000 (Perl hash sum)", "merge / Perl hash sum"),
        ("sub 2 x 100,000 (flamespace sub -n CLI)", "sub 2 x 100,000 (baseline sub -n CLI)", "sub / baseline sub"),
        (
            "merge 50 x 5,000 (flamespace merge CLI, whole process)",
            "merge 50 x 5,000 (baseline merge CLI)",
            "merge / baseline merge",
        ),
    ]:
        if ours in results and peer in results:
            a, b = results[ours], results[peer]
            print(
                f"{what}: {a['wall'] / b['wall']:.2f}x wall, {a['cpu'] / b['cpu']:.2f}x CPU, {a['rss_mb'] / b['rss_mb']:.2f}x peak RSS"
            )
    print()
    print("| task | median s | whole process s | CPU s | peak RSS MB |")
    print("|---|---:|---:|---:|---:|")
    for name, r in results.items():
        print(f"| {name} | {r['seconds']:.3f} | {r['wall']:.3f} | {r['cpu']:.3f} | {r['rss_mb']:.0f} |")
    if args.json:
        args.json.write_text(json.dumps({"size_mb": size_mb, "results": results}, indent=2))


if __name__ == "__main__":
    main()
