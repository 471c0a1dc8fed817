"""FreeBSD ``pmcstat -G`` call graphs (hwpmc), as stackcollapse-pmc.pl reads them::

    03.07%  [17]       witness_unlock @ /boot/kernel/kernel     <- a sampled function
     70.59%  [12]        __mtx_unlock_flags                     <- its callers, one space deeper
      16.67%  [2]          selfdfree

Each deepest caller ends a stack, counted with the samples in brackets on its line.
Lines of another shape (the ``@ EVENT [N samples]`` headers) are passed over.
"""

from __future__ import annotations

import re

from .._record import Record, record
from ._collapse import integer, Stacks, lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from .._types import Number, Stack
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

name = "pmc"
extensions = ()
description = "FreeBSD pmcstat -G call graphs (stackcollapse-pmc.pl)"
_LINE = re.compile(r"( *)[0-9.]+%  \[([0-9]+)\][ \t\n\r\f\v]*([^ \t\n\r\f\v]+)")


@record
class ReadOptions(Record):
    skip_invalid: bool = False


def sniff(head: bytes) -> bool | None:
    """True if a line has the shape ``  12.50%  [3]  function``."""
    return bool(re.search(rb"(?m)^ *[0-9.]+%  \[[0-9]+\]\s*\S", head)) or (None if len(head) < 4096 else False)


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Samples of every path of the call graph; a line that skips a level is an error (or skipped)."""
    stacks = Stacks(name, options.skip_invalid, source, diagnostics, stack_cache)
    stack: list[str] = []  # leaf first: the sampled function, then its callers
    count: Number = 0
    end = 0
    for lineno, line in lines(stream, source):
        row = _LINE.match(line)
        if not row:
            continue
        depth = len(row.group(1))
        if not stacks.placed(lineno, depth, len(stack)):
            continue
        if depth < len(stack):
            stacks.add(";".join(reversed(stack)), count, end)
            del stack[depth:]
        stack.append(row.group(3))
        count, end = integer(row.group(2)), lineno
    if stack:
        stacks.add(";".join(reversed(stack)), count, end)
    return stacks.graph()
