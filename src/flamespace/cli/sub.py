"""flamespace sub: the difference of two profiles as differential (two-count) folded stacks."""

from __future__ import annotations

from typing import Optional

import click

from ..core.differential import Differential
from ..core.transforms import strip
from ._common import input_options, output_options, read_graph, write_profile


@click.command("sub")
@click.argument("before", type=click.Path(allow_dash=True))
@click.argument("after", type=click.Path(allow_dash=True))
@click.option(
    "-n", "--normalize", is_flag=True,
    help="Scale BEFORE to the total of AFTER (values rounded down, as difffolded.pl -n).",
)
@click.option(
    "-s", "--strip-hex", is_flag=True,
    help="Replace hex numbers (addresses) with 0x... so they compare equal (as difffolded.pl -s).",
)
@input_options
@output_options
def command(
    before: str, after: str, normalize: bool, strip_hex: bool,
    skip_invalid: bool, input_format: Optional[str], output: str, no_header: bool,
) -> None:
    """Write 'stack BEFORE_COUNT AFTER_COUNT' for every stack in either profile.

    This is the input of a differential flame graph (flamegraph.pl and 'flamespace svg'
    colour the change and size by AFTER); it matches difffolded.pl's output, sorted.

    \b
    Examples:
        flamespace sub before.folded after.folded -o diff.folded
        flamespace sub --normalize --strip-hex before.folded after.folded
    """
    first = read_graph(before, "sub", skip_invalid, input_format)
    second = read_graph(after, "sub", skip_invalid, input_format)
    if strip_hex:
        first, second = strip(first, "hex"), strip(second, "hex")
    difference = Differential(first, second)
    write_profile(difference.normalized() if normalize else difference, output, no_header)
