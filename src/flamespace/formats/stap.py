"""SystemTap stack aggregations (``print_stack()``/``print_ustack()`` then a count), as
stackcollapse-stap.pl reads them::

     0xffffffff8103ce3b : native_safe_halt+0xb/0x10 [kernel]    <- leaf first
     0xffffffff815bf03e : rest_init+0x72/0x74 [kernel]
            2404                                                <- the count ends the stack

A frame is the text after the last `` : `` without its ``+offset`` (module included,
as the Perl script leaves it); an empty frame is ``-``.
"""

from __future__ import annotations

import re

from .._record import Record, record
from ._collapse import integer, WHITESPACE, Stacks, lines, shown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from .._types import Stack
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

name = "stap"
extensions = ()
description = "SystemTap stack aggregations (stackcollapse-stap.pl)"


@record
class ReadOptions(Record):
    skip_invalid: bool = False


def sniff(head: bytes) -> bool | None:
    """True if a line is ``0xADDRESS : function+0x../0x..``."""
    return bool(re.search(rb"(?m)^\s*0x[0-9a-f]+ : \S+\+0x[0-9a-f]+/0x[0-9a-f]+", head)) or (None if len(head) < 4096 else False)


def _frame(line: str) -> str:
    frame = line.lstrip(WHITESPACE)
    cut = frame.rfind("+")
    if cut >= 0:
        frame = frame[:cut]
    cut = frame.rfind(" : ")
    if cut >= 0:
        frame = frame[cut + 3 :]
    return frame or "-"


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Sum each stack's counts; a stack the input ends in without a count is an error (or skipped)."""
    stacks = Stacks(name, options.skip_invalid, source, diagnostics, stack_cache)
    stack: list[str] = []  # leaf first
    started = 0
    for lineno, line in lines(stream, source):
        count = line.lstrip(WHITESPACE)
        if count.isdigit() and count.isascii():
            stacks.add(";".join(reversed(stack)), integer(count), lineno)
            stack = []
        elif count.strip(WHITESPACE):
            if not stack:
                started = lineno
            stack.append(_frame(line))
    if stack:
        stacks.invalid(
            started,
            f"the stack starting here has no count: expected a line of digits after its frames, found the end of the input (last frame {shown(stack[-1])})",
        )
    return stacks.graph()
