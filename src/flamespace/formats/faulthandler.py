"""Repeated Python ``faulthandler`` dumps (``faulthandler.dump_traceback()``, e.g. on a
signal with ``faulthandler.register``), as stackcollapse-faulthandler.pl reads them::

    Thread 0x00007f... (most recent call first):
      File "/app/work.py", line 12 in compute      <- leaf first
      File "/app/main.py", line 30 in <module>

Each traceback counts once; a frame is ``file:line:function``.
"""

from __future__ import annotations

import re

from ._collapse import Stacks, count_dumps
from ._options import ReadOptions as ReadOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from .._types import Stack
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

name = "faulthandler"
extensions = ()
description = "Python faulthandler tracebacks (stackcollapse-faulthandler.pl)"
_FRAME = re.compile(r'  File "([^"]*)", line ([0-9]*) in (.*)')


def sniff(head: bytes) -> bool | None:
    """True for faulthandler's ``File "...", line N in f`` (a Python traceback has ``, in``)."""
    return bool(re.search(rb'(?m)^  File "[^"]*", line \d+ in ', head)) or (None if len(head) < 4096 else False)


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Count each traceback once."""
    return count_dumps(stream, Stacks(name, options.skip_invalid, source, diagnostics, stack_cache), _frame_name)


def _frame_name(line: str) -> str | None:
    """``file:line:function`` of a ``  File "...", line N in f`` line; None for other lines."""
    frame = _FRAME.match(line)
    return ":".join(frame.groups()) if frame else None
