"""Which functions cost the most: self time (as the leaf) and inclusive time (anywhere in the stack)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List

from ..errors import ArgumentError
from .vector import FlameGraph

if TYPE_CHECKING:
    from .._types import Number


@dataclass(frozen=True)
class FunctionCost:
    """The cost of one frame name over a whole profile."""

    name: str
    self_value: Number
    inclusive_value: Number


def function_costs(graph: FlameGraph) -> List[FunctionCost]:
    """Self and inclusive value of every frame name, unordered.

    A frame that appears several times in one stack (recursion) counts once for that
    stack, so inclusive values never exceed the total.
    """
    self_values: Dict[str, Number] = {}
    inclusive: Dict[str, Number] = {}
    for stack, value in graph.items():
        if not stack:
            continue
        leaf = stack[-1]
        self_values[leaf] = self_values.get(leaf, 0) + value
        for frame in set(stack):
            inclusive[frame] = inclusive.get(frame, 0) + value
    return [FunctionCost(name, self_values.get(name, 0), value) for name, value in inclusive.items()]


def top_functions(graph: FlameGraph, n: int = 20, by: str = "self") -> List[FunctionCost]:
    """The ``n`` costliest functions by ``self`` or ``inclusive`` value, ties broken by name."""
    if by not in ("self", "inclusive"):
        raise ArgumentError(f"rank by 'self' or 'inclusive', not {by!r}")
    costs = function_costs(graph)
    if by == "self":
        costs.sort(key=lambda c: (-c.self_value, -c.inclusive_value, c.name))
    else:
        costs.sort(key=lambda c: (-c.inclusive_value, -c.self_value, c.name))
    return costs[:n] if n >= 0 else costs
