"""flamespace merge: sum (or average) many profiles into one."""

from __future__ import annotations

from ._common import INPUT_OPTIONS, OUTPUT_OPTIONS
from ._options import Argument, Command, Option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def run(inputs: Sequence[str], mean: bool, skip_invalid: bool, input_format: str | None, output: str, no_header: bool) -> None:
    """Add profiles stack by stack (a directory stands for all files in it).

    \b
    Examples:
        flamespace merge run1.folded run2.folded -o both.folded
        flamespace merge --mean runs/ -o mean.folded
    """
    from ..formats import registry
    from ..formats.folded import DifferentialInput
    from ._common import differential_input, expand_inputs, output_format, progress, report, write_profile

    fmt = output_format(output, "merge")  # a name merge cannot write fails before the inputs are read
    files = expand_inputs(inputs)
    try:  # one input in memory at once besides the sum; folded input is summed without splitting a stack
        merged = registry.read_sum(
            files,
            input_format,
            skip_invalid=skip_invalid,
            report=report,
            each=lambda sources: progress(sources, "reading", len(sources)),
        )
    except DifferentialInput as error:
        raise differential_input(error.source or "", "merge") from None
    write_profile(merged / len(files) if mean else merged, output, no_header, fmt, command="merge")


SPEC = Command(
    "merge",
    run,
    [Argument("inputs", nargs=-1)],
    [
        Option(("--mean",), "mean", "flag", help="Divide the sum by the number of inputs (the mean profile of n runs)."),
        *INPUT_OPTIONS,
        *OUTPUT_OPTIONS,
    ],
)
