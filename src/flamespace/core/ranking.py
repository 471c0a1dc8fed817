"""Which functions cost the most: self time (as the leaf) and inclusive time (anywhere in the stack)."""

from __future__ import annotations

from .._record import record
from ..errors import ArgumentError
from .transforms import STRIP_PRESETS
from .vector import FlameGraph

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing and dataclasses are not imported at run time (start-up: `flamespace top`)
    from typing import Callable

    from .._types import Number


#: How frames are grouped into rows: (pattern, replacement) applied to each frame name, None keeps
#: it. Frames look like ``f (app.py:12)`` (Python, collect/naming.py) or ``file.c:12``; a frame
#: without a ``(file:line)`` suffix is its own group in every grouping.
GROUPINGS: dict[str, tuple[str, str] | None] = {
    "line": None,
    "function": STRIP_PRESETS["lines"],  # "f (app.py:12)" -> "f (app.py)"
    "file": (r"^.* \(([^()]+?)(?::\d+)?\)$", r"\1"),  # "f (app.py:12)" -> "app.py"
}


def _grouper(group: str) -> Callable[[str], str]:
    """Frame name -> group name, cached: a profile repeats a few hundred frames many times."""
    if group not in GROUPINGS:
        raise ArgumentError(f"group by {' or '.join(repr(g) for g in GROUPINGS)}, not {group!r}")
    rule = GROUPINGS[group]
    if rule is None:
        return lambda frame: frame
    rewrite: Callable[[str], str]
    if rule == STRIP_PRESETS["lines"]:
        rewrite = _without_line_number  # the default grouping, without re (start-up: `flamespace top`)
    else:
        rewrite = _substitution(rule)
    cache: dict[str, str] = {}

    def name(frame: str) -> str:
        grouped = cache.get(frame)
        if grouped is None:
            grouped = cache[frame] = rewrite(frame)
        return grouped

    return name


def _substitution(rule: tuple[str, str]) -> Callable[[str], str]:
    """The first match of ``rule``'s pattern replaced (re.sub with count=1)."""
    import re

    sub, replacement = re.compile(rule[0]).sub, rule[1]
    return lambda frame: sub(replacement, frame, count=1)


def _without_line_number(frame: str) -> str:
    """STRIP_PRESETS["lines"] (``:\\d+(\\)?)$`` -> ``\\1``) written out: "f (app.py:12)" -> "f (app.py)",
    "file.c:12" -> "file.c". tests/core/test_ranking_lines.py holds it to the pattern."""
    if "\n" in frame:  # $ before a final line break: the pattern decides
        return _substitution(STRIP_PRESETS["lines"])(frame)
    end = len(frame) - 1 if frame.endswith(")") else len(frame)
    start = end
    while start > 0 and frame[start - 1].isdecimal():  # \d+
        start -= 1
    if start == end or start == 0 or frame[start - 1] != ":":
        return frame
    return frame[: start - 1] + frame[end:]


@record(frozen=True)
class FunctionCost:
    """The cost of one frame name over a whole profile."""

    name: str
    self_value: Number
    inclusive_value: Number


def function_costs(graph: FlameGraph, group: str = "line") -> list[FunctionCost]:
    """Self and inclusive value of every frame name (``group``: "line"), function or file, unordered.

    A frame (or group) that appears several times in one stack (recursion, or two lines of
    one function) counts once for that stack, so inclusive values never exceed the total.
    """
    name = _grouper(group)
    self_values: dict[str, Number] = {}
    inclusive: dict[str, Number] = {}
    for stack, value in graph.items():
        if not stack:
            continue
        leaf = name(stack[-1])
        self_values[leaf] = self_values.get(leaf, 0) + value
        for frame in set(map(name, stack)):
            inclusive[frame] = inclusive.get(frame, 0) + value
    return [FunctionCost(name, self_values.get(name, 0), value) for name, value in inclusive.items()]


def top_functions(graph: FlameGraph, n: int = 20, by: str = "self", group: str = "line") -> list[FunctionCost]:
    """The ``n`` costliest frames (or ``group``s, see :data:`GROUPINGS`) by ``self`` or ``inclusive`` value, ties broken by name."""
    if by not in ("self", "inclusive"):
        raise ArgumentError(f"rank by 'self' or 'inclusive', not {by!r}")
    costs = function_costs(graph, group)
    if by == "self":
        costs.sort(key=lambda c: (-c.self_value, -c.inclusive_value, c.name))
    else:
        costs.sort(key=lambda c: (-c.inclusive_value, -c.self_value, c.name))
    return costs[:n] if n >= 0 else costs
