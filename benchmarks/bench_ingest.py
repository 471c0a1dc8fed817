"""serve's ingest per window, in process: reading a pushed pprof window, and storing windows in batches.

    python benchmarks/bench_ingest.py [--stacks 200 2000] [--windows 60] [--batches 1 10 30]

The windows are bench_serve.py's (a call tree of Python-like frames, a 100 Hz sampler's values
over 10 s, gzipped pprof in a PushRequest as pyroscope-io sends it). "read" is what the server does
with a push before the writer: gunzip, decode the PushRequest, read its pprof (ms a window);
"store" is one ``Store.add`` of a batch of windows of services seen before (the writer's group
commit: ms a batch and ms a window), into a store that already holds each service's stacks.
Medians of ``--repeat``. To time another tree of the package (a copy of ``src/`` from before a
change), run with ``PYTHONPATH=/that/src``: the table names the package it timed.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import flamespace  # noqa: E402
from bench_serve import T0, request, stacks, window  # noqa: E402
from flamespace.store import Store  # noqa: E402
from flamespace.workflows.serve.app import gunzip  # noqa: E402
from flamespace.workflows.serve.ingest import push_request  # noqa: E402
from flamespace.workflows.serve.writer import Writer  # noqa: E402

NOW = datetime(2026, 11, 28)
SERVICES = 4


def bodies(count: int, services: list[list[str]], rng: random.Random, first: int = 0) -> list[bytes]:
    """``count`` pushes, services in turn, each a window after the one before."""
    return [
        request(
            {"service_name": f"svc{k % len(services)}", "region": "eu"},
            window(services[k % len(services)], T0 + timedelta(seconds=10 * (k // len(services))), rng),
        )
        for k in range(first, first + count)
    ]


def read(body: bytes) -> list:
    """What the server does with a push before the writer."""
    return push_request(gunzip(body, 1 << 28), "application/proto", NOW)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stacks", type=int, nargs="+", default=[200, 2000])
    parser.add_argument("--windows", type=int, default=60, help="windows read (and stored) per size")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 10, 30])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"package: {os.path.dirname(flamespace.__file__)}")
    print(f"{'stacks':>6} {'read ms/window':>15} " + " ".join(f"{f'store {b}: ms (/window)':>22}" for b in args.batches))
    for size in args.stacks:
        services = [stacks(size, rng) for _ in range(SERVICES)]
        pushes = bodies(args.windows, services, rng)
        reads = []
        for _ in range(args.repeat):
            began = time.perf_counter()
            windows = [one for body in pushes for one in read(body)]
            reads.append((time.perf_counter() - began) / len(pushes))
        cells = []
        with tempfile.TemporaryDirectory() as directory:
            writer = Writer(Store(os.path.join(directory, "store")), compact_after=10**9)
            try:
                writer.submit(windows[:SERVICES]).result()  # every service's stacks stored once
                offset = SERVICES
                for batch in args.batches:
                    times = []
                    for _ in range(args.repeat):
                        fresh = [one for body in bodies(batch, services, rng, first=offset) for one in read(body)]
                        offset += batch
                        began = time.perf_counter()
                        writer.submit(fresh).result()
                        times.append(time.perf_counter() - began)
                    took = statistics.median(times)
                    cells.append(f"{took * 1000:9.1f} ({took * 1000 / batch:5.2f})")
            finally:
                writer.close()
        print(f"{size:>6} {statistics.median(reads) * 1000:15.2f} " + " ".join(f"{c:>22}" for c in cells))
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
