"""Small pictures of a history (stats/history.py): one sparkline per stack, in an SVG.

(The text sparkline, block characters ▁..█, is ``stats.history.blocks``.) One row per stack (its short
name, the series as a line, each segment's level as a dashed line, each change point as a dot
with the commit and the change in a tooltip, the last value), deterministic so outputs diff.
"""

from __future__ import annotations


from ..core.units import human
from ..stats.history import METRIC_NAMES, change_text, level_name, relative_text, series, shown_unit
from .destination import deliver_text
from .xml import escape

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .._types import Destination
    from ..stats.history import HistoryReport, StackHistory

#: Geometry of the SVG, in pixels.
ROW = 34
LINE_WIDTH = 260
LABEL_WIDTH = 300
NOTE_WIDTH = 260
FONT = 12
#: A generous average width of a character of the font, in ems (Verdana's digits are 0.64), to size the SVG to its texts.
CHAR_EM = 0.66
#: The longest note shown, in characters.
NOTE_CHARS = 80
#: Colours: the series, a rise, a fall.
INK, RISE, FALL = "rgb(70,70,70)", "rgb(200,40,40)", "rgb(40,120,200)"


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def _row(report: HistoryReport, stack: StackHistory, top: float) -> list[str]:
    from ..stats.report import short_stack

    values = series(report, stack)
    n = len(values)
    low, high = min(values), max(values)
    span = high - low or 1.0
    x0, y0, height = LABEL_WIDTH, top + 4, ROW - 10

    def x(i: float) -> float:
        return x0 + (LINE_WIDTH * i / (n - 1) if n > 1 else LINE_WIDTH / 2)

    def y(v: float) -> float:
        return y0 + height - (v - low) / span * height if high > low else y0 + height / 2

    name = short_stack(stack.stack.split(";"))
    shown = name if len(name) <= 48 else "…" + name[-47:]
    parts = [
        f'<g class="stack"><title>{escape(stack.stack)}</title>\n',
        f'<text x="4" y="{_num(top + ROW / 2 + FONT / 3)}">{escape(shown)}</text>\n',
    ]
    for start, end, level in stack.changes.segments:
        parts.append(
            f'<line x1="{_num(x(start))}" x2="{_num(x(end - 1))}" y1="{_num(y(level))}" y2="{_num(y(level))}" '
            f'stroke="rgb(160,160,160)" stroke-dasharray="3,2"/>\n'
        )
    points = " ".join(f"{_num(x(i))},{_num(y(v))}" for i, v in enumerate(values))
    parts.append(f'<polyline points="{points}" fill="none" stroke="{INK}" stroke-width="1.2"/>\n')
    unit = shown_unit(report)
    for c in stack.changes.points:
        colour = RISE if c.after > c.before else FALL
        tip = f"{c.label}: {human(c.before, unit)} → {human(c.after, unit)} ({relative_text(c.relative)}), p = {c.p:.2g}"
        parts.append(
            f'<circle cx="{_num(x(c.index))}" cy="{_num(y(values[c.index]))}" r="3" fill="{colour}">'
            f"<title>{escape(tip)}</title></circle>\n"
        )
    parts.append(
        f'<text x="{LABEL_WIDTH + LINE_WIDTH + 10}" y="{_num(top + ROW / 2 + FONT / 3)}">{escape(_note(report, stack))}</text>\n</g>\n'
    )
    return parts


def _note(report: HistoryReport, stack: StackHistory) -> str:
    """What the row says right of its line: the last change, or the last value."""
    unit = shown_unit(report)
    return (change_text(report, stack) or f"last {human(series(report, stack)[-1], unit)}, no change")[:NOTE_CHARS]


def _text_width(text: str) -> int:
    """Room for ``text`` in the SVG's font, in pixels (an estimate on the generous side: no font metrics here)."""
    return int(len(text) * FONT * CHAR_EM) + 1


def svg(report: HistoryReport, output: Destination = None) -> str | None:
    """The report as an SVG (a row per stack) written to ``output`` (a path, '-', a stream), or returned for None."""
    h = report.history
    what = f"{level_name(h)} {'share of a profile' if report.metric == 'share' else METRIC_NAMES[report.metric] + ' per profile'}"
    title = (
        f"{what} of {len(report.stacks)} stacks over {len(h.points)} {h.by}s ({h.points[0]} … {h.points[-1]})"
        if h.points
        else "no points"
    )
    notes = max((_text_width(_note(report, stack)) for stack in report.stacks), default=0)
    width = max(LABEL_WIDTH + LINE_WIDTH + 10 + max(NOTE_WIDTH, notes) + 10, 4 + _text_width(title) + 10)
    height = ROW * (len(report.stacks) + 1) + 10
    parts = [
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n',
        f'<svg version="1.1" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'xmlns="http://www.w3.org/2000/svg">\n',
        f"<style>text {{ font-family:Verdana, sans-serif; font-size:{FONT}px; fill:rgb(0,0,0); }}</style>\n",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>\n',
        f'<text x="4" y="{ROW // 2 + 4}" font-weight="bold">{escape(title)}</text>\n',
    ]
    for i, stack in enumerate(report.stacks):
        parts.extend(_row(report, stack, ROW * (i + 1)))
    parts.append("</svg>\n")
    text = "".join(parts)
    return deliver_text(text, output)
