"""A before/after pair of profiles over the same stacks: the two-count folded format."""

from __future__ import annotations

from .._record import Record, record
from .vector import FlameGraph, stack_texts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, TypeVar
    from collections.abc import Hashable, Mapping

    from .._types import Number, Stack
    from .vector import Delta

    K = TypeVar("K", bound=Hashable)


@record
class Differential(Record):
    """Two flame graphs to compare stack by stack; what ``flamespace sub`` writes.

    flamegraph.pl draws such input with the widths of ``after`` and colours from the change.
    """

    before: FlameGraph
    after: FlameGraph

    @property
    def delta(self) -> Delta:
        """after − before."""
        return self.after - self.before

    def rows(self) -> list[tuple[Stack, Number, Number]]:
        """(stack, before, after) for every stack in either side, in stack order."""
        stacks = sorted(self.before.support() | self.after.support())
        return [(s, self.before.value(s), self.after.value(s)) for s in stacks]

    def normalized(self) -> Differential:
        """Scale ``before`` to the total of ``after``, as ``difffolded.pl -n`` does.

        Like difffolded.pl, each scaled value is rounded down to an integer (computed exactly
        for integer counts), so the output stays plain counts that diff against the Perl tool's.
        """
        texts = stack_texts(self.before)  # scaled by text when it keeps texts: no stack split
        values: Mapping[Any, Number] = self.before if texts is None else texts
        before = scale_to_total(values, self.after.total())
        if before is None:
            return self
        return Differential(self.before._mapped(FlameGraph, before), self.after)

    def map(self, transform: Callable[[FlameGraph], FlameGraph]) -> Differential:
        """Apply the same transform to both sides."""
        return Differential(transform(self.before), transform(self.after))


def scale_to_total(before: Mapping[K, Number], after_total: Number) -> dict[K, Number] | None:
    """``before``'s values scaled to ``after_total``, each rounded down, zeros dropped, as ``difffolded.pl -n``;
    None when there is nothing to scale (equal totals, or an empty ``before``).

    Integer counts are scaled exactly. Keys are stacks, or the stack texts a profile keeps.
    """
    before_total = sum(before.values())
    if before_total == after_total or not before_total:
        return None
    exact = isinstance(after_total, int) and isinstance(before_total, int)
    scaled: dict[K, Number] = {}
    for key, value in before.items():
        new: Number = (
            value * after_total // before_total if exact and isinstance(value, int) else int(value * after_total / before_total)
        )
        if new:
            scaled[key] = new
    return scaled
