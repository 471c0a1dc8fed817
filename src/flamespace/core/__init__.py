"""The vector space of flame graphs: types, algebra, transforms and the tree view.

Attributes are imported on first use (see :mod:`flamespace._lazy`).
"""

from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(
        ["Decomposition", "decompose", "distance", "mean", "norm", "normalize", "similarity", "sum_graphs"], "algebra"
    ),
    **dict.fromkeys(["ChartSample", "FlameChart"], "chart"),
    "Differential": "differential",
    "Metadata": "metadata",
    **dict.fromkeys(["FunctionCost", "function_costs", "top_functions"], "ranking"),
    **dict.fromkeys(
        [
            "IDLE_FRAME",
            "MAIN_THREAD",
            "STRIP_PRESETS",
            "fold_library",
            "fold_recursion",
            "limit_depth",
            "map_frames",
            "one_thread",
            "prefix",
            "prune",
            "rebase",
            "remap",
            "reverse",
            "select",
            "strip",
        ],
        "transforms",
    ),
    **dict.fromkeys(["Node", "Tree"], "tree"),
    **dict.fromkeys(["Delta", "FlameGraph", "Frame", "Number", "Stack", "StackVector"], "vector"),
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

TYPE_CHECKING = False
if TYPE_CHECKING:  # what type checkers and editors see (without importing typing at run time)
    from .algebra import Decomposition, decompose, distance, mean, norm, normalize, similarity, sum_graphs
    from .chart import ChartSample, FlameChart
    from .differential import Differential
    from .metadata import Metadata
    from .ranking import FunctionCost, function_costs, top_functions
    from .transforms import (
        IDLE_FRAME,
        MAIN_THREAD,
        STRIP_PRESETS,
        fold_library,
        fold_recursion,
        limit_depth,
        map_frames,
        one_thread,
        prefix,
        prune,
        rebase,
        remap,
        reverse,
        select,
        strip,
    )
    from .tree import Node, Tree
    from .vector import Delta, FlameGraph, Frame, Number, Stack, StackVector
