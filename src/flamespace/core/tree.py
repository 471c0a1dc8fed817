"""The merged prefix tree of a flame graph: what a flame graph picture draws.

Each node is a frame reached by one path from the root; its ``value`` is inclusive (its own
samples plus its descendants') and ``self_value`` the samples where it was the leaf. Walks are
iterative because real stacks can be thousands of frames deep.
"""

from __future__ import annotations

import math

from .vector import StackVector

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported at run time (start-up: `flamespace filter`)
    from collections.abc import Iterator

    from .._types import Number, Stack

ROOT_NAME = "all"


class Node:
    """One frame of the merged tree."""

    __slots__ = ("name", "parent", "children", "value", "self_value", "depth")

    def __init__(self, name: str, parent: Node | None, depth: int) -> None:
        self.name = name
        self.parent = parent
        self.children: dict[str, Node] = {}
        self.value: Number = 0
        self.self_value: Number = 0
        self.depth = depth

    @property
    def stack(self) -> Stack:
        """The frames from the root's first child down to this node."""
        frames: list[str] = []
        node: Node | None = self
        while node is not None and node.parent is not None:
            frames.append(node.name)
            node = node.parent
        return tuple(reversed(frames))

    def sorted_children(self) -> list[Node]:
        """Children in bytewise name order, as flamegraph.pl draws them."""
        return [self.children[name] for name in sorted(self.children)]

    def __repr__(self) -> str:
        return f"Node({self.name!r}, value={self.value!r}, self={self.self_value!r}, depth={self.depth})"


class Tree:
    """Merged prefix tree of a vector; the root is the synthetic frame ``all`` (depth 0)."""

    def __init__(self, root: Node) -> None:
        self.root = root

    @classmethod
    def from_graph(cls, graph: StackVector) -> Tree:
        root = Node(ROOT_NAME, None, 0)
        for stack, value in graph.items():
            node = root
            node.value += value
            for frame in stack:
                child = node.children.get(frame)
                if child is None:
                    child = node.children[frame] = Node(frame, node, node.depth + 1)
                child.value += value
                node = child
            node.self_value += value
        return cls(root)

    def walk(self) -> Iterator[Node]:
        """Every node, parents before children, siblings in name order."""
        pending = [self.root]
        while pending:
            node = pending.pop()
            yield node
            pending.extend(reversed(node.sorted_children()))

    def find(self, stack: Stack) -> Node | None:
        """The node at the end of ``stack``, or None."""
        node: Node | None = self.root
        for frame in stack:
            node = node.children.get(frame) if node is not None else None
        return node

    def __len__(self) -> int:
        """Number of nodes, the root included."""
        return sum(1 for _ in self.walk())

    def max_depth(self) -> int:
        return max(node.depth for node in self.walk())

    def check(self, rel_tol: float = 1e-9) -> None:
        """Raise ValueError unless every node's value = self value + children's values."""
        pending = [self.root]
        while pending:
            node = pending.pop()
            expected = node.self_value + sum(c.value for c in node.children.values())
            if not math.isclose(node.value, expected, rel_tol=rel_tol, abs_tol=1e-12):
                raise ValueError(
                    f"tree invariant broken at {';'.join(node.stack) or ROOT_NAME!r}: "
                    f"value {node.value!r} != self {node.self_value!r} + children"
                )
            pending.extend(node.children.values())
