"""flamespace: flame graphs as vectors.

Read a profile, combine and compare it, write it back::

    import flamespace as fs
    base = fs.read("before.folded")
    cand = fs.read("after.folded")
    parts = fs.decompose(base, cand)       # appeared, grown, disappeared, shrunk
    print(fs.similarity(base, cand))
    fs.write(fs.strip(cand, "lines"), "after-by-function.folded")
"""

from .core import (
    STRIP_PRESETS,
    Decomposition,
    Delta,
    Differential,
    FlameGraph,
    Frame,
    FunctionCost,
    Metadata,
    Node,
    Number,
    Stack,
    StackVector,
    Tree,
    decompose,
    distance,
    fold_recursion,
    function_costs,
    limit_depth,
    map_frames,
    mean,
    norm,
    normalize,
    prefix,
    prune,
    rebase,
    remap,
    reverse,
    select,
    similarity,
    strip,
    sum_graphs,
    top_functions,
)
from .diagnostics import Diagnostics
from .errors import FlamespaceError, InputError, UnitMismatchError
from .formats import read, write

__version__ = "0.1.0"

__all__ = [
    "Decomposition", "Delta", "Diagnostics", "Differential", "FlameGraph", "FlamespaceError", "Frame",
    "FunctionCost", "InputError", "Metadata", "Node", "Number", "STRIP_PRESETS", "Stack", "StackVector",
    "Tree", "UnitMismatchError", "decompose", "distance", "fold_recursion", "function_costs",
    "limit_depth", "map_frames", "mean", "norm", "normalize", "prefix", "prune", "read", "rebase",
    "remap", "reverse", "select", "similarity", "strip", "sum_graphs", "top_functions", "write",
]
