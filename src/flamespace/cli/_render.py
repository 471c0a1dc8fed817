"""What the rendering commands share: reading the inputs into one profile to draw."""

from __future__ import annotations

from ..errors import InputError
from ._common import expand_inputs, read_input, read_profile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from .._types import Drawable


def read_drawable(
    files: Sequence[str], command: str, skip_invalid: bool, input_format: str | None, chart: bool = False
) -> Drawable:
    """One profile from the inputs: a single file as it is (differential or not; with ``chart``,
    a flame chart if it keeps time order), several summed."""
    paths = expand_inputs(files)
    if len(paths) == 1:
        return (read_input if chart else read_profile)(paths[0], skip_invalid, input_format)
    profiles = [read_profile(path, skip_invalid, input_format) for path in paths]
    from ..core.algebra import sum_graphs
    from ..core.differential import Differential

    graphs = []
    for path, profile in zip(paths, profiles):
        if isinstance(profile, Differential):
            raise InputError(f"is differential input; '{command}' draws one differential file at a time, not a sum", path)
        graphs.append(profile)
    return sum_graphs(graphs)
