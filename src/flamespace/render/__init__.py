"""Rendering: layout (pure, value units) -> emitters (interactive SVG, terminal text); palettes.

import flamespace as fs
fs.render.svg(fs.read("app.folded"), fs.SvgOptions(title="app"), "app.svg")
print(fs.render.text(fs.read("app.folded")))
print(fs.render.console_text(fs.read("app.folded")))   # the short tree `record` prints
frames = fs.render.layout(fs.read("app.folded"), fs.render.LayoutOptions(min_percent=1)).frames
"""

from __future__ import annotations

import sys
from types import ModuleType

from .._lazy import lazy_exports
from .options import LayoutOptions, SvgOptions, read_nameattr

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .comparison_files import comparison_page, write_comparison
    from .console import ConsoleOptions, console_text
    from .frame import Frame
    from .layout import Layout, layout
    from .svg import Drawing, draw, emit, svg, write_svg
    from .text import TextOptions, iter_text_lines, text, text_lines

# Imported on first use, so that `flamespace text` does not load the SVG emitter and
# `flamespace svg --help` neither of them (start-up: docs/performance.md).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "comparison_page": "comparison_files",
        "ConsoleOptions": "console",
        "console_text": "console",
        "write_comparison": "comparison_files",
        "Frame": "frame",
        "Layout": "layout",
        "layout": "layout",
        "Drawing": "svg",
        "draw": "svg",
        "emit": "svg",
        "svg": "svg",
        "write_svg": "svg",
        "TextOptions": "text",
        "iter_text_lines": "text",
        "text": "text",
        "text_lines": "text",
    },
)

#: Names that are both a submodule and the function it exports: the package attribute is the function.
_FUNCTIONS = frozenset(("layout", "svg", "text"))


class _Package(ModuleType):
    """This package's module type. Importing the submodule ``svg`` (``layout``, ``text``) would set
    the package's attribute ``svg`` to the module, hiding the function; that assignment is
    dropped here, so the attribute stays (or becomes, through ``__getattr__``) the function."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _FUNCTIONS and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

__all__ = [
    "Drawing",
    "Frame",
    "Layout",
    "LayoutOptions",
    "SvgOptions",
    "TextOptions",
    "ConsoleOptions",
    "comparison_page",
    "console_text",
    "draw",
    "emit",
    "layout",
    "read_nameattr",
    "svg",
    "text",
    "iter_text_lines",
    "text_lines",
    "write_comparison",
    "write_svg",
]
