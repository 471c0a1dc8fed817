"""The HTML viewer in a real browser: it loads with no request but its own file, draws, zooms,
searches, shows tooltips in human units and sorts its table.

Headless Chromium from Debian's package, driven by playwright (skipped when either is absent,
as tests/render/test_browser.py). Screenshots go to test-artifacts/ (git-ignored).
"""

from __future__ import annotations

import pytest

import flamespace as fs
from flamespace.core import units
from flamespace.render.html import HtmlOptions, html, read_payload

from ..conftest import DATA
from . import _pages
from .test_browser import browser  # noqa: F401  (the shared Chromium fixture)

SMALL = DATA / "render" / "small.folded"  # 122 samples
DIFF = DATA / "render" / "diff.folded"
SEARCH = "rgb(230,0,230)"


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory):
    """The pages under test, written once."""
    root = tmp_path_factory.mktemp("html")
    html(fs.read(SMALL), HtmlOptions(), root / "small.html")
    html(fs.read(DIFF), HtmlOptions(title="Diff"), root / "diff.html")
    timed = {("main", "parse (app.py:3)"): 1_500_000, ("main", "work (app.py:9)"): 2_250_000_000, ("main",): 12_345}
    html(fs.FlameGraph(timed, unit="ns"), HtmlOptions(), root / "timed.html")
    lines = {
        ("main (app.py:1)", "work (app.py:12)"): 4,
        ("main (app.py:1)", "work (app.py:30)"): 6,
        ("main (app.py:1)", "x (b.py:2)"): 10,
    }
    html(fs.FlameGraph(lines), HtmlOptions(), root / "lines.html")
    # one wide stack and 3,000 stacks each far narrower than a pixel
    many = {("main", "big"): 100_000}
    many.update({("main", "tiny", f"f{i}"): 1 for i in range(3000)})
    html(fs.FlameGraph(many), HtmlOptions(min_percent=0), root / "many.html")
    return root


class Page(_pages.Page):
    """The single-profile viewer's page, with what its tests ask of it."""

    def drawn(self, name: str) -> dict:
        """The box drawn for the frame ``name`` (page coordinates of its centre in ``cx``, ``cy``)."""
        boxes = [b for b in self.tab.evaluate("window.flamespaceViewer.drawn()") if b["name"] == name]
        assert boxes, f"{name} is not drawn"
        box = boxes[0]
        rect = self.tab.evaluate(
            "(() => { const r = document.getElementById('canvas').getBoundingClientRect(); return [r.left, r.top]; })()"
        )
        box["cx"], box["cy"] = rect[0] + box["x"] + box["w"] / 2, rect[1] + box["y"] + box["h"] / 2
        return box

    def corner(self, box: dict) -> tuple:
        """Page coordinates two pixels inside the top-left corner of a drawn box (clear of its label)."""
        return box["cx"] - box["w"] / 2 + 2, box["cy"] - box["h"] / 2 + 2

    def pixel(self, x: float, y: float) -> str:
        """The colour on the canvas at page coordinates (x, y), as ``rgb(r,g,b)``."""
        return self.tab.evaluate(
            """([x, y]) => {
            const canvas = document.getElementById('canvas'), r = canvas.getBoundingClientRect(), k = canvas.width / r.width;
            const p = canvas.getContext('2d').getImageData(Math.floor((x - r.left) * k), Math.floor((y - r.top) * k), 1, 1).data;
            return `rgb(${p[0]},${p[1]},${p[2]})`; }""",
            [x, y],
        )

    def state(self) -> dict:
        return self.tab.evaluate("window.flamespaceViewer.state()")

    def crumbs(self) -> list:
        return self.tab.locator("#crumbs a, #crumbs .here").all_text_contents()


@pytest.fixture
def open_page(browser, pages):  # noqa: F811
    yield from _pages.checked_pages(lambda name, **kwargs: Page(browser, pages / name, **kwargs))


def test_loads_offline_and_draws_each_frame_in_its_colour(open_page) -> None:
    page = open_page("small.html")
    data = page.tab.evaluate("JSON.parse(document.getElementById('flamespace-data').textContent)")
    parse = page.drawn("parse")
    assert parse["w"] == pytest.approx((1200 - 20) * 50 / 122, abs=1)  # 50 of 122 samples
    import base64

    colours = base64.b64decode(data["frames"]["colour"]["data"])  # u1: one byte a frame
    assert data["frames"]["colour"]["type"] == "u1"
    assert page.pixel(*page.corner(parse)) == data["colours"][colours[parse["frame"]]]
    assert page.pixel(page.corner(parse)[0] - parse["x"] - 5, parse["cy"]) not in data["colours"], "margins stay background"
    page.shot("small")


def test_click_zooms_breadcrumb_follows_and_escape_resets(open_page) -> None:
    page = open_page("small.html")
    assert page.crumbs() == ["all"]
    page.tab.mouse.click(page.drawn("eval")["cx"], page.drawn("eval")["cy"])
    assert page.crumbs() == ["all", "main", "eval"]
    eval_box, call_box = page.drawn("eval"), page.drawn("call")
    assert (eval_box["x"], eval_box["w"]) == pytest.approx((10, 1180), abs=0.01)
    assert call_box["w"] == pytest.approx(1180 * 26 / 35, abs=0.5)  # call: 26 of eval's 35 samples
    assert page.tab.text_content("#crumbs .amount").startswith("35 samples · 28.69% of the total")
    page.shot("zoomed")
    page.tab.locator("#crumbs a", has_text="main").click()
    assert page.crumbs() == ["all", "main"]
    page.tab.keyboard.press("Escape")
    assert page.crumbs() == ["all"] and page.state()["x1"] == 122


def test_keyboard_and_wheel_zoom(open_page) -> None:
    page = open_page("small.html")
    page.tab.keyboard.press("+")
    state = page.state()
    assert state["x1"] - state["x0"] == pytest.approx(61)
    page.tab.keyboard.press("ArrowRight")
    assert page.state()["x0"] == pytest.approx(state["x0"] + 6.1)
    page.tab.keyboard.press("Escape")
    lex = page.drawn("lex")
    page.tab.mouse.move(lex["cx"], lex["cy"])
    page.tab.keyboard.down("Control")
    page.tab.mouse.wheel(0, -300)
    page.tab.keyboard.up("Control")
    page.tab.wait_for_function("window.flamespaceViewer.state().x1 - window.flamespaceViewer.state().x0 < 122")
    state = page.state()
    assert state["x0"] <= 80 <= state["x1"]  # lex's middle (68 + 42 / 2 = 89 or so) stays under the cursor
    assert page.drawn("lex")["w"] > lex["w"]


def test_search_highlights_and_reports_the_matched_share(open_page) -> None:
    page = open_page("small.html")
    page.tab.fill("#search", "parse|lex")  # lex is inside parse: 50 of 122 samples, counted once
    assert page.tab.text_content("#matched") == "Matched: 41.0%"
    lex, evaluate = page.drawn("lex"), page.drawn("eval")
    assert page.pixel(*page.corner(lex)) == SEARCH
    assert page.pixel(*page.corner(evaluate)) != SEARCH
    assert page.tab.locator("#table tbody tr").count() == 2  # the table follows the search
    page.shot("search")
    page.tab.fill("#search", "PARSE")
    assert page.tab.text_content("#matched") == "Matched: 0.0%"
    page.tab.check("#ignorecase")
    assert page.tab.text_content("#matched") == "Matched: 41.0%"
    page.tab.fill("#search", "(")
    assert "bad" in page.tab.get_attribute("#search", "class") and page.tab.text_content("#matched") == ""


def test_tooltip_gives_value_shares_and_self(open_page) -> None:
    page = open_page("small.html")
    lex = page.drawn("lex")
    page.tab.mouse.move(lex["cx"], lex["cy"])
    tip = page.tab.locator("#tooltip")
    assert tip.is_visible()
    text = tip.inner_text()
    for expected in ("lex", "42 samples", "34.43%", "84.00% of parse", "30 samples (24.59% of total)"):
        assert expected in text, text
    page.shot("tooltip")


def test_tooltip_shows_times_in_human_units_and_labels_drop_locations_first(open_page) -> None:
    page = open_page("timed.html", viewport=(700, 500))
    work = page.drawn("work (app.py:9)")
    page.tab.mouse.move(work["cx"], work["cy"])
    assert "2.25 s" in page.tab.locator("#tooltip").inner_text()
    glyph = page.tab.evaluate("window.flamespaceViewer.charWidth()")
    assert 5 < glyph < 9, "12px Verdana-like glyphs"
    fitted = page.tab.evaluate(
        "(ws) => ws.map(w => window.flamespaceViewer.fit('work (app.py:12)', w))",
        [6 + glyph * 16.5, 6 + glyph * 15.5, 6 + glyph * 4.5, 6 + glyph * 3.5, 6 + glyph * 2.5],
    )
    assert fitted == ["work (app.py:12)", "work", "work", "w..", ""]  # the location goes before the name is cut
    text = page.tab.evaluate("[1.5e6, 999.7, 2.25e9, 0, 12345].map(v => window.flamespaceViewer.human(v))")
    assert text == [units.human(v, "ns") for v in (1.5e6, 999.7, 2.25e9, 0, 12345)]


@pytest.mark.parametrize("unit", ["ns", "us", "ms", "s", "bytes", "share"])
def test_numbers_are_written_as_the_library_writes_them(browser, tmp_path, unit) -> None:  # noqa: F811
    path = tmp_path / "unit.html"
    html(fs.FlameGraph({("a",): 1}, unit=unit), HtmlOptions(), path)
    page = Page(browser, path)
    values = [0.000123, 0.5, 0.9996, 1, 12.3456, 999.7, 999.4, 1023.9, 65_536, 1.5e6, 7.25e9, 3.3e12, 2**50, -42.42]
    shown = page.tab.evaluate(
        "(vs) => vs.map(v => [window.flamespaceViewer.human(v), window.flamespaceViewer.human(v, true)])", values
    )
    assert shown == [[units.human(v, unit), units.human(v, unit, signed=True)] for v in values]
    page.check()


def test_table_sorts_and_a_row_highlights_its_frames(open_page) -> None:
    page = open_page("small.html")
    rows = page.tab.locator("#table tbody tr")
    assert rows.first.locator("td").first.text_content() == "main"  # inclusive, largest first
    page.tab.click("#table th[data-key=self]")
    assert rows.first.locator("td").first.text_content() == "lex"  # 30 samples of its own
    selfs = [units.parse(t, "samples") for t in page.tab.locator("#table tbody tr td:nth-child(2)").all_text_contents()]
    assert selfs == sorted(selfs, reverse=True) and len(selfs) == 17
    page.tab.click("#table th[data-key=self]")
    selfs = [units.parse(t, "samples") for t in page.tab.locator("#table tbody tr td:nth-child(2)").all_text_contents()]
    assert selfs == sorted(selfs)
    page.tab.click("#table th[data-key=name]")
    names = page.tab.locator("#table tbody tr td:first-child").all_text_contents()
    assert names == sorted(names)
    page.tab.locator("#table tbody tr", has_text="next_token").first.click()
    assert page.tab.input_value("#search") == "^next_token$"
    assert rows.count() == 17 and page.tab.locator("#table tr.picked").inner_text().startswith("next_token")
    assert page.tab.text_content("#matched") == "Matched: 9.8%"  # 12 of 122
    token = page.drawn("next_token")
    assert page.pixel(*page.corner(token)) == SEARCH
    page.shot("table")


def test_the_url_keeps_zoom_search_and_shape(open_page) -> None:
    page = open_page("small.html")
    page.tab.mouse.click(page.drawn("eval")["cx"], page.drawn("eval")["cy"])
    page.tab.fill("#search", "call")
    page.tab.check("#ignorecase")
    page.tab.click("#icicle")
    url = page.tab.url
    assert "#" in url
    page.open(url.split("#")[0])
    assert page.crumbs() == ["all"] and page.state()["term"] == ""
    page.tab.goto("about:blank")
    page.open(url)
    assert page.crumbs() == ["all", "main", "eval"] and page.state()["inverted"] is True
    assert page.tab.input_value("#search") == "call" and page.tab.is_checked("#ignorecase")
    assert page.tab.text_content("#matched") == "Matched: 74.3%"  # call: 26 of the zoomed eval's 35
    page.tab.keyboard.press("Escape")
    assert "z=" not in page.tab.url


def test_table_by_function_groups_lines_and_highlights_them_all(open_page) -> None:
    page = open_page("lines.html")
    rows = page.tab.locator("#table tbody tr")
    assert rows.count() == 4  # main, x, work (app.py:30), work (app.py:12)
    page.tab.click("#by-function")
    assert rows.count() == 3
    work = rows.filter(has_text="work (app.py)")
    assert work.locator("td").nth(3).text_content() == "10 samples"
    work.click()
    assert page.tab.text_content("#matched") == "Matched: 50.0%"  # 4 + 6 of 20
    for name in ("work (app.py:12)", "work (app.py:30)"):
        assert page.pixel(*page.corner(page.drawn(name))) == SEARCH
    assert page.pixel(*page.corner(page.drawn("x (b.py:2)"))) != SEARCH
    page.tab.click("#by-line")
    assert rows.count() == 4
    page.shot("by-function")


def test_icicle_toggle_puts_the_root_on_top(open_page) -> None:
    page = open_page("small.html")
    root_flame = page.drawn("all")["y"]
    page.tab.click("#icicle")
    assert page.state()["inverted"] is True
    assert page.drawn("all")["y"] < page.drawn("main")["y"] < root_flame
    page.shot("icicle")


def test_frames_narrower_than_a_pixel_merge_into_small_blocks(open_page) -> None:
    page = open_page("many.html")
    drawn = page.tab.evaluate("window.flamespaceViewer.drawn()")
    small = [b for b in drawn if b["name"] == "(small)"]
    assert small and len(drawn) < 20, "3,000 tiny frames drawn as a few blocks"
    assert sum(b["count"] for b in small) == 3000  # every f<i>, none lost
    block = small[0]
    rect = page.tab.evaluate(
        "(() => { const r = document.getElementById('canvas').getBoundingClientRect(); return [r.left, r.top]; })()"
    )
    page.tab.mouse.move(rect[0] + block["x"] + block["w"] / 2, rect[1] + block["y"] + 7)
    assert "narrower than a pixel" in page.tab.locator("#tooltip").inner_text()
    for _ in range(3):  # each click zooms in on the block (at least 4 times): 3,000 frames in 34 pixels
        x, y = rect[0] + block["x"] + block["w"] / 2, rect[1] + block["y"] + 7
        page.tab.mouse.click(x, y)
        drawn = page.tab.evaluate("window.flamespaceViewer.drawn()")
        small = [b for b in drawn if b["name"] == "(small)"]
        if not small:
            break
        block = small[0]
    assert any(b["name"].startswith("f") for b in drawn), "zoomed in far enough, the frames are drawn"
    assert page.crumbs() == ["all", "main", "tiny"]


def test_differential_page_has_the_legend_and_signed_changes(open_page) -> None:
    page = open_page("diff.html")
    legend = page.tab.locator("#legend").inner_text()
    assert "red: more in the second profile" in legend and "full from ±" in legend
    call = page.drawn("call")
    page.tab.mouse.move(call["cx"], call["cy"])
    assert "Change\t+15 samples" in page.tab.locator("#tooltip").inner_text()
    assert page.tab.locator("#table th", has_text="Δ Inclusive").count() == 1
    page.shot("diff")


def test_a_python_palette_page_shows_its_colour_key(browser, tmp_path) -> None:  # noqa: F811
    """The key says what the python palette's colours are (red read as "hot"; it is native code)."""
    graph = fs.FlameGraph(
        {("main (app.py:1)", "loads (<stdlib>/json/__init__.py:346)"): 5, ("main (app.py:1)", "PyObject_Call"): 3}
    )
    path = tmp_path / "python.html"
    html(graph, HtmlOptions(colors="python"), path)
    page = Page(browser, path)
    assert page.tab.locator("#legend .key .entry").all_inner_texts() == ["your code", "standard library", "native code", "kernel"]
    assert page.tab.locator("#legend .note").inner_text().startswith("Colour: what kind of code")
    page.shot("python-key")
    page.check()


def _wide_profile(frames: int, seed: int = 25) -> fs.FlameGraph:
    """A random tree of exactly ``frames`` frames under ``all`` (each new frame a child of a random
    earlier one: wide and shallow, most frames small leaves) with 1-9 samples of its own each:
    most frames are narrower than the page's least value, so its layout leaves them out."""
    import random

    rng = random.Random(seed)
    stacks: list = [("main",)]
    for k in range(1, frames):
        stacks.append(stacks[rng.randrange(len(stacks))] + (f"fn{k % 2000}",))
    return fs.FlameGraph({stack: rng.randint(1, 9) for stack in stacks})


def _library_share(graph: fs.FlameGraph, pattern: str, path: tuple = ()) -> float:
    """The matched share as the library counts it: the stacks under ``path`` with a frame matching
    ``pattern`` (anywhere: one inside another counts once), over all stacks under ``path``."""
    from flamespace.core.transforms import select

    under = fs.FlameGraph({s: v for s, v in graph.items() if s[: len(path)] == path})
    return select(under, include=pattern).total() / under.total()


def test_matched_share_is_exact_on_a_600k_frame_profile(browser, tmp_path) -> None:  # noqa: F811
    """Issue 25: the page showed "Matched: 40.0%" where 40.78% of the samples matched: the frames
    its layout leaves out (narrower than --minwidth) were not counted. The share is the library's
    to the digit shown, and to rounding error in the page's own figure, zoomed in or not."""
    graph = _wide_profile(600_000)
    path = tmp_path / "wide.html"
    html(graph, HtmlOptions(), path)
    assert read_payload(path.read_text())["frames"]["count"] < 600_001 / 2  # the layout left most frames out
    page = Page(browser, path)
    try:
        for pattern, zoom in (("fn1[0-9]{2}$", ()), ("fn(7|9)$", ()), ("fn1[0-9]{2}$", ("main", "fn1"))):
            expected = _library_share(graph, pattern, zoom)
            page.tab.evaluate(
                "([term, path]) => { const v = window.flamespaceViewer; v.reset(); "
                "if (path.length) v.zoomTo(path); v.search(term); }",
                [pattern, list(zoom)],
            )
            shown = page.tab.evaluate("window.flamespaceViewer.pane.matched()")
            assert shown == pytest.approx(expected, rel=1e-12), pattern
            assert page.tab.text_content("#matched") == f"Matched: {100 * expected:.1f}%"
    finally:
        page.check()


def test_a_page_that_holds_only_the_widest_narrow_frames_gives_the_range_the_share_is_in(browser, tmp_path, monkeypatch) -> None:  # noqa: F811
    """Past SEARCH_FRAMES left-out frames, the page keeps the widest whole subtrees of them and shows
    'Matched: low–high%': what it holds matched, and what the frames it lacks could add; the
    library's share is in that range."""
    import flamespace.render.html as html_module

    graph = _wide_profile(20_000)
    monkeypatch.setattr(html_module, "SEARCH_FRAMES", 2_000)
    path = tmp_path / "cut.html"
    html(graph, HtmlOptions(min_percent=0.05), path)
    data = read_payload(path.read_text())
    assert not data["narrow"]["complete"] and len(data["narrow"]["name"]) <= 2_000
    page = Page(browser, path)
    try:
        expected = _library_share(graph, "fn1[0-9]{2}$")
        page.tab.evaluate("(term) => window.flamespaceViewer.search(term)", "fn1[0-9]{2}$")
        low, high = page.tab.evaluate("[window.flamespaceViewer.pane.matched(), window.flamespaceViewer.pane.matchedUpTo()]")
        assert low - 1e-12 <= expected <= high + 1e-12 and high - low > 0.001
        assert page.tab.text_content("#matched") == f"Matched: {100 * low:.1f}\u2013{100 * high:.1f}%"
    finally:
        page.check()
