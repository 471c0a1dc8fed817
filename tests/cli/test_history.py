"""flamespace history, run through main([...]) on a small store, embedded and on a 2-worker Dask LocalCluster."""

from __future__ import annotations

import json
import xml.dom.minidom

import pytest

from flamespace.cli import main

pytest.importorskip("duckdb", reason="flamespace history needs the extra flamespace[store] (duckdb, pyarrow)")

from ..store.history_data import STEP, records, snapshot  # noqa: E402,F401 (fixtures)


@pytest.fixture
def store(snapshot):
    return snapshot.root


def test_the_table_names_the_commit_where_parse_doubled(store, capsys):
    assert main(["history", "store:branch=main", "--store", store]) == 0
    out = capsys.readouterr().out
    assert "History of 5 stacks over 12 commits" in out and "family-wise α = 0.05" in out
    parse = next(line for line in out.splitlines() if "main;parse " in line)
    assert f"{STEP:02d}abc: " in parse and "p = " in parse


def test_json_markdown_and_svg(store, tmp_path, capsys):
    picture = tmp_path / "trend.svg"
    assert (
        main(["history", "store:branch=main", "--store", store, "--stack", "parse", "--format", "json", "--svg", str(picture)])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert [s["stack"] for s in data["stacks"]] == ["main;parse", "main;parse;lex"]
    assert [c["point"] for c in data["stacks"][0]["changes"]] == [f"{STEP:02d}abc"]
    assert data["stack_alpha"] == pytest.approx(0.025)
    assert data["level"] == "median" and len(data["stacks"][0]["levels"]) == 12  # the series tested: medians per commit
    xml.dom.minidom.parse(str(picture))  # well-formed
    assert main(["history", "store:branch=main", "--store", store, "--top", "1", "--format", "markdown"]) == 0
    assert capsys.readouterr().out.count("| `main") == 1


def test_by_day_and_share(store, capsys):
    assert main(["history", "store:branch=main", "--store", store, "--by", "day", "--metric", "share", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["by"] == "day" and data["metric"] == "share" and data["points"][0]["name"] == "2026-11-01"


def test_normalised_with_too_few_stacks_says_so_and_tests_the_values(store, capsys):
    """Four stacks above 0 (rare is absent from most runs): too few for a load, so the values, and a note."""
    assert main(["history", "store:branch=main", "--store", store, "--metric", "normalised", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["metric"] == "value" and "values are not normalised" in data["notes"][0]
    parse = next(s for s in data["stacks"] if s["stack"] == "main;parse")
    assert [c["point"] for c in parse["changes"]] == [f"{STEP:02d}abc"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["store:branch=nope"], "store:branch=nope matches no profile"),
        (["store:branch=main", "--stack", "no-such-frame"], "no stack of the selected profiles matches 'no-such-frame'"),
        (["store:branch=main", "--stack", "("], "bad regular expression"),
        (["store:branch=main", "--cluster", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler at tcp://127.0.0.1:9"),
        (["store:branch=main", "--alpha", "nan"], "nan is not in the range 0<x<1"),  # was: internal error (ceil of nan)
        (["store:branch=main", "--seed", "-1"], "the seed must be at least 0, not -1"),  # was: internal error (numpy)
        (["store:branch=main", "--svg", ""], "the output path is empty"),  # was: ignored, exit 0
    ],
)
def test_errors_are_one_line_and_exit_1(store, capsys, monkeypatch, args, message):
    if "--cluster" in args:
        pytest.importorskip("distributed", reason="needs the extra flamespace[cluster]")
        from flamespace.store import cluster

        monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 0.5)
    assert main(["history", *args, "--store", store]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_the_cluster_gives_the_same_report(store, capsys, monkeypatch):
    pytest.importorskip("distributed", reason="the cluster path needs the extra flamespace[cluster]")
    from distributed import LocalCluster

    assert main(["history", "store:branch=main", "--store", store, "--format", "json"]) == 0
    embedded = capsys.readouterr().out
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as local:
        monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", local.scheduler_address)
        assert main(["history", "store:branch=main", "--store", store, "--format", "json"]) == 0
    assert capsys.readouterr().out == embedded


def test_normalised_with_a_pattern_reads_the_load_from_the_largest_stacks(tmp_path, capsys):
    """Following one stack, its load comes from the same profiles' largest stacks: the load step at c06
    is not a change of s0, its own growth at c12 is (before, too few stacks: the values, both steps)."""
    from datetime import datetime, timedelta

    import numpy as np

    from flamespace.core.metadata import Metadata
    from flamespace.core.vector import FlameGraph
    from flamespace.store import open_store

    rng = np.random.default_rng(5)
    items = []
    for c in range(18):
        load, grown = (1.6 if c >= 6 else 1.0), (1.5 if c >= 12 else 1.0)
        for r in range(3):
            values = {f"main;s{k}": float(rng.poisson(400 * (k + 1) * load * (grown if k == 0 else 1))) for k in range(8)}
            labels = {
                "commit": f"c{c:02d}",
                "time": (datetime(2026, 11, 1) + timedelta(hours=c, minutes=r)).isoformat(),
                "app": "api",
            }
            items.append((FlameGraph.from_texts(values, metadata=Metadata(unit="samples", labels=labels)), f"c{c}-{r}.folded"))
    root = str(tmp_path / "store")
    open_store(root).add(items)
    args = ["history", "store:app=api", "--store", root, "--stack", "s0$", "--format", "json"]
    assert main([*args, "--metric", "normalised"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["metric"] == "normalised" and not data["notes"]
    assert [c["point"] for c in data["stacks"][0]["changes"]] == ["c12"]
    assert main([*args, "--metric", "value"]) == 0
    assert [c["point"] for c in json.loads(capsys.readouterr().out)["stacks"][0]["changes"]] == ["c06", "c12"]
