"""What every stack collapser (dtrace, sample, vtune, ...) shares: counting folded stack texts,
refusing or skipping bad lines, and turning the counts into a flame graph.

A collapser reads its tool's text and adds ``frame;frame;... count`` records exactly as the
reference script would print them; the result is what reading that printout as folded text
gives, so our output matches the script's byte for byte once written as folded stacks.
"""

from __future__ import annotations

from ..core.metadata import Metadata
from ..core.vector import MAX_DIGITS, MAX_VALUE, FlameGraph
from ..errors import InputError
from ._io import bounded_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, TextIO
    from collections.abc import Iterator

    from .._types import Number, Stack
    from ..diagnostics import Diagnostics

#: Characters of a bad line quoted in an error message.
SHOWN = 60
#: What Perl's ``\s`` matches in the byte strings the reference scripts read (not Unicode spaces).
WHITESPACE = " \t\n\r\f\v"


def shown(line: str) -> str:
    """A line as quoted in an error: repr, cut to :data:`SHOWN` characters."""
    return repr(line if len(line) <= SHOWN else line[: SHOWN - 3] + "...")


def lines(stream: TextIO, source: str) -> Iterator[tuple[int, str]]:
    """(line number, line without its line break) for each line of ``stream`` (``source``: its
    name); a line longer than the limit is refused (formats/_io.py's :func:`bounded_lines`)."""
    for lineno, line in enumerate(bounded_lines(stream, source), 1):
        yield lineno, line.rstrip("\n")


def integer(digits: str) -> Number:
    """The count ``digits`` (ASCII digits) hold; too many digits give a value :meth:`Stacks.add` refuses."""
    return int(digits) if len(digits) <= MAX_DIGITS else MAX_VALUE


class Callers:
    """A stack read leaf first, each frame the caller of those before it, as the scripts build it
    by putting ``frame . ";" . stack``: a frame put under an empty stack is the whole stack, so
    an empty frame there is lost. The frames are kept in a list and joined once (:meth:`text`):
    a string built by putting each frame in front is copied whole at every frame, quadratic
    in the depth (a faulthandler dump 100,000 frames deep took 48 s)."""

    __slots__ = ("frames",)

    def __init__(self) -> None:
        self.frames: list[str] = []  # leaf first

    def add(self, frame: str) -> None:
        """Put ``frame`` under the stack read so far."""
        if frame or self.frames:
            self.frames.append(frame)

    def __bool__(self) -> bool:
        """Whether the stack has a frame (its text is not empty)."""
        return bool(self.frames)

    def text(self) -> str:
        """The stack as a folded text, root first."""
        return ";".join(reversed(self.frames))

    def clear(self) -> None:
        """Start a new stack."""
        self.frames = []


def count_dumps(stream: TextIO, stacks: Stacks, frame_of: Callable[[str], str | None]) -> FlameGraph:
    """Each stack of a thread dump counted once (gdb backtraces, faulthandler tracebacks):
    a line ``frame_of`` names is the caller of the frames before it, a ``Thread`` line starts
    a new stack, and any other line ends the stack read so far."""
    stack = Callers()
    for lineno, line in lines(stream, stacks.source):
        if line.startswith("Thread"):
            stack.clear()
            continue
        frame = frame_of(line)
        if frame is not None:
            stack.add(frame)
        elif stack:
            stacks.add(stack.text(), 1, lineno)
            stack.clear()
    if stack:
        stacks.add(stack.text(), 1)
    return stacks.graph()


class Stacks:
    """Counts of folded stack texts for one input, and the input's bad lines (refused or skipped)."""

    def __init__(
        self,
        format: str,
        skip_invalid: bool,
        source: str,
        diagnostics: Diagnostics | None,
        stack_cache: dict[str, Stack] | None,
    ) -> None:
        self.format = format
        self.skip_invalid = skip_invalid
        self.source = source
        self.diagnostics = diagnostics
        self.stack_cache = stack_cache
        self.counts: dict[str, Number] = {}
        self._skipped_row: tuple[int, int] | None = None  # (depth, line) of the last row skipped in a tree

    def add(self, text: str, value: Number, line: int | None = None) -> None:
        """Count ``value`` for the stack ``text`` (frames joined by ';', root first), if it is in range."""
        if not 0 <= value < MAX_VALUE:
            self.invalid(line, f"count {str(value)[:40]} is out of range: counts must be >= 0 and below {MAX_VALUE:g}")
            return
        self.counts[text] = self.counts.get(text, 0) + value

    def invalid(self, line: int | None, reason: str) -> None:
        """A malformed record: raise :class:`InputError` unless skipping, then count it."""
        if not self.skip_invalid:
            raise InputError(reason, self.source, line)
        if self.diagnostics is not None:
            self.diagnostics.skip(self.source, line, reason)

    def placed(self, line: int, depth: int, open_levels: int) -> bool:
        """Whether a row of an indented tree at ``depth`` (0: a root) can hang under the
        ``open_levels`` rows open above it. A row that skips a level is refused (or skipped);
        when skipping, the rows under a skipped row are skipped with it."""
        if self._skipped_row is not None:
            skipped_depth, skipped_line = self._skipped_row
            if depth > skipped_depth:
                self.invalid(line, f"this row is under the row of line {skipped_line}, which was skipped")
                return False
            self._skipped_row = None
        if depth > open_levels:
            self.skip_row(line, depth, f"indentation skips a level: this row is {depth + 1} levels deep under {open_levels}")
            return False
        return True

    def skip_row(self, line: int, depth: int, reason: str) -> None:
        """A malformed row of an indented tree at ``depth``: refused, or skipped with the rows under it."""
        self.invalid(line, reason)
        self._skipped_row = (depth, line)

    def graph(self, metadata: Metadata | None = None) -> FlameGraph:
        """The flame graph of what was counted; a warning if there was nothing."""
        if not any(self.counts.values()) and self.diagnostics is not None:
            self.diagnostics.warn(
                f"{self.source}: no stacks found in this {self.format} input (none with a count above 0); the profile is empty"
            )
        return FlameGraph.from_texts(self.counts, metadata=metadata, stacks=self.stack_cache)
