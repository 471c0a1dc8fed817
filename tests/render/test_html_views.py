"""The HTML viewer's views in a real browser: minimap, header, Esc, left heavy, sandwich, the
page's transforms (checked frame by frame against the library's own transforms and layout),
the thread picker, the calls column, and the pane component on a page of its own.

Headless Chromium from Debian's package, driven by playwright (skipped when either is absent).
Screenshots go to test-artifacts/ (git-ignored).
"""

from __future__ import annotations

import re

import pytest

import flamespace as fs
from flamespace.core import transforms
from flamespace.render.bundle import bundle
from flamespace.render.html import SCRIPT, STYLE, HtmlOptions, html, payload
from flamespace.render.layout import LayoutOptions, layout

from ..conftest import DATA
from .test_browser import browser  # noqa: F401  (the shared Chromium fixture)
from ._pages import checked_pages
from .test_html_browser import SEARCH, Page

SMALL = DATA / "render" / "small.folded"  # 122 samples
#: Two threads, recursion, library frames, one function on two lines, called from two places.
THREADED = {
    ("MainThread", "main (app.py:1)", "run (app.py:5)", "parse (app.py:9)", "parse (app.py:9)", "lex (app.py:20)"): 40,
    (
        "MainThread",
        "main (app.py:1)",
        "run (app.py:5)",
        "parse (app.py:9)",
        "loads (<stdlib>/json/__init__.py:346)",
        "decode (<stdlib>/json/decoder.py:337)",
    ): 25,
    ("MainThread", "main (app.py:1)", "run (app.py:5)", "render (app.py:30)", "dumps (site-packages/orjson.py:1)"): 15,
    ("MainThread", "main (app.py:1)", "run (app.py:6)", "lex (app.py:20)"): 10,
    ("MainThread", "main (app.py:1)"): 5,
    ("worker-1", "work (app.py:50)", "lex (app.py:20)"): 30,
    ("worker-1", "work (app.py:50)", "sleep (<stdlib>/time.py:1)"): 20,
}


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("views")
    html(fs.read(SMALL), HtmlOptions(), root / "small.html")
    threaded = fs.FlameGraph(THREADED, unit="ms")
    html(threaded, HtmlOptions(roots=("thread",), min_percent=0, title="Threads"), root / "threaded.html")
    calls = fs.FlameGraph({stack: max(1, value // 5) for stack, value in THREADED.items()})
    html(threaded, HtmlOptions(min_percent=0), root / "calls.html", calls=calls)
    deep = {tuple(f"f{d}" for d in range(depth)) + (f"leaf{i}",): 1 + i % 7 for i, depth in enumerate(range(5, 60))}
    html(fs.FlameGraph(deep), HtmlOptions(min_percent=0), root / "deep.html")
    return root


@pytest.fixture
def open_page(browser, pages):  # noqa: F811
    yield from checked_pages(lambda name, **kwargs: Page(browser, pages / name, **kwargs))


def test_minimap_shows_the_window_and_dragging_it_pans(open_page) -> None:
    page = open_page("small.html")
    page.tab.keyboard.press("+")
    page.tab.keyboard.press("+")  # a quarter of the graph, in the middle
    state = page.state()
    assert (state["x0"], state["x1"]) == pytest.approx((45.75, 76.25))
    box = page.tab.locator("#minimap").bounding_box()
    inner = box["width"] - 20
    left = box["x"] + 10 + inner * state["x0"] / 122
    right = box["x"] + 10 + inner * state["x1"] / 122
    assert (
        page.tab.evaluate(
            """([x, y]) => { const c = document.getElementById('minimap'), r = c.getBoundingClientRect(), k = c.width / r.width;
        const p = c.getContext('2d').getImageData(Math.floor((x - r.left) * k), Math.floor((y - r.top) * k), 1, 1).data; return p[0] + p[1] + p[2]; }""",
            [left + 0.5, box["y"] + 10],
        )
        < 300
    ), "the window's dark border"
    y = box["y"] + box["height"] / 2
    page.tab.mouse.move((left + right) / 2, y)
    page.tab.mouse.down()
    page.tab.mouse.move((left + right) / 2 + inner * 20 / 122, y, steps=4)  # 20 samples to the right
    page.tab.mouse.up()
    moved = page.state()
    assert moved["x0"] == pytest.approx(state["x0"] + 20, abs=0.2) and moved["x1"] - moved["x0"] == pytest.approx(30.5)
    assert "x=" in page.tab.url  # remembered once the drag ends
    page.tab.mouse.click(box["x"] + 10 + 2, y)  # outside the window: it centres there (clamped at the start)
    assert page.state()["x0"] == 0 and page.state()["x1"] == pytest.approx(30.5)
    page.shot("minimap")


def test_header_stays_in_view_when_the_page_scrolls(open_page) -> None:
    page = open_page("small.html", viewport=(1200, 500))
    page.tab.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.tab.wait_for_function("window.scrollY > 100")
    top = page.tab.evaluate("document.querySelector('header').getBoundingClientRect().top")
    assert top == 0 and page.tab.locator("#search").is_visible() and page.tab.locator("#minimap").is_visible()
    th = page.tab.evaluate("document.querySelector('#table th').getBoundingClientRect().top")
    header = page.tab.evaluate("document.querySelector('header').getBoundingClientRect().bottom")
    assert th == pytest.approx(header, abs=1), "the table's head sticks below the header"
    page.tab.fill("#search", "lex")
    assert page.tab.text_content("#matched") == "Matched: 34.4%"
    page.shot("scrolled")


def test_escape_resets_the_zoom_then_the_search(open_page) -> None:
    page = open_page("small.html")
    page.tab.fill("#search", "lex")
    page.tab.locator("#search").blur()
    page.tab.mouse.click(page.drawn("parse")["cx"], page.drawn("parse")["cy"])
    assert page.state()["name"] == "parse"
    page.tab.keyboard.press("Escape")
    assert page.state()["zoom"] == 0 and page.state()["term"] == "lex"
    page.tab.keyboard.press("Escape")
    assert page.state()["term"] == "" and page.tab.input_value("#search") == ""


def test_left_heavy_puts_the_widest_sibling_first(open_page) -> None:
    page = open_page("small.html")

    def order() -> list[str]:
        drawn = sorted(page.tab.evaluate("window.flamespaceViewer.drawn()"), key=lambda b: b["x"])
        return [b["name"] for b in drawn if b["depth"] == 2]

    assert order() == ["-", "eval", "parse", "render", "wait"]  # by name
    page.tab.check("#left-heavy")
    assert order() == ["parse", "eval", "render", "wait", "-"]  # 50, 35, 25, 4, 3
    assert "lh" in page.tab.url


def _expected(graph: fs.FlameGraph, root: str = "all", by_value: bool = False) -> list:
    c = layout(graph, LayoutOptions(min_percent=0, sort_by_value=by_value)).columns
    names = [root] + list(c.names[1:])
    return [list(row) for row in zip(names, c.depths, c.starts, c.values, c.selfs)]


_TREE = """([spec, ignore]) => {
    const P = window.FlamespacePane, data = JSON.parse(document.getElementById('flamespace-data').textContent);
    const names = window.flamespaceViewer.pane.data.names, base = P.decode(data);
    const match = (text) => { const r = new RegExp(text), m = new Uint8Array(names.length); names.forEach((n, i) => m[i] = r.test(n) ? 1 : 0); return m; };
    const s = Object.assign({}, spec);
    for (const key of ['merge', 'drop', 'focus']) if (s[key]) s[key] = match(s[key]);
    if (spec.focus) s.root = names.indexOf(spec.rootName);
    if (spec.onlyName) s.only = Array.from(base.name).findIndex((k, i) => names[k] === spec.onlyName && base.depth[i] === 1);
    const t = P.transform(base, names, s), out = [];
    for (let i = 0; i < t.count; i++) out.push([names[t.name[i]], t.depth[i], t.start[i], t.value[i], t.self[i]]);
    return out;
}"""


def _strip(stack, pattern):
    return tuple(f for f in stack if not re.search(pattern, f))


@pytest.mark.parametrize(
    "spec, expected",
    [
        ({"recursion": True}, lambda g: _expected(transforms.fold_recursion(g))),
        ({"invert": True}, lambda g: _expected(transforms.reverse(g))),
        ({"byValue": True}, lambda g: _expected(g, by_value=True)),
        ({"merge": r"\(<stdlib>/"}, lambda g: _expected(transforms.remap(g, lambda s: _strip(s, r"\(<stdlib>/")))),
        (
            {"drop": r"^lex "},
            lambda g: _expected(transforms.remap(g, lambda s: None if any(f.startswith("lex ") for f in s) else s)),
        ),
        (
            {"focus": r"^parse ", "rootName": "parse (app.py:9)"},
            lambda g: _expected(
                transforms.remap(g, lambda s: s[s.index("parse (app.py:9)") + 1 :] if "parse (app.py:9)" in s else None),
                root="parse (app.py:9)",
            ),
        ),
        ({"onlyName": "worker-1"}, lambda g: _expected(transforms.remap(g, lambda s: s if s[0] == "worker-1" else None))),
        (
            {"recursion": True, "invert": True, "merge": "^run "},
            lambda g: _expected(transforms.reverse(transforms.fold_recursion(transforms.remap(g, lambda s: _strip(s, "^run "))))),
        ),
    ],
    ids=["recursion", "invert", "left-heavy", "merge", "hide", "focus", "thread", "combined"],
)
def test_page_transforms_are_the_librarys(open_page, spec, expected) -> None:
    """Each transform the page computes gives exactly the frames of the library's transform, laid out."""
    page = open_page("threaded.html")
    got = page.tab.evaluate(_TREE, [spec, None])
    want = expected(fs.FlameGraph(THREADED, unit="ms"))
    assert [row[:2] for row in got] == [row[:2] for row in want]
    assert [x for row in got for x in row[2:]] == pytest.approx([x for row in want for x in row[2:]])


def test_transforms_from_the_toolbar_redraw_and_recompute_the_table(open_page) -> None:
    page = open_page("threaded.html")
    rows = page.tab.locator("#table tbody tr")
    lex = rows.filter(has_text="lex (app.py:20)")
    assert lex.locator("td").nth(3).text_content() == "80.0 ms"  # 40 + 10 + 30 inclusive
    # the presets are the library rule of the terminal's short tree (core/library.py), from the page's payload
    from flamespace.core.library import LIBRARY, LIBRARY_PRESETS

    labels = page.tab.locator("#hide-preset option").all_text_contents()
    assert labels == ["presets", *LIBRARY_PRESETS, "both"]
    page.tab.select_option("#merge-preset", label="both")
    assert page.tab.input_value("#merge") == LIBRARY
    page.tab.fill("#merge", "")
    page.tab.select_option("#hide-preset", label="standard library")
    assert page.tab.input_value("#hide") == LIBRARY_PRESETS["standard library"] == r"\(<stdlib>/|\(<frozen |^<frozen "
    assert page.state()["total"] == 100  # 145 less 25 (json) and 20 (sleep)
    assert "(of the transformed graph)" in page.tab.text_content("#functions h2")
    assert not any("<stdlib>" in b["name"] for b in page.tab.evaluate("window.flamespaceViewer.drawn()"))
    assert page.tab.text_content("#crumbs .amount") == "100 ms · 100.00% of the transformed graph, 68.97% of the total"
    page.tab.check("#recursion")
    assert [b for b in page.tab.evaluate("window.flamespaceViewer.drawn()") if b["name"] == "parse (app.py:9)"][0]["depth"] == 4
    assert len([b for b in page.tab.evaluate("window.flamespaceViewer.drawn()") if b["name"] == "parse (app.py:9)"]) == 1
    page.tab.fill("#merge", "^run ")
    assert not any(b["name"].startswith("run ") for b in page.tab.evaluate("window.flamespaceViewer.drawn()"))
    page.tab.fill("#merge", "(")
    assert "bad" in page.tab.get_attribute("#merge", "class")
    page.tab.fill("#merge", "")
    page.tab.check("#invert")
    tops = {b["name"] for b in page.tab.evaluate("window.flamespaceViewer.drawn()") if b["depth"] == 1}
    assert tops == {"lex (app.py:20)", "dumps (site-packages/orjson.py:1)", "main (app.py:1)"}
    page.shot("transforms")
    url = page.tab.url
    page.tab.goto("about:blank")
    page.open(url)
    assert page.tab.is_checked("#invert") and page.tab.is_checked("#recursion") and page.state()["total"] == 100
    page.tab.click("#clear-transforms")
    assert page.state()["total"] == 145 and not page.tab.is_checked("#invert") and page.tab.input_value("#hide") == ""
    assert "(of the transformed graph)" not in page.tab.text_content("#functions h2")


def test_focus_on_a_function_from_the_table(open_page) -> None:
    page = open_page("threaded.html")
    page.tab.click("#by-function")
    row = page.tab.locator("#table tbody tr", has_text="lex (app.py)")
    row.hover()
    row.locator("button[data-action=focus]").click()
    assert page.crumbs() == ["lex (app.py)"] and page.state()["total"] == 80
    assert "Focus: lex (app.py)" in page.tab.text_content("#focus")
    page.tab.click("#unfocus")
    assert page.state()["total"] == 145 and page.crumbs() == ["all"]


def test_sandwich_shows_callers_above_and_callees_below(open_page) -> None:
    page = open_page("threaded.html")
    row = page.tab.locator("#table tbody tr", has_text="lex (app.py:20)")
    row.hover()
    row.locator("button[data-action=sandwich]").click()
    assert page.state()["view"] == "sandwich" and page.tab.locator("#sandwich").is_visible()
    assert not page.tab.locator("#graph").is_visible()
    assert "80.0 ms · 55.17% of the total" in page.tab.text_content("#sandwich h2")
    callers = page.tab.evaluate("window.flamespaceViewer.sandwich()[0].drawn()")
    callees = page.tab.evaluate("window.flamespaceViewer.sandwich()[1].drawn()")
    by_name = {b["name"]: b for b in callers}
    assert by_name["lex (app.py:20)"]["depth"] == 0 and by_name["lex (app.py:20)"]["w"] == pytest.approx(1178 - 2, abs=25)
    # its callers: parse (40), run:6 (10), work (30); parse called by parse, then run:5, main, MainThread
    assert {b["name"] for b in callers if b["depth"] == 1} == {"parse (app.py:9)", "run (app.py:6)", "work (app.py:50)"}
    assert by_name["parse (app.py:9)"]["w"] / by_name["work (app.py:50)"]["w"] == pytest.approx(40 / 30, rel=0.02)
    assert by_name["MainThread"]["y"] < by_name["main (app.py:1)"]["y"], "callers grow upwards"
    assert [b["name"] for b in callees] == ["lex (app.py:20)"]  # a leaf: no callees
    page.shot("sandwich")
    page.tab.keyboard.press("Escape")
    assert page.state()["view"] == "graph" and page.tab.locator("#graph").is_visible()
    page.tab.click("#view-sandwich")  # it remembers the function
    assert page.state()["view"] == "sandwich"


def test_a_frames_menu_opens_its_sandwich_and_hides_it(open_page) -> None:
    page = open_page("threaded.html")
    run = page.drawn("run (app.py:5)")
    page.tab.mouse.click(run["cx"], run["cy"], button="right")
    menu = page.tab.locator("#menu")
    assert menu.is_visible() and menu.locator(".title").text_content() == "run (app.py:5)"
    page.shot("menu")
    menu.locator("button[data-action=sandwich]").click()
    assert not menu.is_visible() and page.state()["view"] == "sandwich"
    callees = {b["name"] for b in page.tab.evaluate("window.flamespaceViewer.sandwich()[1].drawn()") if b["depth"] == 1}
    assert callees == {"parse (app.py:9)", "render (app.py:30)"}
    assert "url" and "sw=" in page.tab.url
    page.tab.click("#close-sandwich")
    run = page.drawn("run (app.py:5)")
    page.tab.mouse.click(run["cx"], run["cy"], button="right")
    page.tab.locator("#menu button[data-action=hide]").click()
    assert page.state()["total"] == 65 and page.tab.input_value("#hide") == r"^run \(app\.py:5\)$"
    page.tab.mouse.click(page.drawn("work (app.py:50)")["cx"], page.drawn("work (app.py:50)")["cy"], button="right")
    page.tab.keyboard.press("Escape")
    assert not menu.is_visible()


def test_thread_picker_shows_one_thread(open_page) -> None:
    page = open_page("threaded.html")
    options = page.tab.locator("#thread option").all_text_contents()
    assert options == ["All threads", "thread: MainThread \u2014 95.0 ms (65.52%)", "thread: worker-1 \u2014 50.0 ms (34.48%)"]
    page.tab.select_option("#thread", label=options[2])
    assert page.state()["total"] == 50
    assert {b["name"] for b in page.tab.evaluate("window.flamespaceViewer.drawn()") if b["depth"] == 1} == {"worker-1"}
    assert page.tab.locator("#table tbody tr").count() == 4  # worker-1, work, lex, sleep
    page.shot("thread")


def test_calls_column_where_calls_are_known(open_page) -> None:
    page = open_page("calls.html")
    page.tab.click("#table th[data-key=calls]")
    first = page.tab.locator("#table tbody tr").first.locator("td")
    # calls of the stacks that end in it: 40 // 5 + 10 // 5 + 30 // 5
    assert first.nth(0).text_content() == "lex (app.py:20)" and first.nth(5).text_content() == "16"
    calls = [int(t) for t in page.tab.locator("#table tbody td:nth-child(6)").all_text_contents()]
    assert calls == sorted(calls, reverse=True) and calls[-1] == 0


def test_a_deep_graph_scrolls_under_the_header(open_page) -> None:
    page = open_page("deep.html", viewport=(1000, 600))
    assert page.tab.evaluate("window.scrollY") > 0, "the root of a tall flame graph starts in view"
    root = page.drawn("all")
    assert root["cy"] < 600
    page.shot("deep")


class PanesPage(Page):
    READY = "window.panes !== undefined"


def test_the_pane_component_works_on_a_page_of_its_own(browser, tmp_path) -> None:  # noqa: F811
    """Two panes of one payload on a page that is not the viewer's: zoom by a path in one and the
    other follows (as a comparison page synchronises its panes); hover and click events reach the page."""
    graph = fs.read(SMALL)
    options = HtmlOptions()
    data = payload(layout(graph, options.layout_options()), graph, options)
    import json

    page_html = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><style>{open(STYLE).read()}</style></head><body>
<div id="a"></div><div id="b"></div>
<script type="application/json" id="pair">{json.dumps(data)}</script>
<script>{bundle(SCRIPT)}</script>
<script>
const data = JSON.parse(document.getElementById('pair').textContent), log = [];
const a = FlamespacePane(document.getElementById('a'), data, {{id: 'left'}});
const b = FlamespacePane(document.getElementById('b'), data, {{id: 'right', inverted: true}});
let syncing = false;
a.on('zoom', (e) => {{ if (!syncing) {{ syncing = true; b.zoomTo(a.pathOf(e.frame)); syncing = false; }} }});
a.on('hover', (e) => {{ log.push(['hover', e.path]); b.hover(e.path || -1); }});
a.on('click', (e) => {{ log.push(['click', e.path]); }});
window.panes = {{a, b, log}};
</script></body></html>"""
    path = tmp_path / "pair.html"
    path.write_text(page_html)
    page = PanesPage(browser, path, viewport=(1000, 700))
    assert page.tab.evaluate("window.flamespaceViewer") is None, "the viewer's own page does not start"
    page.tab.evaluate("window.panes.a.zoomTo(['main', 'eval'])")
    assert page.tab.evaluate("window.panes.b.pathOf(window.panes.b.view().frame)") == ["main", "eval"]
    boxes = page.tab.evaluate("window.panes.a.drawn()")
    call = [b for b in boxes if b["name"] == "call"][0]
    rect = page.tab.locator("#left").bounding_box()
    page.tab.mouse.move(rect["x"] + call["x"] + call["w"] / 2, rect["y"] + call["y"] + 7)
    page.tab.mouse.click(rect["x"] + call["x"] + call["w"] / 2, rect["y"] + call["y"] + 7)
    log = page.tab.evaluate("window.panes.log")
    assert ["hover", ["main", "eval", "call"]] in log and ["click", ["main", "eval", "call"]] in log
    assert page.tab.evaluate("window.panes.b.view().frame") == page.tab.evaluate("window.panes.b.find(['main', 'eval', 'call'])")
    assert page.tab.evaluate("window.panes.b.find(['main', 'nothing'])") == page.tab.evaluate("window.panes.b.find(['main'])")
    assert page.tab.evaluate("FlamespacePane.formatter(window.panes.a.data.units).human(1234)") == "1,234 samples"
    page.tab.screenshot(path=str(path.with_suffix(".png")))
    page.check()


def test_search_highlights_in_every_view(open_page) -> None:
    page = open_page("threaded.html")
    page.tab.fill("#search", "^lex ")
    lex = page.drawn("lex (app.py:20)")
    assert page.pixel(*page.corner(lex)) == SEARCH
    assert page.tab.text_content("#matched") == "Matched: 55.2%"  # 80 of 145


def test_an_empty_profile_opens_without_errors(browser, tmp_path) -> None:  # noqa: F811
    path = tmp_path / "empty.html"
    html(fs.FlameGraph({}), HtmlOptions(), path)
    page = Page(browser, path)
    assert page.tab.text_content("#empty") == "No stack counts found: nothing to draw."
    assert not page.tab.locator("#minimap").is_visible() and not page.tab.locator("#transforms").is_visible()
    page.tab.keyboard.press("Escape")
    page.check()


def test_inverting_a_big_page_stops_at_its_minwidth(open_page) -> None:
    """Inverted, every path of callers would be a frame; groups narrower than the page's
    --minwidth stop (their value stays in their parent's width), and the total stays exact."""
    page = open_page("deep.html")
    got = page.tab.evaluate(
        """(minValue) => {
        const P = window.FlamespacePane, pane = window.flamespaceViewer.pane, base = pane.tree();
        const all = P.transform(base, pane.data.names, {invert: true}), cut = P.transform(base, pane.data.names, {invert: true, minValue});
        let narrowest = Infinity; for (let i = 0; i < cut.count; i++) narrowest = Math.min(narrowest, cut.value[i]);
        return [all.count, cut.count, all.total, cut.total, narrowest]; }""",
        20,
    )
    assert got[0] > 1000 and got[1] < 100 and got[2] == got[3] and got[4] >= 20


def test_sandwich_panes_zoom_hover_search_and_escape(open_page) -> None:
    page = open_page("threaded.html", viewport=(1200, 900))
    url = page.tab.url.split("#")[0] + "#sw=lex%20(app.py%3A20)"
    page.tab.goto("about:blank")
    page.open(url)
    page.tab.fill("#search", "^parse ")
    page.tab.locator("#search").blur()
    callers = lambda: {b["name"]: b for b in page.tab.evaluate("window.flamespaceViewer.sandwich()[0].drawn()")}  # noqa: E731
    rect = page.tab.locator("#callers-canvas").bounding_box()
    parse = callers()["parse (app.py:9)"]
    x, y = rect["x"] + parse["x"] + 2, rect["y"] + parse["y"] + 2
    colour = page.tab.evaluate(
        """([x, y]) => { const c = document.getElementById('callers-canvas'), r = c.getBoundingClientRect(), k = c.width / r.width;
        const p = c.getContext('2d').getImageData(Math.floor((x - r.left) * k), Math.floor((y - r.top) * k), 1, 1).data; return `rgb(${p[0]},${p[1]},${p[2]})`; }""",
        [x, y],
    )
    assert colour == SEARCH
    page.tab.mouse.move(x + 20, y + 4)
    assert "40.0 ms" in page.tab.locator("#tooltip").inner_text()
    page.tab.mouse.click(x + 20, y + 4)
    assert page.tab.evaluate("window.flamespaceViewer.sandwich()[0].view().frame") > 0
    assert callers()["parse (app.py:9)"]["w"] == pytest.approx(1178 - 2, abs=25)
    page.tab.keyboard.press("Escape")
    assert page.tab.evaluate("window.flamespaceViewer.sandwich()[0].view().frame") == 0 and page.state()["view"] == "sandwich"
    page.tab.keyboard.press("Escape")
    assert page.state()["view"] == "graph"


#: A differential pair: lex got slower under parse and faster under work; sleep disappeared.
AFTER = {
    **THREADED,
    **{
        ("MainThread", "main (app.py:1)", "run (app.py:5)", "parse (app.py:9)", "parse (app.py:9)", "lex (app.py:20)"): 70,
        ("worker-1", "work (app.py:50)", "lex (app.py:20)"): 10,
        ("worker-1", "work (app.py:50)", "sleep (<stdlib>/time.py:1)"): 1,
    },
}


@pytest.mark.parametrize("mode", ["inclusive", "self"])
def test_transforms_keep_changes_and_colour_by_them(open_page, tmp_path, mode) -> None:
    """An inverted (and a merged) differential tree: each box's change is the sum of its frames'
    (the library's reversed differential, laid out), coloured as the SVG colours that change."""
    from flamespace.render.palettes import diff_colour

    pair = fs.Differential(fs.FlameGraph(THREADED, unit="ms"), fs.FlameGraph(AFTER, unit="ms"))
    html(pair, HtmlOptions(min_percent=0, delta=mode), tmp_path / "diff.html")
    page = open_page(tmp_path / "diff.html")
    got = page.tab.evaluate(
        """(spec) => {
        const P = window.FlamespacePane, data = JSON.parse(document.getElementById('flamespace-data').textContent);
        const names = window.flamespaceViewer.pane.data.names, base = P.decode(data), s = Object.assign({change: data.change, ownDelta: data.delta === 'self'}, spec);
        if (spec.merge) { const r = new RegExp(spec.merge); s.merge = Uint8Array.from(names, n => r.test(n) ? 1 : 0); }
        const t = P.transform(base, names, s), out = [];
        for (let i = 0; i < t.count; i++) out.push([names[t.name[i]], t.depth[i], t.value[i], t.delta[i], data.colours[t.colour[i]]]);
        return [out, data.change.largest]; }""",
        {"invert": True},
    )
    rows, largest = got
    reversed_ = fs.Differential(transforms.reverse(pair.before), transforms.reverse(pair.after))
    want = layout(reversed_, LayoutOptions(min_percent=0, delta=mode)).columns
    assert [r[0] for r in rows[1:]] == list(want.names[1:]) and [r[1] for r in rows] == list(want.depths)
    assert [r[2] for r in rows] == pytest.approx(list(want.values))
    assert [r[3] for r in rows] == pytest.approx(list(want.deltas))
    assert [r[4] for r in rows] == [diff_colour(max(-largest, min(r[3], largest)), largest) for r in rows]
    lex = [r for r in rows if r[0] == "lex (app.py:20)" and r[1] == 1]
    if mode == "inclusive":  # +30 under parse, -20 under work
        assert lex[0][3] == pytest.approx(30 - 20) and lex[0][4] != "rgb(255,255,255)"
    page.tab.check("#invert")
    page.shot(f"inverted-differential-{mode}")


def test_merged_boxes_are_coloured_by_name(open_page) -> None:
    """After a transform each name has one colour, its colour in the untransformed page."""
    page = open_page("threaded.html")
    got = page.tab.evaluate("""() => {
        const P = window.FlamespacePane, pane = window.flamespaceViewer.pane, base = pane.tree(), names = pane.data.names;
        const first = new Map(); for (let i = 0; i < base.count; i++) if (!first.has(base.name[i])) first.set(base.name[i], base.colour[i]);
        const out = [];
        for (const spec of [{invert: true}, {recursion: true}, {merge: Uint8Array.from(names, n => /^run /.test(n) ? 1 : 0)}]) {
            const t = P.transform(base, names, spec);
            for (let i = 0; i < t.count; i++) out.push([t.colour[i], first.get(t.name[i])]);
        }
        return out; }""")
    assert len(got) > 20 and all(c == want for c, want in got)


def test_calls_from_the_command_line(tmp_path) -> None:
    """html --calls FILE (a trace's calls per stack) adds the Calls column; --diff takes none."""
    from flamespace.cli import main
    from flamespace.render.html import read_payload

    fs.write(fs.FlameGraph(THREADED, unit="ms"), str(tmp_path / "run.folded"))
    fs.write(fs.FlameGraph({stack: max(1, value // 5) for stack, value in THREADED.items()}), str(tmp_path / "run.calls.folded"))
    assert (
        main(
            [
                "html",
                str(tmp_path / "run.folded"),
                "--calls",
                str(tmp_path / "run.calls.folded"),
                "-o",
                str(tmp_path / "run.html"),
            ]
        )
        == 0
    )
    table = read_payload((tmp_path / "run.html").read_text())
    line = table["functions"]["line"]
    calls = dict(zip((table["names"][k] for k in line["name"]), line["calls"]))
    assert calls["lex (app.py:20)"] == 40 // 5 + 10 // 5 + 30 // 5 and calls["main (app.py:1)"] == 1
    assert (
        main(
            [
                "html",
                "--diff",
                str(tmp_path / "run.folded"),
                str(tmp_path / "run.folded"),
                "--calls",
                str(tmp_path / "run.calls.folded"),
                "-o",
                str(tmp_path / "d.html"),
            ]
        )
        != 0
    )
