"""The statistical methods of ``compare``, one seam: what each can do, and one way to run it.

A method is a module of ``stats/`` with ``run(x1, x2, options) -> TestResult`` (the shape
:class:`Method` writes down; ``_conformance`` below has mypy check each module against it),
listed in :data:`REGISTRY` with what it offers. Everything that differs by method (which
options it takes, whether its intervals are simultaneous, a limit to check while runs are
read) is read from its :class:`MethodInfo`, never from an ``if method == ...`` elsewhere.
This module imports no numpy and no method: the CLI reads the names from it at start-up,
and :func:`load` imports a method when it runs.
"""

from __future__ import annotations

import importlib

from .._record import Record, record
from ..errors import ArgumentError

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings (PEP 563)
if TYPE_CHECKING:
    from typing import Callable, Protocol

    import numpy as np

    from ._result import TestResult
    from .comparison import CompareOptions

    class Method(Protocol):
        """A method module's one entry point: the test of x1 (baseline runs × stacks) against x2
        with ``compare``'s options (alpha, alternative, and those the method's info says it takes)."""

        def run(self, x1: np.ndarray, x2: np.ndarray, options: CompareOptions) -> TestResult: ...


@record
class MethodInfo(Record):
    """What a method offers. ``fdr``: a false-discovery-rate correction besides the family-wise
    error; ``permutations``: it relabels runs (``permutations``, ``seed``, ``paired`` and
    ``statistic`` apply); ``simultaneous``: its intervals hold for all stacks at once;
    ``intervals_decide``: a stack is significant when its interval excludes 0 (hotelling's F
    tests decide instead); ``checks_stacks``: its module's ``check_stacks(stacks, runs)``
    (varying, runs, at_least) refuses too many stacks for the runs (:func:`stack_check`)."""

    name: str
    module: str
    summary: str
    fdr: bool = False
    permutations: bool = False
    simultaneous: bool = True
    intervals_decide: bool = True
    checks_stacks: bool = False


#: Every method, the default first: maxt's permutation test holds its family-wise error exactly at any n and p.
REGISTRY = {
    info.name: info
    for info in (
        MethodInfo(
            "maxt", "flamespace.stats.maxt", "exact permutation test of every stack at once (max t)", fdr=True, permutations=True
        ),
        MethodInfo("welch", "flamespace.stats.welch", "per-stack Welch t-tests, Holm or BH/BY", fdr=True, simultaneous=False),
        MethodInfo(
            "hotelling",
            "flamespace.stats.hotelling",
            "Tornetta's Hotelling T², closed testing",
            intervals_decide=False,
            checks_stacks=True,
        ),
    )
}
METHODS = tuple(REGISTRY)
DEFAULT_METHOD = METHODS[0]


def info(name: str) -> MethodInfo:
    """The method called ``name``; ArgumentError lists the choices."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise ArgumentError(f"unknown method {name!r}; choose one of {', '.join(METHODS)}") from None


def load(name: str) -> Method:
    """The module of the method called ``name``, imported now."""
    module: Method = importlib.import_module(info(name).module)  # its shape: checked below
    return module


def stack_check(name: str) -> Callable[..., None] | None:
    """The method's limit on stacks for the runs, to check while runs are read (stop early);
    None when it has none."""
    if not info(name).checks_stacks:
        return None
    check: Callable[..., None] = importlib.import_module(info(name).module).check_stacks
    return check


if TYPE_CHECKING:  # mypy checks each method module against Method (one line a method)
    from . import hotelling, maxt, welch

    _maxt: Method = maxt
    _welch: Method = welch
    _hotelling: Method = hotelling
