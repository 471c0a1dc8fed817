"""flamespace top: the costliest functions (or lines, or files) by self and inclusive value."""

from __future__ import annotations

import sys

from ..core.ranking import GROUPINGS
from . import _style
from ._console import FOLD_OPTION
from ._common import (
    INPUT_OPTIONS,
    THREAD_OPTION,
    echo_json,
    folded_library,
    format_share,
    format_value,
    pick_thread,
    read_graph,
    shown_thread,
)
from ._options import Argument, Command, Option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from ..core.vector import FlameGraph

#: What a row is (--by), as the title names it.
ROW_NAMES = {"line": "lines", "function": "functions", "file": "files"}
#: Rankings (--sort); `--by self|inclusive` is their old spelling, still accepted.
RANKINGS = ("self", "inclusive")


def run(
    input: str,
    limit: int,
    group: str,
    sort: str | None,
    raw: bool,
    as_json: bool,
    skip_invalid: bool,
    input_format: str | None,
    thread: str | None = None,
    fold_library: bool = False,
) -> None:
    """List the functions of INPUT (default stdin) that cost the most.

    A function that appears twice in one stack (recursion, or two of its lines) counts once
    for that stack.

    \b
    Examples:
        flamespace top profile.folded
        flamespace top --sort inclusive -n 50 profile.folded
        flamespace top --by line --raw profile.folded
        flamespace top --thread main threads.folded
        flamespace top --fold-library profile.folded
    """
    from ..core.ranking import top_functions
    from ..core.units import scale
    from ._table import print_table

    if group in RANKINGS:  # the old `--by self|inclusive`
        if sort is not None and sort != group:
            from ._report import UsageError

            raise UsageError(f"--by {group} (the old spelling of --sort {group}) contradicts --sort {sort}")
        sort, group = group, "function"
    by = sort or "self"
    graph = folded_library(pick_thread(read_graph(input, "top", skip_invalid, input_format), thread, input), fold_library)
    total = graph.total()
    ranked = top_functions(graph, limit, by, group)
    if as_json:
        echo_json(
            {
                "unit": graph.unit,
                "total": total,
                "by": by,
                "group": group,
                "thread": shown_thread(graph),
                "functions": [{"name": c.name, "self": c.self_value, "inclusive": c.inclusive_value} for c in ranked],
            }
        )
        return
    unit = graph.unit or "samples"
    shown_self = _column(unit, [c.self_value for c in ranked], raw)
    shown_incl = _column(unit, [c.inclusive_value for c in ranked], raw)
    shown_total = _column(unit, [total], raw)(total)
    if raw or not scale(unit).suffix:
        shown_total += f" {unit}"
    title = f"Top {len(ranked)} {ROW_NAMES[group]} by {by} value (total {shown_total}{_threads(graph)}{_one_thread(graph)})"
    rows = [
        [
            shown_self(c.self_value),
            format_share(c.self_value, total),
            shown_incl(c.inclusive_value),
            format_share(c.inclusive_value, total),
            c.name,
        ]
        for c in ranked
    ]
    if _style.enabled(sys.stdout):
        rows = [_coloured(row, c.self_value, c.inclusive_value, total) for row, c in zip(rows, ranked)]
    print_table(title, ["self", "self %", "inclusive", "incl %", ROW_NAMES[group][:-1]], rows, [True, True, True, True, False])


def _threads(graph: FlameGraph) -> str:
    """ ": 4 threads summed over 0.63 s" when the total sums several threads' time (not the run's length)."""
    from ._common import summed_threads

    threads = summed_threads(graph)
    if not threads:
        return ""
    duration = graph.metadata.labels.get("duration_s")
    return f": {threads} threads summed" + (f" over {duration} s" if duration else "")


def _one_thread(graph: FlameGraph) -> str:
    """ ", thread MainThread only" when --thread picked one."""
    thread = shown_thread(graph)
    return f", thread {thread} only" if thread else ""


def _coloured(row: list, self_value: float, inclusive_value: float, total: float) -> list:
    """A row with its shares coloured by size and its frame's (file:line) dimmed (cli/_style.py)."""
    from ..render.text import location_start
    from ._table import Cell

    def share(text: str, value: float) -> Cell:
        return Cell(text, _style.share_style(value / total if total else 0.0) or "")

    name = Cell(row[4], spans=[(location_start(row[4]), len(row[4]), _style.LOCATION)])
    return row[:1] + [share(row[1], self_value), row[2], share(row[3], inclusive_value), name]


def _column(unit: str, values: list[float], raw: bool) -> Callable[[float], str]:
    """How one column shows its values: times and bytes in the one scale that suits the column's
    largest value (so they line up and compare), counts and --raw exactly."""
    from ..core.units import scale

    shown = scale(unit, max(values, default=0))
    return shown.format if shown.suffix and not raw else format_value


SPEC = Command(
    "top",
    run,
    [Argument("input", default="-")],
    [
        Option(("-n", "--limit"), "limit", "int", 20, minimum=1, show_default=True, help="How many rows to list."),
        Option(
            ("--by",),
            "group",
            "choice",
            "function",
            choices=(*GROUPINGS, *RANKINGS),
            show_default=True,
            help="One row per function (line numbers dropped: 'f (app.py:12)' and 'f (app.py:30)' are one row), "
            "per line (frames as they are) or per file. Frames without a '(file:line)' suffix are rows of their own. "
            "(--by self|inclusive: the old spelling of --sort.)",
        ),
        Option(
            ("--sort",),
            "sort",
            "choice",
            None,
            choices=RANKINGS,
            help="Rank by self value (time as the leaf) or inclusive value (time anywhere in the stack).  [default: self]",
        ),
        Option(
            ("--raw",),
            "raw",
            "flag",
            help="Exact values in the profile's unit (e.g. 2,351,834,370 ns) instead of human units (2.35 s).",
        ),
        Option(("--json",), "as_json", "flag", help="Print JSON (exact values) instead of a table."),
        THREAD_OPTION,
        FOLD_OPTION,
        *INPUT_OPTIONS,
    ],
)
