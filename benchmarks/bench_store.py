"""The profile store at scale: ingest speed, size on disk, peak memory, query times.

    python benchmarks/bench_store.py [--profiles 10000] [--stacks 5000] [--universe 20000]

Synthetic runs of one program: a universe of ``--universe`` distinct stacks (a call tree
grown at random: depth 2..40, frames named like Python frames), of which every profile holds
``--stacks``: the same 80% in every run (the program's steady paths) and the rest drawn
from the remaining stacks (the rare ones), with Poisson counts around a per-stack mean. 80%
of the profiles are on branch ``main``, the rest on ``dev``; ten profiles a commit.

Measured (one process; the table at the end):
- ingest: profiles per second through ``Store.add`` in parts of ``--batch`` profiles
  (generation of the synthetic values is not counted), and after ``--compact`` a gc;
- size: the store directory against the same profiles as gzipped folded files (gzip -6;
  ``--gzip-sample`` of them are written and the mean size scaled to all);
- peak memory: the process's maximum resident set (ru_maxrss), generation included;
- queries, each on a fresh snapshot (manifest read and parts checked every time), median of
  ``--repeat``: the mean profile of the last 1,000 profiles of main, and the runs × stacks
  matrix of a 30 + 30 comparison (last 30 of main, last 30 of dev) as compare builds it.
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import resource
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

from flamespace.core.metadata import Metadata
from flamespace.core.vector import FlameGraph
from flamespace.store import open_store


def universe(size: int, rng: np.random.Generator) -> list[str]:
    """``size`` distinct stack texts forming a call tree (every prefix of a stack is a stack too)."""
    modules = [f"pkg/mod{i}.py" for i in range(120)]
    names = [f"func_{i} ({modules[i % len(modules)]}:{10 + (i * 7) % 900})" for i in range(4000)]
    stacks = ["main (app.py:1)"]
    depth = [1]
    while len(stacks) < size:
        parent = int(rng.integers(len(stacks)))
        if depth[parent] >= 40:
            continue
        stacks.append(stacks[parent] + ";" + names[int(rng.integers(len(names)))])
        depth.append(depth[parent] + 1)
    return list(dict.fromkeys(stacks))[:size]


def profiles(texts: list[str], count: int, per: int, rng: np.random.Generator):
    """``count`` profiles of ``per`` stacks each: 80% shared by all, the rest drawn per run."""
    order = rng.permutation(len(texts))
    steady, rare = order[: int(per * 0.8)], order[int(per * 0.8) :]
    means = rng.lognormal(3.0, 1.5, len(texts))
    for _ in range(count):
        chosen = np.concatenate([steady, rng.choice(rare, per - len(steady), replace=False)])
        values = rng.poisson(means[chosen]) + 1
        yield {texts[j]: int(v) for j, v in zip(chosen.tolist(), values.tolist())}


def folded_gz_size(values: dict[str, int]) -> int:
    text = "".join(f"{k} {v}\n" for k, v in sorted(values.items()))
    return len(gzip.compress(text.encode(), compresslevel=6))


def directory_size(path: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def timed(function, repeat: int) -> tuple[float, float, object]:
    """(first, median of all) seconds and the last result."""
    times = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return times[0], statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", type=int, default=10_000)
    parser.add_argument("--stacks", type=int, default=5_000)
    parser.add_argument("--universe", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=100, help="profiles per ingest call (one part each)")
    parser.add_argument("--gzip-sample", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--compact", action="store_true", help="also time gc (one part) and the queries after it")
    parser.add_argument("--dir", default=None, help="where the store goes (default: a temporary directory, removed)")
    parser.add_argument("--queries-only", action="store_true", help="time the queries on the store already in --dir")
    args = parser.parse_args()

    rng = np.random.default_rng(18)
    texts = universe(args.universe, rng)
    workdir = args.dir or tempfile.mkdtemp(prefix="bench-store-")
    root = os.path.join(workdir, "store")
    if not args.queries_only:
        shutil.rmtree(root, ignore_errors=True)
    store = open_store(root)
    ingest_seconds = 0.0
    gz_sizes: list[int] = []
    batch: list = []
    made = 0
    for index, values in enumerate(profiles(texts, 0 if args.queries_only else args.profiles, args.stacks, rng)):
        if len(gz_sizes) < args.gzip_sample:
            gz_sizes.append(folded_gz_size(values))
        branch = "main" if index % 5 else "dev"
        labels = {"branch": branch, "commit": f"{index // 10:040x}", "bench": "synthetic", "run": str(index)}
        batch.append(
            (FlameGraph.from_texts(values, metadata=Metadata(unit="samples", metric="cpu", labels=labels)), f"run-{index}")
        )
        if len(batch) == args.batch or index == args.profiles - 1:
            start = time.perf_counter()
            store.add(batch)
            ingest_seconds += time.perf_counter() - start
            made += len(batch)
            batch = []
            if made % (args.batch * 10) == 0:
                print(f"  {made:,} profiles ingested ({made / ingest_seconds:.0f}/s)", file=sys.stderr, flush=True)
    store_bytes = directory_size(root)
    if args.queries_only:  # the size and ingest rows of the run that made the store
        gz_sizes = [folded_gz_size(v) for v in profiles(texts, args.gzip_sample, args.stacks, rng)]
        ingest_seconds = float("nan")
    gz_bytes = statistics.mean(gz_sizes) * args.profiles

    def mean_of_last_1000():
        snapshot = open_store(root).snapshot()
        return snapshot.graph(snapshot.select("store:branch=main,last=1000"), mean=True)

    def compare_matrix():
        snapshot = open_store(root).snapshot()
        a, b = snapshot.select("store:branch=main,last=30"), snapshot.select("store:branch=dev,last=30")
        profiles_, stacks, values = snapshot.facts(a + b)
        return snapshot.stack_texts(np.unique(stacks)), len(profiles_)

    rows = [
        ("profiles x stacks", f"{args.profiles:,} x {args.stacks:,} (of {args.universe:,})"),
        ("ingest", f"{args.profiles / ingest_seconds:,.0f} profiles/s ({ingest_seconds:.1f} s, parts of {args.batch})"),
        ("store size", f"{store_bytes / 1e6:,.1f} MB ({store_bytes / args.profiles / 1e3:.1f} kB a profile)"),
        ("gzipped folded", f"{gz_bytes / 1e6:,.1f} MB (est. from {len(gz_sizes)}); store / gzip = {store_bytes / gz_bytes:.3f}"),
    ]
    for name, query in (("mean of last 1,000 (main)", mean_of_last_1000), ("30 + 30 compare matrix", compare_matrix)):
        first, median, _ = timed(query, args.repeat)
        rows.append((name, f"{median * 1e3:,.0f} ms median of {args.repeat} (first {first * 1e3:,.0f} ms)"))
    if args.compact:
        start = time.perf_counter()
        done = open_store(root).gc()
        rows.append(
            (
                "gc (compaction)",
                f"{time.perf_counter() - start:.1f} s: {done.parts_before} parts -> {done.parts_after}; "
                f"{directory_size(root) / 1e6:,.1f} MB (replaced parts kept 1 h)",
            )
        )
        for name, query in (("mean of last 1,000, compacted", mean_of_last_1000), ("30 + 30 matrix, compacted", compare_matrix)):
            first, median, _ = timed(query, args.repeat)
            rows.append((name, f"{median * 1e3:,.0f} ms median of {args.repeat} (first {first * 1e3:,.0f} ms)"))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    rows.append(("peak memory (RSS)", f"{peak / 1e6:,.0f} MB"))
    load = os.getloadavg()
    print(
        f"\nbench_store on {platform.node()} ({os.cpu_count()} cores), Python {platform.python_version()}, "
        f"load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}"
    )
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")
    if not args.dir:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
