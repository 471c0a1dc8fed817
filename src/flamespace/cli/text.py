"""flamespace text: a flame graph as an indented tree in the terminal."""

from __future__ import annotations

from .._record import defaults
from ..render.options import DELTA_MODES
from ..render.text import TextOptions
from . import _style
from ._common import INPUT_OPTIONS, THREAD_OPTION, checked_output, pick_thread, shown_thread
from ._options import Argument, Command, Option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from ..render.text import TextLine

#: TextOptions' defaults, which the options below show and pass on (tests/cli/test_defaults.py).
_D = defaults(TextOptions)


def _share(value: str) -> float:
    """'1%' or '0.01' -> 0.01."""
    text = value.strip()
    try:
        share = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        from ._report import BadParameter

        raise BadParameter(f"expected a share such as 1% or 0.01, not {value!r}") from None
    return share


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
) -> None:
    """Print FILES as a tree: inclusive share, name and count of every frame above --threshold.

    For SSH sessions and logs. Differential input shows each frame's change in brackets.

    \b
    Examples:
        flamespace text app.folded
        flamespace text --threshold 5% --max-depth 6 --sort-by-value app.folded
        flamespace text --thread main threads.folded
    """
    import sys

    from ..errors import InputError
    from ..formats import open_output
    from ..render.text import iter_text_lines, iter_text_parts
    from ._render import read_drawable

    profile = pick_thread(read_drawable(files, "text", skip_invalid, input_format), thread, ", ".join(files) or "<stdin>")
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
        threshold=_share(threshold),
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
        *INPUT_OPTIONS,
    ],
)
