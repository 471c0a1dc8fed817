"""The short tree (``render.console``) on the command line: its options, shared by record and text,
and its lines styled for a terminal (cli/_style.py decides whether)."""

from __future__ import annotations

from .._record import defaults
from ..render.console import ConsoleOptions
from . import _style
from ._options import Option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO

    from ..core.vector import FlameGraph
    from ..render.console import ConsoleLine

#: ConsoleOptions' defaults, which the options show and pass on (tests/cli/test_defaults.py).
_D = defaults(ConsoleOptions)
#: Folded time, waiting and via: what a line says of the time on it.
NOTE = "cyan"
#: How each kind of part of a line is styled (the share by its size, cli/_style.share_style).
STYLES = {"location": _style.LOCATION, "note": NOTE, "branch": "dim"}


#: --min-share and --show-all: what the short tree folds.
TREE_OPTIONS = (
    Option(
        ("--min-share",),
        "min_share",
        "str",
        f"{100 * _D['min_share']:g}%",
        show_default=True,
        metavar="SHARE",
        help="The short tree: fold calls below this share of the total (2% or 0.02) into their caller's line.",
    ),
    Option(
        ("--show-all",),
        "show_all",
        "flag",
        help="The short tree: keep standard-library and installed-package frames (else folded into the nearest "
        "frame of the program, their time labelled on its line, as the HTML viewer's 'both' preset hides them).",
    ),
)


#: top's and text's --fold-library: the short tree's rule (core/library.py) on any profile.
FOLD_OPTION = Option(
    ("--fold-library",),
    "fold_library",
    "flag",
    help="Fold standard-library and installed-package frames into the nearest frame of the program: their time "
    "becomes its own (the rule of record's short tree and of the HTML viewer's 'both' preset).",
)


def console_options(min_share: str | None, show_all: bool, thread: str | None = None) -> ConsoleOptions:
    """The ConsoleOptions of the command line (``min_share`` None: the default; ``thread`` None lets
    the tree choose)."""
    from ..render.console import AUTO
    from ._common import parse_share

    share = _D["min_share"] if min_share is None else parse_share(min_share, "--min-share")
    return ConsoleOptions(min_share=share, show_all=show_all, thread=thread or AUTO)


def print_tree(graph: FlameGraph, options: ConsoleOptions, stream: IO[str], raw: bool = False) -> None:
    """The summary line and the tree, coloured when ``stream`` is a terminal that wants it."""
    from ..render.console import console_lines, console_tree, summary

    tree = console_tree(graph, options)
    colour = _style.enabled(stream)
    stream.write(_style.paint(summary(tree), "dim") if colour else summary(tree))
    stream.write("\n")
    for line in console_lines(tree, raw):
        stream.write((styled(line) if colour else line.text) + "\n")


def styled(line: ConsoleLine) -> str:
    """``line`` with ANSI colour: its share by size, location dimmed, notes in :data:`NOTE`."""
    paint = _style.paint
    return "".join(
        paint(text, _style.share_style(line.share) if kind == "share" else STYLES.get(kind)) for text, kind in line.parts
    )
