"""What profiles, comparisons and histories show in a notebook: the drawer of ``core/display.py``.

A page (the HTML viewer, the flame chart, the comparison page) goes into an ``<iframe srcdoc>``:
its scripts run in their own document in JupyterLab, VS Code's notebooks and the classic Notebook
alike, its styles touch nothing around it, and it asks for nothing over the network (everything
is inline). The text beside it (``text/plain``) is the short tree of ``render.console``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..stats.history import History

#: The iframe's height in pixels: the viewer's toolbar and about 25 levels of frames; it scrolls for more.
HEIGHT = 600


def iframe(page: str, height: int = HEIGHT, title: str = "flamespace") -> str:
    """``page`` (a whole HTML document) in an iframe of the output's width: scripts allowed, nothing
    else (a document of its own origin: it cannot reach the notebook, nor the notebook it)."""
    from html import escape

    return (
        f'<iframe srcdoc="{escape(page, quote=True)}" title="{escape(title, quote=True)}" '
        f'sandbox="allow-scripts allow-popups allow-downloads" '
        f'style="width: 100%; height: {height}px; border: 1px solid #ddd; border-radius: 4px"></iframe>'
    )


def html_of(obj: object) -> str | None:
    """``obj`` as notebook HTML: a FlameGraph in the viewer, a FlameChart as the flame chart, a
    Comparison as the comparison page, a HistoryReport's sparklines, a History's table; None for
    anything else (an empty graph: the text says so)."""
    from ..core.chart import FlameChart
    from ..core.vector import FlameGraph

    if isinstance(obj, FlameGraph):
        if not len(obj):
            return None
        from .html import HtmlOptions, html

        return iframe(html(obj, HtmlOptions(colors="python", roots=_roots(obj))) or "")
    if isinstance(obj, FlameChart):
        from .chart_html import chart_html

        return iframe(chart_html(obj) or "")
    from ..stats.comparison import Comparison
    from ..stats.history import History, HistoryReport

    if isinstance(obj, Comparison):
        from .comparison_files import comparison_page

        return iframe(comparison_page(obj) or "")
    if isinstance(obj, HistoryReport):
        from .sparkline import svg

        return svg(obj)
    if isinstance(obj, History):
        return history_table(obj)
    return None


def _roots(graph: Any) -> tuple[str, ...]:
    """What the first frames of a recording are (its roots label) that the viewer has a picker for."""
    from ..core.transforms import root_kinds
    from .html import ROOT_KINDS

    return tuple(kind for kind in root_kinds(graph) if kind in ROOT_KINDS)


def history_table(history: History) -> str:
    """A History as an HTML table: a row per stack, its mean value per point as blocks (▁..█), the last value."""
    from html import escape

    from ..core.units import human
    from ..stats.history import blocks

    values = history.values()
    rows = []
    for index, stack in enumerate(history.stacks):
        series = values[index].tolist()
        last = human(series[-1], history.unit or None) if series else ""
        rows.append(
            f"<tr><td style='text-align:left'><code>{escape(stack.rsplit(';', 1)[-1])}</code></td>"
            f"<td style='font-family:monospace'>{escape(blocks(series))}</td><td>{escape(last)}</td></tr>"
        )
    span = f"{history.points[0]} … {history.points[-1]}" if history.points else "no points"
    return (
        f"<table><caption>{len(history.stacks)} stacks over {len(history.points)} {escape(history.by)}s ({escape(span)})"
        f"</caption><thead><tr><th>stack</th><th>mean per profile</th><th>last</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def text_of(obj: object, **options: Any) -> str:
    """The short tree of a FlameGraph (or a FlameChart's graph) as text; ``options``:
    :class:`~flamespace.render.console.ConsoleOptions`'s (``min_share``, ``show_all``, ``thread``)."""
    from ..core.chart import FlameChart
    from .console import ConsoleOptions, console_text

    graph = obj.graph() if isinstance(obj, FlameChart) else obj
    if not len(graph):  # type: ignore[arg-type]  # a FlameGraph: the caller's contract
        return "nothing recorded\n"
    return console_text(graph, ConsoleOptions(**options))  # type: ignore[arg-type]  # a FlameGraph, as above


__all__ = ["HEIGHT", "history_table", "html_of", "iframe", "text_of"]
