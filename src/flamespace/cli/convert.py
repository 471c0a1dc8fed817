"""flamespace convert: read profiles in any format flamespace reads, write them in another."""

from __future__ import annotations

from typing import Optional, Sequence

import click

from ..formats import registry
from ._common import INPUT_OPTIONS, checked_output, expand_inputs, report
from ._options import click_options, given_reader_options, reader_options
from ._report import warn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .._types import Profile

#: Every reader's options (--pid, --kernel, ...), built from the formats' ReadOptions records.
READER_OPTIONS = reader_options(registry.names())


def output_format(to: Optional[str], output: str) -> str:
    """--to, else the format whose extension the output has, else folded."""
    if to:
        return to
    if output != "-":
        fmt = registry.by_extension(output)
        if fmt is not None and hasattr(fmt, "dump"):
            return str(fmt.name)
    return "folded"


@click.command("convert", context_settings={"max_content_width": 100})
@click.argument("inputs", nargs=-1, type=click.Path(allow_dash=True))
@click_options(INPUT_OPTIONS)
@click.option("--to", "to", type=click.Choice(registry.writable_names()),
              help="Output format (default: from the output's extension, else folded).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-", show_default="stdout",
              help="Where to write the result.", callback=checked_output)
@click.option("--no-header", is_flag=True,
              help="Do not write '# key: value' metadata lines (folded output as stackcollapse-*.pl prints it).")
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
    from ..diagnostics import Diagnostics

    options = given_reader_options(values)
    files = expand_inputs(inputs)
    target = output_format(to, output)
    profiles = []
    stack_cache: dict = {}
    for path in files:
        diagnostics = Diagnostics()
        profiles.append(registry.read(path, input_format, skip_invalid=skip_invalid, diagnostics=diagnostics,
                                      stack_cache=stack_cache, options=options))
        report(diagnostics)
    if len(profiles) > 1:
        from ..core.algebra import sum_graphs

        profile: Profile = sum_graphs(_graphs(profiles, files))
        warn(f"flamespace: merged {len(profiles)} inputs into one profile (the sum of their stacks)")
    else:
        profile = profiles[0]
    write_options = {"header": not no_header} if "header" in _write_fields(target) else {}
    registry.write(profile, output, target, **write_options)


def _graphs(profiles: list, files: Sequence[str]) -> list:
    """The profiles as flame graphs, refusing differential inputs (which a sum cannot hold)."""
    from ..core.differential import Differential
    from ..errors import InputError

    for profile, path in zip(profiles, files):
        if isinstance(profile, Differential):
            raise InputError("is differential input (two counts per line); convert merges only plain profiles", path)
    return profiles


def _write_fields(name: str) -> Sequence[str]:
    fmt = registry.by_name(name)
    cls = fmt.WriteOptions
    if hasattr(cls, "__record_fields__"):
        return tuple(cls.__record_fields__)
    import dataclasses

    return tuple(f.name for f in dataclasses.fields(cls))
