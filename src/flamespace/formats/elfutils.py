"""Repeated ``eu-stack`` dumps (elfutils), as stackcollapse-elfutils.pl reads them::

    PID 4242 - process
    TID 4242:
    #0  0x00007f0b8f5e2c3d __poll        <- leaf first
    #1  0x000055e4a4b1f0a2 main
    #2  0x000055e4a4b1f0c0               <- no name: [unknown]

Each thread's stack counts once; ``pid``/``tid`` add ``PID=n``/``TID=n`` root frames.
"""

from __future__ import annotations

import re

from .._record import Record, record
from ._collapse import Callers, Stacks, lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from .._types import Stack
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

name = "elfutils"
extensions = ()
description = "eu-stack dumps (stackcollapse-elfutils.pl)"
_PID = re.compile(r"PID ([0-9]*)")
_TID = re.compile(r"TID ([0-9]*)")
_FRAME = re.compile(r"#[0-9]* *0x[0-9a-f]*(?: (.*))?")


@record
class ReadOptions(Record):
    """How to collapse eu-stack output (the options of stackcollapse-elfutils.pl).

    ``skip_invalid``: skip malformed lines (counted) instead of failing.
    ``pid``: put the process id at the root of each stack.
    ``tid``: put the thread id at the root of each stack.
    """

    skip_invalid: bool = False
    pid: bool = False
    tid: bool = False


def sniff(head: bytes) -> bool | None:
    """True for ``PID n`` and ``TID n`` lines and a ``#0  0x...`` frame (without gdb's `` in ``)."""
    return bool(
        re.search(rb"(?m)^PID \d+", head)
        and re.search(rb"(?m)^TID \d+", head)
        and re.search(rb"(?m)^#\d+ +0x[0-9a-f]+( (?!in )|$)", head)
    ) or (None if len(head) < 4096 else False)


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Count each thread's stack once."""
    stacks = Stacks(name, options.skip_invalid, source, diagnostics, stack_cache)
    stack = Callers()
    pid = tid = ""
    end = 0

    def flush() -> None:
        if stack:
            roots = ([f"PID={pid}"] if options.pid else []) + ([f"TID={tid}"] if options.tid else [])
            stacks.add(";".join(roots + [stack.text()]), 1, end)
        stack.clear()

    for lineno, line in lines(stream, source):
        ids = _PID.match(line)
        if ids:
            flush()
            pid = ids.group(1)
            continue
        ids = _TID.match(line)
        if ids:
            flush()
            tid = ids.group(1)
            continue
        frame = _FRAME.match(line)
        if frame:
            stack.add(frame.group(1) if frame.group(1) is not None else "[unknown]")
            end = lineno
    flush()
    return stacks.graph()
