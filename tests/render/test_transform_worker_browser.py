"""The viewer's transforms off the main thread, and a second metric's colours through transforms.

A page of at least the viewer's WORKER_FRAMES frames transforms in a Web Worker made from a Blob
URL of its own script (the page stays one file and asks for nothing, from file://): the click
returns at once with "Working…" shown, the result is exactly the main thread's, a transform
started while another runs cancels it, a fragment's transforms are restored through the worker,
and without workers the page transforms on the main thread. On a page coloured by a second
metric (``--colour-by``) each transformed frame's ratio is its summed second metric over its
summed value: the library's transform of both profiles, laid out with ``colour_by``.

Headless Chromium from Debian's package, driven by playwright (skipped when either is absent).
"""

from __future__ import annotations

import json
import random
import re

import pytest

import flamespace as fs
from flamespace.core import transforms
from flamespace.render.html import HtmlOptions, html
from flamespace.render.layout import LayoutOptions, layout
from flamespace.render.colouring import RatioScale, ratio_colours

from .test_browser import browser  # noqa: F401  (the shared Chromium fixture)
from ._pages import checked_pages
from .test_html_browser import Page
from .test_html_views import THREADED


def big_pair(seed: int = 11) -> tuple:
    """Widths and a second metric on the same random stacks (recursion, library frames, names on
    several lines), about 40,000 frames laid out at --minwidth 0."""
    rng = random.Random(seed)
    names = [f"f{k} (mod{k % 30}.py:{1 + k % 7})" for k in range(400)] + [f"lib{k} (<stdlib>/x{k}.py:1)" for k in range(40)]
    widths, second = {}, {}
    for _ in range(9000):
        depth = rng.randint(3, 14)
        stack = ["main (app.py:1)"] + [rng.choice(names[:60] if d < 3 else names) for d in range(depth)]
        if rng.random() < 0.2:
            stack.insert(4, stack[3])  # recursion
        key = tuple(stack)
        widths[key] = widths.get(key, 0) + rng.randint(1, 50)
        second[key] = second.get(key, 0) + rng.randint(0, 80)
    return fs.FlameGraph(widths, metric="cycles"), fs.FlameGraph(second, metric="instructions")


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("worker")
    widths, second = big_pair()
    html(widths, HtmlOptions(min_percent=0, title="Big"), root / "big.html", colour_by=second)
    small_widths, small_second = small_pair()
    html(small_widths, HtmlOptions(min_percent=0, title="Small"), root / "small.html", colour_by=small_second)
    return root


@pytest.fixture
def open_page(browser, pages):  # noqa: F811
    yield from checked_pages(lambda name, **kwargs: Page(browser, pages / name, **kwargs))


#: In the page: the drawn tree's columns, each frame's fill, and the table of functions, as JSON.
_SNAPSHOT = """() => {
    const api = window.flamespaceViewer, t = api.pane.tree(), out = {count: t.count, total: t.total, actual: t.actual};
    for (const key of ['name', 'depth', 'start', 'value', 'self', 'colour', 'second', 'parent', 'end']) out[key] = t[key] ? Array.from(t[key]) : null;
    out.fill = []; for (let i = 0; i < t.count; i++) out.fill.push(api.pane.colourOf(i)[0]);
    out.table = document.getElementById('table').innerText;
    return JSON.stringify(out); }"""  # one string: playwright hands big arrays over slowly

#: In the page: does `action` (an expression over the toolbar), then waits for the transform to be
#: shown; says where it ran, and whether the click returned before it was done, with "Working…" shown.
_ACT = """async ([action, mode]) => {
    const api = window.flamespaceViewer, before = api.transforms, hide = document.getElementById('hide');
    const merge = document.getElementById('merge'), set = (box, text) => { box.value = text; box.dispatchEvent(new Event('input')); };
    api.transformsIn(mode);
    eval(action);
    const busy = api.busy(), working = document.getElementById('working').textContent, dimmed = document.body.classList.contains('transforming');
    while (api.busy()) await new Promise(r => setTimeout(r, 10));
    return {busy, working, dimmed, shown: api.transforms - before, where: api.lastTransform.where,
            after: document.getElementById('working').textContent, stillDimmed: document.body.classList.contains('transforming')}; }"""

ACTIONS = {
    "invert": "document.getElementById('invert').click()",
    "hide": "set(hide, 'mod1[0-9]\\\\.py')",
    "merge": "set(merge, '^lib|\\\\(mod2')",
    "recursion": "document.getElementById('recursion').click()",
    "focus": "document.querySelector('#table tbody tr button[data-action=focus]').click()",
    "combined": "document.getElementById('left-heavy').click(); set(hide, 'mod3\\\\.py'); document.getElementById('invert').click()",
}


def _clear(page: Page) -> None:
    page.tab.evaluate("document.getElementById('clear-transforms').click()")


@pytest.mark.parametrize("action", list(ACTIONS))
def test_a_big_page_transforms_in_a_worker_as_on_the_main_thread(open_page, action) -> None:
    page = open_page("big.html")
    assert page.tab.evaluate("window.flamespaceViewer.count >= window.FlamespacePane.WORKER_FRAMES")
    base = page.tab.evaluate(_SNAPSHOT)
    worker = page.tab.evaluate(_ACT, [ACTIONS[action], "auto"])
    assert (
        worker["where"] == "worker" and worker["shown"] == 1
    )  # with several controls, the last one's (each cancels the one before)
    assert worker["busy"] and worker["working"] == "Working\u2026" and worker["dimmed"]  # the click returned at once
    assert worker["after"] == "" and not worker["stillDimmed"]
    in_worker = page.tab.evaluate(_SNAPSHOT)
    _clear(page)
    assert page.tab.evaluate(_SNAPSHOT) == base
    main = page.tab.evaluate(_ACT, [ACTIONS[action], "main"])
    assert main["where"] == "main" and main["shown"] == ACTIONS[action].count(";") + 1 and not main["busy"]  # one per control
    on_main = page.tab.evaluate(_SNAPSHOT)
    assert in_worker == on_main  # exactly: columns, colours and the table
    assert in_worker != base


def test_a_transform_started_while_another_runs_cancels_it(open_page) -> None:
    page = open_page("big.html")
    got = page.tab.evaluate(_ACT, [ACTIONS["invert"] + "; set(hide, 'mod1[0-9]\\\\.py')", "auto"])
    assert got["where"] == "worker" and got["shown"] == 1  # the inversion alone was never shown
    in_worker = page.tab.evaluate(_SNAPSHOT)
    _clear(page)
    page.tab.evaluate(_ACT, [ACTIONS["invert"] + "; set(hide, 'mod1[0-9]\\\\.py')", "main"])
    assert page.tab.evaluate(_SNAPSHOT) == in_worker
    # clearing while one runs: the base tree at once; the cancelled job is never shown, even after the next one
    _clear(page)
    page.tab.evaluate(_ACT, [ACTIONS["invert"], "main"])
    inverted = page.tab.evaluate(_SNAPSHOT)
    _clear(page)
    got = page.tab.evaluate("""async () => {
        const api = window.flamespaceViewer, before = api.transforms;
        api.transformsIn('auto');
        document.getElementById('recursion').click();
        document.getElementById('clear-transforms').click();
        const cleared = [api.busy(), api.pane.tree().count === api.count];
        document.getElementById('invert').click();
        while (api.busy()) await new Promise(r => setTimeout(r, 10));
        return cleared.concat([api.transforms - before, api.lastTransform.where]); }""")
    assert got == [False, True, 2, "worker"]  # the clear and the inversion
    assert page.tab.evaluate(_SNAPSHOT) == inverted


def test_a_fragments_transforms_are_restored_through_the_worker(open_page, pages) -> None:
    page = open_page("big.html")
    page.tab.evaluate(_ACT, [ACTIONS["invert"], "main"])
    want = page.tab.evaluate(_SNAPSHOT)
    assert "inv" in page.tab.url
    page.tab.goto("about:blank")
    page.open((pages / "big.html").as_uri() + "#inv")
    assert page.tab.evaluate("window.flamespaceViewer.lastTransform.where") == "worker"
    assert page.tab.evaluate(_SNAPSHOT) == want


def test_without_workers_the_page_transforms_on_the_main_thread(open_page) -> None:
    page = open_page("big.html", init_script="delete window.Worker;")
    got = page.tab.evaluate(_ACT, [ACTIONS["invert"], "auto"])
    assert got["where"] == "main" and got["shown"] == 1 and not got["busy"]


# -- a second metric through transforms -----------------------------------------------------------


def small_pair() -> tuple:
    """THREADED's widths and a second metric on its stacks, and on one stack the widths lack
    (under parse, which has no self in any transform here: the page counts it in the deepest
    frame drawn above it, where the library's layout of the transformed pair counts it too)."""
    second = {
        stack: (value * (3 + len(stack)) // 4) + (7 if "lex (app.py:20)" in stack else 0) for stack, value in THREADED.items()
    }
    second[("MainThread", "main (app.py:1)", "run (app.py:5)", "parse (app.py:9)", "other (app.py:99)")] = 9
    second[("worker-1", "work (app.py:50)", "sleep (<stdlib>/time.py:1)")] = 0
    return fs.FlameGraph(THREADED, unit="ms", metric="cycles"), fs.FlameGraph(second, metric="instructions")


def _strip(stack, pattern):
    return tuple(f for f in stack if not re.search(pattern, f))


def _focus(name):
    return lambda s: s[s.index(name) + 1 :] if name in s else None


SECOND_CASES = {
    "invert": (ACTIONS["invert"], transforms.reverse, "all"),
    "hide": (
        "set(hide, '^lex ')",
        lambda g: transforms.remap(g, lambda s: None if any(f.startswith("lex ") for f in s) else s),
        "all",
    ),
    "merge": (
        "set(merge, '\\\\(<stdlib>/|^run ')",
        lambda g: transforms.remap(g, lambda s: _strip(s, r"\(<stdlib>/|^run ")),
        "all",
    ),
    "recursion": (ACTIONS["recursion"], transforms.fold_recursion, "all"),
    "focus": (
        "document.querySelector('#table tbody tr[data-row] td').parentNode.querySelector('button[data-action=focus]').click()",
        None,
        None,
    ),
    "combined": (
        ACTIONS["recursion"] + "; " + ACTIONS["invert"] + "; set(merge, '^run ')",
        lambda g: transforms.reverse(transforms.fold_recursion(transforms.remap(g, lambda s: _strip(s, "^run ")))),
        "all",
    ),
}


@pytest.mark.parametrize("case", list(SECOND_CASES))
def test_a_second_metrics_colours_follow_transforms(open_page, case) -> None:
    """Each transformed frame's second metric is the library's (both profiles transformed, laid out
    with colour_by), its colour that ratio's on the page's scale (the untransformed page's, as its
    legend says), and the root's ratio its whole's."""
    action, library, root = SECOND_CASES[case]
    page = open_page("small.html")
    data = page.tab.evaluate("JSON.parse(document.getElementById('flamespace-data').textContent).ratio")
    scale = RatioScale(data["overall"], data["spread"], ("cycles", "instructions"))
    widths, second = small_pair()
    page.tab.evaluate(_ACT, [action, "auto"])
    got = json.loads(page.tab.evaluate(_SNAPSHOT))
    names = page.tab.evaluate("window.flamespaceViewer.pane.data.names")
    if library is None:  # focus on the table's first function (the widest)
        root = names[got["name"][0]]
        library = lambda g: transforms.remap(g, _focus(root))  # noqa: E731
    laid = layout(library(widths), LayoutOptions(min_percent=0), colour_by=library(second))
    c = laid.columns
    assert [names[k] for k in got["name"][1:]] == list(c.names[1:]) and got["depth"] == list(c.depths)
    assert got["value"] == pytest.approx(list(c.values)) and got["second"] == pytest.approx(list(c.seconds))
    assert got["actual"] == pytest.approx(laid.actual)
    assert got["fill"] == ratio_colours(laid, scale)
    assert case == "focus" or names[got["name"][0]] == root
