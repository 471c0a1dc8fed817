"""GHC ``.prof`` files (``+RTS -p``, or ``-P`` for ticks and bytes), as inferno-collapse-ghcprof
reads them (FlameGraph has no script for them).

The call-graph table starts at the header line ``COST CENTRE MODULE SRC no. entries
%time %alloc %time %alloc [ticks bytes]`` and ends at the first blank line; each row is
indented one space per level. A frame is ``MODULE.COST_CENTRE``; its value is its own
(individual) cost from the column ``source`` names: ``time`` (the individual %time, in
tenths of a percent: 12.3 % is 123), ``ticks`` or ``bytes``.
"""

from __future__ import annotations

import math
import re

from .._record import Record, record
from ..core.metadata import Metadata
from ..errors import ArgumentError, InputError
from ._collapse import Stacks, lines, shown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from .._types import Stack
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

name = "ghcprof"
extensions = ()  # .prof is also what cProfile writes: recognised by its header
description = "GHC .prof cost-centre profiles (inferno-collapse-ghcprof)"
#: The first words of the call-graph table's header (ticks and bytes may follow).
HEADER = ("COST", "CENTRE", "MODULE", "SRC", "no.", "entries", "%time", "%alloc", "%time", "%alloc")
SOURCES = {
    "time": Metadata(unit="permille", metric="time"),
    "ticks": Metadata(unit="ticks", metric="time"),
    "bytes": Metadata(unit="bytes", metric="alloc"),
}
_NUMBER = re.compile(r"\+?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


@record
class ReadOptions(Record):
    """How to read a GHC .prof file.

    ``skip_invalid``: skip malformed lines (counted) instead of failing.
    ``source``: the column each frame's value comes from: time (individual %time, in
    tenths of a percent), ticks or bytes (the last two need a profile made with +RTS -P).
    """

    skip_invalid: bool = False
    source: str = "time"


def _is_header(line: str) -> bool:
    return tuple(line.split()[: len(HEADER)]) == HEADER


def sniff(head: bytes) -> bool | None:
    text = head.decode("utf-8", "replace")
    return any(_is_header(line) for line in text.splitlines()) or (None if len(head) < 4096 else False)


def _column(header: str, source: str) -> int | None:
    """Where the values of ``source`` start: ``%time`` is left-aligned, ticks and bytes are
    right-aligned (so they start after the column before them ends); None if absent."""
    if source == "time":
        return header.find("%time")
    at = header.find(source)
    if at < 0:
        return None
    return len(header[:at].rstrip())


def _word(line: str, start: int) -> str:
    """The first whitespace-free word at or after character ``start``."""
    words = line[start:].split(None, 1)
    return words[0] if words else ""


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Individual cost of every stack of the call graph; rows out of shape are errors (or skipped)."""
    if options.source not in SOURCES:
        raise ArgumentError(f"ghcprof source must be one of {', '.join(SOURCES)}, not {options.source!r}")
    stacks = Stacks(name, options.skip_invalid, source, diagnostics, stack_cache)
    metadata = SOURCES[options.source]
    rows = lines(stream, source)
    lineno, content = 0, False
    for lineno, line in rows:
        if _is_header(line):
            break
        content = content or bool(line.strip())
    else:
        if content:
            stacks.invalid(
                lineno,
                "the input ends without a call graph: expected the header 'COST CENTRE MODULE SRC no. entries %time %alloc ...'",
            )
        return stacks.graph(metadata)
    module_at = line.find("MODULE")
    value_at = _column(line, options.source)
    if value_at is None:
        raise InputError(
            f"this profile has no {options.source!r} column (profile with +RTS -P to get ticks and bytes)", source, lineno
        )
    next(rows, None)  # the blank line under the header
    stack: list[str] = []
    scale = 10 if options.source == "time" else 1  # tenths of a percent: integers, no rounding
    for lineno, line in rows:
        line = line.rstrip()
        if not line:
            break  # the table ends at the first blank line
        depth = len(line) - len(line.lstrip(" "))
        if not stacks.placed(lineno, depth, len(stack)):
            continue
        cost = _word(line, value_at)
        if not _NUMBER.fullmatch(cost) or not math.isfinite(float(cost) * scale):
            stacks.skip_row(lineno, depth, f"expected a number in the {options.source} column, found {shown(cost)}")
            continue
        del stack[depth:]
        stack.append(f"{_word(line, module_at)}.{_word(line, 0)}")
        stacks.add(";".join(stack), int(float(cost) * scale), lineno)
    return stacks.graph(metadata)
