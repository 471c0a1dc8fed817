"""Rendering: layout (pure) -> emitters (interactive SVG, terminal text); palettes.

    import flamespace as fs
    fs.render.svg(fs.read("app.folded"), fs.SvgOptions(title="app"), "app.svg")
    print(fs.render.text(fs.read("app.folded")))
"""

from __future__ import annotations

from .._lazy import lazy_exports
from .layout import Layout, layout
from .options import SvgOptions, read_nameattr
from .svg import svg, write_svg
from .text import TextOptions, text, text_lines

# typing's NamedTuple: imported when asked for (not by flamespace svg)
__getattr__, __dir__ = lazy_exports(__name__, {"Frame": "frame"})

__all__ = ["Frame", "Layout", "SvgOptions", "TextOptions", "layout", "read_nameattr", "svg", "text", "text_lines", "write_svg"]
