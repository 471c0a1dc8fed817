"""flamespace sub: the difference of two profiles as differential (two-count) folded stacks."""

from __future__ import annotations

from ._common import INPUT_OPTIONS, OUTPUT_OPTIONS
from ._options import Argument, Command, Option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional


def run(
    before: str, after: str, normalize: bool, strip_hex: bool,
    skip_invalid: bool, input_format: "Optional[str]", output: str, no_header: bool,
) -> None:
    """Write 'stack BEFORE_COUNT AFTER_COUNT' for every stack in either profile.

    This is the input of a differential flame graph (flamegraph.pl and 'flamespace svg'
    colour the change and size by AFTER); it matches difffolded.pl's output, sorted.

    \b
    Examples:
        flamespace sub before.folded after.folded -o diff.folded
        flamespace sub --normalize --strip-hex before.folded after.folded
    """
    from ..core.differential import Differential, scale_to_total
    from ._common import output_format, read_graph, read_texts, write_profile, write_texts

    fmt = output_format(output, "sub", differential=True)  # before the inputs are read
    if strip_hex:  # needs frames
        from ..core.transforms import strip

        first = strip(read_graph(before, "sub", skip_invalid, input_format), "hex")
        second = strip(read_graph(after, "sub", skip_invalid, input_format), "hex")
        difference = Differential(first, second)
        write_profile(difference.normalized() if normalize else difference, output, no_header, fmt, command="sub")
        return
    # stack texts, never frames: the difference of two profiles needs none
    first_values, _ = read_texts(before, "sub", skip_invalid, input_format)
    second_values, metadata = read_texts(after, "sub", skip_invalid, input_format)
    if normalize:
        scaled = scale_to_total(first_values, sum(second_values.values()))
        first_values = first_values if scaled is None else scaled
    write_texts(second_values, metadata, output, no_header, fmt, before=first_values)


SPEC = Command("sub", run, [Argument("before"), Argument("after")], [
    Option(("-n", "--normalize"), "normalize", "flag",
           help="Scale BEFORE to the total of AFTER (values rounded down, as difffolded.pl -n)."),
    Option(("-s", "--strip-hex"), "strip_hex", "flag",
           help="Replace hex numbers (addresses) with 0x... so they compare equal (as difffolded.pl -s)."),
    *INPUT_OPTIONS, *OUTPUT_OPTIONS,
])
