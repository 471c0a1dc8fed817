# Types of the C extension _folded.c (the folded reader's loop over lines).

def sum_lines(
    data: bytes, start: int, counts: dict[str, int | float], lineno: int, final: bool, ints_only: bool = False, /
) -> tuple[int, int, int, int, int]:
    """Add the plain 'stack count' lines of ``data`` from ``start`` to ``counts``: (stop, lineno, status, added, plain).

    status 1: stopped at a line for the Python reader; 0: at the end of the data (or of its last whole line).
    ``plain``: lines added whose stack cannot end in a count (the input is not differential).
    ``ints_only``: leave decimal counts to the Python reader too.
    """

class Table:
    """Stack texts -> columns, kept across the runs of a sample (a capsule)."""

def table_new() -> Table:
    """A new, empty table."""

def add_columns(data: bytes, start: int, table: Table, lineno: int, final: bool, /) -> tuple[int, int, int, int, int]:
    """:func:`sum_lines`, adding each line's value to the table's current run."""

def add_text(table: Table, text: str, value: int | float, /) -> bool:
    """Add a line the Python reader read to the current run; False when an int sum leaves a C long long."""

def take_run(table: Table, index: dict[str, int], /) -> tuple[bytes, list[int | float]]:
    """End the run: its non-zero stacks in first-appearance order as (columns as intp bytes, values)."""

def drop_run(table: Table, /) -> None:
    """Forget the current run."""
