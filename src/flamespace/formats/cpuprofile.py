"""Chrome DevTools and Node's ``.cpuprofile`` (``node --cpu-prof``): a call tree and timed samples.

``nodes`` is the call tree (each node a ``callFrame`` and its ``children``, or, in older
files, its ``parent``); ``samples`` names the node each sample hit and ``timeDeltas`` the
microseconds since the previous one. As DevTools does, a sample lasts until the next one
(the last until ``endTime``): the result is a flame chart of one thread in nanoseconds.
``(root)`` is left out; ``(program)``, ``(idle)`` and ``(garbage collector)`` stay, as
DevTools shows them. Frames are ``function (file:line)`` (line 1-based; ``file://`` dropped).
"""

from __future__ import annotations

import sys

from ..core.chart import FlameChart
from ..core.metadata import Metadata
from ..core.python_frames import PythonFrames
from ..diagnostics import Diagnostics
from ..errors import InputError
from . import _json
from ._limits import FrameBudget
from ._nesting import wanted_stacks
from ._options import ReadOptions as ReadOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from .._types import Stack

name = "cpuprofile"
extensions = (".cpuprofile",)
description = "Chrome DevTools / Node .cpuprofile (node --cpu-prof): a flame chart"
charts = True


def sniff(head: bytes) -> bool | None:
    text = head.lstrip()
    if not text:
        return None
    return text[:1] == b"{" and b'"nodes"' in head and b'"callFrame"' in head


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameChart:
    metadata = Metadata(unit="ns", metric="wall", labels={"profiler": "cpuprofile"})
    document = _json.load(stream, source, "a .cpuprofile", diagnostics)
    if document is None:
        return FlameChart(metadata)
    if not isinstance(document, dict):
        raise InputError("not a .cpuprofile: expected an object with 'nodes', 'samples' and 'timeDeltas'", source)
    nodes = _json.field(document, "nodes", list, "", source)
    samples = _json.field(document, "samples", list, "", source)
    deltas = _json.field(document, "timeDeltas", list, "", source)
    if len(samples) != len(deltas):
        raise InputError(f"'samples' has {len(samples)} entries but 'timeDeltas' has {len(deltas)}", source)
    stacks = _stacks(nodes, samples, source)
    start = _json.number(document.get("startTime", 0), "startTime", source)
    _json.nanoseconds(start, 1000, "startTime", source, "us")  # a chart holds it, and each time below
    times: list[float] = []
    now = start
    for index, delta in enumerate(deltas):
        now += _json.number(delta, f"timeDeltas[{index}]", source)
        _json.nanoseconds(now, 1000, f"startTime + timeDeltas[:{index + 1}]", source, "us")
        times.append(now)
    end = _json.number(document.get("endTime", now), "endTime", source)
    _json.nanoseconds(end, 1000, "endTime", source, "us")
    order = sorted(range(len(samples)), key=times.__getitem__)  # deltas may be negative: samples out of order
    chart = FlameChart(metadata)
    for position, index in enumerate(order):
        node = samples[index]
        stack = stacks.get(node) if type(node) is int else None
        if stack is None:
            reason = f"samples[{index}] is {node!r:.60}, not the id of a node"
            if not options.skip_invalid:
                raise InputError(reason, source)
            if diagnostics is not None:
                diagnostics.skip(source, None, reason)
            continue
        until = times[order[position + 1]] if position + 1 < len(order) else max(end, times[index])
        weight = round((until - times[index]) * 1000)
        if weight > 0 and stack:
            chart.append(round((until - start) * 1000), "main", stack, weight)
    return chart


def _stacks(nodes: list[Any], wanted: list[Any], source: str) -> dict[int, Stack]:
    """The stacks of the node ids in ``wanted`` (the samples), root first, (root) left out; every
    node is checked. Only those: a tuple for each node of a tree 100,000 deep would be quadratic
    in its depth."""
    parents: dict[int, int] = {}
    frames: dict[int, str] = {}
    names = PythonFrames()
    for index, node in enumerate(nodes):
        path = f"nodes[{index}]"
        node_id = _json.integer(node.get("id") if isinstance(node, dict) else None, f"{path}.id", source)
        call = _json.field(node, "callFrame", dict, path, source)
        function = call.get("functionName") or "(anonymous)"
        url = call.get("url") or ""
        line = call.get("lineNumber")
        if not isinstance(function, str) or not isinstance(url, str):
            raise InputError(f"{path}.callFrame needs a string functionName and url", source)
        if url.startswith("file://"):
            url = url[len("file://") :]
        frames[node_id] = sys.intern(names(function, url, line + 1 if type(line) is int and line >= 0 else None))
        for child in _json.field(node, "children", list, path, source) if node.get("children") else ():
            parents[_json.integer(child, f"{path}.children[]", source)] = node_id
        parent = node.get("parent")
        if parent is not None:
            parents[node_id] = _json.integer(parent, f"{path}.parent", source)
    depth = _depths(frames, parents, source)
    sampled = sorted({node for node in wanted if type(node) is int and node in frames}, key=depth.__getitem__)
    parent_of = {node: parents.get(node, -1) for node in frames}  # -1: above the roots (ids are >= 0)
    frame_of = {node: None if frame == "(root)" else frame for node, frame in frames.items()}
    stacks = wanted_stacks(sampled, parent_of, frame_of, {-1: ()}, FrameBudget(source))
    del stacks[-1]  # no node's
    return stacks


def _depths(frames: dict[int, str], parents: dict[int, int], source: str) -> dict[int, int]:
    """Each node's depth (a root's: 1), checking every node's ancestors are in 'nodes' and form no
    cycle; each node is visited once (a walk stops at a node whose depth is known)."""
    depth: dict[int, int] = {}
    for node_id in frames:
        chain: list[int] = []
        on_chain = set()
        current: int | None = node_id
        base = 0
        while current is not None and current not in depth:
            if current not in frames:
                raise InputError(f"node {node_id} has an ancestor {current} that is not in 'nodes'", source)
            if current in on_chain:
                raise InputError(f"the parents of node {node_id} form a cycle", source)
            on_chain.add(current)
            chain.append(current)
            current = parents.get(current)
        if current is not None:
            base = depth[current]
        for node in reversed(chain):
            base += 1
            depth[node] = base
    return depth


__all__ = ["ReadOptions", "charts", "extensions", "name", "parse", "sniff"]
