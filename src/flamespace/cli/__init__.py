"""The ``flamespace`` command. Exit codes: 0 ok, 1 usage or input error, 2 internal error, 3 compare found a regression."""

from __future__ import annotations

import os
import sys
from typing import List, Optional

import click

from ..errors import FlamespaceError

EXIT_OK, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2

#: Every subcommand: the module of this package that defines it as ``command``.
COMMANDS = (
    "collect", "compare", "decompose", "filter", "info", "merge", "record", "scale", "similarity", "sub", "svg", "text",
    "top",
)


class LazyGroup(click.Group):
    """A group that imports a command's module only when that command runs or help lists it.

    Start-up then costs click and the one command used: ``flamespace svg small.folded``
    must start about as fast as flamegraph.pl (docs/performance.md).
    """

    def list_commands(self, ctx: click.Context) -> List[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> Optional[click.Command]:
        if cmd_name not in COMMANDS:
            return None
        module = f"{__name__}.{cmd_name}"
        __import__(module)  # not importlib: it would pull in more modules
        return sys.modules[module].command  # type: ignore[no-any-return]


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="flamespace", message="%(prog)s %(version)s")
def cli() -> None:
    """Flame graphs as vectors: combine, filter, measure and compare profiles.

    Every command reads folded stacks (``a;b;c 12``, gzip or plain) from files or stdin
    ('-') and writes to stdout or -o FILE, so commands compose in pipes:

    \b
        flamespace merge runs/ | flamespace filter --grep parse | flamespace top
    """


def _error(context: str, message: str) -> None:
    click.echo(f"{context}: error: {message}", err=True)


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command line; returns the exit code instead of raising SystemExit."""
    args = sys.argv[1:] if argv is None else list(argv)
    if not args:
        args = ["--help"]
    command = next((a for a in args if not a.startswith("-")), None)
    context = f"flamespace {command}" if command in COMMANDS else "flamespace"
    try:
        result = cli.main(args=args, prog_name="flamespace", standalone_mode=False)
        return result if isinstance(result, int) else EXIT_OK
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.UsageError as exc:
        hint = f" (see '{context} --help')"
        _error(context, exc.format_message() + hint)
        return EXIT_INPUT
    except click.ClickException as exc:
        _error(context, exc.format_message())
        return EXIT_INPUT
    except FlamespaceError as exc:
        _error(context, str(exc))
        return EXIT_INPUT
    except click.exceptions.Abort:
        _error(context, "interrupted")
        return 130
    except KeyboardInterrupt:
        _error(context, "interrupted")
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except Exception as exc:  # a bug: say so in one line; the traceback on request
        if os.environ.get("FLAMESPACE_DEBUG"):
            raise
        _error(
            context,
            f"internal error: {type(exc).__name__}: {exc} "
            "(please report it; set FLAMESPACE_DEBUG=1 to see the traceback)",
        )
        return EXIT_INTERNAL
