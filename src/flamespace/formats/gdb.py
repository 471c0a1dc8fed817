"""Repeated gdb backtraces (``thread apply all bt``, a poor man's profiler), as
stackcollapse-gdb.pl reads them::

    Thread 2 (Thread 0x7f... (LWP 42)):
    #0  0x00007f... in poll () from /lib/libc.so.6      <- leaf first
    #1  main () at main.c:12

Each backtrace counts once; a frame is the function name (the word after ``in`` when the
line starts with an address). A frame line needs four space-separated fields after ``#N``;
any other line ends the current backtrace, as in the Perl script.
"""

from __future__ import annotations

from ._collapse import Stacks, count_dumps
from ._options import ReadOptions as ReadOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import TextIO

    from .._types import Stack
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

name = "gdb"
extensions = ()
description = "gdb backtraces (stackcollapse-gdb.pl)"
_PATTERNS: tuple[re.Pattern[str], re.Pattern[str]] | None = None  # a frame line, an address (compiled on first use)


def sniff(head: bytes) -> bool | None:
    """True for a ``Thread N (Thread 0x...`` line and a ``#0  0x... in f (`` frame."""
    if b"Thread " not in head:  # the first pattern cannot match; no re (a folded file with '# ' headers comes here)
        return None if len(head) < 4096 else False
    import re

    return bool(re.search(rb"(?m)^Thread \d+ \(", head) and re.search(rb"(?m)^#\d+ +0x[0-9a-fA-F]+ in \S+ \(", head)) or (
        None if len(head) < 4096 else False
    )


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Count each backtrace once."""
    return count_dumps(stream, Stacks(name, options.skip_invalid, source, diagnostics, stack_cache), _frame_name)


def _frame_name(line: str) -> str | None:
    """The function of a ``#N  0x... in f (...)`` line (the address's symbol when it has one); None for other lines."""
    global _PATTERNS
    if _PATTERNS is None:
        import re

        _PATTERNS = re.compile(r"#[0-9]* *([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*)"), re.compile(r"0x[a-zA-Z0-9]*")
    frame = _PATTERNS[0].match(line)
    if frame is None:
        return None
    first = frame.group(1)
    return frame.group(3) if _PATTERNS[1].search(first) else first
