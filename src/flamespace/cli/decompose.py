"""flamespace decompose: split the change between two profiles into four flame graphs."""

from __future__ import annotations

import os

from ._common import INPUT_OPTIONS
from ._options import Argument, Command, Option


PARTS = ("appeared", "grown", "disappeared", "shrunk")


def run(
    before: str, after: str, out_dir: str, as_json: bool, no_header: bool, skip_invalid: bool, input_format: str | None
) -> None:
    """Split Δ = AFTER − BEFORE into appeared, grown, disappeared and shrunk stacks.

    Each part is a flame graph (values ≥ 0) and their supports are disjoint:
    Δ = (appeared + grown) − (disappeared + shrunk). Prints the norm of each part.

    \b
    Examples:
        flamespace decompose before.folded after.folded --out-dir changes/
        flamespace decompose base.pprof head.pprof --out-dir changes/   # any format flamespace reads
    """
    from ..core.algebra import decompose
    from ..formats import check_output_dir, outputs_together, registry
    from ._common import echo_json, format_share, format_value, read_graph

    check_output_dir(out_dir)  # before reading: a long read should not end in "cannot write"
    f1 = read_graph(before, "decompose", skip_invalid, input_format)
    f2 = read_graph(after, "decompose", skip_invalid, input_format)
    parts = decompose(f1, f2)
    with outputs_together():  # the four parts of one Δ, never some of an older one beside them (a full disk)
        for name, graph in zip(PARTS, parts):
            registry.write(graph, os.path.join(out_dir, f"{name}.folded"), header=not no_header)
    norms = {name: graph.norm() for name, graph in zip(PARTS, parts)}
    if as_json:
        echo_json({"norms": norms, "before": f1.norm(), "after": f2.norm(), "out_dir": out_dir})
        return
    from ._table import print_table  # (imports typing; not for --json)

    base = f1.norm()
    rows = [
        (name, format_value(value), format_share(value, base), str(len(graph)))
        for (name, value), graph in zip(norms.items(), parts)
    ]
    unit = f1.unit or f2.unit or "samples"
    title = f"Change from {format_value(base)} to {format_value(f2.norm())} {unit}; parts in {out_dir}/"
    print_table(title, ["part", "norm", "% of before", "stacks"], rows, [False, True, True, True])


SPEC = Command(
    "decompose",
    run,
    [Argument("before"), Argument("after")],
    [
        Option(
            ("-d", "--out-dir"),
            "out_dir",
            "dir",
            required=True,
            help="Directory for appeared.folded, grown.folded, disappeared.folded, shrunk.folded.",
        ),
        Option(("--json",), "as_json", "flag", help="Print the norms as JSON."),
        Option(("--no-header",), "no_header", "flag", help="Do not write '# key: value' metadata lines."),
        *INPUT_OPTIONS,
    ],
)
