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
    items = [(r.values, Metadata(unit="samples", labels={"commit": r.commit, "time": r.time.isoformat(), "branch": "main"}),
              f"run-{i}.folded") for i, r in enumerate(records)]
    half = len(items) // 2  # two parts, as two CI jobs would leave
    store.add(profiles(items[:half]))
    store.add(profiles(items[half:]))
    return store.snapshot()
