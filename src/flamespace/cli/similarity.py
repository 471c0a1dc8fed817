"""flamespace similarity: how alike two profiles (or two samples of runs) are."""

from __future__ import annotations

from ._common import INPUT_OPTIONS, echo, echo_json, format_value, read_graph
from ._options import Argument, Command, Option


def run(
    first: str, second: str, normalized: bool, samples: bool, as_json: bool, skip_invalid: bool, input_format: str | None
) -> None:
    """Print σ = 1 − ‖A − B‖ / (‖A‖ + ‖B‖) and the L1 distance ‖A − B‖.

    σ is 1 for identical profiles and 0 for profiles that share no stack. With --sample,
    σ of every pair of runs within FIRST, within SECOND and between them: if the "between"
    values sit below the "within" ones, the two samples differ by more than run-to-run noise.

    \b
    Examples:
        flamespace similarity run1.folded run2.folded
        flamespace similarity --normalize short-run.folded long-run.folded
        flamespace similarity --sample runs/main/ 'runs/pr/*.folded'
    """
    if samples:
        _samples(first, second, normalized, as_json, skip_invalid, input_format)
        return
    from ..core.algebra import distance, normalize, similarity

    a = read_graph(first, "similarity", skip_invalid, input_format)
    b = read_graph(second, "similarity", skip_invalid, input_format)
    if normalized:
        a, b = normalize(a), normalize(b)
    sigma, dist = similarity(a, b), distance(a, b)
    unit = a.unit or b.unit
    if as_json:
        echo_json({"similarity": sigma, "distance": dist, "unit": unit, "norms": [a.norm(), b.norm()]})
        return
    echo(f"similarity: {sigma:.6f}")
    echo(f"distance: {format_value(dist)}" + (f" {unit}" if unit else ""))


def _samples(first: str, second: str, normalized: bool, as_json: bool, skip_invalid: bool, input_format: str | None) -> None:
    from ..stats.similarity import sample_similarity
    from ._table import print_table
    from ._sides import read_samples

    read = read_samples({"first": [first], "second": [second]}, "similarity", skip_invalid, input_format)
    result = sample_similarity(read["first"], read["second"], normalized)
    summary = result.summary()
    if as_json:
        echo_json({"summary": summary, "values": {k: v.tolist() for k, v in result.groups().items()}})
        return
    columns = [k for k in next(iter(summary.values())) if k != "pairs"]
    rows = [[name, str(row["pairs"])] + [f"{row[c]:.4f}" for c in columns] for name, row in summary.items()]
    title = f"σ between pairs of runs: {read['first'].n} in {first}, {read['second'].n} in {second}"
    print_table(title, ["pairs of runs", "pairs"] + columns, rows, [False] + [True] * (len(columns) + 1))


SPEC = Command(
    "similarity",
    run,
    [Argument("first"), Argument("second")],
    [
        Option(("--normalize",), "normalized", "flag", help="Compare shapes: scale both to total 1 first."),
        Option(
            ("--sample",),
            "samples",
            "flag",
            help="FIRST and SECOND are samples of runs (directories or quoted globs): show σ within and between them.",
        ),
        Option(("--json",), "as_json", "flag", help="Print JSON."),
        *INPUT_OPTIONS,
    ],
)
