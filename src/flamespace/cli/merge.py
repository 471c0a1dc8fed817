"""flamespace merge: sum (or average) many profiles into one."""

from __future__ import annotations

from typing import Optional, Sequence

import click

from ..core.algebra import sum_values
from ..core.vector import scale_values
from ._common import expand_inputs, input_options, output_options, progress, read_texts, write_texts


@click.command("merge")
@click.argument("inputs", nargs=-1, type=click.Path(allow_dash=True))
@click.option("--mean", is_flag=True, help="Divide the sum by the number of inputs (the mean profile of n runs).")
@input_options
@output_options
def command(
    inputs: Sequence[str], mean: bool, skip_invalid: bool, input_format: Optional[str], output: str, no_header: bool
) -> None:
    """Add profiles stack by stack (a directory stands for all files in it).

    \b
    Examples:
        flamespace merge run1.folded run2.folded -o both.folded
        flamespace merge --mean runs/ -o mean.folded
    """
    files = expand_inputs(inputs)
    # stack texts, never frames: a sum needs none (one input in memory at once besides the sum)
    merged, metadata = sum_values(
        read_texts(path, "merge", skip_invalid, input_format) for path in progress(files, "reading", len(files))
    )
    if mean:
        merged = scale_values(merged, len(files), divide=True)
    write_texts(merged, metadata, output, no_header)
