"""store get, compare and plan on store: selectors give the same output on a 2-worker Dask
LocalCluster (--cluster, or $DASK_SCHEDULER_ADDRESS) as in this process.

Workers are threads of this process (processes=False): the cluster starts in a fraction of a
second and nothing depends on the machine's load. Skipped, naming the extra, without it.
"""

from __future__ import annotations

import json

import pytest

from flamespace.cli import main

from .test_compare import write_runs

pytest.importorskip("duckdb")
pytest.importorskip("distributed", reason="the cluster path needs the extra flamespace[cluster]")


@pytest.fixture(scope="module")
def scheduler():
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as local:
        yield local.scheduler_address


@pytest.fixture
def stored(tmp_path, monkeypatch, capsys):
    """A store with 12 baseline runs (branch main) and 12 candidate runs (branch pr); the candidate's files."""
    monkeypatch.setenv("FLAMESPACE_STORE", str(tmp_path / "store"))
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    base, cand = write_runs(tmp_path / "base", 1, False), write_runs(tmp_path / "cand", 2, True)
    assert main(["store", "add", str(base), "--no-git", "--label", "branch=main"]) == 0
    assert main(["store", "add", str(cand), "--no-git", "--label", "branch=pr"]) == 0
    capsys.readouterr()
    return cand


def output(capsys, args, code=0):
    assert main([str(a) for a in args]) == code
    return capsys.readouterr().out


@pytest.mark.parametrize(
    "args, code",
    [
        (["compare", "-a", "store:branch=main", "-b", "{cand}", "--json"], 3),
        (["compare", "-a", "store:branch=main,last=10", "-b", "store:branch=pr", "-m", "welch"], 3),
        (["plan", "store:branch=main", "--detect", "5%", "--json"], 0),
        (["store", "get", "store:branch=main"], 0),
        (["store", "get", "store:branch=pr", "--mean", "--to", "speedscope"], 0),
    ],
)
def test_the_cluster_gives_what_the_embedded_store_gives(capsys, stored, scheduler, monkeypatch, args, code):
    args = [str(stored) if a == "{cand}" else a for a in args]
    embedded = output(capsys, args, code)
    assert embedded.strip()
    assert output(capsys, [*args, "--cluster", scheduler], code) == embedded
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", scheduler)
    assert output(capsys, args, code) == embedded
    if "--json" in args:
        json.loads(embedded)


def test_an_unreachable_cluster_is_one_line_and_exit_1(capsys, stored, monkeypatch):
    from flamespace.store import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 0.5)
    assert main(["compare", "-a", "store:branch=main", "-b", str(stored), "--cluster", "tcp://127.0.0.1:9"]) == 1
    err = capsys.readouterr().err
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err and "Traceback" not in err
