"""Terminal tables through rich (imported only when a table is printed: it is slow to import)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Optional, Sequence, Union

from . import _style

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text


def print_table(title: Optional[str], headers: Sequence[str], rows: Sequence[Sequence[Union[str, "Text"]]],
                right: Sequence[bool]) -> None:
    """Print a table on stdout; wide enough for long frame names when stdout is not a terminal.

    Cells are shown as they are (a frame named ``f_[k]`` is no rich markup); a cell may be a
    rich ``Text`` with styles (cli/_style.py), shown only when stdout is coloured."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    console = stdout_console()
    if title:
        console.print(title, soft_wrap=True, markup=False)
    table = Table(box=box.SIMPLE_HEAD)
    for header, is_right in zip(headers, right):
        table.add_column(header, justify="right" if is_right else "left", overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell) if isinstance(cell, str) else cell for cell in row))
    console.print(table)


def stdout_console() -> "Console":
    """A rich console on stdout: as wide as the terminal (200 columns in a pipe), coloured as
    cli/_style.py says, and leaving a closed pipe to the CLI's convention."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            """Let the BrokenPipeError through: rich would exit 1, our convention is the CLI's (README, "Troubleshooting")."""
            self.quiet = True
            raise  # noqa: PLE0704 - called by rich inside its ``except BrokenPipeError``

    return _Console(file=sys.stdout, width=None if sys.stdout.isatty() else 200, highlight=False,
                    **_style.console_options(sys.stdout))  # type: ignore[arg-type]
