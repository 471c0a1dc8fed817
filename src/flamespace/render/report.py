"""The trace report: one self-contained HTML page for a traced run (``flamespace trace -o report.html``).

As NYTProf's report, the flame graph (exclusive time per full stack) is the front page and
each of its boxes links to its function's section: calls (all, and primitive: not from inside
another call of itself), inclusive, exclusive, mean and longest call, its callers and callees
(calls and inclusive time along each edge) and, when the trace recorded time per line
(``--lines``), its source lines. A table of every function and the flame chart (a lane per
thread, :mod:`.chart_html`) are the other views. Every number is exact: the tracer's integer
ns and call counts, not the layout's (whose narrow frames are left out).

The page holds three payloads: the flame graph's (:func:`.html.payload`), the flame chart's
(:func:`.chart_html.chart_payload`, when the trace kept time order) and the report's own
(functions, edges, lines as typed columns); ``js/report.mjs`` builds the views from them over the
pane and the chart of ``js/``. :func:`read_report` decodes them
back. The trace is taken as it is (``graph``, ``calls``, ``chart``, ``table()``,
``inclusive()``, ``lines``): rendering imports nothing of the collector.
"""

from __future__ import annotations

import re

from .chart_html import CHART_DATA, STYLES, chart_payload, page, payload_of, read_chart_payload
from .destination import deliver_text
from .html import HtmlOptions, _Table, column, decode_column, laid_out, payload

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .._types import Destination
    from ..diagnostics import Diagnostics

GRAPH_DATA = "flamespace-graph-data"
REPORT_DATA = "flamespace-report"
REPORT_VERSION = 1
#: ``function (file:12)`` -> ``function (file)``: a function's frame and its lines share this key.
_LINE = re.compile(r":\d+\)$")
#: The function table's columns, as the tracer's FunctionRow has them.
FIELDS = ("calls", "primitive", "inclusive", "exclusive", "mean", "longest")


def report(
    trace: Any,
    options: HtmlOptions | None = None,
    output: Destination = None,
    *,
    palette: dict[str, str] | None = None,
    diagnostics: Diagnostics | None = None,
) -> str | None:
    """Write the report of ``trace`` (a :class:`flamespace.collect.tracer.Trace`) as one page;
    ``options`` as :func:`~.html.html`'s (title "Trace report" by default)."""
    options = (options or HtmlOptions()).replace(title=(options.title if options else None) or "Trace report")
    laid, narrow = laid_out(trace.graph, options)
    if diagnostics is not None:
        for warning in laid.warnings:
            diagnostics.warn(warning)
        if laid.empty:
            diagnostics.empty = True
    payloads = {
        GRAPH_DATA: payload(laid, trace.graph, options, palette=palette, calls=trace.calls, narrow=narrow),
        REPORT_DATA: report_payload(trace, options),
    }
    if trace.chart is not None:
        payloads[CHART_DATA] = chart_payload(trace.chart, options.replace(title="Flame chart"), palette=palette)
    text = page(options.title or "Trace report", payloads, styles=STYLES + ("report.css",), script="report.mjs")
    return deliver_text(text, output)


def report_payload(trace: Any, options: HtmlOptions) -> dict[str, Any]:
    """The report's own data: the run's labels, the functions (exact), caller -> callee edges, lines."""
    rows = trace.table()
    names = _Table()
    index = {row.function: k for k, row in enumerate(rows)}
    for row in rows:
        names.index(row.function)
    edges = _edges(trace, index)
    data: dict[str, Any] = {
        "version": REPORT_VERSION,
        "kind": "report",
        "title": options.title,
        "subtitle": options.subtitle,
        "labels": dict(trace.graph.metadata.labels),
        "problems": list(getattr(trace, "problems", [])),
        "total": trace.graph.total(),
        "chart": trace.chart is not None,
        "functions": {
            "count": len(rows),
            "name": column([names.index(row.function) for row in rows]),
            **{field: column([getattr(row, field) for row in rows]) for field in FIELDS},
        },
        "edges": {
            "count": len(edges),
            **{
                key: column([edge[k] for edge in edges], signed=key == "caller")
                for k, key in enumerate(("caller", "callee", "calls", "inclusive"))
            },
        },
        "lines": None,
        "names": names.items,
    }
    lines = getattr(trace, "lines", None)
    if lines:
        data["lines"] = _lines(lines, rows, names)
    return data


def _edges(trace: Any, index: dict[str, int]) -> list[tuple[int, int, int, int]]:
    """(caller, callee, calls, inclusive ns) per pair of functions; caller -1: called at the top of a
    stack. A recursive call's time is in its outermost call's (as the table's inclusive)."""
    inclusive = trace.inclusive()
    pairs: dict[tuple[int, int], list[int]] = {}
    for stack, count in trace.calls.items():
        caller = index.get(stack[-2], -1) if len(stack) > 1 else -1
        callee = index.get(stack[-1])
        if callee is None:
            continue
        pair = pairs.setdefault((caller, callee), [0, 0])
        pair[0] += int(count)
        if stack[-1] not in stack[:-1]:
            pair[1] += int(inclusive.get(stack, 0))
    edges = [(caller, callee, calls, ns) for (caller, callee), (calls, ns) in pairs.items()]
    edges.sort(key=lambda edge: (-edge[3], edge[0], edge[1]))
    return edges


def _lines(lines: dict[str, tuple[int, int]], rows: list[Any], names: _Table) -> dict[str, Any]:
    """Each recorded line ``function (file:N)`` under its function (the frame with the same name and
    file), most time first: columns function, line (its name), hits, exclusive ns."""
    by_key: dict[str, int] = {}
    for k, row in enumerate(rows):
        by_key.setdefault(_LINE.sub(")", row.function), k)
    out: list[tuple[int, int, int, int]] = []
    for name, (ns, hits) in lines.items():
        function = by_key.get(_LINE.sub(")", name))
        if function is not None:
            out.append((function, names.index(name), int(hits), int(ns)))
    out.sort(key=lambda line: (line[0], -line[3]))
    return {
        "count": len(out),
        **{key: column([line[k] for line in out]) for k, key in enumerate(("function", "line", "hits", "exclusive"))},
    }


def read_report(text: str) -> dict[str, Any]:
    """The payloads of a report page: ``report`` (columns decoded to lists), ``graph`` (as
    :func:`.html.read_payload` gives it) and ``chart`` (or None)."""
    data = payload_of(text, REPORT_DATA)
    for table in ("functions", "edges", "lines"):
        if data.get(table):
            data[table].update({key: decode_column(value) for key, value in data[table].items() if isinstance(value, dict)})
    graph = payload_of(text, GRAPH_DATA)
    graph["frames"].update({key: decode_column(value) for key, value in graph["frames"].items() if isinstance(value, dict)})
    return {"report": data, "graph": graph, "chart": read_chart_payload(text) if f'id="{CHART_DATA}"' in text else None}


__all__ = ["FIELDS", "GRAPH_DATA", "REPORT_DATA", "read_report", "report", "report_payload"]
