"""Operations on flame graphs from Tornetta, "On the Algebraic Properties of Flame Graphs"."""

from __future__ import annotations

from ..errors import ArgumentError
from .metadata import EMPTY, Metadata
from .stacks import StackTable
from .vector import Delta, FlameGraph, StackVector, stack_texts

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported at run time (start-up: `flamespace merge`)
    from typing import NamedTuple, TypeVar
    from collections.abc import Hashable, Iterable

    from .._types import Number, Stack

    K = TypeVar("K", bound=Hashable)  # a stack, or its text


def norm(vector: StackVector) -> Number:
    """L1 norm ‖f‖: the total recorded cost of a flame graph."""
    return vector.norm()


def distance(f: StackVector, g: StackVector) -> Number:
    """L1 distance ‖f − g‖."""
    return (f - g).norm()


def similarity(f: FlameGraph, g: FlameGraph) -> float:
    """σ(f, g) = 1 − ‖f − g‖ / (‖f‖ + ‖g‖): 1 for equal graphs, 0 for disjoint supports.

    Two empty graphs are equal, so their similarity is 1.
    """
    scale = f.norm() + g.norm()
    if scale == 0:
        return 1.0
    return 1.0 - distance(f, g) / scale


def sum_graphs(graphs: Iterable[FlameGraph]) -> FlameGraph:
    """Sum of many flame graphs, accumulated in one pass (much cheaper than repeated ``+``); one
    graph in memory at once besides the sum. Graphs kept as stack texts add by text (no split)
    until a graph of frame tuples comes: the sum then splits what it holds and goes on by stack."""
    by_text: dict[str, Number] = {}
    by_stack: dict[Stack, Number] = {}
    table: StackTable | None = None
    plain = True  # no text summed holds a line break
    metadata: Metadata | None = None
    for graph in graphs:
        metadata = graph.metadata if metadata is None else metadata.combine(graph.metadata)
        texts = stack_texts(graph)
        if texts is not None and not by_stack:
            _add(by_text, texts.items())
            table = table or graph._table
            plain = plain and stack_texts(graph, plain=True) is not None
        else:
            if by_text:
                by_stack = dict(FlameGraph._from_texts(by_text, EMPTY, table, plain).items())
                by_text = {}
            _add(by_stack, graph.items())
        del graph  # not held while the next one is made (a reader's generator)
    if by_text:
        return FlameGraph._from_texts(by_text, metadata or Metadata(), table, plain)
    return FlameGraph._trusted(by_stack, metadata or Metadata())


def _add(total: dict[K, Number], pairs: Iterable[tuple[K, Number]]) -> None:
    """Add (key, value) ``pairs`` into ``total``, in their order."""
    get = total.get
    for key, value in pairs:
        total[key] = get(key, 0) + value


def mean(graphs: Iterable[FlameGraph]) -> FlameGraph:
    """Mean flame graph of a sample of runs (sum divided by the number of runs)."""
    graphs = list(graphs)
    if not graphs:
        raise ArgumentError("the mean of no flame graphs is undefined")
    mean: FlameGraph = sum_graphs(graphs) / len(graphs)  # positive / positive
    return mean


def normalize(graph: FlameGraph, to: FlameGraph | Number | None = None) -> FlameGraph:
    """Scale ``graph`` so its norm is 1 (unit becomes ``share``), ``to`` a number, or ``to``'s norm.

    An empty graph stays empty: there is nothing to scale.
    """
    current = graph.norm()
    if current == 0:
        return graph
    if to is None:
        unit: FlameGraph = graph / current
        return unit.with_metadata(unit="share")
    target = to.norm() if isinstance(to, StackVector) else to
    if target < 0:
        raise ArgumentError(f"cannot normalise to a negative total ({target!r})")
    scaled: FlameGraph = graph * (target / current)
    return scaled


if TYPE_CHECKING:

    class _Parts(NamedTuple):
        appeared: FlameGraph
        grown: FlameGraph
        disappeared: FlameGraph
        shrunk: FlameGraph
else:  # the same tuple class without importing typing
    from collections import namedtuple

    _Parts = namedtuple("_Parts", ("appeared", "grown", "disappeared", "shrunk"))


class Decomposition(_Parts):
    """The four-way split of Δ = f2 − f1 into flame graphs with disjoint supports.

    ``appeared``: stacks only in f2; ``grown``: in both and larger in f2;
    ``disappeared``: stacks only in f1; ``shrunk``: in both and smaller in f2.
    Δ = (appeared + grown) − (disappeared + shrunk).
    """

    __slots__ = ()

    @property
    def delta(self) -> Delta:
        delta: Delta = (self.appeared + self.grown) - (self.disappeared + self.shrunk)
        return delta


def decompose(f1: FlameGraph, f2: FlameGraph) -> Decomposition:
    """Split the change from ``f1`` (before) to ``f2`` (after) into its four parts."""
    meta = f1.metadata.combine(f2.metadata)
    appeared: dict[Stack, Number] = {}
    grown: dict[Stack, Number] = {}
    disappeared: dict[Stack, Number] = {}
    shrunk: dict[Stack, Number] = {}
    for stack, after in f2.items():
        before = f1.value(stack)
        if not before:
            appeared[stack] = after
        elif after > before:
            grown[stack] = after - before
        elif after < before:
            shrunk[stack] = before - after
    for stack, before in f1.items():
        if stack not in f2:
            disappeared[stack] = before
    parts = (appeared, grown, disappeared, shrunk)
    return Decomposition(*(FlameGraph._trusted(p, meta) for p in parts))
