"""flamespace: flame graphs as vectors.

Read a profile, combine and compare it, write it back::

    import flamespace as fs
    base = fs.read("before.folded")
    cand = fs.read("after.folded")
    parts = fs.decompose(base, cand)       # appeared, grown, disappeared, shrunk
    print(fs.similarity(base, cand))
    fs.write(fs.strip(cand, "lines"), "after-by-function.folded")
"""

from . import core
from .core import *  # noqa: F401,F403  (the vector space; its __all__ lists it)
from .diagnostics import Diagnostics
from .errors import ArgumentError, FlamespaceError, InputError, UnitMismatchError
from .formats import read, write

__version__ = "0.1.0"

__all__ = sorted(
    core.__all__
    + ["Diagnostics", "FlamespaceError", "InputError", "UnitMismatchError", "ArgumentError", "read", "write"]
)
