"""flamespace convert: read profiles in any format flamespace reads, write them in another.

The options and the work are in ``_convert_spec`` (shared with the fast path that runs without click).
"""

from __future__ import annotations

from typing import Optional, Sequence

import click

from ..formats import registry
from ._common import checked_output
from ._convert_spec import convert, options
from ._options import click_options, reader_options

#: Every reader's options (--pid, --kernel, ...), built from the formats' ReadOptions records.
READER_OPTIONS = reader_options(registry.names())


@click.command("convert", context_settings={"max_content_width": 100})
@click.argument("inputs", nargs=-1, type=click.Path(allow_dash=True))
@click_options(options(tuple(registry.writable_names())))
@click_options(READER_OPTIONS)
def command(inputs: Sequence[str], skip_invalid: bool, input_format: Optional[str], to: Optional[str], output: str,
            no_header: bool, **values: object) -> None:
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
    checked_output(None, None, output)
    convert(inputs, skip_invalid, input_format, to, output, no_header, **values)
