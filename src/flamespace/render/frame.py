"""One drawn frame as a record: what :attr:`Layout.frames` gives (the emitter reads columns)."""

from __future__ import annotations

from typing import NamedTuple, Optional

from ..core.vector import Number


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
