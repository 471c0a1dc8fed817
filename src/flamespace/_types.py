"""Every type alias of flamespace, in one place (as httpx's ``_types.py``).

Modules import these names under ``TYPE_CHECKING`` only: building them needs :mod:`typing`,
which the CLI's start-up path never imports (about 10 ms). The classes named here are
therefore forward references, and this module imports no other flamespace module at run
time: it sits below every layer. ``flamespace.core.Number`` and friends are served from
here on first use, for code that wants them at run time.
"""

from __future__ import annotations

import os
import re
from typing import IO, TYPE_CHECKING, Any, BinaryIO, Callable, TextIO, Union
from collections.abc import Iterable, Mapping, Sequence

if TYPE_CHECKING:
    from .core.chart import FlameChart
    from .core.differential import Differential
    from .core.vector import FlameGraph
    from .stats.matrix import Sample

#: A frame's display name, e.g. ``c (main.py:8)`` or ``ext4_readdir_[k]``.
Frame = str
#: A stack of frames, root first.
Stack = tuple[str, ...]
#: A stack's value: an exact int while the source counts are integers, a float after scaling.
Number = Union[int, float]
#: What a vector is built from: a mapping or pairs of stack and value.
Values = Union[Mapping[Stack, Number], Iterable[tuple[Stack, Number]]]

#: What the formats read and write: a flame graph or a differential (two values per stack).
Profile = Union["FlameGraph", "Differential"]
#: What the renderers draw: a profile, or a flame chart in time order.
Drawable = Union["FlameGraph", "Differential", "FlameChart"]
#: One side of a comparison: a sample, or the flame graphs of its runs.
Runs = Union["Sample", Iterable["FlameGraph"]]

#: A frame pattern: a regular expression's text or the compiled expression.
Regex = Union[str, "re.Pattern[str]"]
#: How to rename frames: a function, or (pattern, replacement) pairs applied in order.
FrameMap = Union[Callable[[str], str], Sequence[tuple[Regex, str]]]
#: A colour's red, green and blue, 0-255.
Rgb = tuple[int, int, int]

#: Where an input comes from: a path (``-`` for stdin) or an open binary stream.
Source = Union[str, "os.PathLike[str]", BinaryIO]
#: Where a rendering goes: a path (``-`` for stdout), an open text stream, or None (returned as a string).
Destination = Union[str, "os.PathLike[str]", TextIO, None]
#: Where a recorded program's output goes: a file, a descriptor, ``subprocess.DEVNULL``, or None (ours).
Output = Union[None, int, IO[Any]]
#: The agent's labels of a sample: (name, value) pairs sorted by name; () is no labels.
LabelSet = tuple[tuple[str, str], ...]

__all__ = [
    "Destination",
    "Drawable",
    "Frame",
    "FrameMap",
    "LabelSet",
    "Number",
    "Output",
    "Profile",
    "Regex",
    "Rgb",
    "Runs",
    "Source",
    "Stack",
    "Values",
]
