"""The page script in a real browser: details on hover, zoom, Reset Zoom, search, ignore case, URL state.

Headless Chromium from Debian's package, driven by playwright. Screenshots go to
test-artifacts/ (git-ignored) for people to look at.
"""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest

import flamespace as fs
from flamespace.render import SvgOptions, svg

from flamespace.render.significance import significance_svg

from ..conftest import DATA
from .test_significance import BASELINE, CANDIDATE, KINDS

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
SMALL = DATA / "render" / "small.folded"  # 122 samples


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory):
    """A local HTTP server (history.replaceState needs a real URL) over a folder of SVGs."""
    root = tmp_path_factory.mktemp("site")
    graph = fs.read(SMALL)
    svg(graph, SvgOptions(), root / "small.svg")
    svg(graph, SvgOptions(fluid=True), root / "fluid.svg")
    significance_svg(BASELINE, CANDIDATE, KINDS, SvgOptions(title="delta"), root / "delta.svg", note="Test: maxt, α = 0.05")
    python = {("A (app.py:1)", "work (app.py:12)"): 4, ("A (app.py:1)", "x (app.py:2)"): 96, ("B (b.py:1)",): 100}
    svg(fs.FlameGraph(python), SvgOptions(colors="python"), root / "python.svg")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("Chromium is not installed at /usr/bin/chromium (apt-get install chromium)")
    playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install '.[test]')")
    with playwright_api.sync_playwright() as p:
        instance = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser, site):
    context = browser.new_context(viewport={"width": 1220, "height": 400})
    tab = context.new_page()
    errors: list = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.goto(f"{site}/small.svg")
    yield tab
    assert not errors, errors
    context.close()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"browser-{name}.png"))


def frame(page, name: str):
    """The <g> of the frame called ``name`` (its title starts with the name)."""
    return page.locator("#frames > g").filter(has=page.locator(f'title:text-matches("^{name} \\\\(")')).first


def box(page, name: str) -> tuple:
    rect = frame(page, name).locator("rect")
    return float(rect.get_attribute("x")), float(rect.get_attribute("width"))


def search(page, term: str) -> None:
    page.once("dialog", lambda dialog: dialog.accept(term))
    page.click("#search")


def test_hover_shows_details(page) -> None:
    frame(page, "parse").locator("rect").hover()
    assert page.text_content("#details") == "Function: parse (50 samples, 40.98%)"
    shot(page, "hover")


def test_click_zooms_fades_ancestors_and_reset_restores(page) -> None:
    before = box(page, "eval")
    frame(page, "eval").locator("rect").click()
    assert box(page, "eval") == (10.0, 1200 - 20.0)
    assert frame(page, "main").get_attribute("class") == "parent"
    assert frame(page, "parse").get_attribute("class") == "hide"
    assert "x=" in page.url and "y=" in page.url
    assert page.get_attribute("#unzoom", "class") in ("", None)
    # children are scaled with their parent: call is 26 of eval's 35 samples
    assert box(page, "call") == pytest.approx((10.0, 1180 * 26 / 35), abs=0.2)
    shot(page, "zoomed")
    page.click("#unzoom")
    assert box(page, "eval") == before
    assert page.locator("#frames > g.hide").count() == 0 and "x=" not in page.url


def test_search_highlights_and_counts_nested_matches_once(page) -> None:
    search(page, "parse|lex")  # lex is inside parse: 50 of 122 samples
    assert page.text_content("#matched") == "Matched: 41.0%"
    assert frame(page, "lex").locator("rect").get_attribute("fill") == "rgb(230,0,230)"
    assert frame(page, "eval").locator("rect").get_attribute("fill") != "rgb(230,0,230)"
    assert "s=parse%7Clex" in page.url
    shot(page, "search")
    page.click("#search")  # Reset Search
    assert frame(page, "lex").locator("rect").get_attribute("fill") != "rgb(230,0,230)"
    assert "s=" not in page.url


def test_ignore_case_toggle(page) -> None:
    search(page, "PARSE")
    assert page.text_content("#matched") == "Matched: 0.0%"
    page.keyboard.press("Control+i")
    assert page.text_content("#matched") == "Matched: 41.0%"
    assert "ic=1" in page.url


def test_keyboard_opens_search(page) -> None:
    page.once("dialog", lambda dialog: dialog.accept("idle"))
    page.keyboard.press("F3")
    assert page.text_content("#matched") == "Matched: 2.5%"


def test_url_restores_zoom_and_search(page, site) -> None:
    frame(page, "eval").locator("rect").click()
    search(page, "call")
    url = page.url
    page.goto(f"{site}/small.svg")
    assert box(page, "eval") != (10.0, 1180.0)
    page.goto(url)
    assert box(page, "eval") == (10.0, 1180.0)
    assert frame(page, "parse").get_attribute("class") == "hide"
    assert page.text_content("#matched") == "Matched: 74.3%"  # call: 26 of the zoomed eval's 35
    shot(page, "restored")


def test_fluid_width_follows_the_window(page, site) -> None:
    page.goto(f"{site}/fluid.svg")
    assert box(page, "all")[1] == pytest.approx(1220 - 20, abs=0.11)
    page.set_viewport_size({"width": 700, "height": 400})
    page.wait_for_function("document.querySelector('#frames rect').getAttribute('width') === '680.0'")
    assert box(page, "main") == (10.0, 680.0)
    shot(page, "fluid-narrow")


def test_delta_svg_tooltips_give_the_relative_change_and_zoom_keeps_the_legend(page, site) -> None:
    page.goto(f"{site}/delta.svg")
    frame(page, "a").locator("rect").hover()
    details = page.text_content("#details")
    assert details.startswith("Function: a (150 ms, ") and details.endswith("Δ -50.0 ms, Δ % -25.0%; significant: shrank)")
    shot(page, "delta-hover")
    frame(page, "b").locator("rect").click()
    assert box(page, "b") == (10.0, 1180.0)
    assert page.locator("#legend text").count() == 9 and page.locator("#legend").is_visible()
    shot(page, "delta-zoomed")


def test_zoomed_labels_drop_their_location_first(page, site) -> None:
    page.goto(f"{site}/python.svg")
    label = frame(page, "work").locator("text")
    assert label.text_content() == "w.."  # 4 of 200 samples: 23.6 px, 3 characters (the emitter's label)
    frame(page, "A").locator("rect").click()
    assert label.text_content() == "work"  # 47.2 px, 6 characters: the page script drops "(app.py:12)" too
    frame(page, "work").locator("rect").click(force=True)  # (its label covers most of it)
    assert label.text_content() == "work (app.py:12)"
