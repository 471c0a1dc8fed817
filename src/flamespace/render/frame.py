"""One laid-out frame as a record: what :attr:`Layout.frames` gives (the emitters read columns)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from .._types import Number


class Frame(NamedTuple):
    """One laid-out frame, in value units: it spans [start, start + value) of the layout's total.

    ``self_value``: the frame's own value (not in its children); ``delta``: the change of its
    value (inclusive or own, as the layout's ``delta`` option), None unless differential.
    """

    name: str
    depth: int
    start: Number
    value: Number
    self_value: Number
    delta: Number | None

    @property
    def width(self) -> Number:
        """The frame's width in value units: its value."""
        return self.value

    @property
    def end(self) -> Number:
        return self.start + self.value
