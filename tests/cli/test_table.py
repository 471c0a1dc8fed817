"""cli/_table.py writes rich's SIMPLE_HEAD tables itself when it can: the same bytes, plain and coloured."""

from __future__ import annotations

import io

from hypothesis import given, settings, strategies as st
from rich.console import Console

from flamespace.cli import _style
from flamespace.cli._table import Cell, plain_table, rich_table

STYLES = ["", "bold", "dim", "yellow", "bold red", "red", "green", "bold yellow dim"]
ASCII = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=14)
#: Headers are rich markup when they are strings: ours are plain words.
HEADER = st.text(st.sampled_from("abcdefghij %"), min_size=0, max_size=9).map(str.strip)


def rich_output(title, headers, rows, right, width, coloured):
    options = {"color_system": "standard", "force_terminal": True, "no_color": False} if coloured else {"color_system": None}
    console = Console(file=io.StringIO(), width=width, highlight=False, **options)
    rich_table(console, title, headers, rows, right)
    return console.file.getvalue()


@st.composite
def cells(draw):
    text = draw(st.text(max_size=6) if draw(st.integers(0, 9)) == 0 else ASCII)  # other characters: left to rich
    if draw(st.booleans()):
        return text
    spans = draw(st.lists(st.tuples(st.integers(0, 16), st.integers(0, 16), st.sampled_from(STYLES[1:])), max_size=3))
    return Cell(text, draw(st.sampled_from(STYLES)), spans)


@st.composite
def tables(draw):
    columns = draw(st.integers(1, 5))
    headers = draw(st.lists(HEADER, min_size=columns, max_size=columns))
    right = draw(st.lists(st.booleans(), min_size=columns, max_size=columns))
    rows = draw(st.lists(st.lists(cells(), min_size=columns, max_size=columns), max_size=5))
    title = draw(st.one_of(st.none(), st.just(""), ASCII, ASCII, st.text(max_size=8)))
    return title, headers, rows, right


@settings(max_examples=400, deadline=None)
@given(tables(), st.integers(10, 120), st.booleans())
def test_the_same_bytes_as_rich_or_left_to_it(table, width, coloured):
    title, headers, rows, right = table
    ours = plain_table(title, headers, rows, right, width, coloured)
    if ours is not None:
        assert ours == rich_output(title, headers, rows, right, width, coloured)


def test_the_common_case_is_written_without_rich():
    rows = [["12", Cell("75.00%", "bold red"), "3", Cell(" 5.00%", "yellow"), Cell("f (app.py:3)", spans=[(1, 12, "dim")])],
            ["0", "0.00%", "4", "100.00%", "main"]]
    headers, right = ["self", "self %", "inclusive", "incl %", "function"], [True, True, True, True, False]
    for coloured in (False, True):
        ours = plain_table("Top 2", headers, rows, right, 200, coloured)
        assert ours is not None and ours == rich_output("Top 2", headers, rows, right, 200, coloured)
    assert plain_table("Top", headers, rows, right, 20, False) is None  # too wide: rich folds it
    assert plain_table("Top", ["naïve Δ"], [["x ▲ …"]], [False], 200, False) == rich_output("Top", ["naïve Δ"], [["x ▲ …"]], [False], 200, False)
    assert plain_table("Top", ["中"], [["x"]], [False], 200, False) is None  # two columns: left to rich
    assert plain_table("a :smile: b", ["x"], [["x"]], [False], 200, False) is None  # an emoji code in the title


def test_paint_without_rich_is_what_rich_paints():
    from rich.color import ColorSystem
    from rich.style import Style

    words = list(_style.ATTRIBUTES) + list(_style.COLOURS)
    for style in words + ["bold red", "dim yellow", "red bold", "green dim bold", "bold red dim", "red green"]:
        start, _, end = Style.parse(style).render("\0", color_system=ColorSystem.STANDARD).partition("\0")
        assert _style._sgr(style) == (start, end), style


def test_one_column_characters_are_one_column_for_rich():
    from rich.cells import cell_len

    from flamespace.cli._table import ONE_COLUMN

    wide = [hex(ord(c)) for low, high in ONE_COLUMN for c in map(chr, range(ord(low), ord(high) + 1))
            if c.isprintable() and cell_len(c) != 1]
    assert not wide


#: Pieces of lines with what rich's console.print changes: emoji codes, tabs, control and wide characters.
PIECES = list("ab :;_-Δ▲…µ≤中\u0301\t\x07") + [":smile:", ":+1:", ": x:", "a:b:c"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=8).map("".join), max_size=4), st.one_of(st.none(), st.integers(5, 40)))
def test_plain_lines_are_what_rich_prints_or_left_to_it(lines, width):
    from flamespace.cli._table import plain_lines

    ours = plain_lines(lines, width)
    if ours is not None:
        console = Console(file=io.StringIO(), width=width or 200, highlight=False, color_system=None)
        for line in lines:
            console.print(line, markup=False, soft_wrap=width is None)
        assert ours == console.file.getvalue()


def test_plain_lines_leave_emoji_codes_tabs_and_controls_to_rich():
    from flamespace.cli._table import plain_lines

    assert plain_lines(["Δ_r: 1 ms; …;f (a.py:3);g ≤ 5%"]) is not None
    for line in ["a :smile: b", "a\tb", "a\x07", "a\u0301", "中"]:
        assert plain_lines([line]) is None
    assert plain_lines(["a" * 11], 10) is None
