"""Tables on stdout (``top``, ``plan``, ``store ls``, ...): flamespace._table's renderer at the
terminal's width (:data:`PIPE_WIDTH` in a pipe), coloured as cli/_style.py says, each cell cut
to :data:`MAX_CELL_CHARS`."""

from __future__ import annotations

import sys

from .._table import Cell, render
from . import _style

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Cell", "MAX_CELL_CHARS", "PIPE_WIDTH", "print_table", "shortened", "stdout_width"]

#: A table's width in a pipe (a terminal: its own).
PIPE_WIDTH = 200
#: The most characters of a cell shown: a longer cell (a frame name of megabytes) is cut there and
#: says how many characters it leaves out (`top` with a 10 MB frame name once took 41 s to fold).
MAX_CELL_CHARS = 4096


def stdout_width() -> int:
    """The width of what goes to stdout: the terminal's, or :data:`PIPE_WIDTH` (long frame names in a pipe)."""
    if sys.stdout.isatty():
        from ._help import terminal_columns

        return terminal_columns()
    return PIPE_WIDTH


def print_table(title: str | None, headers: Sequence[str], rows: Sequence[Sequence[str | Cell]], right: Sequence[bool]) -> None:
    """Print a table on stdout. Cells are shown as they are; a cell may be a :class:`Cell` with
    styles (cli/_style.py), shown only when stdout is coloured. A cell longer than
    :data:`MAX_CELL_CHARS` is cut (:func:`shortened`)."""
    rows = [[shortened(cell) for cell in row] for row in rows]
    paint = _style.paint if _style.enabled(sys.stdout) else None
    sys.stdout.write(render(title, headers, rows, right, stdout_width(), paint))
    sys.stdout.flush()


def shortened(cell: str | Cell) -> str | Cell:
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
