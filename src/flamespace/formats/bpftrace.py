"""bpftrace maps keyed by stacks (``@[kstack] = count();`` printed at exit), as
stackcollapse-bpftrace.pl reads them::

    @[
        _raw_spin_lock_bh+0          <- leaf first
        tcp_recvmsg+808
    , comm]: 3                       <- an optional last key joins the stack as its root

Frames are kept as printed (offsets included). Other lines (``Attaching 1 probe...``,
maps without stacks) are not stacks and are passed over, as by the Perl script.
"""

from __future__ import annotations

import re

from ._collapse import WHITESPACE, Stacks, integer, lines
from ._options import ReadOptions as ReadOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from .._types import Stack
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

name = "bpftrace"
extensions = ()
description = "bpftrace stack maps (stackcollapse-bpftrace.pl)"
_ONE_LINE = re.compile(r"@\[,\s(.*)\]: (\d+)")
_END = re.compile(r",?\s?(.*)\]: (\d+)")


def sniff(head: bytes) -> bool | None:
    """True if a line is ``@[`` and a later one ends a key with ``]: count``."""
    at = head.find(b"@[\n")
    if at < 0 or (at and head[at - 1 : at] != b"\n"):
        return None if len(head) < 4096 else False
    return re.search(rb"\n,?\s?.*\]: \d+", head[at:]) is not None


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Sum each stack's value; a stack the input ends inside is an error (or skipped)."""
    stacks = Stacks(name, options.skip_invalid, source, diagnostics, stack_cache)
    stack: list[str] | None = None  # leaf first; None outside a map key
    started = 0
    for lineno, line in lines(stream, source):
        if stack is None:
            if line == "@[":
                stack, started = [], lineno
            else:
                single = _ONE_LINE.match(line)
                if single:
                    stacks.add(single.group(1), integer(single.group(2)), lineno)
            continue
        end = _END.match(line)
        if end:
            if end.group(1):
                stack.append(end.group(1))
            stacks.add(";".join(reversed(stack)), integer(end.group(2)), lineno)
            stack = None
        else:
            stack.append(line.lstrip(WHITESPACE))
    if stack is not None:
        stacks.invalid(started, "the stack opened here has no end: expected ']: count' before the end of the input")
    return stacks.graph()
