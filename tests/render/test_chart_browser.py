"""The HTML flame chart in a real browser: lanes in time order on one axis, zoom and pan that move
every lane (keys, Ctrl+wheel, drag, the ruler), the tooltip, search and lane collapse; no request
but the page's own file and no console error. Screenshots go to test-artifacts/ (look at them).
"""

from __future__ import annotations

import pytest

import flamespace as fs
from flamespace.core import units
from flamespace.core.chart import FlameChart
from flamespace.render.chart_html import chart_html
from flamespace.render.html import HtmlOptions

from .test_browser import browser  # noqa: F401  (the shared Chromium fixture)
from ._pages import Page, checked_pages

US = 1000  # ns


def chart() -> FlameChart:
    """main calls f (4 µs) then g (6 µs) six times; a worker runs h at 15-25 µs and 40-45 µs."""
    c = FlameChart(fs.Metadata(unit="ns"))
    for k in range(6):
        c.append((10 * k + 4) * US, "main", ("main", "f"), 4 * US)
        c.append((10 * k + 10) * US, "main", ("main", "g"), 6 * US)
        if k == 1:
            c.append(25 * US, "worker", ("run", "h"), 10 * US)
        if k == 3:
            c.append(45 * US, "worker", ("run", "h"), 5 * US)
    return c


class ChartPage(Page):
    READY = "window.flamespaceChart && window.flamespaceChart.ready"
    PREFIX = "chart"

    def boxes(self, lane: int, name: str) -> list:
        """The boxes drawn for ``name`` on a lane, left to right, in page coordinates (``cx``, ``cy``: centre)."""
        drawn = self.tab.evaluate(f"window.flamespaceChart.chart.lanes[{lane}].pane.drawn()")
        rect = self.tab.evaluate(
            f"(() => {{ const r = window.flamespaceChart.chart.lanes[{lane}].pane.canvas.getBoundingClientRect(); return [r.left, r.top, r.width]; }})()"
        )
        out = sorted((b for b in drawn if b["name"] == name), key=lambda b: b["x"])
        for b in out:
            b["cx"], b["cy"], b["inner"] = rect[0] + b["x"] + b["w"] / 2, rect[1] + b["y"] + b["h"] / 2, rect[2] - 20
        return out

    def views(self) -> list:
        return self.tab.evaluate("window.flamespaceChart.chart.lanes.map(l => l.pane.view()).map(v => [v.x0, v.x1])")


@pytest.fixture(scope="module")
def page_path(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("chart") / "chart.html"
    chart_html(chart(), HtmlOptions(min_percent=0), path)
    return path


@pytest.fixture
def open_chart(browser, page_path):  # noqa: F811
    yield from checked_pages(lambda **kwargs: ChartPage(browser, page_path, **kwargs))


def test_lanes_draw_each_threads_boxes_where_they_ran(open_chart) -> None:
    page = open_chart()
    assert page.tab.locator(".lane-name").all_text_contents() == ["main", "worker"]
    fs_, gs = page.boxes(0, "f"), page.boxes(0, "g")
    assert len(fs_) == 6 and len(gs) == 6  # six separate intervals: six boxes each
    inner = fs_[0]["inner"]
    for k, (f, g) in enumerate(zip(fs_, gs)):
        assert f["x"] == pytest.approx(10 + inner * (10 * k) / 60, abs=0.6)
        assert g["x"] == pytest.approx(10 + inner * (10 * k + 4) / 60, abs=0.6)
        assert f["w"] + 0.5 == pytest.approx(inner * 4 / 60, abs=0.6)  # the pane leaves half a pixel between boxes
    hs = page.boxes(1, "h")  # the worker on the same axis: 15-25 µs and 40-45 µs
    assert [round((h["x"] - 10) / inner * 60, 1) for h in hs] == [15.0, 40.0]
    page.shot("whole")


def test_zoom_and_pan_move_every_lane(open_chart) -> None:
    page = open_chart()
    page.tab.keyboard.press("+")
    assert page.views() == [[pytest.approx(6 * US), pytest.approx(54 * US)]] * 2  # 0.8 of 60 µs around the middle
    page.tab.keyboard.press("+")  # 38.4 µs from 10.8 µs
    page.tab.keyboard.press("ArrowRight")  # a fifth of the view later
    assert page.views()[1] == [pytest.approx(10.8 * US + 0.2 * 38.4 * US), pytest.approx(49.2 * US + 0.2 * 38.4 * US)]
    page.tab.keyboard.press("Escape")
    assert page.views() == [[0, 60 * US]] * 2
    g = page.boxes(0, "g")[2]  # 24-30 µs
    page.tab.mouse.move(g["cx"], g["cy"])
    page.tab.keyboard.down("Control")
    page.tab.mouse.wheel(0, -400)
    page.tab.keyboard.up("Control")
    page.tab.wait_for_function("window.flamespaceChart.chart.view().x1 - window.flamespaceChart.chart.view().x0 < 60000")
    (lo, hi), other = page.views()
    assert lo < 27 * US < hi and other == [lo, hi]  # under the cursor; the worker's lane follows
    span = hi - lo
    page.tab.mouse.move(g["cx"], g["cy"])  # drag a lane left by 100 px: later time comes into view
    page.tab.mouse.down()
    page.tab.mouse.move(g["cx"] - 50, g["cy"])
    page.tab.mouse.move(g["cx"] - 100, g["cy"])
    page.tab.mouse.up()
    (lo2, hi2), _ = page.views()
    assert hi2 - lo2 == pytest.approx(span) and lo2 - lo == pytest.approx(100 / g["inner"] * span, rel=0.02)
    ruler = page.tab.locator("canvas.ruler").bounding_box()
    page.tab.keyboard.press("Escape")
    inner = ruler["width"] - 20  # drag on the ruler from 30 µs to 45 µs: zoom to that stretch
    y = ruler["y"] + ruler["height"] / 2
    page.tab.mouse.move(ruler["x"] + 10 + inner * 30 / 60, y)
    page.tab.mouse.down()
    page.tab.mouse.move(ruler["x"] + 10 + inner * 40 / 60, y)
    page.tab.mouse.move(ruler["x"] + 10 + inner * 45 / 60, y)
    page.tab.mouse.up()
    assert page.views()[0] == [pytest.approx(30 * US, rel=0.01), pytest.approx(45 * US, rel=0.01)]
    assert (
        page.tab.text_content("#span")
        == f"{units.human(page.views()[0][0], 'ns')} – {units.human(page.views()[0][1], 'ns')} of 60.0 µs"
    )
    page.shot("zoomed")


def test_clicking_a_box_zooms_to_it(open_chart) -> None:
    page = open_chart()
    h = page.boxes(1, "h")[0]
    page.tab.mouse.click(h["cx"], h["cy"])
    assert page.views() == [[15 * US, 25 * US]] * 2


def test_tooltip_gives_start_duration_and_self_in_human_units(open_chart) -> None:
    page = open_chart()
    g = page.boxes(0, "g")[1]  # 14-20 µs
    page.tab.mouse.move(g["cx"], g["cy"])
    tip = page.tab.locator("#tooltip")
    assert tip.is_visible()
    text = tip.inner_text()
    for expected in ("g", "Start", units.human(14 * US, "ns"), "Duration", units.human(6 * US, "ns"), "Self", "Thread", "main"):
        assert expected in text, text
    page.shot("tooltip")


def test_search_highlights_every_lane_and_counts_boxes(open_chart) -> None:
    page = open_chart()
    page.tab.fill("#search", "^[fh]$")
    assert page.tab.text_content("#matched") == "8 boxes match"
    page.tab.fill("#search", "^F$")
    assert page.tab.text_content("#matched") == "0 boxes match"
    page.tab.check("#ignorecase")
    assert page.tab.text_content("#matched") == "6 boxes match"
    page.shot("search")


def test_a_lane_collapses_and_opens_again(open_chart) -> None:
    page = open_chart()
    toggle = page.tab.locator("#lane-1 .collapse")
    toggle.click()
    assert not page.tab.locator("#lane-1 canvas.pane").is_visible() and page.tab.locator("#lane-0 canvas.pane").is_visible()
    page.tab.keyboard.press("+")  # zoom while it is hidden; opened again, it shows the same view
    toggle.click()
    assert page.tab.locator("#lane-1 canvas.pane").is_visible()
    assert page.views()[1] == page.views()[0]
    page.shot("collapsed")
