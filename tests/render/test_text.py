"""flamespace text: the tree, its threshold, differential changes, the CLI."""

from __future__ import annotations

import pytest

import flamespace as fs
from flamespace.cli import main
from flamespace.render import TextOptions, text

from ..conftest import DATA

G = fs.FlameGraph({("main", "parse"): 60, ("main", "eval"): 39, ("main", "tiny"): 1})


def test_tree_with_shares_and_branches() -> None:
    assert text(G, TextOptions(threshold=0.05)) == (
        " 100.00%  all (100 samples)\n"
        " 100.00%  └─ main (100 samples)\n"
        "  39.00%     ├─ eval (39 samples)\n"
        "  60.00%     └─ parse (60 samples)\n"
    )


def test_threshold_depth_and_order() -> None:
    assert "tiny" in text(G, TextOptions(threshold=0.01))
    assert "eval" not in text(G, TextOptions(max_depth=1))
    lines = text(G, TextOptions(sort_by_value=True)).splitlines()
    assert lines[2].endswith("parse (60 samples)")


def test_differential_shows_the_change() -> None:
    out = text(fs.Differential(G, G * 2), TextOptions())
    assert "main (200 samples) [+50.00%]" in out


def test_bad_threshold() -> None:
    with pytest.raises(fs.ArgumentError):
        TextOptions(threshold=5)


def test_cli_text(capsys: pytest.CaptureFixture) -> None:
    assert main(["text", "--threshold", "10%", str(DATA / "render" / "small.folded")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(" 100.00%  all (122 samples)\n") and "lex" in out and "idle" not in out
    assert main(["text", "--threshold", "lots", str(DATA / "render" / "small.folded")]) == 1
