"""Visual Studio profiler call trees exported as CSV (``CallTreeSummary.csv``), as
stackcollapse-vsprof.pl reads them::

    Level,Function Name,Number of Calls,Elapsed Inclusive Time %,...
    0,"Raytracer.exe",0,100.00,...
    1,"Tracer.Trace(int32)",471,91.25,...
    2,"Sphere.Intersect(class Ray&,bool&)","2,893,824",54.37,...

Level 0 is the process and is left out. Each leaf of the tree becomes a stack whose value
is the leaf's number of calls; function names lose their spaces (as in the Perl script).
A number of calls may have thousands separators (``,``, ``.`` or a space, one kind per
number); a fraction is an error (the Perl script would read ``4,718.25`` as 471825).
"""

from __future__ import annotations

import re

from ..core.metadata import Metadata
from ..core.python_frames import is_line_number
from ._collapse import integer, WHITESPACE, Stacks, lines, shown
from ._options import ReadOptions as ReadOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from .._types import Number, Stack
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

name = "vsprof"
extensions = ()  # a .csv could be anything: recognised by its header
description = "Visual Studio profiler call-tree CSV (stackcollapse-vsprof.pl)"
HEADER = "Level,Function Name,Number of Calls"
_ROW = re.compile(r'[ \t\r\f\v]*(\d+),("[^"]+"|[^,]+),("[^"]+"|[^,]+),')
#: Digits, or groups of three after the first with one kind of separator throughout.
_CALLS = re.compile(r"\d+|\d{1,3}(?:,\d{3})+|\d{1,3}(?:\.\d{3})+|\d{1,3}(?: \d{3})+")
_METADATA = Metadata(unit="calls")


def sniff(head: bytes) -> bool | None:
    return head.decode("utf-8", "replace").lstrip("\ufeff").startswith(HEADER)


def _name(field: str) -> str:
    """The function name as the Perl script writes it: no whitespace, no enclosing quotes."""
    if field.startswith('"'):
        field = field[1:]
    if field.endswith('"'):
        field = field[:-1]
    return "".join(c for c in field if c not in WHITESPACE)


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Calls of every leaf of the tree; rows out of shape are errors (or skipped)."""
    stacks = Stacks(name, options.skip_invalid, source, diagnostics, stack_cache)
    stack: list[str] = []
    calls: Number = 0
    leaf_line = 0
    for lineno, line in lines(stream, source):
        if lineno == 1:
            if line.strip() and not line.startswith(HEADER):
                stacks.invalid(1, f"expected the Visual Studio call-tree header {HEADER + ',...'!r}, found {shown(line)}")
            continue
        if not line.strip(WHITESPACE):
            continue
        row = _ROW.match(line)
        if row is None:
            stacks.invalid(lineno, f"expected 'level,\"function\",calls,...', found {shown(line)}")
            continue
        if not is_line_number(row.group(1)):  # a level is a small number too; int() refuses thousands of digits
            stacks.invalid(lineno, f"level {row.group(1)[:20]}... is out of range")
            continue
        level = int(row.group(1))
        if not level:  # the process
            continue
        if not stacks.placed(lineno, level - 1, len(stack)):
            continue
        number = row.group(3).strip('"')
        if not _CALLS.fullmatch(number):
            stacks.skip_row(
                lineno, level - 1, f"expected a whole number of calls (thousands separators allowed), found {shown(number)}"
            )
            continue
        if level <= len(stack):
            stacks.add(";".join(stack), calls, leaf_line)
            del stack[level - 1 :]
        stack.append(_name(row.group(2)))
        calls = integer("".join(c for c in number if c.isdigit()))
        leaf_line = lineno
    if stack:
        stacks.add(";".join(stack), calls, leaf_line)
    return stacks.graph(_METADATA)
