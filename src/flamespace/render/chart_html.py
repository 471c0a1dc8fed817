"""The HTML flame chart: one self-contained page, a lane per thread on one time axis.

The emitter turns a :class:`~flamespace.render.timeline.Timeline` (the boxes of a
:class:`~flamespace.core.chart.FlameChart`, in ns) into a payload beside the viewer's: a
string table of names and colours and one typed column per field of the boxes (lane, depth,
start, length, self, name, colour; :func:`flamespace.render.html.column`), and a table of the
lanes. The page script (``js/chart_view.mjs``, over the flame graph pane of ``js/pane.mjs``) draws
each lane as a pane whose root is the thread, all panes on one time axis under a ruler; zoom
and pan move every lane at once. :func:`read_chart_payload` decodes a page's payload back
(tests check that the page holds exactly the chart's intervals).

Pages are assembled by :func:`page` from payloads, stylesheets and an entry module, so the trace
report (:mod:`.report`) puts a flame graph, its functions and a flame chart on one page.
"""

from __future__ import annotations

import json
import os

from ..core.units import TIME_UNITS
from .destination import deliver_text
from .html import HtmlOptions, _json, column, decode_column, unit_spec
from .layout import strip_annotation
from .timeline import Timeline, timeline

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Sequence

    from .._types import Destination
    from ..core.chart import FlameChart
    from ..diagnostics import Diagnostics

HERE = os.path.dirname(__file__)
#: The files a flame chart page inlines, in order: the pane (viewer), then the chart.
STYLES = ("viewer.css", "chart_view.css")
#: The page script's entry module (render/js/; render/bundle.py joins it with its imports).
SCRIPT = "chart_view.mjs"
#: The id of the chart's payload element (the flame graph viewer's is "flamespace-data").
CHART_DATA = "flamespace-chart-data"
CHART_VERSION = 1


def chart_html(
    chart: FlameChart,
    options: HtmlOptions | None = None,
    output: Destination = None,
    *,
    palette: dict[str, str] | None = None,
    diagnostics: Diagnostics | None = None,
) -> str | None:
    """Write ``chart`` as the HTML flame chart (``options``: the viewer's; title "Flame Chart" by
    default; ``min_percent`` leaves out boxes narrower than that share of the time axis).

    ``output``: a path, '-' for stdout, or a text stream; None returns the page as a string.
    ``palette`` and ``diagnostics`` as :func:`~flamespace.render.html.html`'s."""
    options = options or HtmlOptions()
    data = chart_payload(chart, options, palette=palette)
    if diagnostics is not None and not data["boxes"]["count"]:
        diagnostics.empty = True
    return deliver_text(page(data["title"], {CHART_DATA: data}), output)


def as_chart(profile: Any) -> FlameChart:
    """``profile`` as a flame chart: a chart as it is, a flame graph's stacks in their order laid
    end to end on one lane (as ``svg --flamechart`` draws it); a differential profile is refused."""
    from ..core.chart import FlameChart
    from ..core.differential import Differential
    from ..errors import ArgumentError

    if isinstance(profile, FlameChart):
        return profile
    if isinstance(profile, Differential):
        raise ArgumentError("a flame chart draws one profile, not a differential one")
    chart = FlameChart(profile.metadata)
    scale = TIME_UNITS.get(profile.metadata.unit or "", 1.0)  # the chart's timestamps are ns
    position = 0
    for stack, value in profile.items():
        position += value
        chart.append(round(position * scale), "all", stack, value)
    return chart


def chart_payload(chart: FlameChart, options: HtmlOptions, *, palette: dict[str, str] | None = None) -> dict[str, Any]:
    """The chart page's data (JSON-ready): settings, lanes, string tables, box columns."""
    from .layout import _rewriter
    from .palettes import Colourer
    from .timeline import prune

    layout_options = options.layout_options()
    drawn = timeline(chart, _rewriter(layout_options))
    least = layout_options.least_value(drawn.end) if drawn.end else 0
    if least:
        prune(drawn, least)
    return boxes_payload(drawn, options, Colourer(options.svg_options(), palette))


def boxes_payload(drawn: Timeline, options: HtmlOptions, colourer: Any) -> dict[str, Any]:
    """The payload of a laid-out timeline (``colourer``: name -> colour, as :class:`~.palettes.Colourer`)."""
    from collections import Counter

    from .html import _Table
    from .svg import LOCATION

    names, colours = _Table(), _Table()
    order = dict.fromkeys(drawn.lanes)  # first use, not a set's order: the page's bytes must not depend on the hash seed
    order.update(dict.fromkeys(drawn.name))
    shown = {name: strip_annotation(name) for name in order}
    colour_of = {name: colours.index(colourer(name)) for name in shown}
    lane_names = [names.index(shown[name]) for name in drawn.lanes]
    name_of = {name: names.index(shown[name]) for name in dict.fromkeys(drawn.name)}  # the table in order of first use
    counts = [0] * len(drawn.lanes)
    for lane, count in Counter(drawn.lane).items():
        counts[lane] = count
    svg_options = options.svg_options()
    unit = "ns" if drawn.time else drawn.unit
    return {
        "version": CHART_VERSION,
        "kind": "chart",
        "title": options.title or "Flame Chart",
        "subtitle": options.subtitle,
        "time": drawn.time,
        "end": drawn.end,
        "units": unit_spec(unit, options.countname if not drawn.time else "ns"),
        "location": LOCATION if options.drop_locations else None,
        "search_colour": options.search_color,
        "background": list(svg_options.background()),
        "negate": False,
        "delta": "inclusive",
        "names": names.items,
        "colours": colours.items,
        "inks": [0] * len(colours.items),
        "lanes": [
            {"name": lane_names[k], "rows": drawn.depths[k], "count": counts[k], "colour": colour_of[drawn.lanes[k]]}
            for k in range(len(drawn.lanes))
        ],
        "boxes": {
            "count": len(drawn),
            "lane": column(drawn.lane),
            "depth": column(drawn.depth),
            "start": column(drawn.start),
            "value": column(drawn.value),
            "self": column(drawn.self),
            "name": column(list(map(name_of.__getitem__, drawn.name))),  # per box in C: a trace has a box per call
            "colour": column(list(map(colour_of.__getitem__, drawn.name))),
        },
    }


# -- pages ------------------------------------------------------------------------------------------


def page(
    title: str, payloads: dict[str, dict[str, Any]], styles: Sequence[str] = STYLES, script: str = SCRIPT, body: str = ""
) -> str:
    """A whole page: the stylesheets, each payload in a ``<script type="application/json" id=...>``,
    ``body`` (HTML), then the script of the entry module ``script`` (render/js/, joined with its imports
    by :mod:`.bundle`), all inlined."""
    from .bundle import bundle
    from .xml import escape

    def read(name: str) -> str:
        with open(os.path.join(HERE, name), encoding="utf-8") as stream:
            return stream.read()

    style = "".join(read(name) for name in styles)
    data = "".join(f'<script type="application/json" id="{key}">{_json(value)}</script>\n' for key, value in payloads.items())
    code = f"<script>\n{bundle(script)}</script>\n"
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="flamespace">\n'
        f"<title>{escape(title)}</title>\n<style>\n{style}</style>\n</head>\n<body>\n"
        "<noscript>This page is drawn by JavaScript: please enable it.</noscript>\n"
        f"{body}{data}{code}</body>\n</html>\n"
    )


def payload_of(text: str, key: str) -> dict[str, Any]:
    """The JSON payload with id ``key`` of a page."""
    from ..errors import ArgumentError

    opening = f'<script type="application/json" id="{key}">'
    start = text.find(opening)
    if start < 0:
        raise ArgumentError(f"not a flamespace page with a {key!r} payload")
    start += len(opening)
    data: dict[str, Any] = json.loads(text[start : text.index("</script>", start)])
    return data


def read_chart_payload(text: str) -> dict[str, Any]:
    """The chart payload of a page, its box columns decoded to lists."""
    data = payload_of(text, CHART_DATA)
    boxes = data["boxes"]
    boxes.update({key: decode_column(value) for key, value in boxes.items() if isinstance(value, dict)})
    return data


def chart_intervals(data: dict[str, Any]) -> dict[str, list[tuple[Any, ...]]]:
    """Thread name -> (depth, start, end, name) of every box of a decoded chart payload, in order."""
    names, boxes = data["names"], data["boxes"]
    out: dict[str, list[tuple[Any, ...]]] = {names[lane["name"]]: [] for lane in data["lanes"]}
    lanes = [names[lane["name"]] for lane in data["lanes"]]
    for lane, depth, start, value, name in zip(boxes["lane"], boxes["depth"], boxes["start"], boxes["value"], boxes["name"]):
        out[lanes[lane]].append((depth, start, start + value, names[name]))
    return out


__all__ = [
    "CHART_DATA",
    "as_chart",
    "boxes_payload",
    "chart_html",
    "chart_intervals",
    "chart_payload",
    "page",
    "payload_of",
    "read_chart_payload",
]
