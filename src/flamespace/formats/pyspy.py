"""py-spy's raw output (``py-spy record -f raw``): folded stacks whose frames are ``function (file:line)``.

The stacks are folded text; this reader names each frame through the one Python naming
(:mod:`flamespace.core.python_frames`), so absolute paths (``--full-filenames``) become
``site-packages/...``, ``<stdlib>/...`` or relative, as our recorder writes them. Without
``--full-filenames`` py-spy already shortens paths to what follows a ``sys.path`` entry
(``random.py``, ``certifi/core.py``): those cannot be told apart and stay as they are.
``--threads`` and ``--subprocesses`` roots (``thread (0x...)``, ``process 12:"..."``) are
left out unless ``threads=True``. Never detected from content (it is valid folded text):
ask for it with ``--from pyspy``.
"""

from __future__ import annotations

import re
import sys

from .._record import Record, record
from ..core.python_frames import PythonFrames, split_frame
from ..core.vector import FlameGraph
from ..diagnostics import Diagnostics
from . import folded

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from .._types import Number, Stack

name = "pyspy"
extensions = ()
description = "py-spy record -f raw (folded, frames named as our recorder names them)"

#: Roots py-spy adds with --threads, --subprocesses and --idle.
_ROOT = re.compile(r"^(?:thread \((?:0x)?[0-9A-Fa-f]+\)|process \d+(?::.*)?)$")


@record
class ReadOptions(Record):
    """How to read py-spy's raw output.

    ``skip_invalid``: skip malformed lines (counted) instead of failing.
    ``threads``: keep py-spy's thread and process root frames (left out by default).
    """

    skip_invalid: bool = False
    threads: bool = False


def sniff(head: bytes) -> bool | None:
    return False  # folded text: only by --from pyspy


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    raw = folded.parse(
        stream, folded.ReadOptions(skip_invalid=options.skip_invalid, columns="1"), source=source, diagnostics=diagnostics
    )
    assert isinstance(raw, FlameGraph)
    names = PythonFrames()
    renamed: dict[str, str] = {}
    intern = sys.intern

    def rename(frame: str) -> str:
        found = renamed.get(frame)
        if found is None:
            split = split_frame(frame)
            found = renamed[frame] = intern(names(*split) if split else frame)
        return found

    values: dict[Stack, Number] = {}
    for stack, value in raw.items():
        if not options.threads:
            start = 0
            while start < len(stack) and _ROOT.match(stack[start]):
                start += 1
            stack = stack[start:]
        new = tuple(map(rename, stack))
        values[new] = values.get(new, 0) + value
    if not values and diagnostics is not None:
        diagnostics.warn(f"{source}: no py-spy samples; the profile is empty")
    labels = dict(raw.metadata.labels)
    labels.setdefault("profiler", "py-spy")
    return FlameGraph._trusted(values, raw.metadata.replace(unit=raw.metadata.unit or "samples", labels=labels))


__all__ = ["ReadOptions", "extensions", "name", "parse", "sniff"]
