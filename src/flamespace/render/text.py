"""A flame graph as an indented tree of text, for terminals and SSH sessions.

The same layout as the SVG (merged from the root, siblings in name order or widest first),
trimmed to frames of at least ``threshold`` of the total.
"""

from __future__ import annotations

from .._record import Record, record
from ..core.units import format_count
from ..errors import ArgumentError
from .layout import layout, strip_annotation
from .options import LAYOUT_DEFAULTS, LayoutOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional, TextIO, Tuple

    from .._types import Drawable


@record
class TextOptions(Record):
    """``threshold``: smallest share of the total shown (0.01 = 1%); ``max_depth``: deepest level
    shown (None: all); ``sort_by_value``, ``reverse``, ``base``, ``delta``: as in
    :class:`LayoutOptions` (their defaults and checks); ``countname``: what the counts are;
    ``width``: cut lines to this many characters (None: never)."""

    threshold: float = 0.01
    max_depth: Optional[int] = None
    sort_by_value: bool = LAYOUT_DEFAULTS.sort_by_value
    reverse: bool = LAYOUT_DEFAULTS.reverse
    base: Tuple[str, ...] = LAYOUT_DEFAULTS.base
    delta: str = LAYOUT_DEFAULTS.delta
    countname: str = "samples"
    width: Optional[int] = None

    def __post_init__(self) -> None:
        if not 0 <= self.threshold <= 1:
            raise ArgumentError(f"threshold must be a share between 0 and 1 (e.g. 0.01 for 1%), not {self.threshold!r}")
        if self.max_depth is not None and self.max_depth < 0:
            raise ArgumentError(f"max_depth must be >= 0, not {self.max_depth!r}")
        if self.width is not None and self.width < 20:
            raise ArgumentError(f"width must be at least 20 characters, not {self.width!r}")
        object.__setattr__(self, "base", self.layout_options().base)  # checks the layout's fields

    def layout_options(self) -> LayoutOptions:
        """What to lay out: frames of at least ``threshold`` of the total, as flamegraph.pl's --minwidth N%."""
        return LayoutOptions(
            min_percent=self.threshold * 100, sort_by_value=self.sort_by_value, reverse=self.reverse,
            base=self.base, delta=self.delta,
        )


def text_lines(profile: Drawable, options: Optional[TextOptions] = None) -> List[str]:
    """The lines of the text rendering: inclusive share, tree branches, name, count (and change)."""
    options = options or TextOptions()
    drawn = layout(profile, options.layout_options())
    if drawn.empty:
        return []
    frames = [f for f in drawn.frames if options.max_depth is None or f.depth <= options.max_depth]
    total = drawn.total
    last = _last_siblings([f.depth for f in frames])
    lines: List[str] = []
    open_levels: List[bool] = []  # per ancestor level: does it have siblings still to come?
    for frame, is_last in zip(frames, last):
        depth = frame.depth
        del open_levels[max(depth - 1, 0):]
        branch = "".join("│  " if more else "   " for more in open_levels)
        if depth:
            branch += "└─ " if is_last else "├─ "
            open_levels.append(not is_last)
        name = "all" if depth == 0 else strip_annotation(frame.name)
        line = f"{100 * frame.value / total:7.2f}%  {branch}{name} ({format_count(frame.value)} {options.countname})"
        if frame.delta is not None:
            line += f" [{'+' if frame.delta > 0 else ''}{100 * frame.delta / total:.2f}%]"
        if options.width is not None and len(line) > options.width:
            line = line[: options.width - 2] + ".."
        lines.append(line)
    return lines


def _last_siblings(depths: List[int]) -> List[bool]:
    """For each frame of a pre-order list, whether no later sibling follows it."""
    result = [True] * len(depths)
    seen_at: List[bool] = []  # seen_at[d]: a frame at depth d came after (scanning backwards)
    for index in range(len(depths) - 1, -1, -1):
        depth = depths[index]
        del seen_at[depth + 1 :]
        while len(seen_at) <= depth:
            seen_at.append(False)
        result[index] = not seen_at[depth]
        seen_at[depth] = True
    return result


def text(profile: Drawable, options: Optional[TextOptions] = None, output: Optional[TextIO] = None) -> Optional[str]:
    """The text rendering of ``profile``: written to ``output`` if given, else returned."""
    rendered = "".join(line + "\n" for line in text_lines(profile, options))
    if output is None:
        return rendered
    output.write(rendered)
    return None
