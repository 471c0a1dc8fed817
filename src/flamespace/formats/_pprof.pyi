# Types of the C extension _pprof.c (pprof's wire decoding; the same contract as _pprof_wire.py).

from typing import Any

from ._pprof_wire import Decoded, Failure, Row

def decode(data: bytes, /) -> Decoded:
    """The Profile message's tables; samples only as where they are."""

def samples(data: bytes, where: list[tuple[int, int]], /) -> tuple[list[Row], Failure | None]:
    """The samples at ``where``, decoded up to the first malformed one, and its failure."""

def sum_texts(
    data: bytes,
    where: list[tuple[int, int]],
    first: int,
    column: int,
    count: int,
    texts: dict[int, str],
    counts: dict[Any, Any],
    deferred: list[int],
    /,
) -> int:
    """Add the common samples' values from ``first`` on to counts[stack text]; list those with labels
    in ``deferred``; stop at any other sample (for the Python reader): where it stopped."""

def set_error(cls: type[Exception], /) -> None:
    """Raise ``cls(message, offset)`` for malformed bytes."""
