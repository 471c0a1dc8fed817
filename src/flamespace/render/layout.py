"""Layout: a profile -> the frames a flame graph draws (pure; the emitters only write them).

flamegraph.pl's meaning: stacks merged from the root under a synthetic ``all`` frame,
siblings in bytewise name order (widest first with ``sort_by_value``), a frame's own time
to the left of its children, width proportional to value, frames narrower than
``minwidth`` not drawn (their time still counted in their parents). A flame chart keeps
input order and merges a frame only with its left neighbour. Trees are built and walked
iteratively: stacks can be thousands of frames deep.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, List, NamedTuple, Optional, Tuple, Union

from ..core.chart import FlameChart
from ..core.differential import Differential
from ..core.transforms import base_cutter
from ..core.vector import FlameGraph, Number, Stack
from ..errors import ArgumentError
from .options import SvgOptions
from .palettes import SEPARATOR_COLOURS, Colourer, diff_colour

Profile = Union[FlameGraph, Differential, FlameChart]
XPAD = 10  # pixels left and right of the frames
ROOT_NAME = "all"
ANNOTATION = re.compile(r"_\[[kwij]\]$")

# A tree node is a list (cheaper than objects for millions of frames):
NAME, CHILDREN, VALUE, SELF, BEFORE, BEFORE_SELF, START = range(7)


class Frame(NamedTuple):
    """One drawn frame. ``x`` and ``width`` in pixels; ``delta`` None unless differential."""

    name: str
    label: str
    x: float
    width: float
    depth: int
    value: Number
    self_value: Number
    delta: Optional[Number]
    colour: str


@dataclass
class Layout:
    """What an emitter needs: the frames (parents before children) and the picture's measures."""

    frames: List[Frame]
    total: Number  # the value the full width stands for
    max_depth: int
    differential: bool
    options: SvgOptions
    largest_delta: Number = 1
    warnings: List[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.total


def strip_annotation(name: str) -> str:
    """``ext4_readdir_[k]`` -> ``ext4_readdir``: the annotation only picks a colour."""
    return ANNOTATION.sub("", name) if name.endswith("]") else name


def fit_label(name: str, width: float, options: SvgOptions) -> str:
    """The label that fits ``width`` pixels: whole, cut with ``..``, or empty below 3 characters."""
    chars = int(width / (options.fontsize * options.fontwidth))
    if chars < 3:
        return ""
    name = strip_annotation(name)
    if chars >= len(name):
        return name
    if options.truncate == "left":
        return ".." + name[len(name) - chars + 2 :]
    return name[: chars - 2] + ".."


def rows_of(profile: Profile, options: SvgOptions) -> Tuple[Iterable[Tuple[Stack, Number, Number]], bool]:
    """(stack, value, before) rows in the order to draw them, and whether the input is differential."""
    if isinstance(profile, Differential):
        if options.flamechart:
            before = profile.before
            rows = [(s, v, before.value(s)) for s, v in profile.after.items()]
            rows += [(s, 0, v) for s, v in before.items() if s not in profile.after]
            return rows, True
        return [(s, a, b) for s, b, a in profile.rows()], True
    if isinstance(profile, FlameChart):
        if not options.flamechart:
            profile = profile.graph()
        else:
            return ((sample.stack, sample.weight, 0) for sample in profile.samples()), False
    if not isinstance(profile, FlameGraph):
        raise ArgumentError(f"cannot draw a {type(profile).__name__}; expected a FlameGraph, Differential or FlameChart")
    return ((s, v, 0) for s, v in profile.items()), False


def _rewriter(options: SvgOptions) -> Optional[Callable[[Stack], Optional[Stack]]]:
    """The stack rewrites the options ask for (base, reverse, chain's waker marks), or None."""
    steps: List[Callable[[Stack], Optional[Stack]]] = []
    if options.base:
        steps.append(base_cutter(options.base))
    if options.reverse:
        steps.append(lambda stack: stack[::-1])
    if options.colors == "chain":
        steps.append(_mark_wakers)
    if not steps:
        return None

    def rewrite(stack: Stack) -> Optional[Stack]:
        for step in steps:
            stack = step(stack)  # type: ignore[assignment]
            if stack is None:
                return None
        return stack

    return rewrite


def _mark_wakers(stack: Stack) -> Stack:
    """As flamegraph.pl --colors chain: frames after a ``--`` separator are wakers (``_[w]``)."""
    if "--" not in stack:
        return stack
    first = stack.index("--")
    return stack[: first + 1] + tuple(f if f == "--" else f + "_[w]" for f in stack[first + 1 :])


def build_tree(rows: Iterable[Tuple[Stack, Number, Number]], chart: bool = False) -> list:
    """The merged tree of ``rows``; each node is [name, children, value, self, before, before_self, start].

    ``chart``: children are a list and a frame merges only with the last child (time order);
    ``start`` is the child's offset inside its parent. Otherwise children are a dict by name.
    """
    root: list = [ROOT_NAME, [] if chart else {}, 0, 0, 0, 0, 0]
    for stack, value, before in rows:
        node = root
        node[VALUE] += value
        node[BEFORE] += before
        for frame in stack:
            children = node[CHILDREN]
            if chart:
                child = children[-1] if children and children[-1][NAME] == frame else None
                if child is None:
                    child = [frame, [], 0, 0, 0, 0, node[VALUE] - value]
                    children.append(child)
            else:
                child = children.get(frame)
                if child is None:
                    child = children[frame] = [frame, {}, 0, 0, 0, 0, 0]
            child[VALUE] += value
            child[BEFORE] += before
            node = child
        node[SELF] += value
        node[BEFORE_SELF] += before
    return root


def layout(profile: Profile, options: Optional[SvgOptions] = None) -> Layout:
    """The frames of ``profile`` drawn with ``options`` (see :class:`SvgOptions`)."""
    options = options or SvgOptions()
    rows, differential = rows_of(profile, options)
    rewrite = _rewriter(options)
    if rewrite is not None:
        rows = ((s, v, b) for s, v, b in ((rewrite(s), v, b) for s, v, b in rows) if s is not None)
    root = build_tree(rows, chart=options.flamechart)
    return place(root, differential, options)


def place(root: list, differential: bool, options: SvgOptions) -> Layout:
    """Positions, labels and colours of every frame wide enough to draw, parents first."""
    warnings: List[str] = []
    actual = root[VALUE]
    total = actual
    if options.total is not None:
        if options.total < actual:
            warnings.append(f"--total {options.total:g} is less than the actual total {actual:g}, so it is ignored")
        else:
            total = options.total
    if not total:
        return Layout([], 0, 0, differential, options, warnings=warnings)
    per_value = (options.width - 2 * XPAD) / total
    amount, percent = options.minwidth_spec()
    min_value = total * amount / 100 if percent else amount / per_value
    self_delta = options.delta == "self"
    sort_by_value = options.sort_by_value
    chart = options.flamechart

    drawn: List[Tuple[list, float, int]] = []  # (node, x in values, depth)
    pending: List[Tuple[list, float, int]] = [(root, 0.0, 0)]
    while pending:
        node, x, depth = pending.pop()
        drawn.append((node, x, depth))
        children = node[CHILDREN]
        if not children:
            continue
        if chart:
            ordered = [(child, x + child[START]) for child in children]
        else:
            names = sorted(children, key=lambda n: (-children[n][VALUE], n)) if sort_by_value else sorted(children)
            offset = x + node[SELF]
            ordered = []
            for name in names:
                child = children[name]
                ordered.append((child, offset))
                offset += child[VALUE]
        for child, child_x in reversed(ordered):
            if child[VALUE] >= min_value and child[VALUE] > 0:
                pending.append((child, child_x, depth + 1))

    largest: Number = 1
    deltas: List[Optional[Number]] = [None] * len(drawn)
    if differential:
        for index, (node, _, _) in enumerate(drawn):
            deltas[index] = node[SELF] - node[BEFORE_SELF] if self_delta else node[VALUE] - node[BEFORE]
        largest = max((abs(d) for d in deltas if d), default=0) or 1  # type: ignore[arg-type]

    colour_of = Colourer(options)
    frames: List[Frame] = []
    max_depth = 0
    for (node, x, depth), delta in zip(drawn, deltas):
        name = node[NAME]
        value = total if depth == 0 else node[VALUE]
        width = value * per_value
        if name in SEPARATOR_COLOURS and depth:
            colour = SEPARATOR_COLOURS[name]
        elif delta is not None:
            colour = diff_colour(delta, largest, options.negate)
        else:
            colour = colour_of(name)
        frames.append(
            Frame(name, fit_label(name, width, options), XPAD + x * per_value, width, depth, value, node[SELF], delta, colour)
        )
        if depth > max_depth:
            max_depth = depth
    colour_of.save()
    return Layout(frames, total, max_depth, differential, options, largest, warnings)
