"""The vector space of flame graphs: types, algebra, transforms and the tree view."""

from .algebra import Decomposition, decompose, distance, mean, norm, normalize, similarity, sum_graphs
from .differential import Differential
from .metadata import Metadata
from .ranking import FunctionCost, function_costs, top_functions
from .transforms import (
    STRIP_PRESETS,
    fold_recursion,
    limit_depth,
    map_frames,
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

__all__ = [
    "Decomposition", "Delta", "Differential", "FlameGraph", "Frame", "FunctionCost", "Metadata",
    "Node", "Number", "STRIP_PRESETS", "Stack", "StackVector", "Tree", "decompose", "distance",
    "fold_recursion", "function_costs", "limit_depth", "map_frames", "mean", "norm", "normalize",
    "prefix", "prune", "rebase", "remap", "reverse", "select", "similarity", "strip", "sum_graphs",
    "top_functions",
]
