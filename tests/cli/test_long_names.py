"""Tables with a frame name of megabytes (issue 24: `top` with a 10 MB frame name took 41 s, most
of it the table folding the name into 166,000 lines of the table). A cell is cut to
cli/_table.MAX_CELL_CHARS characters and says how many it leaves out; --json keeps the name whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flamespace.cli import main
from flamespace.cli._table import MAX_CELL_CHARS, Cell, shortened

LONG = 1_000_000  # characters: a table row of 16,000 folded lines before


def long_profile(tmp_path: Path) -> Path:
    path = tmp_path / "long.folded"
    path.write_text(f"main;{'x' * (LONG - 3)}:12 5\nmain;b 3\n")
    return path


def test_top_cuts_a_frame_name_of_a_megabyte_and_says_how_much(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    assert main(["top", "--by", "line", str(long_profile(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert f"x…[{LONG - MAX_CELL_CHARS:,}morecharacters]" in "".join(out.split())  # (the table folds the cell)
    assert out.count("x") == MAX_CELL_CHARS  # the name's first characters, once
    assert len(out.splitlines()) < 4 * MAX_CELL_CHARS // 60  # the table stays the size of its cut cells


def test_top_json_keeps_the_whole_name(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    assert main(["top", "--by", "line", "--json", str(long_profile(tmp_path))]) == 0
    names = [row["name"] for row in json.loads(capsys.readouterr().out)["functions"]]
    assert max(map(len, names)) == LONG


def test_a_cut_cell_keeps_its_styles_within_what_is_shown() -> None:
    cell = Cell(
        "y" * (MAX_CELL_CHARS + 10),
        "bold",
        [(2, 5, "dim"), (MAX_CELL_CHARS - 1, MAX_CELL_CHARS + 5, "red"), (MAX_CELL_CHARS + 1, MAX_CELL_CHARS + 9, "dim")],
    )
    cut = shortened(cell)
    assert isinstance(cut, Cell) and cut.text == "y" * MAX_CELL_CHARS + "… [10 more characters]"
    assert cut.style == "bold" and cut.spans == ((2, 5, "dim"), (MAX_CELL_CHARS - 1, MAX_CELL_CHARS, "red"))
    assert shortened("short") == "short" and shortened(cell.text[:MAX_CELL_CHARS]) == cell.text[:MAX_CELL_CHARS]
