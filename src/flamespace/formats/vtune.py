"""Intel VTune top-down trees exported as CSV (``vtune -report top-down -format csv
-csv-delimiter comma``), as stackcollapse-vtune.pl and inferno-collapse-vtune read them::

    Function Stack,CPU Time:Self,Module
    Total,0.0,[Unknown]
     main,0.0,app.exe
      "compute(int, int)",1.25,app.exe

Each leading space is one level of the tree; the self time in seconds becomes whole
milliseconds (rounded); frames are ``module`function`` unless ``no_modules``. Follows
inferno, whose output the conformance data holds (the Perl script does not compile on
Perl 5.36), except that a stack that appears twice is summed, as the Perl script's output
is, where inferno keeps the last.
"""

from __future__ import annotations

import math
import re

from .._record import Record, record
from ..core.metadata import Metadata
from ._collapse import Stacks, lines, shown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from .._types import Stack
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

name = "vtune"
extensions = ()  # a .csv could be anything: recognised by its header
description = "Intel VTune top-down CSV (stackcollapse-vtune.pl)"
HEADER = "Function Stack,CPU Time:Self,Module"
#: A decimal number as Rust's f64 parser takes it (no NaN or infinity here).
_METADATA = Metadata(unit="ms", metric="cpu")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


@record
class ReadOptions(Record):
    """How to collapse VTune CSV.

    ``skip_invalid``: skip malformed lines (counted) instead of failing.
    ``no_modules``: name frames by function only, not module`function.
    """

    skip_invalid: bool = False
    no_modules: bool = False


def sniff(head: bytes) -> bool | None:
    text = head.decode("utf-8", "replace").lstrip("\ufeff")
    return any(line.startswith(HEADER) for line in text.splitlines()) or (None if len(head) < 4096 else False)


def _fields(row: str, no_modules: bool) -> tuple[str, str, str] | None:
    """(function, seconds, module) of a row without its indentation; None if it has too few fields."""
    if row.startswith('"'):
        function, comma, rest = row[1:].partition('",')
    else:
        function, comma, rest = row.partition(",")
    if not comma:
        return None
    seconds, comma, module = rest.partition(",")
    if not comma and not no_modules:
        return None
    return function, seconds, "" if no_modules else module


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Self milliseconds of every stack of the tree; rows out of shape are errors (or skipped)."""
    stacks = Stacks(name, options.skip_invalid, source, diagnostics, stack_cache)
    rows = lines(stream, source)
    lineno, content = 0, False
    for lineno, line in rows:
        if line.startswith(HEADER):
            break
        content = content or bool(line.strip())
    else:
        if content:
            stacks.invalid(lineno, f"the input ends without the VTune header: expected a line starting {HEADER!r}")
        return stacks.graph(_METADATA)
    stack: list[str] = []
    for lineno, line in rows:
        line = line.rstrip()
        if not line:
            continue
        row = line.lstrip(" ")
        depth = len(line) - len(row)
        if not stacks.placed(lineno, depth, len(stack)):
            continue
        fields = _fields(row, options.no_modules)
        if fields is None:
            stacks.skip_row(lineno, depth, f"expected 'function,CPU seconds,module', found {shown(row)}")
            continue
        function, seconds, module = fields
        if not _NUMBER.fullmatch(seconds) or seconds.startswith("-") or not math.isfinite(float(seconds) * 1000.0):
            stacks.skip_row(
                lineno, depth, f"expected a number of seconds >= 0 in the CPU Time:Self column, found {shown(seconds)}"
            )
            continue
        del stack[depth:]
        stack.append(f"{module}`{function}" if module else function)
        milliseconds = math.floor(float(seconds) * 1000.0 + 0.5)  # rounded half up, as inferno does
        if milliseconds > 0:
            stacks.add(";".join(stack), milliseconds, lineno)
    return stacks.graph(_METADATA)
