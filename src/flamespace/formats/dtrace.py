"""DTrace stack aggregations (``ustack()``/``stack()`` printed by ``printa`` or at exit), as
FlameGraph's stackcollapse.pl reads them::

    CPU     ID                    FUNCTION:NAME        <- the first three lines are a header
      0  64091                        :tick-60s

                  libc.so.1`_write+0x15                 <- leaf first
                  a.out`main+0x42                       <- root last
                   12                                   <- the count ends the stack

Frames lose their offset (``+0x15``; with ``includeoffset`` every frame but the leaf keeps
it), C++ argument lists, a leading ``L`` (Java) and ``;`` (becomes ``:``); ``a->b`` (Java
inlining) becomes two frames, ``b_[i]`` marked inlined; an empty frame is ``-``.
"""

from __future__ import annotations

from .._record import Record, record
from ._collapse import WHITESPACE, Stacks, integer, shown
from ._io import bounded_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from .._types import Stack
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

name = "dtrace"
extensions = (".dtrace",)
description = "DTrace ustack()/stack() aggregations (stackcollapse.pl)"
#: Lines stackcollapse.pl skips before the first stack (the probe header dtrace prints).
HEADER_LINES = 3


@record
class ReadOptions(Record):
    """How to collapse DTrace ustack aggregations.

    ``skip_invalid``: skip malformed lines (counted) instead of failing.
    ``includeoffset``: keep each frame's +0x.. offset except the leaf's (stackcollapse.pl's option).
    """

    skip_invalid: bool = False
    includeoffset: bool = False


def _is_hex_address(line: str) -> bool:
    digits = line[2:]
    return line.startswith("0x") and bool(digits) and digits.isascii() and all(c in "0123456789abcdefABCDEF" for c in digits)


def sniff(head: bytes) -> bool | None:
    """True if, after the first blank line, come frames (``module`function`` or ``0x...``) then a count."""
    text = head.decode("utf-8", "replace")
    found_blank = found_frame = False
    complete = text.splitlines()[: None if text.endswith("\n") else -1]
    for line in complete:
        line = line.strip(WHITESPACE)
        if not line:
            found_blank = True
        elif found_blank:
            if line.isdigit() and line.isascii():
                return found_frame
            if "`" in line or _is_hex_address(line):
                found_frame = True
            else:
                return False
    return None


def _frames(line: str, includeoffset: bool) -> list[str]:
    """The frames one line stands for, outermost first, named as stackcollapse.pl names them."""
    frame = line.lstrip(WHITESPACE)
    if not includeoffset:
        cut = frame.rfind("+")
        if cut >= 0:
            frame = frame[:cut]
    scope = frame.find("::")
    if scope >= 0:  # C++: drop the argument or template list after the last '(' or '<'
        cut = max(frame.rfind("(", scope + 2), frame.rfind("<", scope + 2))
        if cut >= 0:
            frame = frame[:cut]
    if not frame:
        frame = "-"
    parts = frame.split("->")
    while parts and not parts[-1]:  # Perl's split drops trailing empty fields
        parts.pop()
    names: list[str] = []
    for part in parts:
        part = part.replace(";", ":")
        if part.startswith("L"):
            part = part[1:]
        names.append(part + "_[i]" if names else part)
    return names


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Sum each stack's counts; a stack the file ends in without a count is an error (or skipped)."""
    stacks = Stacks(name, options.skip_invalid, source, diagnostics, stack_cache)
    includeoffset = options.includeoffset
    reversed_stack: list[str] = []  # leaf first, as printed
    started = 0  # line of the current stack's first frame
    known: dict[str, list[str]] = {}  # frame line -> its frames reversed (lines repeat a lot)
    for lineno, line in enumerate(bounded_lines(stream, source), 1):
        frames = known.get(line)
        if frames is not None:  # the common case first: a frame line seen before
            if not reversed_stack:
                started = lineno
            reversed_stack += frames
            continue
        if lineno <= HEADER_LINES:
            continue
        line = line.rstrip("\n")
        count = line.lstrip(WHITESPACE)
        if count.isdigit() and count.isascii():
            text = ";".join(reversed(reversed_stack))
            if includeoffset:  # the leaf's offset goes
                cut = text.rfind("+")
                if cut >= 0:
                    text = text[:cut]
            stacks.add(text, integer(count), lineno)
            reversed_stack = []
            continue
        if not count.strip(WHITESPACE):
            continue
        frames = known[line + "\n"] = _frames(line, includeoffset)[::-1]
        if not reversed_stack:
            started = lineno
        reversed_stack += frames
    if reversed_stack:
        stacks.invalid(
            started,
            f"the stack starting here has no count: expected a line of digits after its frames, found the end of the input (last frame {shown(reversed_stack[-1])})",
        )
    return stacks.graph()
