"""flamespace svg: an interactive SVG flame graph, with every option of flamegraph.pl.

The command is declared once, as data, in _svg_spec.SPEC; the click command (``command``) is
built from it on first use, and ``flamespace.cli.main`` parses the usual argument lists without
click (cli/_options.py). The renderer is imported when the command runs.
"""

from __future__ import annotations

from ._svg_spec import PALETTES, SPEC

__getattr__ = SPEC.module_getattr(__name__)

__all__ = ["PALETTES", "SPEC", "command"]
