"""flamespace scale: multiply every value by a constant."""

from __future__ import annotations

from ._common import INPUT_OPTIONS, OUTPUT_OPTIONS
from ._options import Argument, Command


def run(factor: int | float, input: str, skip_invalid: bool, input_format: str | None, output: str, no_header: bool) -> None:
    """Multiply every value of INPUT (default stdin) by FACTOR.

    \b
    Examples:
        flamespace scale 1000 profile-ms.folded -o profile-us.folded
        flamespace merge runs/ | flamespace scale 0.02
    """
    from ..core.differential import Differential
    from ._common import output_format, read_profile, write_profile

    fmt = output_format(output, "scale")  # a name scale cannot write fails before the input is read
    profile = read_profile(input, skip_invalid, input_format)
    scaled = profile.map(lambda graph: graph * factor) if isinstance(profile, Differential) else profile * factor
    write_profile(scaled, output, no_header, fmt, command="scale")


#: FACTOR: a non-negative int or decimal number (ints stay ints, so counts stay exact).
SPEC = Command("scale", run, [Argument("factor", "number"), Argument("input", default="-")], [*INPUT_OPTIONS, *OUTPUT_OPTIONS])
