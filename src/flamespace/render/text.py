"""A flame graph as an indented tree of text, for terminals and SSH sessions.

The same layout as the SVG (merged from the root, siblings in name order or widest first),
trimmed to frames of at least ``threshold`` of the total.
"""

from __future__ import annotations

from .._record import Record, record
from ..core.units import SHARE_UNIT, format_count, human, scale
from ..errors import ArgumentError
from .layout import layout, strip_annotation
from .options import LAYOUT_DEFAULTS, LayoutOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator, List, Optional, Sequence, TextIO, Tuple

    from .._types import Drawable


@record
class TextOptions(Record):
    """``threshold``: smallest share of the total shown (0.01 = 1%); ``max_depth``: deepest level
    shown (None: all); ``sort_by_value``, ``reverse``, ``base``, ``delta``: as in
    :class:`LayoutOptions` (their defaults and checks); ``countname``: what the counts are;
    ``width``: cut lines to this many characters (None: never); ``unit``: show each count in
    human units of this unit (``2.35 s``, ``1.50 MiB``) instead of exactly with ``countname``
    (None, or a unit that is not a time or a size: exactly)."""

    threshold: float = 0.01
    max_depth: Optional[int] = None
    sort_by_value: bool = LAYOUT_DEFAULTS.sort_by_value
    reverse: bool = LAYOUT_DEFAULTS.reverse
    base: Tuple[str, ...] = LAYOUT_DEFAULTS.base
    delta: str = LAYOUT_DEFAULTS.delta
    countname: str = "samples"
    width: Optional[int] = None
    unit: Optional[str] = None

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


#: Ancestor levels drawn as tree branches; deeper ones are shown as a count (``[+N]``), so a
#: line stays short and the output linear in the number of frames, however deep the stack.
INDENT_LEVELS = 64


def iter_text_lines(profile: Drawable, options: Optional[TextOptions] = None) -> Iterator[str]:
    """The lines of the text rendering, one at a time (without newlines): inclusive share, tree
    branches, name, count (and change). Each line costs time independent of its depth."""
    options = options or TextOptions()
    drawn = layout(profile, options.layout_options())
    if drawn.empty:
        return
    c = drawn.columns
    kept: Sequence[int] = range(len(c.depths))
    depths = c.depths
    if options.max_depth is not None:
        limit = options.max_depth
        kept = [i for i, depth in enumerate(c.depths) if depth <= limit]
        depths = [c.depths[i] for i in kept]
    total = drawn.total
    unit = options.unit
    countname = options.countname
    exact = unit is None or not scale(unit).suffix or unit == SHARE_UNIT
    last = _last_siblings(depths)
    open_levels: List[bool] = []  # per ancestor level: does it have siblings still to come?
    for index, depth, is_last in zip(kept, depths, last):
        del open_levels[max(depth - 1, 0):]
        branch = "".join(["│  " if more else "   " for more in open_levels[:INDENT_LEVELS]])
        if len(open_levels) > INDENT_LEVELS:
            branch += f"[+{len(open_levels) - INDENT_LEVELS}] "
        if depth:
            branch += "└─ " if is_last else "├─ "
            open_levels.append(not is_last)
        value = c.values[index]
        name = "all" if depth == 0 else strip_annotation(c.names[index])
        count = f"{format_count(value)} {countname}" if exact else human(value, unit)
        line = f"{100 * value / total:7.2f}%  {branch}{name} ({count})"
        if c.deltas is not None:
            delta = c.deltas[index]
            line += f" [{'+' if delta > 0 else ''}{100 * delta / total:.2f}%]"
        if options.width is not None and len(line) > options.width:
            line = line[: options.width - 2] + ".."
        yield line


def text_lines(profile: Drawable, options: Optional[TextOptions] = None) -> List[str]:
    """The lines of the text rendering as a list (:func:`iter_text_lines` streams them)."""
    return list(iter_text_lines(profile, options))


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
    """The text rendering of ``profile``: written to ``output`` line by line if given, else returned."""
    if output is None:
        return "".join(line + "\n" for line in iter_text_lines(profile, options))
    write = output.write
    for line in iter_text_lines(profile, options):
        write(line + "\n")
    return None
