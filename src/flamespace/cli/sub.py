"""flamespace sub: the difference of two profiles as differential (two-count) folded stacks."""

from __future__ import annotations

from ._common import INPUT_OPTIONS, OUTPUT_OPTIONS
from ._options import Argument, Command, Option


def run(
    before: str,
    after: str,
    normalize: bool,
    strip_hex: bool,
    skip_invalid: bool,
    input_format: str | None,
    output: str,
    no_header: bool,
) -> None:
    """Write 'stack BEFORE_COUNT AFTER_COUNT' for every stack in either profile.

    This is the input of a differential flame graph (flamegraph.pl and 'flamespace svg'
    colour the change and size by AFTER); it matches difffolded.pl's output, sorted.

    \b
    Examples:
        flamespace sub before.folded after.folded -o diff.folded
        flamespace sub --normalize --strip-hex before.folded after.folded
    """
    from ..core.differential import Differential
    from ._common import output_format, read_graph, write_profile

    fmt = output_format(output, "sub", differential=True)  # before the inputs are read
    first = read_graph(before, "sub", skip_invalid, input_format)
    second = read_graph(after, "sub", skip_invalid, input_format)
    if strip_hex:  # the one step that needs frames (folded input is otherwise never split)
        from ..core.transforms import strip

        first, second = strip(first, "hex"), strip(second, "hex")
    difference = Differential(first, second)
    del first, second
    if normalize:
        difference = difference.normalized()  # the sides before it are let go: one copy of BEFORE in memory
    write_profile(difference, output, no_header, fmt, command="sub")


SPEC = Command(
    "sub",
    run,
    [Argument("before"), Argument("after")],
    [
        Option(
            ("-n", "--normalize"),
            "normalize",
            "flag",
            help="Scale BEFORE to the total of AFTER (values rounded down, as difffolded.pl -n).",
        ),
        Option(
            ("-s", "--strip-hex"),
            "strip_hex",
            "flag",
            help="Replace hex numbers (addresses) with 0x... so they compare equal (as difffolded.pl -s).",
        ),
        *INPUT_OPTIONS,
        *OUTPUT_OPTIONS,
    ],
)
