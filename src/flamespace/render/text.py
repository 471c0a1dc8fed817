"""A flame graph as an indented tree of text, for terminals and SSH sessions.

The same layout as the SVG (merged from the root, siblings in name order or widest first),
trimmed to frames of at least ``threshold`` of the total.
"""

from __future__ import annotations

from .._record import Record, record
from ..core.units import SHARE_UNIT, count_name, format_count, human, scale, unit_of
from ..errors import ArgumentError
from .layout import layout, strip_annotation
from .options import LAYOUT_DEFAULTS, LayoutOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO
    from collections.abc import Iterator, Sequence

    from .._types import Drawable


@record
class TextOptions(Record):
    """``threshold``: smallest share of the total shown (0.01 = 1%); ``max_depth``: deepest level
    shown (None: all); ``sort_by_value``, ``reverse``, ``base``, ``delta``: as in
    :class:`LayoutOptions` (their defaults and checks); ``countname``: what the counts are
    (empty: the profile's unit, else "samples"); ``width``: cut lines to this many characters
    (None: never); ``unit``: the unit of the values (None: the profile's), shown in its human
    units (``2.35 s``, ``1.50 MiB``) when it is a time or a size, unless ``raw`` asks for exact
    counts with ``countname``."""

    threshold: float = 0.01
    max_depth: int | None = None
    sort_by_value: bool = LAYOUT_DEFAULTS.sort_by_value
    reverse: bool = LAYOUT_DEFAULTS.reverse
    base: tuple[str, ...] = LAYOUT_DEFAULTS.base
    delta: str = LAYOUT_DEFAULTS.delta
    countname: str = ""
    width: int | None = None
    unit: str | None = None
    raw: bool = False

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
            min_percent=self.threshold * 100,
            sort_by_value=self.sort_by_value,
            reverse=self.reverse,
            base=self.base,
            delta=self.delta,
        )


#: Ancestor levels drawn as tree branches; deeper ones are shown as a count (``[+N]``), so a
#: line stays short and the output linear in the number of frames, however deep the stack.
INDENT_LEVELS = 64


@record
class TextLine(Record):
    """One line of the text rendering and where its parts are, for a caller that styles them
    (the command line colours a terminal): ``text`` as :func:`iter_text_lines` yields it;
    ``share``: the frame's value over the total; ``change``: its change over the total
    (differential input, else None); ``share_end``: ``text[:share_end]`` is the share column;
    ``location``: the (start, end) of the frame's `` (file:line)`` in ``text`` (empty: none);
    ``change_start``: ``text[change_start:]`` is the change (``len(text)``: none). Offsets are
    within ``text`` as cut to ``width``."""

    text: str
    share: float
    change: float | None
    share_end: int
    location: tuple[int, int]
    change_start: int


def iter_text_lines(profile: Drawable, options: TextOptions | None = None) -> Iterator[str]:
    """The lines of the text rendering, one at a time (without newlines): inclusive share, tree
    branches, name, count (and change). Each line costs time independent of its depth."""
    return _lines(profile, options, parts=False)  # type: ignore[return-value]  # parts=False: str


def iter_text_parts(profile: Drawable, options: TextOptions | None = None) -> Iterator[TextLine]:
    """The lines of :func:`iter_text_lines` with where their parts are (:class:`TextLine`)."""
    return _lines(profile, options, parts=True)  # type: ignore[return-value]  # parts=True: TextLine


def location_start(name: str) -> int:
    """Where the `` (file:line)`` (or `` (file)``) suffix of a frame name starts; ``len(name)``: none."""
    if name.endswith(")"):
        start = name.rfind(" (")
        if start > 0:
            return start
    return len(name)


def _lines(profile: Drawable, options: TextOptions | None, parts: bool) -> Iterator[str | TextLine]:
    """:func:`iter_text_lines` (``parts``: :func:`iter_text_parts`): one loop, so both say the same."""
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
    unit = options.unit or unit_of(profile)
    countname = options.countname or count_name(unit)
    width = options.width
    exact = options.raw or unit is None or not scale(unit).suffix or unit == SHARE_UNIT
    last = last_siblings(depths)
    open_levels: list[bool] = []  # per ancestor level: does it have siblings still to come?
    for index, depth, is_last in zip(kept, depths, last):
        del open_levels[max(depth - 1, 0) :]
        branch = "".join(["│  " if more else "   " for more in open_levels[:INDENT_LEVELS]])
        if len(open_levels) > INDENT_LEVELS:
            branch += f"[+{len(open_levels) - INDENT_LEVELS}] "
        if depth:
            branch += "└─ " if is_last else "├─ "
            open_levels.append(not is_last)
        value = c.values[index]
        name = "all" if depth == 0 else strip_annotation(c.names[index])
        count = f"{format_count(value)} {countname}" if exact else human(value, unit)
        share = f"{100 * value / total:7.2f}%"
        line = f"{share}  {branch}{name} ({count})"
        change_start = len(line) + 1  # after the space
        if c.deltas is not None:
            delta = c.deltas[index]
            line += f" [{'+' if delta > 0 else ''}{100 * delta / total:.2f}%]"
        cut = len(line)  # how much of the line is kept (before "..")
        if width is not None and cut > width:
            cut = width - 2
            line = line[:cut] + ".."
        if not parts:
            yield line
            continue
        name_start = len(share) + 2 + len(branch)
        where = (min(name_start + location_start(name), cut), min(name_start + len(name), cut))
        yield TextLine(
            text=line,
            share=value / total,
            change=None if c.deltas is None else c.deltas[index] / total,
            share_end=min(len(share), cut),
            location=where,
            change_start=len(line) if c.deltas is None else min(change_start, cut),
        )


def text_lines(profile: Drawable, options: TextOptions | None = None) -> list[str]:
    """The lines of the text rendering as a list (:func:`iter_text_lines` streams them)."""
    return list(iter_text_lines(profile, options))


def last_siblings(depths: list[int]) -> list[bool]:
    """For each frame of a pre-order list, whether no later sibling follows it."""
    result = [True] * len(depths)
    seen_at: list[bool] = []  # seen_at[d]: a frame at depth d came after (scanning backwards)
    for index in range(len(depths) - 1, -1, -1):
        depth = depths[index]
        del seen_at[depth + 1 :]
        while len(seen_at) <= depth:
            seen_at.append(False)
        result[index] = not seen_at[depth]
        seen_at[depth] = True
    return result


def text(profile: Drawable, options: TextOptions | None = None, output: TextIO | None = None) -> str | None:
    """The text rendering of ``profile``: written to ``output`` line by line if given, else returned."""
    if output is None:
        return "".join(line + "\n" for line in iter_text_lines(profile, options))
    write = output.write
    for line in iter_text_lines(profile, options):
        write(line + "\n")
    return None
