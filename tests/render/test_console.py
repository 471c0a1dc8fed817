"""render/console.py: the short tree record prints, from a fixed profile (golden files, plain and
coloured), and the laws it keeps: every line adds up, one thread only when the others only waited."""

from __future__ import annotations

from pathlib import Path

import pytest

from flamespace import FlameGraph, read
from flamespace.cli import _style
from flamespace.cli._console import styled
from flamespace.core.metadata import Metadata
from flamespace.errors import ArgumentError
from flamespace.render.console import ConsoleOptions, console_lines, console_text, console_tree, others_only_waited, summary

from ..conftest import DATA, assert_golden

APP = DATA / "render" / "console" / "app.folded"
CASES = {
    "default": ConsoleOptions(),
    "all-threads": ConsoleOptions(thread="all"),
    "show-all": ConsoleOptions(show_all=True),
    "min-share-10": ConsoleOptions(min_share=0.10),
}


@pytest.mark.parametrize("case", CASES)
def test_golden_plain(case: str, tmp_path: Path) -> None:
    assert_golden(console_text(read(str(APP)), CASES[case]), f"render/console/{case}.txt", tmp_path)


def test_golden_coloured(tmp_path: Path) -> None:
    """The colours a terminal gets (cli/_style.py's styles): shares by size, locations dimmed, notes in cyan."""
    tree = console_tree(read(str(APP)))
    text = "".join(styled(line) + "\n" for line in console_lines(tree))
    assert_golden(text, "render/console/default.ansi", tmp_path)
    assert "\x1b[2m (app.py:16)\x1b[0m" in text and "\x1b[36m" in text


def test_the_coloured_tree_is_the_plain_one_with_escape_codes() -> None:
    import re

    tree = console_tree(read(str(APP)), ConsoleOptions(thread="all"))
    for line in console_lines(tree):
        assert re.sub(r"\x1b\[[0-9;]*m", "", styled(line)) == line.text


@pytest.mark.parametrize("case", CASES)
def test_every_line_adds_up(case: str) -> None:
    """A line's value is what it says it holds (self, folded library, waiting, smaller calls) plus its children's."""
    tree = console_tree(read(str(APP)), CASES[case])
    rows = tree.rows
    for index, row in enumerate(rows):
        children = []
        for later in rows[index + 1 :]:
            if later.depth <= row.depth:
                break
            if later.depth == row.depth + 1:
                children.append(later.value)
        assert row.value == sum(value for _, value in row.parts) + sum(children), row
    assert sum(row.value for row in rows if row.depth == 0) == tree.total


def test_the_main_thread_alone_when_the_others_only_waited() -> None:
    graph = read(str(APP))
    assert others_only_waited(graph, 0.02) == ("MainThread", 2)
    tree = console_tree(graph)
    assert tree.thread == "MainThread" and tree.total == graph.total() - 962_000_000
    assert "2 other threads only waited" in summary(tree)


def test_every_thread_when_another_one_ran() -> None:
    labels = {"roots": "thread", "threads": "2"}
    metadata = Metadata(unit="ns", labels=labels)
    ran = FlameGraph({("MainThread", "a (app.py:1)"): 100, ("Worker", "b (app.py:2)"): 30}, metadata=metadata)
    assert others_only_waited(ran, 0.02) == (None, 0)
    assert [row.name for row in console_tree(ran).rows if row.depth == 0] == ["MainThread", "Worker"]
    waited = FlameGraph({("MainThread", "a (app.py:1)"): 100, ("Worker", "b (app.py:2)", "[idle]"): 300}, metadata=metadata)
    assert others_only_waited(waited, 0.02) == ("MainThread", 1)
    # without thread root frames there is nothing to choose
    assert others_only_waited(FlameGraph({("a (app.py:1)",): 1}), 0.02) == (None, 0)


def test_a_thread_by_name_and_raw_counts() -> None:
    tree = console_tree(read(str(APP)), ConsoleOptions(thread="Thread-1 (poll)"))
    assert [row.name for row in tree.rows] == ["poll (app.py:24)"]
    assert tree.rows[0].via == ()  # a root reached through library code: no caller to name
    text = "".join(line.text for line in console_lines(tree, raw=True))
    assert "482,000,000 ns" in text


def test_options_are_checked() -> None:
    with pytest.raises(ArgumentError, match="min_share"):
        ConsoleOptions(min_share=1.5)


def test_styles_are_known_words() -> None:
    from flamespace.cli._console import STYLES

    for style in STYLES.values():
        assert _style.paint("x", style).startswith("\x1b[")
