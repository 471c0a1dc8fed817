"""The trace report: its payloads hold the trace's exact numbers (decoded here), and in Chromium the
flame graph's boxes and the tables' links reach the right function's section; the flame chart
view draws; no request but the page's own file and no console error. Screenshots go to
test-artifacts/ (look at them).
"""

from __future__ import annotations

import re

import pytest

import flamespace as fs
from flamespace.collect.trace_engine import available
from flamespace.render.report import read_report, report

from ._pages import Page, checked_pages
from .test_browser import browser  # noqa: F401  (the shared Chromium fixture)

pytestmark = pytest.mark.skipif(available() is not None, reason=f"no tracer: {available()}")


def leaf():
    return 1


def f():
    return leaf() + leaf()


def g():
    return f()


def run():
    for _ in range(3):
        f()
    g()


def traced():
    with fs.trace(chart=True) as t:
        run()
    return t._done()


def named(names, short: str) -> str:
    (name,) = [n for n in names if n.startswith(short + " (")]
    return name


def test_the_report_holds_the_traces_exact_numbers() -> None:
    trace = traced()
    f_name = named([row.function for row in trace.table()], "f")  # f (test_report.py:N): N is where f starts
    body = re.sub(r":(\d+)\)$", lambda m: f":{int(m.group(1)) + 1})", f_name)
    trace.lines = {body: (5, 2)}  # one recorded line of f's body, as --lines gives them: (exclusive ns, hits)
    data = read_report(report(trace))  # type: ignore[arg-type]
    r = data["report"]
    names = r["names"]
    functions = r["functions"]
    table = trace.table()
    assert [names[k] for k in functions["name"]] == [row.function for row in table]
    for field in ("calls", "primitive", "inclusive", "exclusive", "mean", "longest"):
        assert functions[field] == [getattr(row, field) for row in table], field
    index = {names[k]: i for i, k in enumerate(functions["name"])}
    f_, leaf_, g_, run_ = (named(index, n) for n in ("f", "leaf", "g", "run"))
    edges = {
        (-1 if caller < 0 else caller, callee): calls
        for caller, callee, calls in zip(r["edges"]["caller"], r["edges"]["callee"], r["edges"]["calls"])
    }
    assert edges == {
        (-1, index[run_]): 1,
        (index[run_], index[f_]): 3,
        (index[run_], index[g_]): 1,
        (index[g_], index[f_]): 1,
        (index[f_], index[leaf_]): 8,
    }
    inclusive = dict(zip(zip(r["edges"]["caller"], r["edges"]["callee"]), r["edges"]["inclusive"]))
    assert inclusive[(index[run_], index[f_])] + inclusive[(index[g_], index[f_])] == functions["inclusive"][index[f_]]
    assert r["lines"]["count"] == 1 and r["lines"]["function"] == [index[f_]] and r["lines"]["hits"] == [2]
    assert data["graph"]["total"] == trace.graph.total() and data["chart"] is not None
    assert [data["chart"]["names"][lane["name"]] for lane in data["chart"]["lanes"]] == trace.chart.threads


@pytest.fixture(scope="module")
def report_path(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("report") / "report.html"
    report(traced(), None, path)
    return path


class ReportPage(Page):
    READY = "window.flamespaceReport && window.flamespaceReport.ready"
    PREFIX = "report"

    def box(self, short: str) -> dict:
        boxes = [b for b in self.tab.evaluate("window.flamespaceReport.pane.drawn()") if b["name"].startswith(short + " (")]
        assert boxes, f"{short} is not drawn"
        rect = self.tab.evaluate(
            "(() => { const r = document.getElementById('canvas').getBoundingClientRect(); return [r.left, r.top]; })()"
        )
        b = boxes[0]
        b["cx"], b["cy"] = rect[0] + b["x"] + b["w"] / 2, rect[1] + b["y"] + b["h"] / 2
        return b


@pytest.fixture
def open_report(browser, report_path):  # noqa: F811
    yield from checked_pages(lambda: ReportPage(browser, report_path))


def test_a_box_of_the_flame_graph_links_to_its_function(open_report) -> None:
    page = open_report()
    page.shot("graph")
    box = page.box("f")
    page.tab.mouse.click(box["cx"], box["cy"])
    page.tab.wait_for_function("window.flamespaceReport.view === 'function'")
    functions = page.tab.evaluate("window.flamespaceReport.functions()")
    index = int(page.tab.evaluate("location.hash").removeprefix("#fn-"))
    assert functions[index] == box["name"] == page.tab.text_content("#function-name")
    callers = page.tab.locator("#callers tbody tr").all_inner_texts()
    # rows in order of measured inclusive time: g's one call of f can outlast run's three on a busy machine
    assert sorted(row.split("\t")[:2] for row in callers) == sorted(
        [[named(functions, "run"), "3"], [named(functions, "g"), "1"]]
    )
    assert page.tab.locator("#callees tbody tr").all_inner_texts()[0].split("\t")[:2] == [named(functions, "leaf"), "8"]
    page.shot("function")
    page.tab.locator("#callees a").first.click()  # a callee's link: its own section
    page.tab.wait_for_function("document.getElementById('function-name').textContent.startsWith('leaf (')")
    page.tab.go_back()
    page.tab.wait_for_function("document.getElementById('function-name').textContent.startsWith('f (')")
    page.tab.click("#show-in-graph")  # back to the graph, f's boxes highlighted
    page.tab.wait_for_function("window.flamespaceReport.view === 'graph'")  # the view follows the URL's hash (an event)
    assert page.tab.text_content("#matched").startswith("Matched:")


def test_shift_click_zooms_instead(open_report) -> None:
    page = open_report()
    box = page.box("g")
    page.tab.keyboard.down("Shift")
    page.tab.mouse.click(box["cx"], box["cy"])
    page.tab.keyboard.up("Shift")
    assert page.tab.evaluate("window.flamespaceReport.view") == "graph"
    assert page.tab.evaluate("window.flamespaceReport.pane.view().frame") == box["frame"]


def test_the_function_table_sorts_and_links(open_report) -> None:
    page = open_report()
    page.tab.click("#tab-functions")
    rows = page.tab.locator("#functions-table tbody tr")
    assert rows.count() == len(page.tab.evaluate("window.flamespaceReport.functions()"))
    page.tab.click("#functions-table th[data-key=calls]")
    assert rows.first.inner_text().startswith("leaf (")  # 8 calls: the most
    page.shot("functions")
    rows.first.locator("a").click()
    assert page.tab.text_content("#function-name").startswith("leaf (")


def test_the_flame_chart_view_draws_each_thread(open_report) -> None:
    page = open_report()
    page.tab.click("#tab-chart")
    page.tab.wait_for_function("window.flamespaceReport.chart && window.flamespaceReport.chart.lanes.length > 0")
    assert page.tab.locator(".lane-name").first.text_content() == "MainThread"
    names = {b["name"].split(" (")[0] for b in page.tab.evaluate("window.flamespaceReport.chart.lanes[0].pane.drawn()")}
    assert {"run", "f", "g"} <= names
    page.shot("chart")


def test_trace_writes_a_report_by_the_html_ending(tmp_path) -> None:
    import os
    import subprocess
    import sys

    out = tmp_path / "report.html"
    code = "def f():\n    return 1\n\nfor _ in range(5):\n    f()\n"
    flamespace = os.path.join(os.path.dirname(sys.executable), "flamespace")
    done = subprocess.run(
        [flamespace, "trace", "-q", "-o", str(out), "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert done.returncode == 0, done.stderr
    data = read_report(out.read_text())
    calls = dict(
        zip((data["report"]["names"][k] for k in data["report"]["functions"]["name"]), data["report"]["functions"]["calls"])
    )
    assert calls[named(calls, "f")] == 5 and data["chart"] is not None  # the report's flame chart: traced with the time order


def test_a_functions_source_lines_are_listed_when_recorded(browser, tmp_path) -> None:  # noqa: F811
    trace = traced()
    f_name = named([row.function for row in trace.table()], "f")
    start = int(re.search(r":(\d+)\)$", f_name).group(1))  # type: ignore[union-attr]
    trace.lines = {f_name.replace(f":{start})", f":{start + 1})"): (700, 4), f_name: (50, 4)}  # as --lines gives them
    path = tmp_path / "lines.html"
    report(trace, None, path)
    page = ReportPage(browser, path)
    index = page.tab.evaluate("window.flamespaceReport.functions()").index(f_name)
    page.tab.evaluate(f"location.hash = 'fn-{index}'")
    page.tab.wait_for_function("window.flamespaceReport.view === 'function'")
    rows = [row.split("\t") for row in page.tab.locator("#lines tbody tr").all_inner_texts()]
    assert [row[:2] for row in rows] == [[f"line {start + 1}", "4"], [f"line {start}", "4"]]  # most time first
    page.check()


def deep(n):
    return leaf() if n == 0 else deep(n - 1)


def test_a_graph_taller_than_the_window_opens_with_its_root_in_view(browser, tmp_path) -> None:  # noqa: F811
    """A report of a deep trace opened at its deepest frames, the root below the fold; the viewer's
    pages open at the root. So does the report now, and when it comes back from another view."""
    with fs.trace(chart=True) as t:
        deep(120)
    path = tmp_path / "deep.html"
    report(t._done(), None, path)
    page = ReportPage(browser, path)

    def root_in_view() -> bool:
        return page.tab.evaluate("""(() => {
            const rect = document.getElementById('canvas').getBoundingClientRect();
            const root = window.flamespaceReport.pane.drawn().find(b => b.name === 'all');
            return root !== undefined && rect.top + root.y + root.h <= window.innerHeight + 1;
        })()""")

    assert page.tab.evaluate("document.scrollingElement.scrollTop") > 0 and root_in_view()
    page.tab.evaluate("location.hash = 'functions'")
    page.tab.wait_for_function("window.flamespaceReport.view === 'functions'")
    page.tab.evaluate("location.hash = ''")
    page.tab.wait_for_function("window.flamespaceReport.view === 'graph'")
    assert root_in_view()
    page.shot("deep")
    page.check()
