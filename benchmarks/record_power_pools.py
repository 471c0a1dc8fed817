"""Turn `flamespace collect` directories into the compact real pools bench_power_detectable.py resamples.

Each pool: runs × the 20 widest stacks (wall ns, 1000 Hz), the rest summed into one column.
Recorded with (load in docs/statistics.md, "Power you can bank on"):

    flamespace collect -n 40 -o /tmp/real_work --rate 1000 -- work.py     # CPU: json, regex, sha256, sort
    flamespace collect -n 40 -o /tmp/real_mixed --rate 1000 -- mixed.py   # zlib, sleep, dict build
    python benchmarks/record_power_pools.py tests/data/power/real_pools.npz work=/tmp/real_work mixed=/tmp/real_mixed
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

WIDEST = 20


def pool(directory: Path) -> np.ndarray:
    runs = []
    for path in sorted(directory.glob("*.folded")):
        counts: dict = {}
        for line in path.read_text().splitlines():
            if line.startswith("#") or not line.strip():
                continue
            stack, value = line.rsplit(" ", 1)
            counts[stack] = counts.get(stack, 0.0) + float(value)
        runs.append(counts)
    stacks = sorted({s for r in runs for s in r})
    matrix = np.array([[r.get(s, 0.0) for s in stacks] for r in runs])
    order = np.argsort(-matrix.mean(axis=0), kind="stable")
    widest, rest = order[:WIDEST], order[WIDEST:]
    return np.column_stack([matrix[:, widest], matrix[:, rest].sum(axis=1)])


def main() -> None:
    out, *pairs = sys.argv[1:]
    np.savez_compressed(out, **{name: pool(Path(d)) for name, d in (p.split("=", 1) for p in pairs)})


if __name__ == "__main__":
    main()
