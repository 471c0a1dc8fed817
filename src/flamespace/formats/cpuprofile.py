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
from ._options import ReadOptions as ReadOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Optional, TextIO

    from .._types import Stack

name = "cpuprofile"
extensions = (".cpuprofile",)
description = "Chrome DevTools / Node .cpuprofile (node --cpu-prof): a flame chart"
charts = True


def sniff(head: bytes) -> Optional[bool]:
    text = head.lstrip()
    if not text:
        return None
    return text[:1] == b"{" and b'"nodes"' in head and b'"callFrame"' in head


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Optional[Diagnostics] = None,
    stack_cache: Optional[Dict[str, Stack]] = None,
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
    stacks = _stacks(nodes, source)
    start = _json.number(document.get("startTime", 0), "startTime", source)
    _json.nanoseconds(start, 1000, "startTime", source, "us")  # a chart holds it, and each time below
    times: List[float] = []
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


def _stacks(nodes: List[Any], source: str) -> Dict[int, Stack]:
    """Every node id's stack, root first, (root) left out."""
    parents: Dict[int, int] = {}
    frames: Dict[int, str] = {}
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
    stacks: Dict[int, Stack] = {}
    for node_id in frames:
        chain: List[str] = []
        current: Optional[int] = node_id
        seen = 0
        while current is not None:
            cached = stacks.get(current)
            if cached is not None:
                chain.extend(reversed(cached))
                break
            frame = frames.get(current)
            if frame is None:
                raise InputError(f"node {node_id} has an ancestor {current} that is not in 'nodes'", source)
            if frame != "(root)":
                chain.append(frame)
            current = parents.get(current)
            seen += 1
            if seen > len(frames):
                raise InputError(f"the parents of node {node_id} form a cycle", source)
        stacks[node_id] = tuple(reversed(chain))
    return stacks


__all__ = ["ReadOptions", "charts", "extensions", "name", "parse", "sniff"]
