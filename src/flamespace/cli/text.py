"""flamespace text: a flame graph as an indented tree in the terminal."""

from __future__ import annotations

from .._record import defaults
from ..render.options import DELTA_MODES
from ..render.text import TextOptions
from . import _style
from ._console import FOLD_OPTION, TREE_OPTIONS
from ._common import INPUT_OPTIONS, THREAD_OPTION, checked_output, folded_library, parse_share, pick_thread, shown_thread
from ._options import Argument, Command, Option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from ..render.text import TextLine

#: TextOptions' defaults, which the options below show and pass on (tests/cli/test_defaults.py).
_D = defaults(TextOptions)


def run(
    files: tuple[str, ...],
    threshold: str,
    max_depth: int | None,
    sort_by_value: bool,
    reverse: bool,
    base: tuple[str, ...],
    delta: str,
    countname: str | None,
    raw: bool,
    width: int | None,
    output: str,
    skip_invalid: bool,
    input_format: str | None,
    thread: str | None = None,
    fold_library: bool = False,
    short: bool = False,
    min_share: str | None = None,
    show_all: bool = False,
) -> None:
    """Print FILES as a tree: inclusive share, name and count of every frame above --threshold.

    For SSH sessions and logs. Differential input shows each frame's change in brackets.

    \b
    Examples:
        flamespace text app.folded
        flamespace text --threshold 5% --max-depth 6 --sort-by-value app.folded
        flamespace text --thread main threads.folded
        flamespace text --short profile-20261128-101500.folded
        flamespace text --fold-library --threshold 2% app.folded
    """
    import sys

    from ..errors import InputError
    from ..formats import open_output
    from ..render.text import iter_text_lines, iter_text_parts
    from ._render import read_drawable

    source = ", ".join(files) or "<stdin>"
    if short:
        _short(files, source, skip_invalid, input_format, thread, min_share, show_all, raw, output)
        return
    profile = pick_thread(read_drawable(files, "text", skip_invalid, input_format), thread, source)
    profile = folded_library(profile, fold_library)
    unit = getattr(profile, "unit", None) or getattr(getattr(profile, "after", None), "unit", None)
    if width is None and output == "-" and sys.stdout.isatty():
        import shutil

        width = max(shutil.get_terminal_size().columns, 20)
    options = options_of(threshold, max_depth, sort_by_value, reverse, base, delta, countname, width, unit, raw)
    colour = output == "-" and _style.enabled(sys.stdout)
    lines = _coloured(iter_text_parts(profile, options)) if colour else iter_text_lines(profile, options)
    first = next(lines, None)  # before the output is opened: an empty profile leaves no file
    if first is None:
        raise InputError("no stack counts found", ", ".join(files) or "<stdin>")
    with open_output(output) as out:
        if thread:  # which thread the tree is of
            out.write(f"thread {shown_thread(profile)} only\n")
        out.write(first + "\n")
        for line in lines:  # streamed: a deep profile's text is never held whole
            out.write(line + "\n")


def _short(
    files: tuple[str, ...],
    source: str,
    skip_invalid: bool,
    input_format: str | None,
    thread: str | None,
    min_share: str | None,
    show_all: bool,
    raw: bool,
    output: str,
) -> None:
    """--short: the tree record prints (render/console.py) of a flame graph read from FILES."""
    import sys

    from ..core.vector import FlameGraph
    from ..errors import InputError
    from ..formats import open_output
    from ._console import console_options, print_tree
    from ._render import read_drawable

    graph = read_drawable(files, "text", skip_invalid, input_format)
    if not isinstance(graph, FlameGraph):
        raise InputError("is differential input; --short shows one profile", source)
    options = console_options(min_share, show_all, thread)
    if output == "-":
        print_tree(graph, options, sys.stdout, raw)
        return
    with open_output(output) as out:
        print_tree(graph, options, out, raw)


def _coloured(parts: Iterator[TextLine]) -> Iterator[str]:
    """Each line with its share coloured by size, its frame's (file:line) dimmed and its change
    coloured by sign (cli/_style.py)."""
    paint = _style.paint
    for part in parts:
        text = part.text
        start, end = part.location
        line = (
            paint(text[: part.share_end], _style.share_style(part.share))
            + text[part.share_end : start]
            + paint(text[start:end], _style.LOCATION)
        )
        if part.change is None:
            yield line + text[end:]
        else:
            yield line + text[end : part.change_start] + paint(text[part.change_start :], _style.change_style(part.change))


def options_of(
    threshold: str,
    max_depth: int | None,
    sort_by_value: bool,
    reverse: bool,
    base: tuple[str, ...],
    delta: str,
    countname: str | None,
    width: int | None,
    unit: str | None = None,
    raw: bool = False,
) -> TextOptions:
    """The TextOptions of the command's options (which it checks); ``unit``: the profile's (None: the
    renderer finds it); counts are shown in its human units unless --raw or --countname asks for exact ones."""
    return TextOptions(
        threshold=parse_share(threshold, "--threshold"),
        max_depth=max_depth,
        sort_by_value=sort_by_value,
        reverse=reverse,
        base=base,
        delta=delta,
        countname=countname or "",
        width=width,
        unit=unit,
        raw=raw or bool(countname),
    )


SPEC = Command(
    "text",
    run,
    [Argument("files", nargs=-1)],
    [
        Option(
            ("--threshold",),
            "threshold",
            "str",
            f"{100 * _D['threshold']:g}%",
            show_default=True,
            help="Hide frames below this share of the total (1% or 0.01).",
        ),
        Option(("--max-depth",), "max_depth", "int", _D["max_depth"], help="Show at most this many levels below the root."),
        Option(
            ("--sort-by-value",),
            "sort_by_value",
            "flag",
            _D["sort_by_value"],
            help="Siblings widest first (default: name order).",
        ),
        Option(("--reverse",), "reverse", "flag", _D["reverse"], help="Reverse stacks (leaf first): the callers of hot code."),
        Option(("--base",), "base", "multiple", _D["base"], help="Re-root at this frame (outermost occurrence); repeatable."),
        Option(
            ("--delta",),
            "delta",
            "choice",
            _D["delta"],
            choices=DELTA_MODES,
            show_default=True,
            help="Differential input: the change shown per frame.",
        ),
        Option(
            ("--countname",),
            "countname",
            "str",
            None,
            help="What the counts are (default: the profile's unit, else 'samples'); shown with exact counts.",
        ),
        Option(
            ("--raw",),
            "raw",
            "flag",
            help="Exact counts in the profile's unit (2,351,834,370 ns) instead of human units (2.35 s).",
        ),
        Option(
            ("--width",),
            "width",
            "int",
            _D["width"],
            help="Cut lines to this many characters (default: the terminal's width when stdout is one).",
        ),
        Option(
            ("-o", "--output"),
            "output",
            "path",
            "-",
            "Where to write.",
            show_default="stdout",
            allow_dash=True,
            callback=checked_output,
        ),
        THREAD_OPTION,
        FOLD_OPTION,
        Option(
            ("--short",),
            "short",
            "flag",
            help="Print the short tree record prints without -o: the program's own frames, calls under --min-share "
            "folded, the main thread alone when the others only waited (--thread all: every thread).",
        ),
        *TREE_OPTIONS,
        *INPUT_OPTIONS,
    ],
)
