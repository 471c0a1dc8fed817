"""The click group of every command, importing a command's module only when it is used."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Any, Iterator, List, Optional

import click

from . import COMMANDS
from ._report import ClosedPipe
from ._style import MODES


@contextmanager
def _closed_pipe() -> Iterator[None]:
    """A closed stdout as ClosedPipe: click's main would turn the BrokenPipeError into exit 1 (README, "Troubleshooting")."""
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


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="flamespace", message="%(prog)s %(version)s")
@click.option("--color", type=click.Choice(MODES), default="auto", show_default=True,
              expose_value=False, callback=_set_color,
              help="Colour tables and trees: auto colours a terminal, unless NO_COLOR is set (FORCE_COLOR: a pipe too).")
def cli() -> None:
    """Flame graphs as vectors: combine, filter, measure and compare profiles.

    Every command reads profiles in these formats, gzip or plain, detected from the
    content (or --from FORMAT), from files, directories or stdin ('-'):

    \b
    {formats}

    (`flamespace formats` describes each), and writes to stdout or -o FILE (folded stacks:
    ``a;b;c 12``, as flamegraph.pl reads them), so commands compose in pipes:

    \b
        flamespace merge runs/ | flamespace filter --grep parse | flamespace top
    """


def _formats_named() -> str:
    """Every readable format, named in the group's help (from the registry's list: no format is imported)."""
    from ..formats.registry import names

    listed = names()
    lines, line = [], ""
    for item in listed:  # lines of at most 80 characters, never wrapped (a \b block): names stay whole
        if line and len(line) + len(item) + 2 > 80:
            lines.append(line + ",")
            line = ""
        line = f"{line}, {item}" if line else f"  {item}"
    return "\n    ".join(lines + [line])


cli.help = (cli.help or "").replace("{formats}", _formats_named())
