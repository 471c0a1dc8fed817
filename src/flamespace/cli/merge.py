"""flamespace merge: sum (or average) many profiles into one."""

from __future__ import annotations

from typing import Optional, Sequence

import click

from ..core.vector import scale_values
from ..formats import registry
from ..formats.folded import DifferentialInput
from ._common import differential_input, expand_inputs, input_options, output_options, progress, report, write_texts


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
    try:
        merged, metadata = registry.sum_texts(
            files, input_format, skip_invalid=skip_invalid, report=report,
            each=lambda sources: progress(sources, "reading", len(sources)),
        )
    except DifferentialInput as error:
        raise differential_input(error.source or "", "merge") from None
    if mean:
        merged = scale_values(merged, len(files), divide=True)
    write_texts(merged, metadata, output, no_header)
