"""A before/after pair of profiles over the same stacks: the two-count folded format."""

from __future__ import annotations

from .._record import Record, record
from .vector import FlameGraph

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, List, Tuple

    from .._types import Number, Stack
    from .vector import Delta


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

    def rows(self) -> List[Tuple[Stack, Number, Number]]:
        """(stack, before, after) for every stack in either side, in stack order."""
        stacks = sorted(self.before.support() | self.after.support())
        return [(s, self.before.value(s), self.after.value(s)) for s in stacks]

    def normalized(self) -> "Differential":
        """Scale ``before`` to the total of ``after``, as ``difffolded.pl -n`` does.

        Like difffolded.pl, each scaled value is rounded down to an integer (computed exactly
        for integer counts), so the output stays plain counts that diff against the Perl tool's.
        """
        before_total, after_total = self.before.total(), self.after.total()
        if before_total == after_total or not before_total:
            return self

        def scaled(value: Number) -> int:
            if isinstance(value, int) and isinstance(after_total, int) and isinstance(before_total, int):
                return value * after_total // before_total
            return int(value * after_total / before_total)

        before = {stack: scaled(value) for stack, value in self.before.items()}
        return Differential(FlameGraph(before, metadata=self.before.metadata), self.after)

    def map(self, transform: Callable[[FlameGraph], FlameGraph]) -> "Differential":
        """Apply the same transform to both sides."""
        return Differential(transform(self.before), transform(self.after))
