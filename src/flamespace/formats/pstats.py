"""cProfile and yappi statistics (``python -m cProfile -o out.pstats``, ``yappi ... save(type="pstat")``).

The file is a marshalled dict: for each function ``(file, line, name)``, its call counts,
its own time, its cumulative time and, per caller, the same numbers for the calls from that
caller. It keeps caller→callee pairs, not stacks: **the full stacks cannot be recovered**.
This reader reconstructs the best estimate, as flameprof and gprof2dot do: from the
functions nobody called, each function's own and cumulative time is shared among the
stacks it was reached by, in proportion to the cumulative time each caller spent in it.
A recursive call ends its path (its time stays with the caller), and paths worth less than
a millionth of the total are cut there (their time stays with their caller too), so the
total is kept. The result says so: a warning in the diagnostics and the label
``stacks: estimated from caller-callee pairs``.

Frames are ``function (file:line)`` through the one Python naming; the line is where the
function is defined (what cProfile records), and cProfile's names are ``co_name`` (no
class), so they differ from a sampler's. Built-ins (file ``~``) keep their bare name.
Times are seconds. The marshal data is decoded here (only what pstats files hold), not
with ``marshal``, which is not meant for damaged input.
"""

from __future__ import annotations

import struct
import sys

from ..core.metadata import Metadata
from ..core.python_frames import PythonFrames
from ..core.vector import FlameGraph
from ..diagnostics import Diagnostics
from ..errors import InputError
from ._binary import error_at, read_all_bytes
from ._limits import FrameBudget
from ._options import ReadOptions as ReadOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from .._types import Number, Stack

    Key = tuple[str, int, str]

name = "pstats"
extensions = (".pstats", ".prof", ".cprofile")
description = "cProfile / yappi pstats files (stacks estimated from caller-callee pairs)"
ESTIMATED = "estimated from caller-callee pairs"
#: Paths worth less than this share of the total time are cut (their time stays with their caller).
MIN_SHARE = 1e-6
MAX_DEPTH = 200
#: Marshal's long integers have 15-bit digits; 70 hold any number below 1e300, the largest a time or count may be.
MAX_LONG_DIGITS = 70


def sniff(head: bytes) -> bool | None:
    """A marshalled dict whose first key is a 3-tuple."""
    if len(head) < 3:
        return None if head[:1] in (b"{", b"\xfb") else False
    return (
        head[0] in (0x7B, 0xFB)
        and head[1] & 0x7F == 0x29
        and head[2] == 3
        or (
            head[0] in (0x7B, 0xFB) and head[1] == 0x30  # an empty dict
        )
    )


class _Marshal:
    """A decoder for the marshal types a pstats file holds: dict, tuple, str, int, float, None, refs."""

    def __init__(self, data: bytes, source: str) -> None:
        self.data, self.pos, self.source = data, 0, source
        self.refs: list[Any] = []
        self.depth = 0

    def fail(self, message: str, at: int | None = None) -> InputError:
        return error_at(message, self.pos if at is None else at, self.source)

    def take(self, size: int) -> bytes:
        end = self.pos + size
        if size < 0 or end > len(self.data):
            raise self.fail("the data ends inside a value (truncated file?)")
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def int32(self) -> int:
        value: int = struct.unpack("<i", self.take(4))[0]
        return value

    def value(self) -> Any:
        at = self.pos
        code = self.take(1)[0]
        flag, code = code & 0x80, code & 0x7F
        slot = -1
        if flag:
            slot = len(self.refs)
            self.refs.append(None)
        self.depth += 1
        if self.depth > 50:
            raise self.fail("values nested too deeply", at)
        result = self._decode(chr(code), at)
        self.depth -= 1
        if flag:
            self.refs[slot] = result
        return result

    def _decode(self, code: str, at: int) -> Any:
        if code == "{":
            out: dict[Any, Any] = {}
            while True:
                if self.data[self.pos : self.pos + 1] == b"0":
                    self.pos += 1
                    return out
                key = self.value()
                try:
                    out[key] = self.value()
                except TypeError:
                    raise self.fail("a dict key that cannot be a key", at) from None
        if code in "()":
            size = self.take(1)[0] if code == ")" else self.int32()
            if size < 0:
                raise self.fail("a tuple of negative size", at)
            return tuple(self.value() for _ in range(size))
        if code in "zZ":
            return self.take(self.take(1)[0]).decode("latin-1")
        if code in "aAtu":
            size = self.int32()
            return self.take(size).decode("utf-8" if code in "tu" else "latin-1", "surrogateescape")
        if code == "i":
            return self.int32()
        if code == "l":
            digits = self.int32()
            if abs(digits) > MAX_LONG_DIGITS:  # decoding it would take time quadratic in its length
                raise self.fail(
                    f"an integer of {abs(digits)} 15-bit digits: no number of a pstats file is longer than {MAX_LONG_DIGITS}", at
                )
            value = 0
            for k in range(abs(digits)):
                value |= struct.unpack("<H", self.take(2))[0] << (15 * k)
            return -value if digits < 0 else value
        if code == "g":
            number: float = struct.unpack("<d", self.take(8))[0]
            return number
        if code == "r":
            index = self.int32()
            if not 0 <= index < len(self.refs) or self.refs[index] is None:
                raise self.fail(f"a reference to value {index}, which is not defined before", at)
            return self.refs[index]
        if code == "N":
            return None
        if code in "TF":
            return code == "T"
        if code == "c":
            raise self.fail(
                "a code object: files of the pure-Python profile module name functions by code objects; record with cProfile", at
            )
        raise self.fail(f"marshal type {code!r} where a pstats value was expected", at)


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    data = read_all_bytes(stream)
    return parse_bytes(data, source=source, diagnostics=diagnostics)


def parse_bytes(data: bytes, *, source: str = "<input>", diagnostics: Diagnostics | None = None) -> FlameGraph:
    metadata = Metadata(unit="s", metric="wall", labels={"profiler": "pstats", "stacks": ESTIMATED})
    if not data:
        if diagnostics is not None:
            diagnostics.warn(f"{source}: empty input; the profile is empty")
        return FlameGraph._trusted({}, metadata)
    decoder = _Marshal(data, source)
    stats = decoder.value()
    if decoder.pos != len(data):
        raise decoder.fail("more data after the statistics")
    table = _check(stats, source)
    if diagnostics is not None:
        diagnostics.warn(f"{source}: pstats files keep caller-callee pairs, not stacks; the stacks are an estimate")
    return FlameGraph._trusted(_estimate(table, source), metadata)


def _number(value: Any, what: str, source: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 1e300:
        return float(value)
    raise InputError(f"not a pstats file: {what} is {value!r:.60}, not a number >= 0", source)


def _check(stats: Any, source: str) -> dict[Key, tuple[float, float, dict[Key, float]]]:
    """Each function's (own time, cumulative time, {caller: cumulative time of the calls from it})."""
    if not isinstance(stats, dict):
        raise InputError("not a pstats file: expected a marshalled dict of functions", source)
    table: dict[Key, tuple[float, float, dict[Key, float]]] = {}
    for key, value in stats.items():
        if not (
            isinstance(key, tuple)
            and len(key) == 3
            and isinstance(key[0], str)
            and type(key[1]) is int
            and isinstance(key[2], str)
        ):
            raise InputError(f"not a pstats file: a function key is {key!r:.60}, not (file, line, name)", source)
        if not (isinstance(value, tuple) and len(value) == 5 and isinstance(value[4], dict)):
            raise InputError(f"not a pstats file: the statistics of {key[2]} are not (cc, nc, tt, ct, callers)", source)
        calls = _number(value[1], f"the call count of {key[2]}", source)
        own, total = (
            _number(value[2], f"the time of {key[2]}", source),
            _number(value[3], f"the cumulative time of {key[2]}", source),
        )
        callers: dict[Key, float] = {}
        for caller, edge in value[4].items():
            if not (isinstance(caller, tuple) and len(caller) == 3):
                raise InputError(f"not a pstats file: a caller of {key[2]} is {caller!r:.60}", source)
            if isinstance(edge, tuple) and len(edge) == 4:  # cProfile: (cc, nc, tt, ct) of these calls
                callers[caller] = _number(edge[3], f"the cumulative time of {key[2]} from {caller[2]}", source)
            else:  # the profile module: a call count; share the cumulative time by calls
                count = _number(edge, f"the calls of {key[2]} from {caller[2]}", source)
                callers[caller] = total * count / calls if calls else 0.0
        table[key] = (own, total, callers)
    return table


def _estimate(table: dict[Key, tuple[float, float, dict[Key, float]]], source: str) -> dict[Stack, Number]:
    names = PythonFrames()
    frame: dict[Key, str] = {key: sys.intern(names(key[2], "" if key[0] == "~" else key[0], key[1] or None)) for key in table}
    callees: dict[Key, list[tuple[Key, float]]] = {key: [] for key in table}
    #: What a function's share is a share of: its cumulative time, or the calls from its callers
    #: if they add up to more (yappi counts recursive calls in both), so shares never pass 1.
    whole: dict[Key, float] = {}
    for key, (_, cumulative, callers) in table.items():
        incoming = 0.0
        for caller, edge in callers.items():
            if caller in callees and caller != key and edge > 0:
                callees[caller].append((key, edge))
                incoming += edge
        whole[key] = max(cumulative, incoming)
    total_own = sum(own for own, _, _ in table.values())
    floor = total_own * MIN_SHARE
    values: dict[Stack, Number] = {}
    placed: dict[Key, float] = dict.fromkeys(table, 0.0)

    def add(stack: Stack, value: float) -> None:
        if value > 0:
            values[stack] = values.get(stack, 0) + value

    roots = [key for key, (_, _, callers) in table.items() if not any(c in table and c != key for c in callers)]
    # Depth first over (function, the share of its cumulative time this path has, path, functions on it),
    # with a list for a stack: no recursion limit.
    work: list[tuple[Key, float, Stack, frozenset[Key]]] = [(key, 1.0, (frame[key],), frozenset((key,))) for key in roots]
    # Pairs can describe exponentially many paths: what they are unrolled into is bounded.
    budget = FrameBudget(source, "the call graph has too many paths to estimate stacks from")
    while work:
        key, share, path, on_path = work.pop()
        own, cumulative, _ = table[key]
        placed[key] += own * share
        add(path, own * share)
        for callee, edge in callees[key]:
            if callee in on_path or not cumulative:
                continue  # a recursive call: its time is in the outer call's already
            callee_own = table[callee][0]
            child_share = edge * share / whole[callee] if whole[callee] else 0.0
            child_path = path + (frame[callee],)
            budget.charge(len(child_path))
            if edge * share < floor or len(path) >= MAX_DEPTH:  # cut: the callee's own time ends the path
                placed[callee] += callee_own * child_share
                add(child_path, callee_own * child_share)
            elif child_share > 0:
                work.append((callee, child_share, child_path, on_path | {callee}))
    for key, (own, _, _) in table.items():  # own time no path from a root reached (cycles): at the root
        rest = own - placed[key]
        if rest > own * 1e-9 and rest > 0:
            add((frame[key],), rest)
    return values


__all__ = ["ESTIMATED", "ReadOptions", "extensions", "name", "parse", "parse_bytes", "sniff"]
