"""A progress line on stderr for long work (collect's runs, reading many files), when stderr is a terminal.

``label  12/50  ━━━━━━━━━━────────────  0:41 left``, redrawn in place (``\\r``) at most every
:data:`REDRAW` seconds and erased at the end, so that nothing of it stays in the terminal's
scrollback; a line written meanwhile (:meth:`Progress.note`) goes above it.
"""

from __future__ import annotations

import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO, TypeVar
    from collections.abc import Iterable, Iterator

    T = TypeVar("T")

#: The least time between two redraws, in seconds (a fast loop must not spend its time drawing).
REDRAW = 0.1
#: The bar's width in characters.
BAR = 30


class Progress:
    """``done`` of ``total`` steps, drawn on ``stream`` (stderr)."""

    def __init__(self, label: str, total: int, stream: TextIO | None = None) -> None:
        self.label, self.total, self.done = label, total, 0
        self.stream = stream if stream is not None else sys.stderr
        self.started = time.monotonic()
        self.drawn_at = 0.0
        self.shown = False

    def advance(self, steps: int = 1, label: str | None = None) -> None:
        self.done += steps
        if label is not None:
            self.label = label
        now = time.monotonic()
        if now - self.drawn_at >= REDRAW or self.done >= self.total:
            self.draw(now)

    def line(self, now: float) -> str:
        """The progress line at time ``now`` (time.monotonic)."""
        share = min(self.done / self.total, 1.0) if self.total else 1.0
        filled = round(share * BAR)
        text = f"{self.label}  {self.done}/{self.total}  {'━' * filled}{'─' * (BAR - filled)}"
        if 0 < self.done < self.total:
            left = (now - self.started) / self.done * (self.total - self.done)
            text += f"  {int(left // 60)}:{int(left % 60):02d} left"
        return text

    def draw(self, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self.stream.write("\r\x1b[2K" + self.line(now))
        self.stream.flush()
        self.drawn_at, self.shown = now, True

    def note(self, text: str) -> None:
        """``text`` on a line of its own above the progress line."""
        self.erase()
        self.stream.write(text + "\n")
        self.draw()

    def erase(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self.shown = False


def track(items: Iterable[T], label: str, total: int, stream: TextIO | None = None) -> Iterator[T]:
    """``items``, advancing a :class:`Progress` of ``total`` steps after each; erased at the end."""
    progress = Progress(label, total, stream)
    progress.draw()
    try:
        for item in items:
            yield item
            progress.advance()
    finally:
        progress.erase()
