"""The one table renderer (flamespace/_table.py) and cli/_table.py's use of it."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from flamespace._table import Cell, display_width, render
from flamespace.cli import _style

HEADERS, RIGHT = ["self", "self %", "function"], [True, True, False]


def test_the_layout():
    rows = [["12", "75.00%", "f (app.py:3)"], ["0", "0.00%", "main"]]
    rule = " " + "─" * 30 + " "
    assert render("Top 2", HEADERS, rows, RIGHT, 200).splitlines() == [
        "Top 2",
        " " * 32,
        "  self   self %   function      ",
        rule,
        "    12   75.00%   f (app.py:3)  ",
        "     0    0.00%   main          ",
        " " * 32,
    ]


def test_a_wide_table_folds_its_widest_column_at_spaces_first():
    rows = [["1", "2%", "alpha beta gamma delta"], ["3", "4%", "x" * 25]]
    assert render(None, HEADERS, rows, RIGHT, 30).splitlines()[3:9] == [
        "     1       2%   alpha beta  ",
        "                  gamma       ",
        "                  delta       ",
        "     3       4%   xxxxxxxxxx  ",
        "                  xxxxxxxxxx  ",
        "                  xxxxx       ",
    ]


def test_wide_and_combining_characters_and_controls():
    assert display_width("中文") == 4 and display_width("e\u0301") == 1 and display_width("Δ▲…µ") == 4
    text = render(None, ["a"], [["中文"], ["e\u0301\tx"]], [False], 200)
    assert text.splitlines()[3] == "  中文  " and text.splitlines()[4] == "  e\u0301?x   "


def test_colours_are_the_cells_and_their_parts():
    rows = [[Cell("ab", "red", [(1, 2, "bold")])]]
    assert render(None, ["h"], rows, [False], 200, _style.paint) == (
        "      \n \x1b[1m h  \x1b[0m \n ──── \n  \x1b[31ma\x1b[0m\x1b[1;31mb\x1b[0m  \n      \n"
    )
    assert _style._sgr("bold red dim") == ("\x1b[1;2;31m", "\x1b[0m") and _style._sgr("red green") == ("\x1b[32m", "\x1b[0m")


@st.composite
def tables(draw):
    columns = draw(st.integers(1, 4))
    words = st.text(st.sampled_from("ab Δ中;_:\u0301"), max_size=30)
    headers = draw(st.lists(st.text(st.sampled_from("abc %"), max_size=8), min_size=columns, max_size=columns))
    rows = draw(st.lists(st.lists(words, min_size=columns, max_size=columns), max_size=4))
    right = draw(st.lists(st.booleans(), min_size=columns, max_size=columns))
    return headers, rows, right


@settings(max_examples=300, deadline=None)
@given(tables(), st.integers(5, 80))
def test_every_line_is_as_wide_as_the_table_and_no_text_is_lost(table, width):
    headers, rows, right = table
    lines = render(None, headers, rows, right, width).splitlines()
    total = display_width(lines[0])
    assert all(display_width(line) == total for line in lines)
    least = 2 * len(headers) + 3 * len(headers) + 1  # no column narrower than its widest character
    assert total <= max(width, least)
    shown = "".join(lines).replace(" ", "").replace("─", "")
    for cell in [*headers, *(cell for row in rows for cell in row)]:
        for piece in cell.split():
            assert piece in shown or all(p in shown for p in piece)
