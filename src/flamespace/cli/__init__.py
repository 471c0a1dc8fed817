"""The ``flamespace`` command. Exit codes: 0 ok (and a closed stdout: ``| head``), 1 usage, input or
output error (an OSError: no space, no such directory), 2 internal error, 3 compare or gate found a regression.

``flamespace svg`` with arguments the small parser understands runs without importing click
(start-up: docs/performance.md); everything else goes through the click group of ``_group``.
"""

from __future__ import annotations

import sys

from ._report import EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, exit_code

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional

__all__ = ["COMMANDS", "EXIT_INPUT", "EXIT_INTERNAL", "EXIT_OK", "cli", "main"]

#: Every subcommand: the module of this package that defines it as ``command``.
COMMANDS = (
    "collect", "compare", "convert", "decompose", "filter", "formats", "gate", "info", "merge", "plan", "record", "scale",
    "similarity", "sub", "svg", "text", "top",
)


def __getattr__(name: str) -> object:
    """``cli`` (the click group) and ``LazyGroup``, imported with click on first use."""
    if name in ("cli", "LazyGroup"):
        from . import _group

        return getattr(_group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _run(args: "List[str]") -> object:
    if args[0] in ("svg", "convert"):  # common cases without click (start-up)
        if args[0] == "svg":
            from ._svg_spec import run_fast
        else:
            from ._convert_spec import run_fast

        done, result = run_fast(args[1:])
        if done:
            return result
    from ._group import cli

    return cli.main(args=args, prog_name="flamespace", standalone_mode=False)


def main(argv: "Optional[List[str]]" = None) -> int:
    """Run the command line; returns the exit code instead of raising SystemExit."""
    args = sys.argv[1:] if argv is None else list(argv)
    if not args:
        args = ["--help"]
    command = next((a for a, before in zip(args, [""] + args) if not a.startswith("-") and before != "--color"), None)
    context = f"flamespace {command}" if command in COMMANDS else "flamespace"
    try:
        result = _run(args)
        return result if isinstance(result, int) else EXIT_OK
    except (Exception, KeyboardInterrupt) as exc:
        code = exit_code(exc, context)
        if code is None:
            raise
        return code
