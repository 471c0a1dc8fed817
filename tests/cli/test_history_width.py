"""flamespace history's table fits the terminal (80 columns in a pipe) with deep stacks of long
frame names: stacks are shortened from the root end, the leaf kept; JSON keeps the full text."""

from __future__ import annotations

import json

import pytest

from flamespace.cli import main
from flamespace.cli.history import MIN_STACK
from flamespace.stats.report import short_stack

pytest.importorskip("duckdb", reason="flamespace history needs the extra flamespace[store] (duckdb, pyarrow)")

FRAMES = [
    f"{name} (/home/someone/src/project/{name}.py:{line})"
    for name, line in [("<module>", 1), ("main", 12), ("run_all", 40), ("dispatch", 77), ("render", 31)]
]


def test_short_stack_keeps_the_leaf_and_fits_the_width():
    stack = ["<module>", "main", "render (versions.py:31)"]
    assert short_stack(stack) == "<module>;main;render (versions.py:31)"
    assert short_stack(stack, width=30) == "…;main;render (versions.py:31)"
    assert short_stack(stack, width=25) == "…;render (versions.py:31)"
    assert short_stack(stack, width=20) == "…;render (…ns.py:31)"  # the leaf's middle cut
    assert short_stack(stack, width=8) == "ren…:31)"
    assert short_stack(["a"] * 9) == "…;a;a;a;a"  # at most four frames, as before


@pytest.fixture
def store(tmp_path, monkeypatch, capsys):
    path = tmp_path / "store"
    for commit in range(12):
        runs = tmp_path / f"c{commit}"
        runs.mkdir()
        for run in range(2):
            slow = 400 if commit >= 6 else 100
            (runs / f"run{run}.folded").write_text(
                f"{';'.join(FRAMES)} {slow + run}\n{';'.join(FRAMES[:3])} {300 + run + 3 * commit}\n{';'.join(FRAMES[:2])} 50\n"
            )
        assert (
            main(
                [
                    "store",
                    "add",
                    str(runs),
                    "--no-git",
                    "--store",
                    str(path),
                    "--label",
                    "branch=main",
                    "--label",
                    f"commit=c{commit}",
                    "--label",
                    f"time=2026-11-{commit + 1:02d}T00:00:00",
                ]
            )
            == 0
        )
    capsys.readouterr()
    return str(path)


@pytest.mark.parametrize("columns", [80, 120])
def test_the_table_fits_the_width_and_json_keeps_the_stacks(store, capsys, monkeypatch, columns):
    """At 120 columns every line fits; at 80 the other columns take most of the room and the stack
    column is its minimum (the table is as narrow as it can be without cutting the changes)."""
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(["history", "store:branch=main", "--store", store]) == 0
    out = capsys.readouterr().out
    title, *table = out.splitlines()
    assert "History of 3 stacks over 12 commits" in title
    stack_column = table[1].index("trend") - table[1].index("stack") - 3
    assert max(len(line) for line in table) <= max(columns, len(table[1]) - stack_column + MIN_STACK)
    assert max(len(line) for line in table) < 130
    render = next(line for line in table if "render (" in line)
    assert "render.py:31)" in render and "c6: 100 → 400" in render  # the leaf, and the commit where it grew
    assert main(["history", "store:branch=main", "--store", store, "--format", "json"]) == 0
    stacks = [s["stack"] for s in json.loads(capsys.readouterr().out)["stacks"]]
    assert ";".join(FRAMES) in stacks
