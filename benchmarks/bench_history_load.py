"""What `history --metric normalised` costs users: whole `flamespace history` processes on a store.

    python benchmarks/bench_history_load.py --store DIR [--selector store:branch=main] [--stack RE] [--repeat 5]

The store: any, e.g. the one bench_store_cluster.py builds and keeps (``--store DIR``: 2,000
profiles of 5,000 stacks). Times, taking turns (one warm-up round dropped), medians of
``--repeat``: the top 20 stacks by commit with ``--metric value`` and ``normalised``, and one
stack (``--stack``) with each; normalised with a pattern reads the load from the 20 largest
stacks, a second aggregation (docs/store.md). Wall and CPU seconds, peak MB.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cli import executable, measure_rounds, medians  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--selector", default="store:branch=main")
    parser.add_argument("--stack", default="fn1 ", help="a regular expression; the largest stack it matches is followed")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat {args.repeat}: give at least 1")
    base = [executable(), "history", args.selector, "--store", args.store, "--format", "json"]
    runs = {
        (what, metric): (base + extra + ["--metric", metric], None)
        for what, extra in (("top 20", []), (f"--stack {args.stack!r}", ["--stack", args.stack, "--top", "1"]))
        for metric in ("value", "normalised")
    }
    found = measure_rounds(runs, args.repeat)
    print(f"| stacks followed | metric | wall s | CPU s | peak MB |  ({args.repeat} rounds, medians)")
    print("|---|---|---:|---:|---:|")
    for (what, metric), rows in found.items():
        m = medians(rows)
        print(f"| {what} | {metric} | {m.wall:.2f} | {m.cpu:.2f} | {m.peak_mb:.0f} |")


if __name__ == "__main__":
    main()
