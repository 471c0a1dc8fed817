"""Devel::NYTProf's call stacks (``nytprofcalls nytprof.out > all_stacks_by_time.calls``).

``nytprofcalls`` builds a call tree from NYTProf's stream of subroutine-return events and
prints one folded line per call path: ``main::run;Foo::bar;Foo::baz 1234``, the value the
exclusive time of that path in NYTProf's integer clock ticks (``--calls``: the number of
calls instead). Subroutine names keep ``;`` and spaces out (nytprofcalls writes ``?``).
The ticks become integer nanoseconds with ``ticks_per_second`` (NYTProf's clock: 10,000,000
ticks a second where it reads ``clock_gettime``, the default; ``nytprofhtml`` scales the same
way for flamegraph.pl with ``--factor``). Lines are in no order; repeated paths add up.
Never detected from content (it is valid folded text): ask for it with ``--from nytprof``.
"""

from __future__ import annotations

from .._record import Record, record
from ..core.vector import MAX_VALUE, FlameGraph
from ..errors import ArgumentError, InputError
from . import folded

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from .._types import Stack
    from ..diagnostics import Diagnostics

name = "nytprof"
extensions = ()  # all_stacks_by_time.calls is folded text too: named with --from nytprof
description = "Devel::NYTProf call stacks (nytprofcalls: exclusive ticks per call path)"
reference = "nytprofcalls (Devel::NYTProf)"

#: NYTProf's clock where it reads clock_gettime (its ticks are 100 ns).
DEFAULT_TICKS_PER_SECOND = 10_000_000


@record
class ReadOptions(Record):
    """How to read nytprofcalls output.

    ``skip_invalid``: skip malformed lines (counted) instead of failing.
    ``ticks_per_second``: NYTProf's clock ticks in one second (its ticks_per_sec attribute;
    10000000 where it reads clock_gettime); the ticks become nanoseconds.
    ``calls``: the values are numbers of calls (nytprofcalls --calls), not ticks.
    """

    skip_invalid: bool = False
    ticks_per_second: int = DEFAULT_TICKS_PER_SECOND
    calls: bool = False


def sniff(head: bytes) -> bool | None:
    return False  # folded text: only by --from nytprof


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """The call paths with their exclusive time in ns (or their calls)."""
    if options.ticks_per_second <= 0:
        raise ArgumentError(f"ticks per second must be positive, not {options.ticks_per_second}")
    raw = folded.parse(
        stream,
        folded.ReadOptions(skip_invalid=options.skip_invalid, columns="1"),
        source=source,
        diagnostics=diagnostics,
        stack_cache=stack_cache,
    )
    assert isinstance(raw, FlameGraph)  # columns="1": never differential
    if not len(raw) and diagnostics is not None:
        diagnostics.warn(f"{source}: no call paths; the profile is empty")
    labels = {**raw.metadata.labels, "profiler": "nytprof"}
    if options.calls:
        return raw.with_metadata(raw.metadata.replace(unit="calls", metric="calls", labels=labels))
    nanoseconds = 1_000_000_000
    scaled: FlameGraph = (
        raw * (nanoseconds // options.ticks_per_second)
        if nanoseconds % options.ticks_per_second == 0
        else raw * (nanoseconds / options.ticks_per_second)
    )  # a positive factor: a FlameGraph
    too_large = next((stack for stack, value in scaled.items() if not value < MAX_VALUE), None)
    if too_large is not None:  # each count was below it; in ns it need not be
        raise InputError(
            f"the time of {';'.join(too_large)[:60]!r} in ns is {scaled[too_large]:.3g}, not below {MAX_VALUE:g}", source
        )
    return scaled.with_metadata(raw.metadata.replace(unit="ns", metric="exclusive time", labels=labels))


__all__ = ["DEFAULT_TICKS_PER_SECOND", "ReadOptions", "extensions", "name", "parse", "sniff"]
