"""macOS ``sample`` reports, as FlameGraph's stackcollapse-sample.awk reads them.

The ``Call graph:`` section is a tree: each line is indented two characters per level
(spaces and the tree marks ``+ ! : |``) after four spaces, then the samples that went
through that frame, then ``function  (in module) + offset  [address]``. A frame's own
count is its samples minus its children's. Frames are named ``module`function`` (``.dylib``
dropped); a stack whose leaf is one of the usual idle waits (``__psynch_cvwait``,
``mach_msg_trap``, ...) is left out with all of its callers' self counts, as the awk script
does. The section ends at ``Total number in stack``.
"""

from __future__ import annotations

import re

from ._collapse import integer, Stacks, lines, shown
from ._options import ReadOptions as ReadOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from .._types import Number, Stack
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

name = "sample"
extensions = (".sample",)
description = "macOS sample call graphs (stackcollapse-sample.awk)"

#: Leaf frames of threads that were waiting, not running: their stacks are left out.
IDLE = frozenset(
    prefix + wait
    for prefix in ("", "libsystem_kernel`")
    for wait in (
        "__psynch_cvwait",
        "__select",
        "__semwait_signal",
        "__ulock_wait",
        "__wait4",
        "__workq_kernreturn",
        "kevent",
        "mach_msg_trap",
        "read",
        "semaphore_wait_trap",
    )
)
_FIELDS = re.compile(r"[^ \t]+")  # awk's default field splitting
_MODULE = re.compile(r"\(in [^)]*\)")


def sniff(head: bytes) -> bool | None:
    """True for a sample report (its title line, or a ``Call graph:`` line followed by a tree line)."""
    if head.startswith(b"Analysis of sampling "):
        return True
    at = head.find(b"\nCall graph:")
    if at < 0:
        return None if len(head) < 4096 else False
    following = head[at + 1 :].split(b"\n")[1:2]
    return bool(following) and re.match(rb"    [ +!:|]*\d+ ", following[0]) is not None


class _Tree:
    """The open path of the call graph: name, remaining self count and line of each level."""

    def __init__(self, stacks: Stacks) -> None:
        self.stacks = stacks
        self.names: list[str] = []
        self.counts: list[Number] = []
        self.lines: list[int] = []

    def close(self, down_to: int) -> None:
        """Print the stacks of the levels deeper than or at ``down_to``, deepest first, and drop them."""
        if len(self.names) <= down_to:
            return
        printed = self.names[-1] not in IDLE
        while len(self.names) > down_to:
            count = self.counts.pop()
            line = self.lines.pop()
            if printed:
                if count < 0:
                    self.stacks.invalid(
                        line, f"the counts of the frames this one calls add up to more than its own count ({-count} more)"
                    )
                else:
                    self.stacks.add(";".join(self.names), count, line)
            self.names.pop()

    def open(self, level: int, name: str, count: Number, line: int) -> None:
        if level:
            self.counts[level - 1] -= count
        self.names.append(name)
        self.counts.append(count)
        self.lines.append(line)


def _frame(rest: str) -> str:
    """``function`` or ``module`function`` from ``count function  (in module) + offset  [address]``."""
    fields = _FIELDS.findall(rest)
    function = fields[1] if len(fields) > 1 else ""
    if len(fields) > 2 and fields[2] != "(in":
        function += "." + fields[2]
    module = _MODULE.search(rest)
    if module:
        function = module.group()[4:-1].replace(".dylib", "") + "`" + function
    return function


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Self counts of every stack in the call graph; malformed tree lines are errors (or skipped)."""
    stacks = Stacks(name, options.skip_invalid, source, diagnostics, stack_cache)
    tree = _Tree(stacks)
    in_graph = found_graph = False
    lineno, content = 0, False
    for lineno, line in lines(stream, source):
        content = content or bool(line.strip())
        if line.startswith("Call graph"):
            in_graph = found_graph = True
            continue
        if line.startswith("Total number"):
            in_graph = False
            tree.close(0)
            continue
        if not in_graph or not line.strip():
            continue
        if not line.startswith("    "):
            stacks.invalid(lineno, f"expected a call-graph line indented by four spaces, found {shown(line)}")
            continue
        body = line[4:].lstrip(" +!:|")
        indent = len(line) - len(body) - 4
        level = indent // 2
        if not stacks.placed(lineno, level, len(tree.names)):
            continue
        reason = _check(body, indent)
        if reason:
            stacks.skip_row(lineno, level, reason)
            continue
        tree.close(level)
        tree.open(level, _frame(body), integer(_FIELDS.findall(body)[0]), lineno)
    if in_graph:
        stacks.invalid(lineno, "the input ends inside the call graph: expected a 'Total number in stack' line after it")
        tree.close(0)
    elif not found_graph and content:
        stacks.invalid(lineno, "the input ends without a 'Call graph:' section: expected a macOS sample report")
    return stacks.graph()


def _check(body: str, indent: int) -> str | None:
    """Why a call-graph row is malformed (None if it is fine): ``body`` follows the ``indent``
    characters of tree marks after the first four spaces."""
    digits = body[: len(body) - len(body.lstrip("0123456789"))]
    if not digits or body[len(digits) : len(digits) + 1] not in (" ", "\t"):  # awk's separators (_FIELDS), not any space
        return f"expected a sample count then a function after the tree marks, found {shown(body)}"
    if len(_FIELDS.findall(body)) < 2:
        return f"expected a function name after the sample count, found {shown(body)}"
    if indent % 2:
        return f"odd indentation ({indent} characters after the first four): each level indents by two"
    return None
