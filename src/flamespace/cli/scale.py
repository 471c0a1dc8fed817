"""flamespace scale: multiply every value by a constant."""

from __future__ import annotations

from ._common import INPUT_OPTIONS, OUTPUT_OPTIONS
from ._options import Argument, Command

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional, Union


def run(
    factor: "Union[int, float]", input: str, skip_invalid: bool, input_format: "Optional[str]", output: str, no_header: bool
) -> None:
    """Multiply every value of INPUT (default stdin) by FACTOR.

    \b
    Examples:
        flamespace scale 1000 profile-ms.folded -o profile-us.folded
        flamespace merge runs/ | flamespace scale 0.02
    """
    from ..core.differential import Differential
    from ..core.vector import scale_values
    from ._common import output_format, read_texts_or_differential, write_profile, write_texts

    fmt = output_format(output, "scale")  # a name scale cannot write fails before the input is read
    texts = read_texts_or_differential(input, skip_invalid, input_format)
    if isinstance(texts, Differential):
        write_profile(texts.map(lambda graph: graph * factor), output, no_header, fmt, command="scale")
    else:  # stack texts, never frames: scaling needs none
        values, metadata = texts
        write_texts(scale_values(values, factor), metadata, output, no_header, fmt)


#: FACTOR: a non-negative int or decimal number (ints stay ints, so counts stay exact).
SPEC = Command("scale", run, [Argument("factor", "number"), Argument("input", default="-")],
               [*INPUT_OPTIONS, *OUTPUT_OPTIONS])
