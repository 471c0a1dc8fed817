"""Differential folded stacks: ``stack before after`` on every line, as difffolded.pl and ``flamespace sub`` write.

The folded reader already takes a file whose every line has two counts as differential
input; this name makes it explicit: ``--from folded-diff`` refuses a line with one count
(naming it) instead of reading the file as one profile, and ``--to folded-diff`` refuses a
profile that is not a before/after pair instead of writing one count per line.
"""

from __future__ import annotations

from .._record import Record, record
from ..core.differential import Differential
from ..errors import ArgumentError
from . import folded

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO, TextIO

    from .._types import Profile, Stack
    from ..diagnostics import Diagnostics

name = "folded-diff"
extensions = (".diff.folded", ".folded-diff")
description = "differential folded stacks: two counts (before after) per line (difffolded.pl, flamespace sub)"
reference = "difffolded.pl (FlameGraph)"


@record
class ReadOptions(Record):
    """How to read differential folded input.

    ``skip_invalid``: skip malformed lines, and lines without two counts (counted), instead of failing.
    """

    skip_invalid: bool = False


WriteOptions = folded.WriteOptions


def sniff(head: bytes) -> str:
    """Never chosen by content: the folded reader takes two-count files too (``--from folded-diff`` names this one)."""
    return "read only when named (--from folded-diff): folded reads two counts per line too"


def parse(
    stream: TextIO | BinaryIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> Profile:
    """A :class:`Differential` (before, after); a line without two counts is an error naming it."""
    return folded.parse(
        stream,
        folded.ReadOptions(skip_invalid=options.skip_invalid, columns="2"),
        source=source,
        diagnostics=diagnostics,
        stack_cache=stack_cache,
    )


def dump(profile: Profile, stream: TextIO, options: folded.WriteOptions = folded.WriteOptions()) -> None:
    """Write a :class:`Differential` as ``stack before after`` lines, sorted as :func:`folded.dump` sorts them."""
    if not isinstance(profile, Differential):
        raise ArgumentError(
            "folded-diff holds a before/after pair (a Differential, as `flamespace sub` makes); "
            "this profile has one count per stack: write it as folded"
        )
    folded.dump(profile, stream, options)


__all__ = ["ReadOptions", "WriteOptions", "dump", "extensions", "name", "parse", "sniff"]
