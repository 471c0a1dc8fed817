"""Rendering: layout (pure, value units) -> emitters (interactive SVG, terminal text); palettes.

    import flamespace as fs
    fs.render.svg(fs.read("app.folded"), fs.SvgOptions(title="app"), "app.svg")
    print(fs.render.text(fs.read("app.folded")))
    frames = fs.render.layout(fs.read("app.folded"), fs.render.LayoutOptions(min_percent=1)).frames
"""

from __future__ import annotations

from .._lazy import lazy_exports
from .layout import Layout, layout
from .options import LayoutOptions, SvgOptions, read_nameattr
from .svg import Drawing, draw, emit, svg, write_svg
from .text import TextOptions, iter_text_lines, text, text_lines

# typing's NamedTuple: imported when asked for (not by flamespace svg)
__getattr__, __dir__ = lazy_exports(__name__, {"Frame": "frame"})

__all__ = [
    "Drawing", "Frame", "Layout", "LayoutOptions", "SvgOptions", "TextOptions", "draw", "emit", "layout",
    "read_nameattr", "svg", "text", "iter_text_lines", "text_lines", "write_svg",
]
