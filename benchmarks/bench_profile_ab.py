"""The commands that read, add, compare, store and write profiles, two source trees side by side.

    python benchmarks/bench_profile_ab.py BEFORE/src src [--repeat 7] [--only merge]

BEFORE/src is a copy of the ``src`` of the code before a change with its C extensions built
(``cp -r src /tmp/before-src`` before changing it, or ``make .venv/.installed`` in a worktree
of the old commit).

Each command runs as a whole process with PYTHONPATH set to each tree in turn (A B B A ...),
so the load of a shared machine falls on both alike; medians of wall and CPU time (user +
system, from wait4) and the peak RSS (the largest of the runs) per tree, and the ratio of the
second tree's CPU time to the first's. Inputs are bench_commands.py's (generated once under
benchmarks/.data/); the store rows ingest 50 runs into a fresh store ($FLAMESPACE_STORE),
and query a store of both sides' runs (labelled side=a and side=b).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_commands import RUNS_B, SMALL_SVG, SUB_A, SUB_B, generate  # noqa: E402  (the shared inputs)
from bench_folded import BIG, SMALL_DIR  # noqa: E402
from _cli import Measured, compile_package, measure, medians, python_command  # noqa: E402  (how to run and time the CLI)

SMALL = HERE.parent / "examples" / "webapp-v1.folded"


def tasks(store: str) -> list[tuple[str, list[str]]]:
    """(name, arguments of flamespace) of each row; the store rows use ``store`` (made fresh per run)."""
    runs_a = sorted(str(p) for p in SMALL_DIR.glob("*.folded"))
    return [
        ("svg of a 20-line file (start-up)", ["svg", str(SMALL), "-o", os.devnull]),
        ("compare --help (start-up)", ["compare", "--help"]),
        ("svg of the 710-line example", ["svg", str(SMALL_SVG), "-o", os.devnull]),
        ("merge of one 131 MB file (read + write)", ["merge", str(BIG), "-o", os.devnull]),
        ("svg of the 131 MB file", ["svg", str(BIG), "-o", os.devnull]),
        ("sub -n of two 100,000-stack files", ["sub", "-n", str(SUB_A), str(SUB_B), "-o", os.devnull]),
        ("merge of 50 runs x 5,000 stacks", ["merge", *runs_a, "-o", os.devnull]),
        ("scale 2 of the 131 MB file", ["scale", "2", str(BIG), "-o", os.devnull]),
        ("compare 50 + 50 runs x 5,000 stacks", ["compare", "-a", str(SMALL_DIR), "-b", str(RUNS_B)]),
        ("store add of 50 runs (fresh store)", ["store", "add", *runs_a, "--label", "side=a"]),
        ("store get of 50 runs", ["store", "get", "store:side=a", "-o", os.devnull]),
        ("compare of two store selectors (50 + 50 runs)", ["compare", "-a", "store:side=a", "-b", "store:side=b"]),
    ]


def run(src: str, args: list[str], store: str) -> Measured:
    """One process of flamespace ``args`` from the tree ``src`` on ``store``."""
    env = {**os.environ, "PYTHONPATH": src, "FLAMESPACE_STORE": store}
    what = f"flamespace {' '.join(args[:3])} ... with {src}"
    return measure([*python_command("main"), *args], env, accept=(0, 3), what=what)  # 3: compare found a change


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs=2, metavar="SRC")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--only", help="run only the rows whose name holds this text")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, not {args.repeat}")
    generate()
    for src in args.sources:
        compile_package(src)
    work = tempfile.mkdtemp(prefix="bench-ab-")
    print(f"load: {os.getloadavg()}; {args.repeat} runs per tree, interleaved")
    print("| task | A wall s | B wall s | A CPU s | B CPU s | B/A CPU | A MB | B MB |\n|---|---:|---:|---:|---:|---:|---:|---:|")
    try:
        for name, _ in tasks(""):
            if args.only and args.only not in name:
                continue
            got: dict[str, list[Measured]] = {src: [] for src in args.sources}
            for i in range(args.repeat):
                for src in args.sources if i % 2 else reversed(args.sources):
                    store = os.path.join(work, f"store-{args.sources.index(src)}")
                    if name.startswith("store add"):
                        shutil.rmtree(store, ignore_errors=True)
                        store += "-add"  # the query rows' store is made apart
                        shutil.rmtree(store, ignore_errors=True)
                    elif "store" in name and not os.path.exists(store):  # both sides, for the queries
                        run(src, dict(tasks(store))["store add of 50 runs (fresh store)"], store)
                        run(src, ["store", "add", *sorted(str(p) for p in RUNS_B.glob("*.folded")), "--label", "side=b"], store)
                    got[src].append(run(src, dict(tasks(store))[name], store))
            a, b = (got[src] for src in args.sources)
            ma, mb = medians(a), medians(b)
            print(
                f"| {name} | {ma.wall:.3f} | {mb.wall:.3f} | {ma.cpu:.3f} | {mb.cpu:.3f} | "
                f"{mb.cpu / ma.cpu:.2f} | {max(r.peak_mb for r in a):.0f} | {max(r.peak_mb for r in b):.0f} |",
                flush=True,
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"load: {os.getloadavg()}")


if __name__ == "__main__":
    main()
