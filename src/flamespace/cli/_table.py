"""Terminal tables (``top``, ``plan``): rich's SIMPLE_HEAD layout, written without rich when it can be.

Importing rich (with typing, dataclasses, inspect) and laying out a table with it costs
several times python's own start-up (docs/performance.md), so :func:`print_table` writes the
common case itself: the same bytes rich writes, plain or coloured, when every cell is
printable ASCII and the table fits the width. Anything else (wider tables, which rich folds;
other characters, whose width rich measures; a terminal, whose width rich finds) goes to
rich, as before. tests/cli/test_table.py compares the two on many tables.
"""

from __future__ import annotations

import sys

from . import _style

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Optional, Sequence, Tuple, Union

    from rich.console import Console
    from rich.text import Text

#: A table's width in a pipe (a terminal: its own).
PIPE_WIDTH = 200
#: rich's style of the header row ("table.header").
HEADER_STYLE = "bold"
#: The most characters of a cell shown: a longer cell (a frame name of megabytes) is cut there and
#: says how many characters it leaves out. rich folds a long cell in time quadratic in its
#: length (`top` with a 10 MB frame name took 41 s).
MAX_CELL_CHARS = 4096


class Cell:
    """A cell's text with a style for all of it and styles for parts (``spans``: start, end,
    style), as rich's ``Text(text, style=style)`` with ``stylize(style, start, end)``."""

    __slots__ = ("text", "style", "spans")

    def __init__(self, text: str, style: str = "", spans: "Sequence[Tuple[int, int, str]]" = ()) -> None:
        self.text, self.style, self.spans = text, style, tuple(spans)

    def rich_text(self) -> "Text":
        from rich.text import Text

        text = Text(self.text, style=self.style)
        for start, end, style in self.spans:
            text.stylize(style, start, end)
        return text


def print_table(title: "Optional[str]", headers: "Sequence[str]", rows: "Sequence[Sequence[Union[str, Cell]]]",
                right: "Sequence[bool]") -> None:
    """Print a table on stdout; wide enough for long frame names when stdout is not a terminal.

    Cells are shown as they are (a frame named ``f_[k]`` is no rich markup); a cell may be a
    :class:`Cell` with styles (cli/_style.py), shown only when stdout is coloured. A cell longer
    than :data:`MAX_CELL_CHARS` is cut (:func:`shortened`)."""
    rows = [[shortened(cell) for cell in row] for row in rows]
    text = None if sys.stdout.isatty() else plain_table(title, headers, rows, right, PIPE_WIDTH, _style.enabled(sys.stdout))
    if text is not None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    rich_table(stdout_console(), title, headers, rows, right)


def shortened(cell: "Union[str, Cell]") -> "Union[str, Cell]":
    """``cell`` cut to its first :data:`MAX_CELL_CHARS` characters and a note of how many more it
    has, when it is longer (its styled parts cut with it)."""
    text = cell if isinstance(cell, str) else cell.text
    if len(text) <= MAX_CELL_CHARS:
        return cell
    cut = f"{text[:MAX_CELL_CHARS]}… [{len(text) - MAX_CELL_CHARS:,} more characters]"
    if isinstance(cell, str):
        return cut
    spans = [(start, min(end, MAX_CELL_CHARS), style) for start, end, style in cell.spans if start < MAX_CELL_CHARS]
    return Cell(cut, cell.style, spans)


def rich_table(console: "Console", title: "Optional[str]", headers: "Sequence[str]",
               rows: "Sequence[Sequence[Union[str, Cell]]]", right: "Sequence[bool]") -> None:
    """The table printed by rich on ``console`` (what :func:`plain_table` writes when it can)."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    if title:
        console.print(title, soft_wrap=True, markup=False)
    table = Table(box=box.SIMPLE_HEAD)
    for header, is_right in zip(headers, right):
        table.add_column(header, justify="right" if is_right else "left", overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell) if isinstance(cell, str) else cell.rich_text() for cell in row))
    console.print(table)


#: Ranges of characters rich gives one column (besides printable ASCII): Latin, Greek,
#: punctuation, arrows, mathematical operators, box drawing and geometric shapes (Δ, ▲, …, µ);
#: tests/cli/test_table.py checks every one against rich's own measure.
ONE_COLUMN = (("\xa0", "\u02ff"), ("\u0370", "\u03ff"), ("\u2010", "\u2027"), ("\u2030", "\u205e"),
              ("\u2190", "\u22ff"), ("\u2500", "\u25fc"))


def _simple(text: str) -> bool:
    """Printable characters of one column each: nothing rich would strip or measure otherwise."""
    if not text.isprintable():
        return False
    return text.isascii() or all(c <= "~" or any(low <= c <= high for low, high in ONE_COLUMN) for c in text)


def _no_emoji_code(text: str) -> bool:
    """No ``:name:`` that rich's console.print could replace by an emoji (two colons with no space between)."""
    return all(any(c.isspace() for c in part) for part in text.split(":")[1:-1])


def plain_lines(lines: "Sequence[str]", width: "Optional[int]" = None) -> "Optional[str]":
    """What rich's ``console.print(line, markup=False)`` writes for each line, uncoloured
    (``soft_wrap=True`` when ``width`` is None, else lines must fit ``width``); None when rich
    would change one (emoji codes, control characters, tabs)."""
    if not all(_simple(line) and _no_emoji_code(line) and (width is None or len(line) <= width) for line in lines):
        return None
    return "".join(line + "\n" for line in lines)


def plain_table(title: "Optional[str]", headers: "Sequence[str]", rows: "Sequence[Sequence[Union[str, Cell]]]",
                right: "Sequence[bool]", width: int, coloured: bool) -> "Optional[str]":
    """What rich prints for :func:`print_table` on a console ``width`` columns wide (coloured:
    in the 16 standard colours), or None when it is not the simple case this writes."""
    if title and plain_lines([title]) is None:
        return None
    cells = [[cell if isinstance(cell, Cell) else Cell(cell) for cell in row] for row in rows]
    if not all(_simple(header) and header == header.strip() for header in headers) or not all(
            _simple(cell.text) for row in cells for cell in row):
        return None
    widths = [len(header) for header in headers]
    for row in cells:
        if len(row) != len(headers):
            return None
        widths = [max(w, len(cell.text)) for w, cell in zip(widths, row)]
    total = sum(widths) + 3 * len(widths) + 1  # a space of padding either side of each cell, edges and dividers
    if total > width or not headers or not all(widths):
        return None
    paint = _style.paint if coloured else _unpainted
    lines = [title] if title else []
    lines.append(" " * total)  # the box's top (SIMPLE_HEAD: blank)
    lines.append(" " + " ".join(
        paint(" ", HEADER_STYLE) + paint(_justified(header, w, r), HEADER_STYLE) + paint(" ", HEADER_STYLE)
        for header, w, r in zip(headers, widths, right)) + " ")
    lines.append(" " + "─" * (total - 2) + " ")
    for row in cells:
        lines.append(" " + " ".join(" " + _cell(cell, w, r, paint) + " " for cell, w, r in zip(row, widths, right)) + " ")
    lines.append(" " * total)  # the box's bottom
    return "\n".join(lines) + "\n"


def _unpainted(text: str, style: "Optional[str]") -> str:
    return text


def _justified(text: str, width: int, right: bool) -> str:
    """Padded to ``width`` as rich justifies a line that fits (right: trailing spaces dropped first)."""
    return text.rstrip().rjust(width) if right else text.ljust(width)


def _cell(cell: Cell, width: int, right: bool, paint: "Callable[[str, Optional[str]], str]") -> str:
    """A cell as rich writes it: the cell's style over its text and the spaces that justify it,
    each span's style over its part; one piece (one escape sequence) from each span boundary
    to the next, as rich's Text.render splits it."""
    length = len(cell.text.rstrip()) if right else len(cell.text)
    text = _justified(cell.text, width, right)
    shift = len(text) - length if right else 0
    spans = [(start + shift, min(end, length) + shift, style) for start, end, style in cell.spans if start < length and end > start]
    cuts = sorted({0, len(text), *(start for start, _, _ in spans), *(end for _, end, _ in spans)})
    pieces = []
    for start, end in zip(cuts, cuts[1:]):
        styles = [cell.style] + [style for low, high, style in spans if low <= start and end <= high]
        pieces.append(paint(text[start:end], " ".join(s for s in styles if s) or None))
    return "".join(pieces)


def stdout_console() -> "Console":
    """A rich console on stdout: as wide as the terminal (200 columns in a pipe), coloured as
    cli/_style.py says, and leaving a closed pipe to the CLI's convention."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            """Let the BrokenPipeError through: rich would exit 1, our convention is the CLI's (docs/troubleshooting.md)."""
            self.quiet = True
            raise  # noqa: PLE0704 - called by rich inside its ``except BrokenPipeError``

    return _Console(file=sys.stdout, width=None if sys.stdout.isatty() else PIPE_WIDTH, highlight=False,
                    **_style.console_options(sys.stdout))  # type: ignore[arg-type]
