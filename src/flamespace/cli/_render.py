"""What the rendering commands share: reading the inputs into one profile to draw."""

from __future__ import annotations

from ..errors import InputError
from ._common import expand_inputs, read_profile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional, Sequence

    from .._types import Profile


def read_drawable(files: Sequence[str], command: str, skip_invalid: bool, input_format: Optional[str],
                  chart: bool = False) -> Profile:
    """One profile from the inputs: a single file as it is (differential or not; with ``chart``,
    a flame chart if it keeps time order), several summed."""
    paths = expand_inputs(files)
    profiles = [read_profile(path, skip_invalid, input_format, chart=chart and len(paths) == 1) for path in paths]
    if len(profiles) == 1:
        return profiles[0]
    from ..core.algebra import sum_graphs
    from ..core.differential import Differential

    graphs = []
    for path, profile in zip(paths, profiles):
        if isinstance(profile, Differential):
            raise InputError(
                f"is differential input; '{command}' draws one differential file at a time, not a sum", path
            )
        graphs.append(profile)
    return sum_graphs(graphs)
