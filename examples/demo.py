"""`make demo`: run flamespace on the bundled example profiles and say where the outputs are."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "demo-output"
V1 = "examples/webapp-v1.folded"
V2 = "examples/webapp-v2.folded"
FLAMESPACE = str(Path(sys.executable).parent / "flamespace")
#: Rates a busy 2-core machine holds: workload.py's worker thread keeps the GIL up to 5 ms at a
#: time (so no more than 200 Hz); versions.py only sleeps. Each run gets 150+ samples at them.
WORKLOAD_RATE = "200"
VERSIONS_RATE = "500"
#: The demo's own profile store (selectors read $FLAMESPACE_STORE): emptied at every run.
STORE = OUT / "store"


def stored_as_commits(title: str, side: str, first: int) -> list:
    """``store add`` steps that keep a collected side's 10 runs as five commits of main, two runs
    each, a day apart (c{first} ... c{first + 4}): the history a CI job builds run by run."""
    steps = []
    for k in range(5):
        commit = first + k
        runs = [f"demo-output/ab/{side}/run-{2 * k + i + 1:03d}.folded" for i in range(2)]
        steps.append(
            (
                "" if k else title,
                [
                    "store",
                    "add",
                    *runs,
                    "--label",
                    "branch=main",
                    "--label",
                    "bench=versions",
                    "--label",
                    f"commit=c{commit}",
                    "--label",
                    f"time=2026-11-{commit:02d}T12:00:00",
                ],
            )
        )
    return steps


STEPS = [
    ("What is in a profile", ["info", V1]),
    ("Where the time goes (self time)", ["top", "-n", "8", V1]),
    ("...by inclusive time (time anywhere in the stack)", ["top", "--sort", "inclusive", "-n", "6", V1]),
    ("...per line rather than per function", ["top", "--by", "line", "-n", "6", V1]),
    (
        "Zoom in: only stacks through json, line numbers stripped",
        ["filter", "--grep", "json", "--strip", "lines", "--no-header", V2],
    ),
    ("Mean of the two versions", ["merge", "--mean", V1, V2, "-o", "demo-output/mean.folded"]),
    (
        "Differential input for a differential flame graph (like difffolded.pl)",
        ["sub", "--normalize", V1, V2, "-o", "demo-output/diff.folded"],
    ),
    (
        "An interactive flame graph of a bundled profile (open it in a browser)",
        ["svg", V2, "--title", "webapp v2", "--colors", "python", "-o", "demo-output/webapp-v2.svg"],
    ),
    (
        "The same profile in the HTML viewer (canvas: fast on big profiles; search, zoom, a table of functions)",
        ["html", V2, "--title", "webapp v2", "--colors", "python", "-o", "demo-output/webapp-v2.html"],
    ),
    (
        "A differential flame graph: widths of v2, red = grew, blue = shrank (parents included)",
        ["svg", "demo-output/diff.folded", "--title", "webapp v1 -> v2", "-o", "demo-output/diff.svg"],
    ),
    (
        "Both versions in one HTML page: B coloured by change, A | B | change in step, white/black, the four-way split as tabs",
        ["html", "--diff", V1, V2, "--label", "v1", "--label", "v2", "--title", "webapp v1 -> v2", "-o", "demo-output/diff.html"],
    ),
    ("The same profile as a tree in the terminal", ["text", "--threshold", "5%", V2]),
    ("How alike are the two versions", ["similarity", V1, V2]),
    ("What changed: appeared, grown, disappeared, shrunk", ["decompose", V1, V2, "--out-dir", "demo-output/changes"]),
    (
        "Other profilers' output: a `perf script` capture, collapsed as stackcollapse-perf.pl does",
        ["convert", "examples/perf-c.perf", "-o", "demo-output/perf-c.folded"],
    ),
    (
        "...drawn directly (every command reads every format flamespace formats lists)",
        ["svg", "examples/perf-c.perf", "--title", "perf: a C program", "-o", "demo-output/perf-c.svg"],
    ),
    (
        "An Austin capture (MOJO, austin -b) as a flame graph and as a speedscope file",
        [
            "svg",
            "examples/austin-wall.mojo",
            "--title",
            "Austin: wall time",
            "--colors",
            "python",
            "-o",
            "demo-output/austin-wall.svg",
        ],
    ),
    ("", ["convert", "examples/austin-wall.mojo", "-o", "demo-output/austin-wall.speedscope.json"]),
    (
        "Profile a Python program (wall time, every thread, start-up included)",
        ["record", "--rate", WORKLOAD_RATE, "--threads", "-o", "demo-output/workload.folded", "--", "examples/workload.py"],
    ),
    (
        "...written straight to the HTML viewer (pick a thread, sandwich a function, hide the standard library)",
        [
            "record",
            "--rate",
            WORKLOAD_RATE,
            "--threads",
            "--format",
            "html",
            "-o",
            "demo-output/workload.html",
            "--",
            "examples/workload.py",
        ],
    ),
    (
        "...only CPU time, as a speedscope timeline (open it at https://www.speedscope.app)",
        [
            "record",
            "--rate",
            WORKLOAD_RATE,
            "--mode",
            "cpu",
            "--format",
            "speedscope",
            "-o",
            "demo-output/workload.speedscope.json",
            "--",
            "examples/workload.py",
        ],
    ),
    ("Where the program spent its time", ["top", "-n", "6", "demo-output/workload.folded"]),
    (
        "...the CPU timeline as an HTML flame chart: a lane per thread, each function where it ran",
        ["html", "--flamechart", "demo-output/workload.speedscope.json", "-o", "demo-output/workload-chart.html"],
    ),
    (
        "Trace a program: exact calls and times per full stack, as a report (flame graph, functions, flame chart)",
        ["trace", "-o", "demo-output/traced-report.html", "--", "examples/traced.py"],
    ),
    (
        "Profile two versions of a program 10 times each, alternating (A B A B ...)",
        [
            "collect",
            "-n",
            "10",
            "--rate",
            VERSIONS_RATE,
            "--overwrite",
            "-o",
            "demo-output/ab",
            "--baseline-cmd",
            "examples/versions.py",
            "--candidate-cmd",
            "examples/versions.py",
            "--candidate-env",
            "VERSION=2",
        ],
    ),
    (
        "Which stacks changed, how much, how sure (exit code 3: a regression, as a CI gate would see it)",
        [
            "compare",
            "--baseline",
            "demo-output/ab/baseline",
            "--candidate",
            "demo-output/ab/candidate",
            "--out-dir",
            "demo-output/ab/changes",
            "--html",
            "demo-output/ab/compare.html",
        ],
    ),
    *stored_as_commits(
        "Keep the baseline runs in the profile store (DuckDB over Parquet, in demo-output/store), "
        "labelled as main's commits c1..c5",
        "baseline",
        1,
    ),
    ("", ["store", "add", "demo-output/ab/baseline/run-001.folded"]),
    ("What the store holds", ["store", "ls", "store:bench=versions,last=5"]),
    (
        "Compare against the stored baseline: a selector instead of a directory (the same result as above)",
        ["compare", "--baseline", "store:branch=main,bench=versions,last=10", "--candidate", "demo-output/ab/candidate"],
    ),
    (
        "The stored baseline's runs, summed and drawn",
        ["svg", "store:branch=main,last=10", "--title", "stored baseline (sum)", "-o", "demo-output/stored-baseline.svg"],
    ),
    *stored_as_commits("The candidate is merged: its runs join main's history as commits c6..c10", "candidate", 6),
    (
        "Which commit made a stack grow: each stack's series over main's commits, its change points named",
        ["history", "store:bench=versions", "--top", "5", "--by", "commit", "--svg", "demo-output/history.svg"],
    ),
]

#: Steps whose exit code is not 0 on purpose.
EXPECTED_EXIT = {"compare": 3}


def run(args: list) -> None:
    print(f"$ flamespace {' '.join(shlex.quote(a) for a in args)}", flush=True)
    code = subprocess.run([FLAMESPACE, *args], cwd=ROOT, env={**os.environ, "FLAMESPACE_STORE": str(STORE)}).returncode
    if code != EXPECTED_EXIT.get(args[0], 0):
        raise SystemExit(f"demo: flamespace {args[0]} exited with code {code}")


def main() -> None:
    OUT.mkdir(exist_ok=True)
    shutil.rmtree(STORE, ignore_errors=True)
    for title, args in STEPS:
        if title:  # a step without a title goes on the one before
            print(f"\n== {title}", flush=True)
        run(args)
    print(f"\nOutputs are in {OUT}/:")
    print(
        f"  {STORE.relative_to(ROOT)}/ (the profile store: flamespace store ls, with FLAMESPACE_STORE={STORE.relative_to(ROOT)})"
    )
    for directory in sorted({p.parent for p in OUT.rglob("*") if p.is_file() and STORE not in p.parents}):
        files = sorted(p for p in directory.iterdir() if p.is_file())
        if all(p.name.startswith("run-") for p in files):  # a sample of runs: one line
            print(f"  {directory.relative_to(ROOT)}/ ({len(files)} runs: {files[0].name} ... {files[-1].name})")
            continue
        for path in files:
            print(f"  {path.relative_to(ROOT)}")
    print(NEXT.format(out=OUT.relative_to(ROOT)))


#: The demo's last words: what to look at, and what to run on your own code.
NEXT = """
Open in a browser (interactive: click a frame to zoom, Ctrl-F to search):
  {out}/webapp-v2.svg          a flame graph of a bundled profile
  {out}/webapp-v2.html         the same in the HTML viewer (a table of functions below it)
  {out}/workload.html          a recorded run in the HTML viewer: a thread picker, sandwich and transforms
  {out}/workload-chart.html    the same run's CPU timeline as a flame chart: a lane per thread, in time
  {out}/traced-report.html     a trace report: click a box of the flame graph for its function's calls,
                               callers and callees; a table of functions; the flame chart
  {out}/diff.svg               v1 -> v2: red grew, blue shrank
  {out}/diff.html              v1 -> v2 in the HTML viewer: overlay, three panes, white/black, appeared/grown/... tabs
  {out}/ab/changes/delta.svg   the candidate, coloured where compare found a significant change
  {out}/ab/compare.html       the same comparison as a page: only significant stacks coloured, p and interval on hover
  {out}/history.svg            each stack's series over main's commits c1..c10, the commit where it changed marked
  {out}/perf-c.svg, {out}/austin-wall.svg   perf and Austin captures, read as they are
  e.g. python3 -m webbrowser file://$PWD/{out}/webapp-v2.svg
  {out}/workload.speedscope.json: drop it on https://www.speedscope.app for a timeline

Try next, on your own code:
  flamespace record -- my_script.py                  a short tree of where the time went, in the terminal
  flamespace record -o my.folded -- my_script.py     profile a program (or -m package.module)
  flamespace record -o my.html -- my_script.py       the same, straight into the viewer (-o's ending picks)
  flamespace top my.folded; flamespace svg my.folded -o my.svg; flamespace html my.folded -o my.html
  flamespace trace -o calls.txt -- my_script.py      exact call counts and times of every function
  flamespace trace -o report.html -- my_script.py    the same as a report page (flame graph, functions, chart)
  perf script | flamespace convert - -o app.folded   any profiler's output (flamespace formats lists them)
  flamespace dump --pid PID; flamespace record --pid PID -d 30 -o slow.html   a program already running
  flamespace gate --base origin/main -n 20 -- bench.py   in your repository: did this branch make it slower?
  flamespace collect --store ...; flamespace compare --baseline store:branch=main,last=30 --candidate runs/
                                                     a CI baseline kept in the store (docs/store.md: "Keeping profiles")
  flamespace compare --help   flamespace gate --help   flamespace --help"""


if __name__ == "__main__":
    main()
