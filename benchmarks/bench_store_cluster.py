"""The store's queries embedded (DuckDB) and on a 2-worker Dask LocalCluster, and what 10^6 profiles would cost.

    python benchmarks/bench_store_cluster.py [--profiles 2000] [--stacks 5000] [--shared 20000]
        [--repeat 3] [--store DIR] [--threads-cluster] [--workers 2]

Builds (or reuses, with --store DIR) a store of synthetic profiles shaped as runs of one
program: each profile holds --stacks stacks drawn from --shared shared ones (the popular ones
in nearly every profile), Poisson counts, ten profiles a commit, 90% on branch main. Then
times, as medians of --repeat runs, the same queries on each engine:

    mean 1000     the mean profile of the last 1,000 main-branch profiles
    matrix 30+30  the runs × stacks matrix of the last 30 main profiles and 30 of a branch
    moments 30+30 n, Σ, Σ² per side and stack of the same 60 profiles
    history all   the history series (top 20 stacks by commit) of every main-branch profile

and, for the embedded store, the store's own ``Snapshot.graph(mean=True)`` and
``Snapshot.matrix`` as the reference. Results are checked to be identical across engines.
The cluster's workers are processes (threads with --threads-cluster), started once; its
start-up is reported apart. Also: ingest rate, bytes per profile on disk, peak memory.

From the per-profile costs it prints the projection of docs/performance.md: 10^6 profiles
(storage, a full-history query, a recent-window query) on one machine and on N workers.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from typing import Any, Callable

import numpy as np

from flamespace.core.metadata import Metadata
from flamespace.core.vector import FlameGraph
from flamespace.formats import folded
from flamespace.store import aggregate, open_store
from flamespace.store.history import history

START = datetime(2026, 1, 1)


def stack_texts(shared: int, rng: np.random.Generator) -> list[str]:
    """``shared`` distinct stacks of a call tree: each one a child of an earlier one (depth grows like log)."""
    frames = [f"mod{i % 97}.fn{i} (mod{i % 97}.py:{10 + i % 300})" for i in range(shared)]
    texts = ["main"]
    for i in range(1, shared):
        parent = texts[int(rng.integers(0, len(texts)))]
        texts.append(parent + ";" + frames[i])
    return texts


def build(path: str, profiles: int, stacks: int, shared: int, seed: int = 1) -> dict[str, float]:
    """A store of ``profiles`` synthetic profiles at ``path``; the ingest's rate, size and gzipped-folded size."""
    import gzip

    rng = np.random.default_rng(seed)
    texts = stack_texts(shared, rng)
    popularity = 1.0 / np.arange(1, shared + 1) ** 0.8
    popularity /= popularity.sum()
    means = 2000 * popularity * shared / 50
    store = open_store(path)
    batch, folded_bytes, started = [], 0, time.perf_counter()
    for i in range(profiles):
        chosen = np.sort(rng.choice(shared, size=stacks, replace=False, p=popularity))
        counts = rng.poisson(means[chosen]) + 1
        values = dict(zip((texts[j] for j in chosen.tolist()), counts.tolist()))
        branch = "main" if i % 10 else "feature"
        labels = {"commit": f"{i // 10:07x}", "branch": branch, "time": (START + timedelta(minutes=10 * i)).isoformat()}
        if i < 20:  # a sample of the gzipped folded size (the peer a user keeps today)
            folded_bytes += len(gzip.compress("".join(f"{t} {v}\n" for t, v in values.items()).encode()))
        batch.append((FlameGraph.from_texts(values, metadata=Metadata(unit="samples", labels=labels)), f"run-{i}.folded"))
        if len(batch) == 200:  # one part per 200 profiles, as CI jobs would add them
            store.add(batch)
            batch = []
    if batch:
        store.add(batch)
    seconds = time.perf_counter() - started
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)
    return {"ingest_s": seconds, "bytes": size, "folded_gz_per_profile": folded_bytes / min(profiles, 20)}


def median_time(function: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The median of ``repeat`` timed calls after one untimed one (caches, a worker's first imports)."""
    result = function()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "load average %.2f, %.2f, %.2f" % os.getloadavg()


def queries(snapshot: Any) -> dict[str, tuple[Callable[[Any], Any], int]]:
    """name -> (the query on an engine, profiles it reads)."""
    main = snapshot.select("store:branch=main")
    last = main[-1000:]
    quarter = main[-(len(main) // 4) :]
    pair = main[-30:] + snapshot.select("store:branch=feature,last=30")
    return {
        "mean 1000": (lambda e: aggregate.mean(snapshot, last, e), len(last)),
        "matrix 30+30": (lambda e: aggregate.matrix(snapshot, pair, e)[1], len(pair)),
        "moments 30+30": (lambda e: aggregate.moments(snapshot, {"a": pair[:30], "b": pair[30:]}, e).sums, len(pair)),
        "history 1/4": (lambda e: history(snapshot, quarter, "commit", None, 20, e).sums, len(quarter)),
        "history all": (lambda e: history(snapshot, main, "commit", None, 20, e).sums, len(main)),
    }


def same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a == b
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profiles", type=int, default=2000)
    parser.add_argument("--stacks", type=int, default=5000)
    parser.add_argument("--shared", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--store", default=None, help="Keep (or reuse) the store here instead of a temporary directory.")
    parser.add_argument("--threads-cluster", action="store_true", help="Workers as threads of this process, not processes.")
    args = parser.parse_args()

    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"# before: {uptime()}")
    temporary = args.store is None
    path = args.store or tempfile.mkdtemp(prefix="flamespace-bench-store-")
    built: dict[str, float] = {}
    if not os.path.exists(os.path.join(path, "MANIFEST.json")):
        built = build(path, args.profiles, args.stacks, args.shared)
    snapshot = open_store(path).snapshot()
    count = snapshot.count()
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)
    print(
        f"store: {count:,} profiles of {args.stacks:,} stacks ({count * args.stacks:,} facts), "
        f"{size / 2**20:,.1f} MiB = {size / count / 1024:,.1f} KiB a profile"
    )
    if built:
        print(
            f"ingest: {count / built['ingest_s']:,.0f} profiles/s; gzipped folded file: "
            f"{built['folded_gz_per_profile'] / 1024:,.1f} KiB a profile (store/gzip = {size / count / built['folded_gz_per_profile']:.2f})"
        )

    chosen = queries(snapshot)
    embedded = aggregate.Embedded()
    rows: list[tuple[str, int, float, float, float]] = []
    results: dict[str, Any] = {}
    main_ids = snapshot.select("store:branch=main")
    reference = {
        "mean 1000": lambda: folded.texts(snapshot.graph(main_ids[-1000:], mean=True)),
        "matrix 30+30": lambda: snapshot.matrix(main_ids[-30:] + snapshot.select("store:branch=feature,last=30"))[1],
    }
    for name, (run, n) in chosen.items():
        seconds, results[name] = median_time(lambda: run(embedded), args.repeat)
        own = median_time(reference[name], args.repeat)[0] if name in reference else float("nan")
        rows.append((name, n, seconds, own, float("nan")))

    from distributed import Client, LocalCluster

    started = time.perf_counter()
    with (
        LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=not args.threads_cluster, dashboard_address=":0"
        ) as local,
        Client(local) as client,
    ):
        startup = time.perf_counter() - started
        from flamespace.store.cluster import Cluster

        remote = Cluster(client)
        for i, (name, (run, n)) in enumerate(chosen.items()):
            seconds, got = median_time(lambda: run(remote), args.repeat)
            if not same(got, results[name]):
                raise SystemExit(f"{name}: the cluster's result differs from the embedded one")
            rows[i] = rows[i][:4] + (seconds,)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"cluster: {args.workers} workers ({'threads' if args.threads_cluster else 'processes'}), started in {startup:.2f} s; "
        "every result identical to the embedded engine's"
    )
    print()
    print("| query | profiles read | embedded (DuckDB) | store's own query | Dask, 2 workers | Dask / embedded |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, n, here, own, there in rows:
        shown_own = f"{own:.3f} s" if own == own else "—"
        print(f"| {name} | {n:,} | {here:.3f} s | {shown_own} | {there:.3f} s | {there / here:.1f}x |")
    print()
    print(f"peak memory of this process: {peak:,.0f} MiB; after: {uptime()}")
    project(rows, size / count, args)
    if temporary:
        shutil.rmtree(path, ignore_errors=True)


def project(rows: list[tuple[str, int, float, float, float]], bytes_per_profile: float, args: argparse.Namespace) -> None:
    """10^6 profiles: a scan's cost is fixed + per profile × profiles, the two fitted from the
    history of a quarter and of all the main-branch profiles (each engine apart); windowed
    queries (the last 1,000, 30 + 30) read the same profiles whatever the store's size."""
    quarter = next(r for r in rows if r[0] == "history 1/4")
    full = next(r for r in rows if r[0] == "history all")
    million = 10**6
    print()
    print(f"projection to 10^6 profiles of {args.stacks:,} stacks ({bytes_per_profile * million / 2**30:,.1f} GiB of Parquet):")
    for label, column, workers in (("embedded", 2, 1), (f"Dask, {args.workers} workers", 4, args.workers)):
        slope = (full[column] - quarter[column]) / (full[1] - quarter[1])
        fixed = max(full[column] - slope * full[1], 0.0)
        print(f"  history scan, {label}: {fixed:.2f} s + {slope * 1e6:,.0f} µs a profile -> {fixed + slope * million:,.0f} s")
        if workers > 1:
            per_worker = slope * workers
            for n in (8, 32, 128):
                print(f"    on {n} such workers (linear scaling assumed): {fixed + per_worker * million / n:,.0f} s")


if __name__ == "__main__":
    sys.exit(main())
