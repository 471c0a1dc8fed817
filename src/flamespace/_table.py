"""Text tables for a terminal or a pipe (``top``, ``plan``, ``store ls``, compare's report): the one renderer.

A table is an optional title line, then a blank line as wide as the table, the header row, a
rule of ``─``, the rows and a blank line; each cell has a space of padding either side and
columns a space between them. A table wider than ``width`` narrows its widest columns and
folds their cells onto more lines (at a space when a line has one, else anywhere). Widths are
display columns: East Asian wide characters count two, combining marks none; control
characters (a tab in a frame name) are shown as ``?`` so that they cannot break the layout.
Styles are the caller's: ``paint(text, style)`` returns the text with its colour codes
(cli/_style.py), or is left out for plain text.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings (PEP 563)
if TYPE_CHECKING:
    from typing import Callable, Optional
    from collections.abc import Sequence

    Paint = Callable[[str, Optional[str]], str]

#: The style of the header row.
HEADER_STYLE = "bold"
RULE = "\u2500"


class Cell:
    """A cell's text with a style for all of it and styles for parts (``spans``: start, end, style)."""

    __slots__ = ("text", "style", "spans")

    def __init__(self, text: str, style: str = "", spans: Sequence[tuple[int, int, str]] = ()) -> None:
        self.text, self.style, self.spans = text, style, tuple(spans)


def shown(text: str) -> str:
    """``text`` with each control character (tab, newline, escape) replaced by ``?``."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else "?" for c in text)


def display_width(text: str) -> int:
    """The columns ``text`` takes on a terminal: wide characters two, combining marks none."""
    if text.isascii():
        return len(text)
    from unicodedata import combining, east_asian_width

    return sum(0 if combining(c) else 2 if east_asian_width(c) in "WF" else 1 for c in text)


def _plain(text: str, style: str | None) -> str:
    return text


def render(
    title: str | None,
    headers: Sequence[str],
    rows: Sequence[Sequence[str | Cell]],
    right: Sequence[bool],
    width: int,
    paint: Paint | None = None,
) -> str:
    """The table as text lines (each ending in a newline), at most ``width`` columns wide when its
    columns can be narrowed that far (one column each at the least)."""
    paint = paint or _plain
    cells = [[_cell(cell) for cell in row] for row in rows]
    heads = [shown(header) for header in headers]
    if any(len(row) != len(heads) for row in cells):
        raise ValueError("every row needs a cell per header")
    columns = [[h] + [row[c].text for row in cells] for c, h in enumerate(heads)]
    widths = fitted(
        [max(map(display_width, texts)) for texts in columns],
        width,
        [max((display_width(ch) for text in texts for ch in text), default=1) for texts in columns],
    )
    total = sum(widths) + 3 * len(widths) + 1
    lines = [shown(title)] if title else []
    lines.append(" " * total)
    head_lines = [[h[a:b] for a, b in _folded(Cell(h), w)] for h, w in zip(heads, widths)]
    for index in range(max(len(h) for h in head_lines)):
        lines.append(
            " "
            + " ".join(
                paint(" " + _justified(head[index] if index < len(head) else "", w, r) + " ", HEADER_STYLE)
                for head, w, r in zip(head_lines, widths, right)
            )
            + " "
        )
    lines.append(" " + RULE * (total - 2) + " ")
    for row in cells:
        folded = [_folded(cell, w) for cell, w in zip(row, widths)]
        for index in range(max(len(f) for f in folded)):
            lines.append(
                " "
                + " ".join(
                    " " + _painted(cell, _slice(pieces, index), w, r, paint) + " "
                    for cell, pieces, w, r in zip(row, folded, widths, right)
                )
                + " "
            )
    lines.append(" " * total)
    return "".join(line + "\n" for line in lines)


def fitted(widths: list[int], width: int, least: Sequence[int] | None = None) -> list[int]:
    """Column widths narrowed (the widest first) until the table fits ``width``, none below its
    ``least`` (default 1: a column of wide characters needs 2)."""
    widths = list(widths)
    floor = [min(w, max(low, 1)) for w, low in zip(widths, least or [1] * len(widths))]
    excess = sum(widths) + 3 * len(widths) + 1 - width
    while excess > 0:
        narrowable = [c for c, w in enumerate(widths) if w > floor[c]]
        if not narrowable:
            break
        widest = max(widths[c] for c in narrowable)
        at_widest = [c for c in narrowable if widths[c] == widest]
        below = max([widths[c] for c in narrowable if widths[c] < widest], default=0)
        step = max(min(widest - below, -(-excess // len(at_widest))), 1)
        for c in at_widest:
            cut = min(step, excess, widths[c] - floor[c])
            widths[c] -= cut
            excess -= cut
            if excess <= 0:
                break
    return widths


def _cell(cell: str | Cell) -> Cell:
    if isinstance(cell, str):
        return Cell(shown(cell))
    return Cell(shown(cell.text), cell.style, cell.spans)


def _folded(cell: Cell, width: int) -> list[tuple[int, int]]:
    """The (start, end) slices of the cell's lines at ``width`` columns: broken after the last
    space that fits, else where the width ends; the spaces at a break are dropped."""
    text = cell.text
    if display_width(text) <= width:
        return [(0, len(text))]
    slices = []
    start = 0
    while start < len(text):
        end, used = start, 0
        while end < len(text) and used + display_width(text[end]) <= width:
            used += display_width(text[end])
            end += 1
        if end == start:
            end += 1  # a character wider than the column
        if end < len(text):
            space = text.rfind(" ", start, end + 1)
            if space > start:
                end = space
        slices.append((start, len(text[start:end].rstrip(" ")) + start))
        start = end
        while start < len(text) and text[start] == " ":
            start += 1
    return slices or [(0, 0)]


def _slice(pieces: list[tuple[int, int]], index: int) -> tuple[int, int] | None:
    return pieces[index] if index < len(pieces) else None


def _justified(text: str, width: int, right: bool) -> str:
    """Padded to ``width`` columns (right: trailing spaces dropped first)."""
    if right:
        text = text.rstrip()
        return " " * (width - display_width(text)) + text
    return text + " " * (width - display_width(text))


def _painted(cell: Cell, part: tuple[int, int] | None, width: int, right: bool, paint: Paint) -> str:
    """One line of a cell: the cell's style over its text and the spaces that justify it, each
    span's style over its part (one piece from each span boundary to the next)."""
    start, end = part if part is not None else (0, 0)
    body = cell.text[start:end]
    length = len(body.rstrip()) if right else len(body)
    text = _justified(body, width, right)
    shift = len(text) - length if right else 0
    spans = [
        (max(low, start) - start + shift, min(high, start + length) - start + shift, style)
        for low, high, style in cell.spans
        if low < start + length and high > max(low, start) and high > start
    ]
    cuts = sorted({0, len(text), *(a for a, _, _ in spans), *(b for _, b, _ in spans)})
    pieces = []
    for a, b in zip(cuts, cuts[1:]):
        styles = [cell.style] + [style for low, high, style in spans if low <= a and b <= high]
        pieces.append(paint(text[a:b], " ".join(s for s in styles if s) or None))
    return "".join(pieces)
