"""Hypothesis strategies for flame graphs."""

from __future__ import annotations

from hypothesis import strategies as st

from flamespace import FlameGraph

frames = st.sampled_from(["main", "a", "b", "c", "parse (p.py:3)", "ü", "x y"])
stacks = st.lists(frames, min_size=0, max_size=5).map(tuple)
counts = st.integers(min_value=1, max_value=10**6)


@st.composite
def graphs(draw, unit: str = "samples", min_frames: int = 0) -> FlameGraph:  # type: ignore[no-untyped-def]
    """Flame graphs of integer counts; ``min_frames=1`` leaves out the empty stack (formats without one)."""
    keys = stacks if min_frames == 0 else st.lists(frames, min_size=min_frames, max_size=5).map(tuple)
    values = draw(st.dictionaries(keys, counts, max_size=12))
    return FlameGraph(values, unit=unit)
