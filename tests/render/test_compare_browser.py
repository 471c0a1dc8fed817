"""The comparison page in a real browser: every view draws, panes zoom and hover in step, tabs switch,
colours are the SVG's, tooltips carry the test; no console error, no request but the page's own file.

Headless Chromium driven by playwright, as tests/render/test_html_browser.py (skipped without them).
Screenshots go to test-artifacts/compare-*.png.
"""

from __future__ import annotations

import pytest

import flamespace as fs
from flamespace.core.differential import Differential
from flamespace.render.compare_page import comparison_html, read_comparison
from flamespace.render.html import HtmlOptions
from flamespace.render.layout import layout
from flamespace.render.options import LayoutOptions, SvgOptions
from flamespace.render.palettes import needs_light_ink
from flamespace.render.colouring import frame_colours

from ..conftest import DATA
from .test_browser import browser  # noqa: F401  (the shared Chromium fixture)
from ._pages import checked_pages
from .test_html_browser import Page

EXAMPLES = DATA.parents[1] / "examples"
V1, V2 = EXAMPLES / "webapp-v1.folded", EXAMPLES / "webapp-v2.folded"
TABS = ("overlay", "panes", "whiteblack", "appeared", "grown", "disappeared", "shrunk")
GET_USER = [
    "<module> (app.py:1)",
    "main (app.py:88)",
    "serve (server.py:40)",
    "handle_request (server.py:61)",
    "get_user (views.py:12)",
]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("compare")
    a, b = fs.read(V1), fs.read(V2)
    comparison_html([a, b], ["v1", "v2"], HtmlOptions(min_percent=0), root / "diff.html")
    v3 = fs.FlameGraph({("<module> (app.py:1)", "main (app.py:88)", "serve (server.py:40)"): 4000, ("new",): 500})
    comparison_html([a, b, v3], ["v1", "v2", "v3"], HtmlOptions(), root / "series.html")
    from ..cli.test_compare import write_runs
    from flamespace.stats.comparison import compare
    from flamespace.stats.matrix import Sample

    base, cand = write_runs(root / "base", 1, False), write_runs(root / "cand", 2, True)
    sides = [Sample.from_graphs([fs.read(p) for p in sorted(d.iterdir())]) for d in (base, cand)]
    result = compare(*sides, alternative="two-sided")
    from flamespace.render import comparison_page

    comparison_page(result, str(root / "compare.html"), {"baseline": sides[0], "candidate": sides[1]})
    from .test_compare_page import narrow_pair

    narrow_a, narrow_b, tests = narrow_pair()  # rows left out of the layout, an annotated name, tests
    comparison_html([narrow_a, narrow_b], ["a", "b"], HtmlOptions(min_percent=0.1), root / "narrow.html", tests=tests)
    comparison_html([a, b], ["v1", "v2"], HtmlOptions(min_percent=3), root / "pruned.html")
    return root


class ComparePage(Page):
    READY = "window.flamespaceCompare && window.flamespaceCompare.ready"
    PREFIX = "compare"
    FULL_PAGE = True

    def show(self, tab: str) -> None:
        self.tab.click(f"#tab-{tab}")
        assert self.tab.evaluate("flamespaceCompare.tab()") == tab
        assert "on" in self.tab.get_attribute(f"#tab-{tab}", "class")

    def boxes(self, position: int = 0) -> list:
        """What pane ``position`` of the current tab drew, in page coordinates (``cx``, ``cy``: the centre)."""
        return self.tab.evaluate(
            """(p) => {
            const pane = flamespaceCompare.panes()[p], r = pane.canvas.getBoundingClientRect();
            return pane.drawn().map(b => Object.assign(b, {cx: r.left + b.x + b.w / 2, cy: r.top + b.y + b.h / 2,
                                                           left: r.left + b.x, top: r.top + b.y})); }""",
            position,
        )

    def box(self, name: str, position: int = 0) -> dict:
        found = [b for b in self.boxes(position) if b["name"] == name]
        assert found, f"{name} is not drawn in pane {position}"
        return found[0]

    def views(self) -> list:
        """Each pane's zoomed frame (as a path) and view, of the current tab."""
        return self.tab.evaluate("""flamespaceCompare.panes().map(p => {
            const v = p.view(); return {path: p.pathOf(v.frame), x0: v.x0, x1: v.x1, total: v.total,
                                        start: p.tree().start[v.frame], value: p.tree().value[v.frame], hovered: p.hovered()}; })""")

    def pixel(self, x: float, y: float, position: int = 0) -> str:
        return self.tab.evaluate(
            """([x, y, p]) => {
            const canvas = flamespaceCompare.panes()[p].canvas, r = canvas.getBoundingClientRect(), k = canvas.width / r.width;
            const d = canvas.getContext('2d').getImageData(Math.floor((x - r.left) * k), Math.floor((y - r.top) * k), 1, 1).data;
            return `rgb(${d[0]},${d[1]},${d[2]})`; }""",
            [x, y, position],
        )


@pytest.fixture
def open_page(browser, pages):  # noqa: F811
    yield from checked_pages(lambda name, **kwargs: ComparePage(browser, pages / name, **kwargs))


def test_every_view_draws(open_page) -> None:
    page = open_page("diff.html")
    counts = {"panes": 3}
    for tab in TABS:
        page.show(tab)
        panes = page.tab.evaluate("flamespaceCompare.panes().length")
        assert panes == counts.get(tab, 1)
        for position in range(panes):
            assert page.box("all", position)["w"] > 1000 or tab == "panes", f"{tab}: the root spans the pane"
        page.shot(tab)


def test_overlay_colours_and_inks_are_the_svgs(open_page) -> None:
    page = open_page("diff.html")
    a, b = fs.read(V1), fs.read(V2)
    for mode in ("inclusive", "self"):
        page.tab.click(f"#mode-{mode}")
        expected = frame_colours(layout(Differential(a, b), LayoutOptions(delta=mode, min_percent=0)), SvgOptions(delta=mode))
        assert page.tab.evaluate("flamespaceCompare.colours(0)") == expected
        data = read_comparison((page_path := page.tab.url.split("#")[0]) and open(page_path[7:]).read())
        assert page.tab.evaluate(f"flamespaceCompare.largest('{mode}')") == data["largest"][mode]
    distinct = sorted(set(expected) | {f"rgb({v},{v},255)" for v in range(0, 211, 7)})
    assert page.tab.evaluate("(cs) => cs.map(c => flamespaceCompare.lightInk(c))", distinct) == [
        needs_light_ink(c) for c in distinct
    ]
    recv = page.box("_recv (db.py:118)")
    assert page.pixel(recv["left"] + 2, recv["top"] + 2) == expected[recv["frame"]]  # pane index = layout index here


def test_the_three_panes_zoom_and_hover_in_step(open_page) -> None:
    page = open_page("diff.html")
    page.show("panes")
    user = page.box("get_user (views.py:12)", 0)
    page.tab.mouse.click(user["cx"], user["cy"])
    views = page.views()
    assert [v["path"] for v in views] == [GET_USER] * 3
    assert all((v["x0"], v["x1"]) == (v["start"], v["start"] + v["value"]) for v in views), "each pane shows the frame whole"
    assert page.tab.locator("#crumbs .here").inner_text() == "get_user (views.py:12)"
    page.shot("panes-zoomed")
    # hover in B outlines the same frame in A and in Δ
    query = page.box("query (db.py:50)", 1)
    page.tab.mouse.move(query["cx"], query["cy"])
    hovered = page.tab.evaluate("flamespaceCompare.panes().map(p => p.hovered() < 0 ? null : p.pathOf(p.hovered()))")
    assert hovered == [GET_USER + ["query (db.py:50)"]] * 3
    assert "Change" in page.tab.locator("#tooltip").inner_text()
    page.tab.mouse.move(5, 5)
    assert page.tab.evaluate("flamespaceCompare.panes().map(p => p.hovered())") == [-1, -1, -1]
    # a wheel zoom inside B: the others show the same share of the same frame
    page.tab.mouse.move(query["cx"], query["cy"])
    page.tab.keyboard.down("Control")
    page.tab.mouse.wheel(0, -300)
    page.tab.keyboard.up("Control")
    views = page.views()
    shares = [((v["x0"] - v["start"]) / v["value"], (v["x1"] - v["start"]) / v["value"]) for v in views]
    assert views[1]["x1"] - views[1]["x0"] < views[1]["value"], "B zoomed in"
    assert shares[0] == pytest.approx(shares[1]) and shares[2] == pytest.approx(shares[1])
    page.tab.keyboard.press("Escape")
    assert [v["path"] for v in page.views()] == [[]] * 3 and all(v["x1"] == v["total"] for v in page.views())


def test_tabs_switch_and_keep_the_zoomed_frame(open_page) -> None:
    page = open_page("diff.html")
    user = page.box("get_user (views.py:12)")
    page.tab.mouse.click(user["cx"], user["cy"])
    page.show("whiteblack")
    assert page.views()[0]["path"] == GET_USER
    page.show("grown")  # no stack under get_user grew: its deepest ancestor that has one
    path = page.views()[0]["path"]
    assert path == GET_USER[: len(path)] and len(path) < len(GET_USER)
    assert page.tab.locator("#view-overlay").is_hidden() and page.tab.locator("#view-grown").is_visible()
    page.tab.keyboard.press("1")  # digits switch tabs
    assert page.tab.evaluate("flamespaceCompare.tab()") == "overlay" and page.views()[0]["path"] == GET_USER
    assert "#tab=overlay" in page.tab.url


def test_white_black_draws_the_paths_only_in_a_black(open_page) -> None:
    page = open_page("diff.html")
    page.show("whiteblack")
    data = read_comparison(open(page.tab.url.split("#")[0][7:]).read())
    b = data["profiles"][1]["value"]
    boxes = [box for box in page.boxes() if box["frame"] >= 0 and box["w"] > 4]
    gone = [box for box in boxes if not b[page.tab.evaluate(f"flamespaceCompare.frameOf(0, {box['frame']})")]]
    assert gone, "v1 has paths that v2 lost"
    for box in boxes:
        colour = page.pixel(box["left"] + 2, box["top"] + 2)
        assert colour == ("rgb(40,40,40)" if box in gone else "rgb(250,250,250)"), box["name"]
    page.shot("whiteblack-only-in-a")


def test_compare_html_colours_only_significant_stacks_and_says_why(open_page) -> None:
    page = open_page("compare.html")
    assert "on" in page.tab.get_attribute("#mode-significance", "class")
    startup = page.box("sitecustomize")
    page.tab.mouse.move(startup["cx"], startup["cy"])
    tip = page.tab.locator("#tooltip").inner_text()
    for expected in ("significantly appeared", "adjusted", "Interval", "candidate", "baseline"):
        assert expected in tip, tip
    red = page.pixel(startup["left"] + 2, startup["top"] + 2)
    assert red == "rgb(255,80,80)"  # the deepest red: the largest significant change
    c = page.box("c")
    page.tab.mouse.move(c["cx"], c["cy"])
    tip = page.tab.locator("#tooltip").inner_text()
    assert "contains a significant change" in tip and "Own stack" in tip
    page.shot("significance")
    page.tab.click("#mode-inclusive")
    assert page.pixel(startup["left"] + 2, startup["top"] + 2) != red


def test_series_shows_each_profile_and_a_sparkline_per_frame(open_page) -> None:
    page = open_page("series.html")
    assert page.tab.evaluate("flamespaceCompare.tab()") == "series"
    assert page.views()[0]["total"] == 4500  # the last profile
    serve = page.box("serve (server.py:40)")
    page.tab.mouse.move(serve["cx"], serve["cy"])
    tip = page.tab.locator("#tooltip").inner_text()
    assert "Series" in tip and any(bar in tip for bar in "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588")
    panel = page.tab.locator("#sparkpanel").inner_text()
    assert "v1:" in panel and "v3: 4,000 samples" in panel
    page.shot("series")
    page.tab.click("#legend .series button[data-k='0']")
    assert page.views()[0]["total"] == fs.read(V1).total()
    page.show("overlay")  # the pair is the first and the last
    assert page.views()[0]["total"] == 4500


def test_identical_and_empty_profiles_draw_without_errors(browser, tmp_path) -> None:  # noqa: F811
    same = fs.read(V1)
    comparison_html([same, same], ["a", "b"], HtmlOptions(), tmp_path / "same.html")
    comparison_html([fs.FlameGraph({}), fs.FlameGraph({})], ["a", "b"], HtmlOptions(), tmp_path / "empty.html")
    page = ComparePage(browser, tmp_path / "same.html")
    for tab in TABS:
        page.show(tab)
    assert page.tab.locator("#view-shrunk .empty").inner_text() == "Nothing here: no stack shrunk."
    page.show("overlay")
    assert set(page.tab.evaluate("flamespaceCompare.colours(0)")) == {"rgb(255,255,255)"}, "no change: all white"
    page.check()
    page = ComparePage(browser, tmp_path / "empty.html")
    for tab in TABS:
        page.show(tab)
    assert "nothing to compare" in page.tab.locator("#empty").inner_text()
    page.check()


def test_search_highlights_in_every_pane(open_page) -> None:
    page = open_page("diff.html")
    page.show("panes")
    page.tab.fill("#search", "^query")
    assert page.tab.text_content("#matched").startswith("Matched: ")
    for position in range(3):
        query = page.box("query (db.py:50)", position)
        assert page.pixel(query["left"] + 2, query["top"] + 2, position) == "rgb(230,0,230)"
    page.show("overlay")  # the search goes with the tab
    query = page.box("query (db.py:50)")
    assert page.pixel(query["left"] + 2, query["top"] + 2) == "rgb(230,0,230)"
    page.tab.keyboard.press("/")
    page.tab.keyboard.press("Escape")
    assert page.tab.input_value("#search") == "" and page.tab.text_content("#matched") == ""


@pytest.mark.parametrize("name", ["diff.html", "series.html", "compare.html", "narrow.html", "pruned.html"])
def test_the_page_derives_exactly_what_the_payload_reader_derives(open_page, pages, name) -> None:
    """The payload holds rows only: every profile's and view's frame columns, the tests and the
    significance colours the page derives are read_comparison's (which tests above hold to the inputs)."""
    page = open_page(name)
    data = read_comparison((pages / name).read_text())
    for k, profile in enumerate(data["profiles"]):
        derived = page.tab.evaluate(f"flamespaceCompare.derived({k})")
        assert derived == {key: profile[key] for key in ("total", "start", "value", "self")}, profile["label"]
    for view, table in data["views"].items():
        assert page.tab.evaluate(f"flamespaceCompare.derived('{view}')") == {
            key: table[key] for key in ("total", "start", "value", "self")
        }, view
    sig = page.tab.evaluate("flamespaceCompare.significance()")
    if data["significance"] is None:
        assert sig is None
        return
    expected = data["significance"]
    for key in ("test", "inside", "p", "p_adjusted", "lower", "upper"):
        assert sig[key] == pytest.approx(expected[key], nan_ok=True, rel=0, abs=0), key
    assert sig["colour"] == [expected["colours"][i] for i in expected["colour"]]
