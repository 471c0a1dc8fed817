"""flamespace convert's own options and its work (cli/convert.py declares the command)."""

from __future__ import annotations

from ..formats import registry
from ._common import FOLDED_ENDINGS, INPUT_OPTIONS, expand_inputs, header_setting, report
from ._options import Option, given_reader_options
from ._report import warn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable
    from collections.abc import Sequence

    from .._types import Drawable

TO_HELP = "Output format (default: from the output's extension, else folded)."


def options(to_choices: Callable[[], tuple[str, ...]]) -> tuple[Option, ...]:
    """convert's own options; ``--to`` is one of ``to_choices()``, listed only when --to is given or
    --help asked for (listing the writable formats imports every format)."""
    return INPUT_OPTIONS + (
        Option(("--to",), "to", "choice", help=TO_HELP, choices=to_choices),
        Option(
            ("-o", "--output"), "output", "path", "-", help="Where to write the result.", show_default="stdout", allow_dash=True
        ),
        Option(
            ("--no-header",),
            "no_header",
            "flag",
            help="Do not write '# key: value' metadata lines (folded output as stackcollapse-*.pl prints it).",
        ),
    )


def output_format(to: str | None, output: str) -> str:
    """--to, else the format whose ending the output's name has (refused if no format writes it), else folded."""
    from ._output_format import choose

    return choose(output, to, "convert", registry.writable_names, FOLDED_ENDINGS, option="--to")


def convert(
    inputs: Sequence[str],
    skip_invalid: bool,
    input_format: str | None,
    to: str | None,
    output: str,
    no_header: bool,
    **values: object,
) -> None:
    """What ``flamespace convert`` does: read every input (reader options by their ``read_`` names),
    merge several, write in the output format."""
    from ..diagnostics import Diagnostics

    reader = given_reader_options(dict(values))
    files = expand_inputs(inputs)
    target = output_format(to, output)
    profiles = []
    # Several inputs share their stacks' tuples through the cache; it keeps every stack's text
    # too (the size of a folded file), so one input is read without it and it goes before writing.
    stack_cache: dict | None = {} if len(files) > 1 else None
    for path in files:
        diagnostics = Diagnostics()
        profiles.append(
            registry.read(
                path, input_format, skip_invalid=skip_invalid, diagnostics=diagnostics, stack_cache=stack_cache, options=reader
            )
        )
        report(diagnostics)
    stack_cache = None
    if len(profiles) > 1:
        from ..core.algebra import sum_graphs

        profile: Drawable = sum_graphs(_graphs(profiles, files))
        warn(f"flamespace: merged {len(profiles)} inputs into one profile (the sum of their stacks)")
        profiles.clear()  # the inputs go before the sum is written
    else:
        profile = profiles[0]
    registry.write(profile, output, target, **header_setting(target, no_header))


def _graphs(profiles: list, files: Sequence[str]) -> list:
    """The profiles as flame graphs (a chart summed over time), refusing differential inputs (which a sum cannot hold)."""
    from ..core.chart import FlameChart
    from ..core.differential import Differential
    from ..errors import InputError

    for profile, path in zip(profiles, files):
        if isinstance(profile, Differential):
            raise InputError("is differential input (two counts per line); convert merges only plain profiles", path)
    return [profile.graph() if isinstance(profile, FlameChart) else profile for profile in profiles]
