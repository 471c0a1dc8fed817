"""flamespace history: per-stack series of stored profiles, and the commits where a stack's level changed."""

from __future__ import annotations


from ..stats import changepoint as cp
from ..stats.history import BY, HEADERS, METRICS, TOP, load_reference
from ._options import Argument, Command, Option
from ._report import write_out
from ._store import CLUSTER_OPTION
from .store import STORE_OPTION

FORMATS = ("table", "markdown", "json")


def run(
    selector: str,
    pattern: str | None,
    top: int | None,
    by: str,
    metric: str,
    output_format: str,
    svg_path: str | None,
    alpha: float,
    permutations: int,
    min_size: int,
    seed: int,
    store: str | None,
    cluster: str | None,
) -> None:
    """Follow stacks across the commits (or days) of stored profiles and name the commit where each one's level changed.

    SELECTOR names the profiles (store:branch=main, store:bench=parse,since=2026-11-01,
    ...). For each stack followed, a point per commit (the median of that commit's profiles,
    a profile without the stack counting 0, so one stalled run does not move it; commits in
    the order they were first profiled, each weighing as many profiles as it holds) and the
    change points of that series:
    the commit where the level moved, the levels before and after, and a permutation
    p-value. A series without a change reports one with probability at most α/m, so all m
    stacks together at most α. Points are assumed independent when nothing changed (drift
    breaks that). The series come from grouped queries of the store (or of a Dask cluster):
    no profile is loaded whole.

    \b
    Examples:
        flamespace history store:branch=main
        flamespace history store:branch=main,since=2026-10-01 --by day --top 10 --svg trend.svg
        flamespace history store:bench=parse --stack 'parse;lex' --format markdown
    """
    from ..diagnostics import Diagnostics
    from ..stats.history import analyse
    from ..store import open_store
    from ..store.cluster import engine
    from ..store.history import history
    from ._report import report

    diagnostics = Diagnostics()
    try:
        snapshot = open_store(store).snapshot(diagnostics)
        ids = snapshot.select(selector)
        with engine(cluster) as where:
            chosen = top if top is not None or pattern is not None else TOP
            series = history(snapshot, ids, by, pattern, chosen, where, load_stacks=load_reference(metric))
    finally:
        report(diagnostics)
    result = analyse(series, metric, alpha, permutations, min_size, seed)
    if svg_path is not None:  # '' too: open_output says the path is empty
        from ..render.sparkline import svg

        svg(result, svg_path)
    _print(result, output_format)


def _print(result, output_format: str) -> None:
    from ..stats import history as h
    from ._common import echo, echo_json

    if output_format == "json":
        echo_json(h.to_json(result))
        return
    if output_format == "markdown":
        write_out(h.markdown(result))
        return
    from ._help import terminal_columns
    from ._table import print_table

    rows = h.rows(result)
    _fit_stacks(rows, terminal_columns())
    print_table(h.title(result), h.HEADERS, rows, [False, False, True, True, True, False])
    for note in result.notes:
        echo(f"note: {note}")


#: The narrowest stack column (wider tables go beyond the width): a leaf's function and file stay readable.
MIN_STACK = 40


def _fit_stacks(rows: list[list[str]], width: int) -> None:
    """Shorten each row's stack (its first cell) from the root end, keeping the leaf, so the
    table fits ``width`` columns (the terminal's; 80 in a pipe unless $COLUMNS says): the
    other columns are short and whole, --format json and markdown keep the full text."""
    from ..stats.report import short_stack

    others = [max([len(h)] + [len(row[c]) for row in rows]) for c, h in enumerate(HEADERS) if c]
    room = max(width - sum(others) - 3 * len(HEADERS) - 1, MIN_STACK)
    for row in rows:
        row[0] = short_stack(row[0].split(";"), width=room)


SPEC = Command(
    "history",
    run,
    [Argument("selector", "str")],
    [
        Option(
            ("--stack",),
            "pattern",
            metavar="REGEX",
            help="Follow the stacks whose text (frames joined by ';') matches REGEX (all of them, unless --top is given).",
        ),
        Option(
            ("--top",),
            "top",
            "int",
            minimum=1,
            metavar="N",
            help=f"Follow the N stacks with the largest total over the selection.  [default: {TOP} without --stack]",
        ),
        Option(
            ("--by",),
            "by",
            "choice",
            "commit",
            choices=BY,
            show_default=True,
            help="A point of the series: the profiles of one commit, of one UTC day or hour, or of one time window (the pushes "
            "of a continuous profiler that started at the same second: flamespace serve).",
        ),
        Option(
            ("--metric",),
            "metric",
            "choice",
            "value",
            choices=METRICS,
            show_default=True,
            help="Look for changes in each stack's median value per profile, in its median share of a profile's "
            "total (shares move together: when one stack grows, every other's share falls), or in its value over the "
            "point's load (normalised: the median over the stacks of each one's value against its usual; more "
            "requests, every stack up alike, are no change, and one stack that grew barely moves the others).",
        ),
        Option(
            ("--format",),
            "output_format",
            "choice",
            "table",
            choices=FORMATS,
            show_default=True,
            help="A table, Markdown (for a CI comment) or JSON (every value exact).",
        ),
        Option(("--svg",), "svg_path", metavar="FILE", help="Also draw a sparkline per stack, its changes marked, into FILE."),
        Option(
            ("--alpha",),
            "alpha",
            "float",
            cp.ALPHA,
            minimum=0,
            maximum=1,
            open=True,
            show_default=True,
            help="Chance that any stack shown reports a change it did not have (family-wise: α/m a stack).",
        ),
        Option(
            ("--permutations",),
            "permutations",
            "int",
            cp.PERMUTATIONS,
            minimum=1,
            show_default=True,
            help="Random orderings a split is tested on (raised to 20·m/α − 1 for m stacks; series of up to "
            f"{cp.MAX_EXACT} points are tested on every ordering).",
        ),
        Option(
            ("--min-size",),
            "min_size",
            "int",
            cp.MIN_SIZE,
            minimum=1,
            show_default=True,
            help="Points a level needs on each side of a change (a change in the last commits shows once this many follow it).",
        ),
        Option(("--seed",), "seed", "int", cp.SEED, show_default=True, help="The permutations' seed (same seed, same result)."),
        STORE_OPTION,
        CLUSTER_OPTION,
    ],
)
