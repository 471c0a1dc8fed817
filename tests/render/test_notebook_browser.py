"""The notebook output (render/notebook.py's iframe) in headless Chromium, as a saved notebook shows it:
the viewer runs inside the iframe, with no script error and no request (everything is inline)."""

from __future__ import annotations

from pathlib import Path

import pytest

import flamespace as fs
from flamespace.render.notebook import iframe

from ..conftest import DATA
from . import _pages
from .test_browser import browser  # noqa: F401  (the shared Chromium fixture)

VIEWER_READY = "window.flamespaceViewer && window.flamespaceViewer.ready"
CHART_READY = "document.querySelector('canvas') !== null"


class OutputPage(_pages.Page):
    """A saved notebook's output: the iframe in an output area, as JupyterLab lays it out."""

    READY = "document.querySelector('iframe') !== null"
    PREFIX = "notebook"

    def inner(self, ready: str):
        """The iframe's document, once ``ready`` holds there."""
        frame = next(frame for frame in self.tab.frames if frame != self.tab.main_frame)
        frame.wait_for_function(ready)
        return frame


def saved(tmp_path: Path, name: str, output: str) -> Path:
    path = tmp_path / f"{name}.html"
    path.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>notebook</title></head><body>'
        f'<div class="jp-OutputArea-output" style="width: 900px">{output}</div></body></html>',
        encoding="utf-8",
    )
    return path


@pytest.fixture
def open_output(browser, tmp_path):  # noqa: F811
    yield from _pages.checked_pages(lambda name, output: OutputPage(browser, saved(tmp_path, name, output)))


def test_a_profile_shows_the_viewer_in_its_iframe(open_output) -> None:
    graph = fs.read(str(DATA / "render" / "console" / "app.folded"))
    page = open_output("graph", graph._repr_html_())
    frame = page.inner(VIEWER_READY)
    # drawn once the iframe has its width (on a busy machine its first layout may come after the page's ready)
    drawn = (
        "names => { const seen = window.flamespaceViewer.drawn().map(b => b.name); return names.every(n => seen.includes(n)); }"
    )
    frame.wait_for_function(drawn, arg=["parse (app.py:4)", "MainThread"], timeout=60_000)
    assert frame.evaluate("document.querySelectorAll('#thread option').length") == 4  # all, and the three threads
    frame.fill("#search", "parse")  # a view that pages keep in their URL's fragment: an iframe's srcdoc has none
    frame.wait_for_function("window.flamespaceViewer.ready")
    page.shot("graph")


def test_a_chart_and_a_comparison_show_in_their_iframes(open_output) -> None:
    from flamespace.core.metadata import Metadata

    chart = fs.FlameChart(Metadata(unit="ms"))
    for step in range(20):
        chart.append(step * 5, "MainThread", ("main", "work" if step % 3 else "wait"), 5)
    open_output("chart", chart._repr_html_()).inner(CHART_READY)
    runs = [fs.FlameGraph({("a",): 100 + i, ("a", "b"): 50 + 3 * i}) for i in range(5)]
    later = [fs.FlameGraph({("a",): 100 + i, ("a", "b"): 150 + 3 * i}) for i in range(5)]
    open_output("comparison", fs.compare(runs, later)._repr_html_()).inner(CHART_READY)


def test_an_error_inside_the_iframe_is_seen(browser, tmp_path) -> None:  # noqa: F811
    """The checks above would fail on a script error inside the iframe: its frame's errors reach the page."""
    broken = iframe("<!DOCTYPE html><html><body><script>console.error('broken'); undefinedFunction();</script></body></html>")
    page = OutputPage(browser, saved(tmp_path, "broken", broken))
    page.tab.wait_for_function("document.querySelector('iframe') !== null")
    for _ in range(400):  # until the iframe's script has run (at most ~20 s on a busy machine): a wait, not a check of time
        if len(page.errors) >= 2:
            break
        page.tab.wait_for_timeout(50)
    assert any("broken" in error for error in page.errors), page.errors
    assert any("undefinedFunction" in error for error in page.errors), page.errors
    page.context.close()
