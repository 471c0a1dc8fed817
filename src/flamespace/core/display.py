"""How a profile, a comparison or a history shows itself in a notebook (``_repr_html_``).

The drawing is the render layer's, which the core (and stats) sit below and may not import: the
package names the module that draws (:func:`set_drawer`, called by ``flamespace/__init__.py``), and
it is imported on the first display, never at ``import flamespace``. That module has
``html_of(obj) -> str | None`` (a self-contained page in an iframe) and ``text_of(obj, **options) -> str``
(the short tree of ``render.console``).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_drawer: dict[str, str | None] = {"module": None}


def set_drawer(module: str) -> None:
    """Name the module (dotted) that draws objects for notebooks."""
    _drawer["module"] = module


def _module() -> Any:
    import importlib

    name = _drawer["module"]
    if name is None:  # the package sets it on import: only a caller that took it away gets here
        raise RuntimeError("no drawer for notebooks: import flamespace first")
    return importlib.import_module(name)


def html(obj: object) -> str | None:
    """``obj`` as HTML for a notebook's output (None: nothing to show, the text stands)."""
    return _module().html_of(obj)  # type: ignore[no-any-return]  # the drawer's contract


def text(obj: object, **options: Any) -> str:
    """``obj``'s short tree as text (options: ``render.console.ConsoleOptions``'s)."""
    return _module().text_of(obj, **options)  # type: ignore[no-any-return]  # the drawer's contract


__all__ = ["html", "set_drawer", "text"]
