"""flamespace convert: read profiles in any format flamespace reads, write them in another.

The options and the work are in ``_convert_spec``; every reader's options (--pid, --kernel, ...)
are built from the formats' ReadOptions records, which imports every format: only when a
command line names one (or asks for --help).
"""

from __future__ import annotations

from ..formats import registry
from ._common import checked_output
from ._convert_spec import convert, options
from ._options import Argument, Command, reader_options

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def run(
    inputs: Sequence[str],
    skip_invalid: bool,
    input_format: str | None,
    to: str | None,
    output: str,
    no_header: bool,
    **values: object,
) -> None:
    """Convert profiles between formats; several inputs are merged into one profile.

    The input format is detected from the content (--from names it); reader options such
    as --pid or --kernel apply to the formats named in their help (an option another
    format has no use for is an error). `flamespace formats` lists formats and options.

    \b
    Examples:
        perf script | flamespace convert - -o app.folded
        flamespace convert perf.txt --pid --kernel -o app.speedscope.json
        flamespace convert run1.folded run2.folded --to speedscope -o both.json
    """
    checked_output(output)
    convert(inputs, skip_invalid, input_format, to, output, no_header, **values)


SPEC = Command(
    "convert",
    run,
    [Argument("inputs", nargs=-1)],
    options(lambda: tuple(registry.writable_names())),
    max_width=100,
    more_options=lambda: reader_options(registry.names()),
)
