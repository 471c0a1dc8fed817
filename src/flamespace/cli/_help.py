"""``flamespace --help`` without click: the group's help, laid out as click lays it out.

Importing click costs about twice python's own start-up (docs/performance.md), so the
plainest call of all does without it. Its pieces are data (:data:`~flamespace.cli.HELP`,
:data:`~flamespace.cli.SUMMARIES`), the same the click group is built from, and
tests/cli/test_help_fast.py compares this text with click's at many terminal widths.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Sequence, Tuple

USAGE = "[OPTIONS] COMMAND [ARGS]..."
#: The group's own options, as click's --version and --help options describe themselves.
OPTIONS = (("--version", "Show the version and exit."), ("-h, --help", "Show this message and exit."))
#: The widest help text (the click group's context_settings["max_content_width"] too).
MAX_WIDTH = 100
INDENT = "  "


def terminal_columns() -> int:
    """The terminal's width as shutil.get_terminal_size() finds it ($COLUMNS, then stdout's
    terminal, then 80), without importing shutil (and the compressors it imports)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def _fill(text: str, width: int, first: str, rest: str) -> str:
    import textwrap

    return textwrap.TextWrapper(width, initial_indent=first, subsequent_indent=rest, replace_whitespace=False).fill(text)


def _paragraphs(text: str, width: int, indent: str) -> str:
    """Paragraphs (split at empty lines) rewrapped to ``width``, each indented as its first
    line is; one whose first line is ``\\b`` is kept line for line."""
    blocks: "List[Tuple[str, List[str]]]" = []
    for line in text.expandtabs().splitlines() + [""]:
        if not line:
            if blocks and blocks[-1][1]:
                blocks.append(("", []))
            continue
        if not blocks or not blocks[-1][1]:
            if blocks:
                blocks.pop()
            stripped = line.lstrip()
            blocks.append((" " * (len(line) - len(stripped)), [stripped]))
        else:
            blocks[-1][1].append(line)
    out = []
    for extra, lines in blocks:
        if not lines:
            continue
        if lines[0].strip() == "\b":
            out.append("\n".join(indent + extra + line for line in lines[1:]))
        else:
            out.append(_fill(" ".join(lines), width, indent + extra, indent + extra))
    return "\n\n".join(out)


def _definitions(rows: "Sequence[Tuple[str, str]]", width: int) -> "List[str]":
    """Terms and their text in two columns (click's definition list, at indent 2)."""
    first_col = min(max(len(term) for term, _ in rows), 30) + 2
    text_width = max(width - first_col - 2, 10)
    lines = []
    for term, text in rows:
        wrapped = _paragraphs(text, text_width, "").splitlines() if text else []
        if not wrapped:
            lines.append(INDENT + term)
            continue
        pad = " " * (first_col - len(term)) if len(term) <= first_col - 2 else "\n" + " " * (first_col + 2)
        lines.append(INDENT + term + pad + wrapped[0])
        lines.extend(" " * (first_col + 2) + line for line in wrapped[1:])
    return lines


def short_help(text: str, limit: int) -> str:
    """The first sentence of ``text``'s first paragraph, shortened to ``limit`` with "..." (as click does)."""
    words = text.partition("\n\n")[0].split()
    if words and words[0] == "\b":
        del words[0]
    for i, word in enumerate(words):
        if word.endswith(".") and (i == len(words) - 1 or not words[i + 1][0].islower()):
            words = words[: i + 1]
            break
    line = " ".join(words)
    if len(line) <= limit:
        return line
    if limit < 3:
        return "..."
    import textwrap

    return textwrap.shorten(line, limit, placeholder="...", break_on_hyphens=False)


def group_help(prog: str, help_text: str, summaries: "Sequence[Tuple[str, str]]", columns: int = 0) -> str:
    """The text of ``prog --help`` for a group with ``help_text`` and commands ``(name, help)``."""
    width = max(min(columns or terminal_columns(), MAX_WIDTH) - 2, 50)
    usage = "Usage: " + prog + " "
    parts = [_fill(USAGE, width, usage, " " * len(usage)), "", _paragraphs(help_text, width, INDENT), "", "Options:"]
    parts += _definitions(OPTIONS, width)
    limit = width - 6 - max(len(name) for name, _ in summaries)
    parts += ["", "Commands:", *_definitions([(name, short_help(text, limit)) for name, text in summaries], width)]
    return "\n".join(parts) + "\n"
