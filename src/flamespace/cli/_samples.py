"""Reading samples of runs (one profile file per run) for compare and similarity --sample."""

from __future__ import annotations

import glob
import os
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from ..errors import InputError
from ._common import expand_inputs, progress, read_graph

if TYPE_CHECKING:
    from ..stats.sample import Sample


def expand_side(patterns: Sequence[str]) -> List[str]:
    """Files, directories (their profiles) and quoted globs -> the list of run files."""
    paths: List[str] = []
    for pattern in patterns:
        if pattern == "-":
            raise InputError("a sample of runs is read from files (one per run), not from stdin", "-")
        if not os.path.exists(pattern) and glob.has_magic(pattern):
            matches = sorted(glob.glob(pattern))
            if not matches:
                raise InputError("no file matches this pattern", pattern)
            paths.extend(matches)
        else:
            paths.append(pattern)
    return expand_inputs(paths)


def read_samples(sides: Dict[str, Sequence[str]], command: str, skip_invalid: bool, input_format: Optional[str]) -> Dict[str, "Sample"]:
    """One :class:`Sample` per side; every run of every side must be in the same unit."""
    from ..stats.sample import Sample

    files = {side: expand_side(patterns) for side, patterns in sides.items()}
    everything = [(side, path) for side, paths in files.items() for path in paths]
    graphs: Dict[str, list] = {side: [] for side in sides}
    first: Optional[Tuple[str, str]] = None  # (unit, file)
    cache: dict = {}
    for side, path in progress(everything, "reading runs", len(everything)):
        graph = read_graph(path, command, skip_invalid, input_format, cache)
        if graph.unit is not None:
            if first is None:
                first = (graph.unit, path)
            elif graph.unit != first[0]:
                raise InputError(f"is in {graph.unit!r} but {first[1]} is in {first[0]!r}; all runs must use one unit", path)
        graphs[side].append(graph)
    return {side: Sample.from_graphs(graphs[side], names=files[side]) for side in sides}
