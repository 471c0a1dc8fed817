"""Every ``--help``: a group's (``flamespace``, ``flamespace store``) and a command's, from their data.

A help text is paragraphs, rewrapped to the terminal's width (at most :data:`MAX_WIDTH`); a
paragraph whose first line is ``\\b`` is kept line for line (examples), and text after ``\\f``
is for the code only. The wrapping is textwrap's, written out without importing textwrap
and re (start-up: docs/performance.md); tests/cli/test_help.py holds it to textwrap's.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ._options import Command

USAGE = "[OPTIONS] COMMAND [ARGS]..."
#: The help of ``flamespace --color``.
COLOR_HELP = "Colour tables and trees: auto colours a terminal, unless NO_COLOR is set (FORCE_COLOR: a pipe too)."
#: The options of ``flamespace`` itself.
OPTIONS = (
    ("--version", "Show the version and exit."),
    ("--color [auto|always|never]", COLOR_HELP + "  [default: auto]"),
    ("-h, --help", "Show this message and exit."),
)
#: The widest help text.
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


#: What textwrap counts as whitespace (ASCII only: a no-break space is part of a word).
_WHITESPACE = "\t\n\x0b\x0c\r "


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"  # what re's \w matches


def _letter(text: str, i: int) -> bool:
    return 0 <= i < len(text) and _word(text[i]) and not text[i].isdecimal()  # re's [^\d\W]


def _chunks(text: str, hyphens: bool = True) -> list[str]:
    """The pieces textwrap breaks lines between: runs of whitespace, and words, cut after a
    hyphen between letters (``py-spy``) and before an em-dash (``word--word``) when ``hyphens``
    (textwrap's wordsep_re, written out: the regular expression module costs start-up)."""
    chunks, i, n = [], 0, len(text)
    while i < n:
        j = i + 1
        if text[i] in _WHITESPACE:
            while j < n and text[j] in _WHITESPACE:
                j += 1
        elif not hyphens:
            while j < n and text[j] not in _WHITESPACE:
                j += 1
        else:
            dashes = i
            while dashes < n and text[dashes] == "-":
                dashes += 1
            if dashes - i >= 2 and i > 0 and _punct(text[i - 1]) and dashes < n and _word(text[dashes]):
                j = dashes  # an em-dash between words
            else:
                while j < n and text[j] not in _WHITESPACE:
                    if text[j] == "-" and _hyphen_breaks(text, j):
                        j += 1
                        break
                    if _punct(text[j - 1]) and _em_dash_at(text, j):
                        break
                    j += 1
        chunks.append(text[i:j])
        i = j
    return chunks


def _punct(c: str) -> bool:
    return _word(c) or c in "!\"'&.,?"


def _hyphen_breaks(text: str, j: int) -> bool:
    """Whether a line may break after the hyphen at ``j``: letters before it (``ab-`` or ``a-b-``)
    and after it (``cd`` or ``c-d``)."""
    before = (_letter(text, j - 2) and _letter(text, j - 1)) or (
        _letter(text, j - 3) and text[j - 2] == "-" and _letter(text, j - 1)
    )
    after = _letter(text, j + 1) and (_letter(text, j + 2) or (j + 2 < len(text) and text[j + 2] == "-" and _letter(text, j + 3)))
    return before and after


def _em_dash_at(text: str, j: int) -> bool:
    k = j
    while k < len(text) and text[k] == "-":
        k += 1
    return k - j >= 2 and k < len(text) and _word(text[k])


def _wrap(
    chunks: list[str], width: int, first: str = "", rest: str = "", max_lines: int = 0, placeholder: str = "..."
) -> list[str]:
    """Lines of at most ``width`` (indent included) from ``chunks``, as textwrap
    (textwrap.wrap); with ``max_lines``, the last one ends in ``placeholder`` when
    text is left over."""
    lines: list[str] = []
    chunks = chunks[::-1]
    while chunks:
        indent = rest if lines else first
        room = width - len(indent)
        if lines and not chunks[-1].strip():
            chunks.pop()
        line: list[str] = []
        used = 0
        while chunks and used + len(chunks[-1]) <= room:
            used += len(chunks[-1])
            line.append(chunks.pop())
        if chunks and len(chunks[-1]) > room:  # a word longer than the line: cut it
            cut = max(room - used, 1)
            line.append(chunks[-1][:cut])
            chunks[-1] = chunks[-1][cut:]
            used = sum(map(len, line))
        if line and not line[-1].strip():
            used -= len(line.pop())
        if not line:
            continue
        if (
            not max_lines
            or len(lines) + 1 < max_lines
            or ((not chunks or (len(chunks) == 1 and not chunks[0].strip())) and used <= room)
        ):
            lines.append(indent + "".join(line))
            continue
        while line:
            if line[-1].strip() and used + len(placeholder) <= room:
                lines.append(indent + "".join(line) + placeholder)
                break
            used -= len(line.pop())
        else:
            lines.append(indent + placeholder.lstrip())
        break
    return lines


def fill(text: str, width: int, first: str, rest: str) -> str:
    """``text`` wrapped to ``width`` columns, the first line after ``first``, the others after ``rest``."""
    return "\n".join(_wrap(_chunks(text.expandtabs()), width, first, rest))


def _paragraphs(text: str, width: int, indent: str) -> str:
    """Paragraphs (split at empty lines) rewrapped to ``width``, each indented as its first
    line is; one whose first line is ``\\b`` is kept line for line."""
    blocks: list[tuple[str, list[str]]] = []
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
            out.append(fill(" ".join(lines), width, indent + extra, indent + extra))
    return "\n\n".join(out)


def _definitions(rows: Sequence[tuple[str, str]], width: int) -> list[str]:
    """Terms and their text in two columns, at indent 2 (the text beside a term of up to 30 characters, else below)."""
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
    """The first sentence of ``text``'s first paragraph, shortened to ``limit`` with "..." (a group's list of commands)."""
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
    return "\n".join(_wrap(_chunks(line, hyphens=False), limit, max_lines=1))  # textwrap.shorten(line, limit, placeholder="...")


#: The options of a group of subcommands (``flamespace store``).
GROUP_OPTIONS = (("-h, --help", "Show this message and exit."),)


def group_help(
    prog: str,
    help_text: str,
    summaries: Sequence[tuple[str, str]],
    columns: int = 0,
    options: Sequence[tuple[str, str]] = GROUP_OPTIONS,
) -> str:
    """The text of ``prog --help`` for a group with ``help_text``, ``options`` (term, help) and commands ``(name, help)``."""
    width = max(min(columns or terminal_columns(), MAX_WIDTH) - 2, 50)
    usage = "Usage: " + prog + " "
    text = cleandoc(help_text).partition("\f")[0]
    parts = [fill(USAGE, width, usage, " " * len(usage)), "", _paragraphs(text, width, INDENT), "", "Options:"]
    parts += _definitions(options, width)
    limit = width - 6 - max(len(name) for name, _ in summaries)
    parts += ["", "Commands:", *_definitions([(name, short_help(text, limit)) for name, text in summaries], width)]
    return "\n".join(parts) + "\n"


def cleandoc(text: str) -> str:
    """inspect.cleandoc (importing inspect costs start-up): the first line stripped, the common
    indentation of the others removed, blank lines at both ends dropped."""
    lines = text.expandtabs().split("\n")
    margin = min((len(line) - len(line.lstrip()) for line in lines[1:] if line.lstrip()), default=0)
    lines = [lines[0].lstrip()] + [line[margin:] for line in lines[1:]]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


def command_help(prog: str, command: Command, columns: int = 0) -> str:
    """The text of ``prog --help`` for a command declared as data (cli/_options.py)."""
    width = max(min(columns or terminal_columns(), command.max_width or MAX_WIDTH) - 2, 50)
    usage = "Usage: " + prog + " "
    pieces = " ".join(["[OPTIONS]", *(argument.usage() for argument in command.arguments)])
    parts = [fill(pieces, width, usage, " " * len(usage))]
    text = cleandoc(command.help or "").partition("\f")[0]
    if text:
        parts += ["", _paragraphs(text, width, INDENT)]
    rows = [option.help_record() for option in command.options] + [("-h, --help", "Show this message and exit.")]
    parts += ["", "Options:", *_definitions(rows, width)]
    return "\n".join(parts) + "\n"
