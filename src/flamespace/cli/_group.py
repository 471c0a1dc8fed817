"""The click group of every command, importing a command's module only when it is used."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Any, Iterator, List, Optional

import click

from . import COMMANDS, HELP, SUMMARIES
from ._help import COLOR_HELP, MAX_WIDTH
from ._report import ClosedPipe
from ._style import MODES


@contextmanager
def _closed_pipe() -> Iterator[None]:
    """A closed stdout as ClosedPipe: click's main would turn the BrokenPipeError into exit 1 (docs/troubleshooting.md)."""
    try:
        yield
    except BrokenPipeError as exc:
        raise ClosedPipe(str(exc)) from None


class LazyGroup(click.Group):
    """A group that imports a command's module only when that command runs or help lists it.

    Start-up then costs click and the one command used: ``flamespace svg small.folded``
    must start about as fast as flamegraph.pl (docs/performance.md).
    """

    def make_context(self, info_name: Optional[str], args: List[str], parent: Optional[click.Context] = None,
                     **extra: Any) -> click.Context:
        with _closed_pipe():  # --help | head
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        with _closed_pipe():
            return super().invoke(ctx)

    def list_commands(self, ctx: click.Context) -> List[str]:
        return sorted(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The list of commands from their summaries, without importing every command's module."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, click.Command(name, help=SUMMARIES[name]).get_short_help_str(limit)) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> Optional[click.Command]:
        if cmd_name not in COMMANDS:
            return None
        module = f"{__package__}.{cmd_name}"
        __import__(module)  # not importlib: it would pull in more modules
        return sys.modules[module].command


def _set_color(context: click.Context, parameter: click.Parameter, value: str) -> str:
    from ._style import set_mode

    set_mode(value)
    return value


@click.group(cls=LazyGroup, help=HELP, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": MAX_WIDTH})
@click.version_option(package_name="flamespace", message="%(prog)s %(version)s")
@click.option("--color", type=click.Choice(MODES), default="auto", show_default=True,
              expose_value=False, callback=_set_color,
              help=COLOR_HELP)
def cli() -> None:
    """The group of every command (its help: ``HELP``, shared with the click-free ``--help``)."""
