"""flamespace formats: every profile format, what flamespace does with it and its options."""

from __future__ import annotations

from ._options import Command, Option


def rows() -> list[list[str]]:
    """One row per format: name, read/write, extensions, reader options, reference tool."""
    from ..formats import registry

    table = []
    for fmt in registry.formats():
        options = " ".join("--" + field.replace("_", "-") for field, _, _ in registry.read_options(fmt))
        table.append(
            [
                fmt.name,
                "read, write" if registry.writes(fmt) else "read",
                " ".join(fmt.extensions) or "-",
                options or "-",
                getattr(fmt, "reference", "") or "-",
            ]
        )
    return table


def run(as_json: bool) -> None:
    """List every format: whether flamespace reads and writes it, its file extensions, its reader options
    (for `flamespace convert`) and the tool whose output or behaviour it follows.

    Every command reads every format, detected from the content; `flamespace convert --to`
    and `-o NAME.EXT` pick a written one.

    \b
    Examples:
        flamespace formats
        flamespace formats --json
    """
    table = rows()
    headers = ["format", "support", "extensions", "options", "reference"]
    if as_json:
        from ._common import echo_json

        echo_json([dict(zip(headers, row)) for row in table])
        return
    from ._table import print_table

    print_table(None, headers, table, [False] * len(headers))


SPEC = Command("formats", run, [], [Option(("--json",), "as_json", "flag", help="Print the table as JSON.")])
