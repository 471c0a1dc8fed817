"""The limits that keep a small input from taking unbounded memory, in one place.

Each limit has a default here and an environment variable that replaces it, read when the
limit is checked (so every command, and the library, obey it); the errors name the variable.
A value is a count, with an optional suffix ``K``, ``M``, ``G`` or ``T`` (powers of 1024),
or ``none`` for no limit.
"""

from __future__ import annotations

import os

from ..errors import ArgumentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional

#: How much a gzipped input may decompress to: this many times its compressed size...
GUNZIP_RATIO = 100
#: ...but at least this many bytes (small files of repetitive text compress well).
GUNZIP_FLOOR = 64 << 20
#: Replaces the rule above with a size in bytes (``4G``), or ``none``.
GUNZIP_ENV = "FLAMESPACE_MAX_DECOMPRESSED"

#: The frames of the stacks a pstats file's call graph is unrolled into (about 8 bytes each,
#: plus the stacks' own cost): caller-callee pairs can describe exponentially many paths.
PSTATS_FRAMES = 20_000_000
PSTATS_ENV = "FLAMESPACE_PSTATS_MAX_FRAMES"

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


__all__ = ["GUNZIP_ENV", "GUNZIP_FLOOR", "GUNZIP_RATIO", "PSTATS_ENV", "PSTATS_FRAMES", "from_environment"]
