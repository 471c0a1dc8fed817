"""Open and close events (speedscope's evented profiles, Chrome's spans) as the stack open after
each event, with array operations: a trace of millions of events makes no object per event.

A stack is a node of a tree of the stacks opened (node 0: nothing open; each other node is its
parent's stack and one frame more). The tree is built a depth at a time, each depth's opens
numbered with one ``numpy.unique``: deep traces (beyond :data:`MAX_DEPTH`) are left to the
callers' loops.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Iterable

    from ._limits import FrameBudget

#: Deeper nesting is refused (None): a depth costs a few array operations however few its events.
MAX_DEPTH = 4096

#: Traces of fewer events are read event by event: importing numpy (about 0.07 s) would cost
#: more than the arrays save.
ARRAYS_FROM = 10_000


def open_stacks(opens: Any, keys: Any, frames: Any) -> tuple[Any, Any, Any] | None:
    """(the node open after each event, each node's parent, each node's frame) of events in
    order: ``opens`` (bool) opens a frame ``frames[k]``, else the event closes the innermost
    open event, whose ``keys`` must be its own. None when one does not (or closes nothing), an
    event is never closed, or the nesting is deeper than :data:`MAX_DEPTH`.

    An event's depth is the running count of opens less closes; the opens and closes at one
    depth alternate, so sorted by depth (stably) each close follows the open it closes, and an
    open's parent is the latest open one depth up before it."""
    import numpy

    n = len(opens)
    if not n:
        return numpy.zeros(0, dtype=numpy.int64), numpy.zeros(1, dtype=numpy.int64), numpy.full(1, -1, dtype=numpy.int64)
    depth = numpy.cumsum(numpy.where(opens, 1, -1))
    deepest = int(depth.max())
    if int(depth.min()) < 0 or int(depth[-1]) != 0 or deepest > MAX_DEPTH:
        return None
    level = depth
    level += ~opens  # a close is at the depth it leaves
    order = numpy.argsort(level.astype(numpy.uint16), kind="stable")  # radix sort
    opened, closed = order[0::2], order[1::2]
    if not opens[opened].all() or opens[closed].any() or (keys[opened] != keys[closed]).any():
        return None
    levels = level[opened]
    bounds: Any = numpy.searchsorted(levels, numpy.arange(1, deepest + 2))
    ranks = levels * (n + 1) + opened  # increasing
    parent_at = numpy.searchsorted(ranks, ranks - (n + 1)) - 1  # the latest open one depth up (position in opened)
    node_of: Any = numpy.empty(len(opened), dtype=numpy.int64)
    parents: list[Any] = [numpy.zeros(1, dtype=numpy.int64)]
    node_frames: list[Any] = [numpy.full(1, -1, dtype=numpy.int64)]
    width = int(frames[opened].max()) + 1
    count = 1
    for depth_index in range(deepest):
        at = slice(int(bounds[depth_index]), int(bounds[depth_index + 1]))
        parent = node_of[parent_at[at]] if depth_index else numpy.zeros(at.stop - at.start, dtype=numpy.int64)
        kinds, inverse = numpy.unique(parent * width + frames[opened[at]], return_inverse=True)
        node_of[at] = inverse.reshape(-1) + count
        parents.append(kinds // width)
        node_frames.append(kinds % width)
        count += len(kinds)
    parent_of = numpy.concatenate(parents)
    tops: Any = numpy.empty(n, dtype=numpy.int64)
    tops[opened] = node_of
    tops[closed] = parent_of[node_of]
    return tops, parent_of, numpy.concatenate(node_frames)


def wanted_stacks(
    wanted: Iterable[int], parent: Any, frame: Any, known: dict[int, tuple[str, ...]], budget: FrameBudget
) -> dict[int, tuple[str, ...]]:
    """The stacks of the ``wanted`` nodes of a tree (``parent[node]``; ``frame[node]``, None for a
    node that adds no frame), root first, and those ``known`` already (the root's: ``()``).

    A tuple for every node of a chain 100,000 deep is 40 GB (quadratic in depth), though a trace
    samples only a few of them: only the wanted ones are made, each from the nearest wanted
    ancestor made before it (give ancestors first: parents before children), walking up the parent
    pointers to it. Memory is that of the stacks asked for, charged to the reading's ``budget``
    (a recursion 100,000 deep sampled at every depth has 5 billion frames: an InputError naming
    the file and the limit). The tree must have no cycle and every chain must reach a known
    node (the callers check).
    """
    stacks = dict(known)
    for node in wanted:
        if node in stacks:
            continue
        chain: list[str] = []
        current = node
        while current not in stacks:
            name = frame[current]
            if name is not None:
                chain.append(name)
            current = parent[current]
        chain.reverse()
        stack = stacks[node] = stacks[current] + tuple(chain)
        budget.charge(len(stack))
    return stacks


def used_stacks(
    nodes: Any, parents: list[int], labels: list[int], frames: list[str], budget: FrameBudget
) -> tuple[Any, list[tuple[str, ...]]]:
    """The stretches' ``nodes`` (of a tree as :func:`open_stacks` makes it: node 0 none, parents
    before their children, ``labels`` indices into ``frames``) numbered among the nodes they
    use, and those nodes' stacks (:func:`wanted_stacks`)."""
    import numpy

    used = numpy.unique(nodes)
    names = [frames[label] if label >= 0 else None for label in labels]
    by_node = wanted_stacks(used.tolist(), parents, names, {0: ()}, budget)
    return numpy.searchsorted(used, nodes), [by_node[node] for node in used.tolist()]
