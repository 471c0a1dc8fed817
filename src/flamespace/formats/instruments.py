"""Xcode Instruments call trees copied as text (Edit > Deep Copy), as
stackcollapse-instruments.pl reads them: a header line, then one line per node::

    1234.0ms   95.5%\t12.0 ms\t \tmain          <- running time, %, self time, tab, space, tab, name
    1100.0ms   85.1%\t3.0 ms\t \t main         <- each extra leading space is one level deeper

Every node becomes a stack valued at its self time in whole milliseconds (min and s are
converted; rounded half to even, as printf's ``%.0f``).
"""

from __future__ import annotations

import math
import re

from ..core.metadata import Metadata
from ._collapse import Stacks, lines, shown
from ._options import ReadOptions as ReadOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from .._types import Stack
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

name = "instruments"
extensions = ()
description = "Xcode Instruments deep-copied call trees (stackcollapse-instruments.pl)"
_ROW = re.compile(
    r"\d+\.\d+ (?:min|s|ms)[ \t\n\r\f\v]+\d+\.\d+%[ \t\n\r\f\v]+(\d+(?:\.\d+)?) (min|s|ms)\t \t([ \t\n\r\f\v]*)(.+)", re.ASCII
)
_MILLISECONDS = {"min": 60 * 1000, "s": 1000, "ms": 1}
_METADATA = Metadata(unit="ms")


def sniff(head: bytes) -> bool | None:
    """True if the second line is a call-tree row (running time, percentage, self time, name)."""
    rows = head.split(b"\n")
    if len(rows) < 3:
        return None
    return _ROW.search(rows[1].decode("utf-8", "replace")) is not None


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Self time of every node; rows out of shape are errors (or skipped)."""
    stacks = Stacks(name, options.skip_invalid, source, diagnostics, stack_cache)
    stack: list[str] = []
    for lineno, line in lines(stream, source):
        if lineno == 1 or not line.strip():
            continue  # the header, blank lines
        row = _ROW.search(line)
        if row is None:
            stacks.invalid(lineno, f"expected 'time  percent%\\tself time\\t \\tfunction', found {shown(line)}")
            continue
        self_time, unit, indent, function = row.groups()
        depth = len(indent)
        if not stacks.placed(lineno, depth, len(stack)):
            continue
        del stack[depth:]
        stack.append(function)
        milliseconds = float(self_time) * _MILLISECONDS[unit]
        if not math.isfinite(milliseconds):
            stacks.skip_row(lineno, depth, f"self time {shown(self_time)} {unit} is out of range")
            continue
        stacks.add(";".join(stack), int(format(milliseconds, ".0f")), lineno)
    return stacks.graph(_METADATA)
