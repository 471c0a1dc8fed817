"""flamespace scale: multiply every value by a constant."""

from __future__ import annotations

from typing import Optional, Union

import click

from ..core.differential import Differential
from ..core.vector import scale_values
from ._common import input_options, output_options, read_texts_or_differential, write_profile, write_texts


class NumberType(click.ParamType):
    """A non-negative int or decimal number (ints stay ints, so counts stay exact)."""

    name = "number"

    def convert(self, value: object, param: Optional[click.Parameter], ctx: Optional[click.Context]) -> Union[int, float]:
        if isinstance(value, (int, float)):
            number: Union[int, float] = value
        else:
            text = str(value).strip()
            try:
                number = int(text)
            except ValueError:
                try:
                    number = float(text)
                except ValueError:
                    self.fail(f"{value!r} is not a number", param, ctx)
        if not number >= 0 or number == float("inf"):
            self.fail(f"{value!r} must be a finite number >= 0 (a flame graph has no negative values)", param, ctx)
        return number


@click.command("scale")
@click.argument("factor", type=NumberType())
@click.argument("input", default="-", type=click.Path(allow_dash=True))
@input_options
@output_options
def command(
    factor: Union[int, float], input: str, skip_invalid: bool, input_format: Optional[str], output: str, no_header: bool
) -> None:
    """Multiply every value of INPUT (default stdin) by FACTOR.

    \b
    Examples:
        flamespace scale 1000 profile-ms.folded -o profile-us.folded
        flamespace merge runs/ | flamespace scale 0.02
    """
    texts = read_texts_or_differential(input, skip_invalid, input_format)
    if isinstance(texts, Differential):
        write_profile(texts.map(lambda graph: graph * factor), output, no_header)
    else:  # stack texts, never frames: scaling needs none
        values, metadata = texts
        write_texts(scale_values(values, factor), metadata, output, no_header)
