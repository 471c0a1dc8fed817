"""Terminal tables through rich (imported only when a table is printed: it is slow to import)."""

from __future__ import annotations

import sys
from typing import Optional, Sequence


def print_table(title: Optional[str], headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> None:
    """Print a table on stdout; wide enough for long frame names when stdout is not a terminal."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            """Let the BrokenPipeError through: rich would exit 1, our convention is the CLI's (README, "Troubleshooting")."""
            self.quiet = True
            raise  # noqa: PLE0704 - called by rich inside its ``except BrokenPipeError``

    console = _Console(file=sys.stdout, width=None if sys.stdout.isatty() else 200, highlight=False)
    if title:
        console.print(title, soft_wrap=True)
    table = Table(box=box.SIMPLE_HEAD)
    for header, is_right in zip(headers, right):
        table.add_column(header, justify="right" if is_right else "left", overflow="fold")
    for row in rows:
        table.add_row(*row)
    console.print(table)
