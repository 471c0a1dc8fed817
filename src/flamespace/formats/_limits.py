"""The limits that keep a small input from taking unbounded memory, in one place.

Each limit has a default here and an environment variable that replaces it, read when the
limit is checked (so every command, and the library, obey it); the errors name the variable.
A value is a count, with an optional suffix ``K``, ``M``, ``G`` or ``T`` (powers of 1024),
or ``none`` for no limit.
"""

from __future__ import annotations

import os

from ..errors import ArgumentError, InputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional

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

_SUFFIXES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def from_environment(variable: str) -> Optional[int]:
    """The limit the environment variable sets: an int, -1 for ``none``, None when it is unset or empty."""
    text = os.environ.get(variable, "").strip()
    if not text:
        return None
    if text.lower() in ("none", "inf", "unlimited"):
        return -1
    digits, suffix = (text[:-1], text[-1].upper()) if text[-1:].upper() in _SUFFIXES else (text, "")
    digits = digits.removesuffix("i").strip() if suffix else digits  # 4Gi is 4G
    if not digits.isdigit() or len(digits) > 30:
        raise ArgumentError(f"{variable}={text!r:.40}: expected a count such as 4000000 or 4G, or 'none'")
    return int(digits) * _SUFFIXES[suffix]


def stack_frame_budget() -> float:
    """How many frames the stacks a reader makes may hold in all (:data:`STACK_FRAMES`, or its variable)."""
    limit = from_environment(STACK_FRAMES_ENV)
    return STACK_FRAMES if limit is None else float("inf") if limit < 0 else limit


def too_many_frames(source: str, what: str) -> InputError:
    """The error of a reader whose stacks pass :func:`stack_frame_budget` (``what``: why they are so many)."""
    from ..core.units import human

    limit = from_environment(STACK_FRAMES_ENV)
    return InputError(f"{what}: they pass {human(limit or STACK_FRAMES, 'frames')} frames in all (about 14 bytes of memory "
                      f"each; set {STACK_FRAMES_ENV}=COUNT, e.g. 200M, or 'none', to go on)", source)


__all__ = ["GUNZIP_ENV", "GUNZIP_FLOOR", "GUNZIP_RATIO", "STACK_FRAMES", "STACK_FRAMES_ENV", "from_environment", "stack_frame_budget",
           "too_many_frames"]
