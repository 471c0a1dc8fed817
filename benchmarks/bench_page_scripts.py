"""The HTML pages' scripts against an older checkout's: script size, page size and first paint.

    python benchmarks/bench_page_scripts.py --before REF [--frames 100000] [--events 100000] [--repeat 7]

Each page is written once by this checkout: the viewer (bench_html.py's synthetic profile of
``--frames`` frames), the comparison (``html --diff`` of that profile and one of another seed),
the flame chart (bench_chart.py's synthetic chart of ``--events`` stretches) and the trace report
(a trace of a small recursive program). A copy of each page then gets the page scripts of git ref
``--before`` in place of this checkout's, as that checkout inlined them (``viewer.js`` first, then
the page's own script): the payloads are the same, only the scripts differ. So the ref must be
from before the scripts became modules (render/js/, docs/js.md).

Both copies are opened in one headless Chromium (Debian's, driven by playwright) from file://
with every other request refused, alternately (before, after, before, ...), so load on a shared
machine falls on both alike. Per page: the script's bytes, the page's bytes, and the median of
``--repeat`` loads of the time from navigation to the first animation frame after the page drew
(``firstPaint`` of the page's API object) and of the main thread's CPU time until then (all its
work, and script alone), each with the spread of those loads (min-max), and the
median of the paired ratios after/before (load i of each) with its distribution-free 95% interval
(order statistics of the sign test: the interval holds the true median ratio with at least 95%
probability, whatever the load's distribution, as long as the pairs are alike apart from the scripts).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_html import ARGS, CHROMIUM, synthetic  # noqa: E402

ROOT = HERE.parent
#: Each page: its entry module here, the scripts it inlined before the modules, its API object.
PAGES = {
    "viewer (html)": ("viewer.mjs", ["viewer.js"], "flamespaceViewer"),
    "comparison (html --diff)": ("compare_view.mjs", ["viewer.js", "compare_view.js"], "flamespaceCompare"),
    "flame chart (html --flamechart)": ("chart_view.mjs", ["viewer.js", "chart_view.js"], "flamespaceChart"),
    "trace report (trace --html)": ("report.mjs", ["viewer.js", "chart_view.js", "report.js"], "flamespaceReport"),
}


def _recurse(n: int) -> int:
    return n if n < 2 else _recurse(n - 1) + _recurse(n - 2)


def write_pages(folder: Path, frames: int, events: int) -> dict[str, Path]:
    """This checkout's pages, one per kind."""
    import flamespace as fs
    from bench_chart import synthetic as synthetic_chart
    from flamespace.render.chart_html import chart_html
    from flamespace.render.compare_page import comparison_html
    from flamespace.render.html import HtmlOptions, html
    from flamespace.render.report import report

    paths = {name: folder / f"{entry[0].split('.')[0]}.html" for name, entry in PAGES.items()}
    profile = synthetic(frames)
    html(profile, HtmlOptions(), paths["viewer (html)"])
    comparison_html([profile, synthetic(frames, seed=18)], ["a", "b"], HtmlOptions(), paths["comparison (html --diff)"])
    chart_html(synthetic_chart(events), HtmlOptions(), paths["flame chart (html --flamechart)"])
    with fs.trace(chart=True) as traced:
        _recurse(16)
    report(traced._done(), None, paths["trace report (trace --html)"])
    return paths


def with_scripts_of(page: str, entry: str, old: list[str]) -> str:
    """``page`` with the inline script of ``entry`` replaced by the older scripts, each in a <script> of its own."""
    from flamespace.render.bundle import bundle

    now = f"<script>\n{bundle(entry)}</script>\n"
    assert page.count(now) == 1, f"the page does not hold this checkout's script of {entry}"
    return page.replace(now, "".join(f"<script>\n{text}</script>\n" for text in old))


#: What each load measures: the wall time to first paint, and the main thread's CPU time to it (all
#: its tasks, and script alone: Chromium's Performance metrics in thread ticks, which a busy machine
#: does not stretch as it stretches wall time).
MEASURES = ("first paint (wall)", "main thread CPU", "script CPU")


def first_paint(browser, path: Path, api: str) -> tuple[float, float, float]:
    """One load of ``path``: ms to first paint, and the main thread's CPU ms to it (all, and script)."""
    tab = browser.new_page(viewport={"width": 1200, "height": 800})
    tab.route("**/*", lambda route, request: route.continue_() if request.url.startswith("file:") else route.abort())
    cdp = tab.context.new_cdp_session(tab)
    cdp.send("Performance.enable", {"timeDomain": "threadTicks"})

    def metrics() -> dict[str, float]:
        return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}

    start = metrics()
    tab.goto(path.as_uri())
    tab.wait_for_function(f"window.{api} && window.{api}.firstPaint", timeout=300_000)
    ms = float(tab.evaluate(f"window.{api}.firstPaint"))
    end = metrics()
    tab.close()
    return ms, 1e3 * (end["ThreadTime"] - start["ThreadTime"]), 1e3 * (end["ScriptDuration"] - start["ScriptDuration"])


def median_interval(values: list[float], level: float = 0.95) -> tuple[float, float, float]:
    """The median of ``values`` and the sign test's interval for it: order statistics k and n + 1 - k,
    k the largest with P(Binomial(n, 1/2) < k) <= (1 - level) / 2."""
    from math import comb

    ordered, n = sorted(values), len(values)
    k, below = 0, 0.0
    while k < n and below + comb(n, k) / 2**n <= (1 - level) / 2:
        below += comb(n, k) / 2**n
        k += 1
    low, high = (ordered[k - 1], ordered[n - k]) if k else (ordered[0], ordered[-1])
    return statistics.median(ordered), low, high


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):,.0f} ms ({min(values):,.0f}-{max(values):,.0f})"


def ratio(times: tuple[list[float], list[float]]) -> str:
    middle, low, high = median_interval([after / before for before, after in zip(*times)])
    return f"{middle:.2f} ({low:.2f}-{high:.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--before",
        required=True,
        help="the git ref whose page scripts are the baseline (one from before the modules, e.g. f0f7814)",
    )
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    def old(name: str) -> str:
        return subprocess.run(
            ["git", "show", f"{args.before}:src/flamespace/render/{name}"], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout

    print(f"load average: {os.getloadavg()[0]:.1f}; before: {args.before}; {args.repeat} loads of each page, alternating")
    print(
        "| page | script before | script after | page before | page after | "
        + " | ".join(f"{m} before | {m} after | after/before (95% interval)" for m in MEASURES)
        + " |"
    )
    print("|---|" + "---:|" * (4 + 3 * len(MEASURES)))
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        paths = write_pages(Path(folder), args.frames, args.events)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for name, (entry, scripts, api) in PAGES.items():
            from flamespace.render.bundle import bundle

            after = paths[name]
            before = after.with_name(after.stem + "-before.html")
            old_scripts = [old(script) for script in scripts]
            before.write_text(with_scripts_of(after.read_text(), entry, old_scripts))
            loads: tuple[list[tuple[float, float, float]], list[tuple[float, float, float]]] = ([], [])
            for _ in range(args.repeat):
                loads[0].append(first_paint(browser, before, api))
                loads[1].append(first_paint(browser, after, api))
            cells = []
            for k in range(len(MEASURES)):
                times = ([load[k] for load in loads[0]], [load[k] for load in loads[1]])
                cells.append(f"{spread(times[0])} | {spread(times[1])} | {ratio(times)}")
            print(
                f"| {name} | {sum(len(s.encode()) for s in old_scripts) / 1e3:,.1f} kB | {len(bundle(entry).encode()) / 1e3:,.1f} kB | "
                f"{before.stat().st_size / 1e6:,.2f} MB | {after.stat().st_size / 1e6:,.2f} MB | {' | '.join(cells)} |",
                flush=True,
            )
        browser.close()
    print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
