"""The limits that keep a small input from taking unbounded memory, in one place.

Each limit has a default here and an environment variable that replaces it, read when the
limit is checked (so every command, and the library, obey it); the errors name the variable.
A value is a count, with an optional suffix ``K``, ``M``, ``G`` or ``T`` (powers of 1024),
or ``none`` for no limit.
"""

from __future__ import annotations

import os
import sys

from ..errors import ArgumentError, InputError


#: How much a gzipped input may decompress to: this many times its compressed size...
GUNZIP_RATIO = 100
#: ...but at least this many bytes (small files of repetitive text compress well).
GUNZIP_FLOOR = 64 << 20
#: Replaces the rule above with a size in bytes (``4G``), or ``none``.
GUNZIP_ENV = "FLAMESPACE_MAX_DECOMPRESSED"

#: The frames of all the stacks a reader makes, counted with repeats (about 14 bytes each, with
#: the stacks' own cost): a pstats call graph unrolled into paths (caller-callee pairs can
#: describe exponentially many), the sampled stacks of a trace (a recursion 100,000 deep
#: sampled at each depth has 5 billion).
STACK_FRAMES = 50_000_000
STACK_FRAMES_ENV = "FLAMESPACE_MAX_STACK_FRAMES"

#: The longest line a line-by-line reader takes, in bytes: a longer one is refused as soon as it
#: is seen to be longer, before it is read whole (one line of 2 GB from a gzip of 2 MB took
#: minutes and gigabytes). A stack 100,000 frames deep is about 5 MB of folded text.
MAX_LINE = 128 << 20
MAX_LINE_ENV = "FLAMESPACE_MAX_LINE"
#: The least line limit: more than a chunk the folded reader reads at once, so that every line
#: longer than the limit spans chunks, where it is measured.
MIN_LINE = 1 << 20

_SUFFIXES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def from_environment(variable: str) -> int | None:
    """The limit the environment variable sets: an int, -1 for ``none``, None when it is unset or
    empty. ``4G``, ``4Gi``, ``4 GiB`` and ``4GB`` are all 4 × 1024³."""
    text = os.environ.get(variable, "").strip()
    if not text:
        return None
    if text.lower() in ("none", "inf", "unlimited"):
        return -1
    number = text.upper().replace(" ", "")
    if len(number) > 1 and number.endswith("B") and not number[-2].isdigit():
        number = number[:-1]  # GB, GiB: the suffix is the size
    number = number[:-1] if number.endswith("I") else number
    digits, suffix = (number[:-1], number[-1]) if number[-1:] in _SUFFIXES and not number[-1:].isdigit() else (number, "")
    if not (digits.isdigit() and digits.isascii()) or len(digits) > 30:
        raise ArgumentError(f"{variable}={text!r:.40}: expected a count such as 4000000 or 4G, or 'none'")
    return int(digits) * _SUFFIXES[suffix]


def max_line_bytes() -> int:
    """The longest line read: :data:`MAX_LINE_ENV` when it is set (``none``: no limit), else :data:`MAX_LINE`."""
    limit = from_environment(MAX_LINE_ENV)
    if limit is None:
        return MAX_LINE
    if limit < 0:
        return sys.maxsize
    if limit < MIN_LINE:
        raise ArgumentError(f"{MAX_LINE_ENV}={os.environ.get(MAX_LINE_ENV)!r} is below the least line limit, 1M")
    return limit


class FrameBudget:
    """What one reading may still spend of :data:`STACK_FRAMES` (or its variable's count): a
    reader charges each stack it makes, and the charge that passes the limit raises an
    InputError naming ``source``, ``what`` made so many and how to raise the limit."""

    def __init__(self, source: str, what: str = "the stacks of the samples are too many and too deep") -> None:
        limit = from_environment(STACK_FRAMES_ENV)
        self.limit = STACK_FRAMES if limit is None else limit
        self.left: float = float("inf") if self.limit < 0 else self.limit
        self.source, self.what = source, what

    def charge(self, frames: int) -> None:
        self.left -= frames
        if self.left < 0:
            from ..core.units import human

            raise InputError(
                f"{self.what}: they pass {human(self.limit, 'frames')} frames in all (about 14 bytes of memory "
                f"each; set {STACK_FRAMES_ENV}=COUNT, e.g. 200M, or 'none', to go on)",
                self.source,
            )


__all__ = [
    "FrameBudget",
    "GUNZIP_ENV",
    "GUNZIP_FLOOR",
    "GUNZIP_RATIO",
    "MAX_LINE",
    "MAX_LINE_ENV",
    "MIN_LINE",
    "STACK_FRAMES",
    "STACK_FRAMES_ENV",
    "from_environment",
    "max_line_bytes",
]
