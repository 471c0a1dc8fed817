"""The store's aggregations on a 2-worker Dask LocalCluster give what the embedded engine gives.

Workers are threads of this process (processes=False): a cluster starts in about 0.05 s and
the test does not depend on the machine's load. CI installs the extra (make test); elsewhere
the test skips naming it.
"""

from __future__ import annotations

import sys

import numpy as np

import pytest

pytest.importorskip("distributed", reason="the cluster tests need the extra flamespace[cluster] (dask, distributed)")

from flamespace.store import aggregate, cluster  # noqa: E402
from flamespace.store.history import history  # noqa: E402
from .profiles import profiles

from .history_data import awkward, records, snapshot  # noqa: E402,F401 (fixtures)


@pytest.fixture(scope="module")
def dask_cluster():
    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as local,
        Client(local, set_as_default=False) as client,
    ):
        yield cluster.Cluster(client)


def test_grouped_is_identical_on_the_cluster(snapshot, dask_cluster):
    ids = snapshot.select("store:branch=main")
    keys = [i % 4 for i in range(len(ids))]
    embedded = aggregate.Embedded().grouped(snapshot, ids, keys)
    remote = dask_cluster.grouped(snapshot, ids, keys)
    for name in ("keys", "stacks", "counts", "sums", "squares"):
        assert getattr(remote, name).tolist() == getattr(embedded, name).tolist(), name
        assert getattr(remote, name).dtype == getattr(embedded, name).dtype, name


def test_mean_matrix_moments_and_history_are_identical_on_the_cluster(snapshot, dask_cluster):
    ids = snapshot.select("store:branch=main,last=20")
    assert aggregate.mean(snapshot, ids, dask_cluster) == aggregate.mean(snapshot, ids)
    texts, matrix, rows = aggregate.matrix(snapshot, ids)
    got = aggregate.matrix(snapshot, ids, dask_cluster)
    assert got[0] == texts and got[1].tolist() == matrix.tolist() and got[2] == rows
    groups = {"baseline": ids[:10], "candidate": ids[10:]}
    here, there = aggregate.moments(snapshot, groups), aggregate.moments(snapshot, groups, dask_cluster)
    assert there.stacks == here.stacks and there.sums.tolist() == here.sums.tolist()
    assert there.squares.tolist() == here.squares.tolist() and there.n.tolist() == here.n.tolist()
    for by in ("commit", "day"):
        a, b = history(snapshot, ids, by, "parse", None), history(snapshot, ids, by, "parse", None, dask_cluster)
        assert (a.points, a.stacks, a.runs.tolist(), a.totals.tolist(), a.sums.tolist(), a.squares.tolist()) == (
            b.points,
            b.stacks,
            b.runs.tolist(),
            b.totals.tolist(),
            b.sums.tolist(),
            b.squares.tolist(),
        )
        assert a.medians.tolist() == b.medians.tolist() and a.median_shares.tolist() == b.median_shares.tolist()


@pytest.mark.parametrize("stacks", [None, "some"])
def test_medians_are_identical_on_the_cluster(tmp_path, dask_cluster, stacks):
    """Grouped by key on the cluster, then the median: the embedded query's numbers exactly, with
    profiles missing stacks, negative values, a profile of total 0, odd and even groups, a
    profile in two groups, and more reducers than one."""
    view, ids, _, _, totals = awkward(tmp_path / "store")
    origin = list(range(len(ids))) + [len(ids) - 2, len(ids) - 1]
    keys = [i % 5 for i in range(len(ids))] + [5, 5]
    chosen = None if stacks is None else aggregate.stack_sums(view, ids)[0].tolist()[1:3]
    args = (view, [ids[i] for i in origin], keys, totals[origin], chosen)
    here, there = aggregate.Embedded().medians(*args), dask_cluster.medians(*args)
    assert len(here.keys) > 6
    for name in ("keys", "stacks", "values", "shares"):
        assert getattr(there, name).tolist() == getattr(here, name).tolist(), name
        assert getattr(there, name).dtype == getattr(here, name).dtype, name


def test_a_selection_of_no_stored_stack_is_empty_on_both(snapshot, dask_cluster):
    ids = snapshot.select("store:branch=main,last=3")
    assert dask_cluster.grouped(snapshot, ids, [0, 0, 0], stacks=[10**6]).keys.tolist() == []
    assert aggregate.Embedded().grouped(snapshot, ids, [0, 0, 0], stacks=[10**6]).keys.tolist() == []


def test_the_address_comes_from_the_option_then_the_environment(monkeypatch):
    monkeypatch.delenv(cluster.ENV, raising=False)
    assert cluster.address(None) is None and isinstance(cluster.engine(None), aggregate.Embedded)
    monkeypatch.setenv(cluster.ENV, "tcp://scheduler:8786")
    assert cluster.address(None) == "tcp://scheduler:8786"
    assert cluster.address("tcp://other:8786") == "tcp://other:8786"


def test_an_unreachable_scheduler_is_named(monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 0.5)
    with pytest.raises(cluster.ClusterError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        cluster.engine("tcp://127.0.0.1:9")


def test_a_missing_extra_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now raises ImportError
    with pytest.raises(cluster.ClusterError, match=r"pip install 'flamespace\[cluster\]'"):
        cluster.engine("tcp://127.0.0.1:8786")


def test_a_profile_in_two_groups_counts_in_both(snapshot, dask_cluster):
    ids = snapshot.select("store:branch=main,last=8")
    both = list(ids) + list(ids[:3])  # the first three are in group 0 and group 1
    keys = [0] * len(ids) + [1] * 3
    embedded = aggregate.Embedded().grouped(snapshot, both, keys)
    remote = dask_cluster.grouped(snapshot, both, keys)
    assert remote.keys.tolist() == embedded.keys.tolist() and remote.sums.tolist() == embedded.sums.tolist()
    assert set(embedded.keys.tolist()) == {0, 1}


def test_row_groups_without_a_selected_profile_are_not_read(tmp_path, monkeypatch, dask_cluster):
    from flamespace.core.metadata import Metadata
    from flamespace.store import open_store
    from flamespace.store import store as store_module

    from .history_data import synthetic

    monkeypatch.setattr(store_module, "ROW_GROUP", 20)  # 4-5 stacks a profile: a row group holds 4-5 profiles
    target = open_store(str(tmp_path / "small-groups"))
    target.add(
        profiles(
            [
                (
                    r.values,
                    Metadata(unit="samples", labels={"commit": r.commit, "time": r.time.isoformat(), "branch": "main"}),
                    f"run-{i}",
                )
                for i, r in enumerate(synthetic())
            ]
        )
    )
    snap = target.snapshot()
    ids = snap.select("store:branch=main,last=6")
    files = snap.part_files("facts")
    everything = cluster.plan(files, np.asarray(sorted(snap.select("store:branch=main")), np.int64))
    chosen = cluster.plan(files, np.asarray(sorted(ids), np.int64))
    groups = [g for _, task in chosen for g in task]
    assert 0 < len(groups) < sum(len(task) for _, task in everything) / 3
    keys = list(range(len(ids)))
    assert dask_cluster.grouped(snap, ids, keys).sums.tolist() == aggregate.Embedded().grouped(snap, ids, keys).sums.tolist()
