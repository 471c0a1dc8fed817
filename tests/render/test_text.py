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


def test_lines_stream_and_stay_short_however_deep_the_stack() -> None:
    """Linear in the frames: a generator of lines whose length does not grow with depth
    (the branches of a 100,000-deep stack once made the output quadratic: 300 s, 7.3 GB)."""
    import inspect

    from flamespace.render.text import INDENT_LEVELS, iter_text_lines

    deep = fs.FlameGraph({tuple(f"f{i}" for i in range(3 * INDENT_LEVELS)): 7})
    assert inspect.isgenerator(iter_text_lines(deep))
    lines = list(iter_text_lines(deep, TextOptions(threshold=0)))
    assert len(lines) == 3 * INDENT_LEVELS + 1
    longest_branch = 3 * INDENT_LEVELS + len(f"[+{2 * INDENT_LEVELS}] └─ ")
    assert max(len(line) for line in lines) <= len(" 100.00%  ") + longest_branch + len(f"f{3 * INDENT_LEVELS} (7 samples)")
    assert lines[-1].endswith(f"   [+{2 * INDENT_LEVELS - 1}] └─ f{3 * INDENT_LEVELS - 1} (7 samples)")
    assert "[+" not in "".join(lines[: INDENT_LEVELS + 2])  # levels up to the limit are drawn as before


def test_text_writes_line_by_line() -> None:
    class Counting:
        def __init__(self) -> None:
            self.writes: list = []

        def write(self, text: str) -> int:
            self.writes.append(text)
            return len(text)

    out = Counting()
    assert text(G, TextOptions(threshold=0), out) is None  # type: ignore[arg-type]
    assert len(out.writes) == 5 and "".join(out.writes) == text(G, TextOptions(threshold=0))


def test_the_library_names_counts_by_the_profiles_unit_as_the_cli_does():
    """fs.render.text(g, fs.TextOptions()) printed '658,589,088 samples' for a profile in ns
    (the CLI said 659 ms); raw=True or a countname gives exact counts."""
    graph = fs.FlameGraph({("main", "work"): 658_589_088}, unit="ns")
    assert "work (659 ms)" in text(graph, TextOptions())
    assert "work (658,589,088 ns)" in text(graph, TextOptions(raw=True))
    assert "work (658,589,088 ticks)" in text(graph, TextOptions(countname="ticks", raw=True))
    assert "work (2.00 KiB)" in text(fs.FlameGraph({("main", "work"): 2048}, unit="bytes"), TextOptions())
    assert "work (5 samples)" in text(fs.FlameGraph({("main", "work"): 5}), TextOptions())
