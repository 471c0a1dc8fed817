"""flamespace svg: an interactive SVG flame graph, with every option of flamegraph.pl.

The command is declared once, as data, in _svg_spec.SPEC (cli/_options.py). The renderer is
imported when the command runs.
"""

from __future__ import annotations

from ._svg_spec import PALETTES, SPEC

__all__ = ["PALETTES", "SPEC"]
