"""Fixtures of the history and cluster tests (imported by them; not a conftest, which the store's own
tests own): a small store of synthetic profiles: 12 commits of a program on branch main, 3 runs each,
one stack doubling from commit 8 on; and the same profiles in memory, to check the store's
queries against stats.history's reference computation."""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
import pytest

from .profiles import profiles

pytest.importorskip("duckdb", reason="the store tests need the extra flamespace[store] (duckdb, pyarrow)")

START = datetime(2026, 11, 1, 9, 0)
COMMITS, RUNS, STEP = 12, 3, 8


def synthetic(commits: int = COMMITS, runs: int = RUNS, step: int = STEP, seed: int = 11) -> list:
    """(values by stack text, commit, time) of each profile, oldest first; whole-number values."""
    from flamespace.stats.history import ProfileRecord

    rng = np.random.default_rng(seed)
    out = []
    for c in range(commits):
        for r in range(runs):
            values = {
                "main;parse": int(rng.poisson(200 if c >= step else 100)),
                "main;parse;lex": int(rng.poisson(40)),
                "main;io": int(rng.poisson(300)),
                "main": int(rng.poisson(20)),
            }
            if rng.random() < 0.4:
                values["main;rare"] = int(rng.integers(1, 4))
            out.append(ProfileRecord(f"{c:02d}abc", START + timedelta(hours=7 * c, minutes=r), values))
    return out


@pytest.fixture
def records() -> list:
    return synthetic()


@pytest.fixture
def snapshot(tmp_path, records):
    from flamespace.core.metadata import Metadata
    from flamespace.store import open_store

    store = open_store(str(tmp_path / "store"))
    items = [
        (
            r.values,
            Metadata(unit="samples", labels={"commit": r.commit, "time": r.time.isoformat(), "branch": "main"}),
            f"run-{i}.folded",
        )
        for i, r in enumerate(records)
    ]
    half = len(items) // 2  # two parts, as two CI jobs would leave
    store.add(profiles(items[:half]))
    store.add(profiles(items[half:]))
    return store.snapshot()


def awkward(root, count: int = 23, seed: int = 5):
    """A store of profiles whose medians are easy to get wrong: stacks missing from many
    profiles, fractions, one profile of total 0 (empty).
    Returns (snapshot, ids, texts, dense values profiles × stacks, totals), ids in insertion order."""
    from flamespace.core.metadata import Metadata
    from flamespace.store import open_store

    rng = np.random.default_rng(seed)
    texts = ["a", "a;b", "a;c", "a;d"]
    rows = []
    for i in range(count - 1):
        values = {
            t: float(rng.integers(0, 9)) / (2 if t == "a;d" else 1) for t in texts if rng.random() < (0.3 if t == "a;c" else 0.7)
        }
        rows.append({t: v for t, v in values.items() if v} or {"a": 1.0})
    rows.append({})  # total 0: its shares count 0
    store = open_store(str(root))
    store.add(profiles([(r, Metadata(unit="ns", labels={"run": str(i)}), f"r{i}.folded") for i, r in enumerate(rows)]))
    snapshot = store.snapshot()
    ids = [snapshot.select(f"store:run={i}")[0] for i in range(len(rows))]
    dense = np.array([[r.get(t, 0.0) for t in texts] for r in rows])
    return snapshot, ids, texts, dense, dense.sum(axis=1)
