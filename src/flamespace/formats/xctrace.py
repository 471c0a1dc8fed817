"""Xcode ``xctrace export`` XML of a Time Profiler table, as inferno-collapse-xctrace reads it
(FlameGraph has no script for it)::

    xctrace export --input run.trace --xpath '/trace-toc/run/data/table[@schema="time-profile"]'

    <trace-query-result><node ...><row>...
      <backtrace id="10"><frame id="11" name="leaf" addr="0x..."/><frame id="12" name="start" .../></backtrace>
    </row><row>... <backtrace ref="10"/> </row></node></trace-query-result>

Each row with a backtrace is one sample (frames leaf first; ``ref`` attributes point back to
a backtrace or frame given earlier); rows without one are passed over. Rust symbols that
the profiler left half demangled (``_$LT$a..B$GT$::f::h0123456789abcdef``) are finished
(``<a::B>::f``), as inferno does.
"""

from __future__ import annotations

from ..core.metadata import Metadata
from ..errors import InputError
from ._collapse import Stacks
from ._options import ReadOptions as ReadOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from .._types import Stack
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

name = "xctrace"
extensions = ()
description = "Xcode xctrace Time Profiler XML export (inferno-collapse-xctrace)"
#: The elements read, each under the one before it.
_NESTING = ("trace-query-result", "node", "row", "backtrace", "frame")
_METADATA = Metadata(unit="samples")
_CHUNK = 1 << 16


def sniff(head: bytes) -> bool | None:
    """True for an XML declaration and a ``<trace-query-result`` element."""
    if b"<?xml" not in head[:200]:
        return False
    return b"<trace-query-result" in head or (None if len(head) < 4096 else False)


# -- Rust symbols ---------------------------------------------------------------------------

_HASH_LENGTH = 17  # "h" and 16 hex digits
_HEX = frozenset("0123456789abcdefABCDEF")
_ESCAPES = {
    "$SP$": "@",
    "$BP$": "*",
    "$RF$": "&",
    "$LT$": "<",
    "$GT$": ">",
    "$LP$": "(",
    "$RP$": ")",
    "$C$": ",",
    "$u7e$": "~",
    "$u20$": " ",
    "$u27$": "'",
    "$u3d$": "=",
    "$u5b$": "[",
    "$u5d$": "]",
    "$u7b$": "{",
    "$u7d$": "}",
    "$u3b$": ";",
    "$u2b$": "+",
    "$u21$": "!",
    "$u22$": '"',
}


def finish_rust_symbol(symbol: str) -> str:
    """A Rust symbol ending in ``::h<16 hex digits>`` with its escapes undone and the hash
    dropped; anything else unchanged. Profilers that demangle only the C++ way leave these."""
    tail = symbol[-_HASH_LENGTH:]
    if len(symbol) < _HASH_LENGTH or tail[0] != "h" or not set(tail[1:]) <= _HEX:
        return symbol
    rest = symbol[:-_HASH_LENGTH]
    if rest.endswith("::"):
        rest = rest[:-2]
    if rest.startswith("_$"):
        rest = rest[1:]
    out: list[str] = []
    at = 0
    while at < len(rest):
        char = rest[at]
        if char == ".":
            double = rest.startswith("..", at)
            out.append("::" if double else ".")
            at += 2 if double else 1
        elif char == "$":
            end = rest.find("$", at + 1)
            escape = rest[at : end + 1] if end > 0 else ""
            if escape not in _ESCAPES:
                out.append(rest[at:])  # not an escape we know: the rest stays as it is
                break
            out.append(_ESCAPES[escape])
            at = end + 1
        else:
            end = min((i for i in (rest.find("$", at), rest.find(".", at)) if i >= 0), default=len(rest))
            out.append(rest[at:end])
            at = end
    return "".join(out)


# -- reading --------------------------------------------------------------------------------


class _Reader:
    """Follows the XML elements of the export and collects each row's backtrace."""

    def __init__(self, source: str) -> None:
        from xml.parsers import expat

        self.source = source
        self.parser = expat.ParserCreate()
        self.parser.buffer_text = True
        self.parser.StartElementHandler = self.start
        self.parser.EndElementHandler = self.end
        self.open: list[str | None] = []  # each open element: its name if read, None if passed over
        self.depth = 0  # elements of _NESTING open, in order
        self.done = False
        self.frames: dict[str, str] = {}  # frame id -> name
        self.backtraces: dict[str, list[str]] = {}  # backtrace id -> frame ids, leaf first
        self.current: list[str] | None = None  # frames of the backtrace being read
        self.row: str | None = None  # backtrace of the row being read
        self.samples: dict[str, int] = {}  # backtrace id -> rows

    def fail(self, message: str) -> InputError:
        return InputError(message, self.source, self.parser.CurrentLineNumber)

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        # read when it is the next of _NESTING and every element around it is read
        wanted = not self.done and len(self.open) == self.depth < len(_NESTING) and tag == _NESTING[self.depth]
        self.open.append(tag if wanted else None)
        if not wanted:
            return
        self.depth += 1
        if tag == "backtrace":
            self._backtrace(attributes)
        elif tag == "frame":
            self._frame(attributes)

    def _backtrace(self, attributes: dict[str, str]) -> None:
        ref = attributes.get("ref")
        if ref is not None:
            if ref not in self.backtraces:
                raise self.fail(f"backtrace ref={ref!r} points to no backtrace given before it")
            self.row, self.current = ref, None
            return
        ident = attributes.get("id")
        if ident is None:
            raise self.fail("expected an id or ref attribute on <backtrace>")
        if ident in self.backtraces:
            raise self.fail(f"backtrace id={ident!r} is given twice")
        self.current = self.backtraces[ident] = []
        self.row = ident

    def _frame(self, attributes: dict[str, str]) -> None:
        if self.current is None:
            raise self.fail("<frame> inside a <backtrace ref=...>: expected frames only in a backtrace with an id")
        ref = attributes.get("ref")
        if ref is not None:
            if ref not in self.frames:
                raise self.fail(f"frame ref={ref!r} points to no frame given before it")
            self.current.append(ref)
            return
        ident, frame_name = attributes.get("id"), attributes.get("name")
        if ident is None or frame_name is None:
            raise self.fail("expected a ref, or an id and a name, on <frame>")
        if ident in self.frames:
            raise self.fail(f"frame id={ident!r} is given twice")
        self.frames[ident] = frame_name
        self.current.append(ident)

    def end(self, tag: str) -> None:
        if self.open.pop() is None:
            return
        self.depth -= 1
        if tag == "row":
            if self.row is not None:
                self.samples[self.row] = self.samples.get(self.row, 0) + 1
            self.row = None
        elif tag == "backtrace":
            self.current = None
        elif tag == "trace-query-result":
            self.done = True


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Count the rows of each backtrace. Malformed XML, a dangling ref or an export that ends
    early is an error (a whole document cannot be read in part, so ``skip_invalid`` does not apply)."""
    from xml.parsers.expat import ErrorString, ExpatError

    stacks = Stacks(name, options.skip_invalid, source, diagnostics, stack_cache)
    reader = _Reader(source)
    empty = True
    try:
        for chunk in iter(lambda: stream.read(_CHUNK), ""):
            empty = empty and not chunk.strip()
            reader.parser.Parse(chunk.encode("utf-8", "surrogateescape"), False)
        if empty:
            return stacks.graph(_METADATA)
        reader.parser.Parse(b"", True)
    except ExpatError as error:
        reason = ErrorString(error.code)
        raise InputError(
            f"not a well-formed xctrace XML export: {reason} (column {error.offset})", source, error.lineno
        ) from None
    except RecursionError:
        raise InputError("not an xctrace export: XML nested too deeply", source) from None
    if not reader.done:
        raise InputError(
            "the input ends before </trace-query-result>: expected an xctrace XML export", source, reader.parser.CurrentLineNumber
        )
    names: dict[str, str] = {}
    for backtrace, count in reader.samples.items():
        frames = reader.backtraces[backtrace]
        stack = ";".join(_finished(names, reader.frames[frame]) for frame in reversed(frames))
        stacks.add(stack, count)
    return stacks.graph(_METADATA)


def _finished(cache: dict[str, str], symbol: str) -> str:
    found = cache.get(symbol)
    if found is None:
        found = cache[symbol] = finish_rust_symbol(symbol)
    return found
