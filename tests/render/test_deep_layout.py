"""The layout of deep stacks costs time linear in their depth (issue 24: `svg`, `html` and `text`
of two stacks 100,000 frames deep that share all but their leaf took 22-50 s).

Counted, not timed: the frames are a ``str`` subclass that counts its comparisons, and each
stack has its own frame objects (so no comparison is skipped as identical). Comparing whole
prefixes at every level made the count quadratic in the depth (2 million here, against a few thousand).
benchmarks/bench_long_inputs.py times the commands themselves.
"""

from __future__ import annotations


import flamespace as fs
from flamespace.render.layout import layout
from flamespace.render.options import LayoutOptions

DEPTH = 2000


class Counted(str):
    """A frame name that counts how often it is compared."""

    comparisons = 0

    def __eq__(self, other: object) -> bool:
        Counted.comparisons += 1
        return str.__eq__(self, other)

    def __lt__(self, other: str) -> bool:
        Counted.comparisons += 1
        return str.__lt__(self, other)

    def __gt__(self, other: str) -> bool:
        Counted.comparisons += 1
        return str.__gt__(self, other)

    __hash__ = str.__hash__


def deep_stack(leaf: str) -> tuple[str, ...]:
    return tuple(Counted(f"f{i}") for i in range(DEPTH)) + (Counted(leaf),)


def test_two_deep_stacks_sharing_all_but_the_leaf_are_laid_out_in_linear_comparisons() -> None:
    graph = fs.FlameGraph({deep_stack("x"): 1000, deep_stack("y"): 10})
    Counted.comparisons = 0
    drawn = layout(graph, LayoutOptions(min_percent=0))
    compared = Counted.comparisons
    c = drawn.columns
    assert len(c.names) == 1 + DEPTH + 2  # all, the shared frames, the two leaves
    assert c.depths[-2:] == [DEPTH + 1, DEPTH + 1] and sorted(c.names[-2:]) == ["x", "y"]
    assert c.values[: DEPTH + 1] == [1010] * (DEPTH + 1)
    assert compared <= 20 * DEPTH, f"{compared:,} comparisons of frame names for a stack {DEPTH:,} deep"


def test_a_deep_stack_with_its_prefix_as_another_stack_is_laid_out_in_linear_comparisons() -> None:
    graph = fs.FlameGraph({deep_stack("y")[:-1]: 1000, deep_stack("y"): 10})
    Counted.comparisons = 0
    drawn = layout(graph, LayoutOptions(min_percent=0))
    compared = Counted.comparisons
    c = drawn.columns
    assert len(c.names) == 1 + DEPTH + 1 and c.selfs[-2:] == [1000, 10]
    assert compared <= 20 * DEPTH, f"{compared:,} comparisons of frame names for a stack {DEPTH:,} deep"


def test_a_comparison_page_of_deep_stacks_finds_each_frames_rows_in_linear_comparisons() -> None:
    """html --diff of two stacks 20,000 deep took 17 s and 1.6 GB: each frame's path (a tuple
    as long as its depth) was built and searched for among the rows."""
    from flamespace.render.compare_page import comparison_html

    before = fs.FlameGraph({deep_stack("x"): 1000, deep_stack("y"): 10})
    after = fs.FlameGraph({deep_stack("x"): 900, deep_stack("y"): 30})
    Counted.comparisons = 0
    page = comparison_html([before, after], ["before", "after"])
    compared = Counted.comparisons
    assert "f1999" in page and "before" in page
    assert compared <= 60 * DEPTH, f"{compared:,} comparisons of frame names for a stack {DEPTH:,} deep"
