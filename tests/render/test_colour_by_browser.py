"""The HTML viewer coloured by a second metric, in Chromium: each frame's colour from its ratio (the
page computes it from the payload's second column, as the SVG's), the legend and the tooltip
rows. Skipped without Chromium or playwright, as tests/render/test_browser.py."""

from __future__ import annotations

import pytest

import flamespace as fs
from flamespace.render.html import HtmlOptions, column, html, payload, render_page
from flamespace.render.layout import layout

from .test_browser import ARTIFACTS, browser  # noqa: F401  (the shared Chromium fixture)
from .test_colour_by import COLOURS, CYCLES, INSTRUCTIONS, REAL
from ._pages import checked_pages
from .test_html_browser import Page


@pytest.fixture
def open_page(browser, tmp_path):  # noqa: F811
    def make(name: str, text: str) -> Page:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return Page(browser, path)

    yield from checked_pages(make)


def test_frames_take_their_ratio_colour_and_the_tooltip_gives_both_metrics(open_page) -> None:
    page = open_page("cpi.html", html(CYCLES, HtmlOptions(title="CPI"), colour_by=INSTRUCTIONS))
    for name, colour in COLOURS.items():
        assert page.pixel(*page.corner(page.drawn(name))) == colour, name
    legend = page.tab.locator("#legend").inner_text()
    assert "0.320" in legend and "2.00" in legend and "instructions/cycles: red above the whole profile's 0.800" in legend
    f = page.drawn("f")
    page.tab.mouse.move(f["cx"], f["cy"])
    tip = page.tab.locator("#tooltip").inner_text()
    for expected in ("instructions\t300", "instructions/cycles\t0.5 (0.625\u00d7 the whole profile's)"):
        assert expected in tip, tip
    ARTIFACTS.mkdir(exist_ok=True)
    page.tab.screenshot(path=str(ARTIFACTS / "html-colour-by.png"))


def test_the_page_colours_from_the_second_column_not_the_colour_column(open_page) -> None:
    """With every frame's colour index set to the table's first entry, the frames keep their ratio
    colours: the page computes them (as it must for frames it lays out itself)."""
    laid = layout(CYCLES, HtmlOptions().layout_options(), colour_by=INSTRUCTIONS)
    data = payload(laid, CYCLES, HtmlOptions(), metrics=("cycles", "instructions"))
    data["frames"]["colour"] = column([0] * data["frames"]["count"])
    page = open_page("tampered.html", render_page(data))
    for name, colour in COLOURS.items():
        assert page.pixel(*page.corner(page.drawn(name))) == colour, name


def test_real_perf_data_in_the_browser(open_page, browser, tmp_path) -> None:  # noqa: F811
    width = fs.read(REAL, options={"event_filter": "task-clock"})
    colour = fs.read(REAL, options={"event_filter": "page-faults"})
    page = open_page("real.html", html(width, HtmlOptions(title="task-clock coloured by page faults"), colour_by=colour))
    assert page.pixel(*page.corner(page.drawn("compute"))) == "rgb(0,0,255)"  # no page faults
    page.tab.mouse.move(page.drawn("all")["cx"], page.drawn("all")["cy"])
    assert "page-faults per 1,000,000 task-clock\t273 (1\u00d7 the whole profile's)" in page.tab.locator("#tooltip").inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.tab.screenshot(path=str(ARTIFACTS / "html-colour-by-real.png"), full_page=True)
    context = browser.new_context(viewport={"width": 1200, "height": 700})
    svg_path = tmp_path / "real.svg"
    fs.render.svg(width, fs.render.SvgOptions(title="task-clock coloured by page faults"), svg_path, colour_by=colour)
    svg_page = context.new_page()
    svg_page.goto(svg_path.as_uri())
    svg_page.screenshot(path=str(ARTIFACTS / "svg-colour-by-real.png"))
    context.close()


def test_page_transforms_keep_working_on_a_coloured_page(open_page) -> None:
    """The page's transforms (here invert) draw a coloured page without errors, each frame coloured
    by its own ratio: g, a leaf, keeps its 2.0 (test_transform_worker_browser checks every frame)."""
    page = open_page("cpi.html", html(CYCLES, HtmlOptions(), colour_by=INSTRUCTIONS))
    page.tab.check("#invert")
    tops = {b["name"] for b in page.tab.evaluate("window.flamespaceViewer.drawn()") if b["depth"] == 1}
    assert tops == {"f", "g", "k", "main"}
    assert page.pixel(*page.corner(page.drawn("g"))) == COLOURS["g"]
