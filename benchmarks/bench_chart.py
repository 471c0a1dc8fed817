"""Flame chart speed in a real browser: file size, time to first paint and per zoom of the HTML
flame chart (``flamespace html --flamechart``) on big traces, beside ``svg --flamechart`` of the
same chart in the same browser (up to ``--svg-max`` events: past that the SVG takes minutes).

    python benchmarks/bench_chart.py [--events 100000 1000000] [--repeat 3] [--zooms 10] [--svg-max 100000]

Input: a synthetic trace per size, generated in this process (seeded): two threads, each a random
walk of calls and returns over 400 function names, up to 14 deep, every stretch between two
events 50 ns to 5 µs long: one chart sample per event, as the tracer's chart has. Pages: the
chart at the default --minwidth (0.001% of the time axis) and with every box (--minwidth 0),
written in this process (build time shown), then opened in headless Chromium (Debian's, driven
by playwright) from file:// with every other request refused.

Measured per page, medians of ``--repeat`` loads: time to first paint (navigation start to the
first animation frame after the page drew), and per zoom (``--zooms`` stretches, each a tenth of
the axis, zoomed to from the whole view, every lane following): the time until the next
animation frame has run. The SVG's zoom is a click on a frame's rectangle.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from array import array
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
OUT = HERE / ".data" / "chart"

CHART_ZOOM = """([lo, hi]) => new Promise(done => {
    const chart = window.flamespaceChart.chart; chart.reset();
    const t = performance.now(); chart.setView(lo, hi);
    requestAnimationFrame(() => setTimeout(() => done(performance.now() - t), 0));
})"""
SVG_ZOOM = """(i) => new Promise(done => {
    const rects = document.querySelectorAll('#frames > g > rect');
    const t = performance.now();
    rects[i].dispatchEvent(new MouseEvent('click', {bubbles: true}));
    requestAnimationFrame(() => setTimeout(() => done(performance.now() - t), 0));
})"""


def synthetic(events: int, seed: int = 17):
    """A FlameChart (ns) of ``events`` stretches on two threads: random walks of calls and returns."""
    import flamespace as fs
    from flamespace.core.chart import FlameChart

    rng = random.Random(seed)
    names = [f"fn{k} (mod{k % 23}.py:{10 + k})" for k in range(400)]
    stacks: list[tuple] = []
    ids: dict[tuple, int] = {}
    rows = []
    for thread in range(2):
        stack: tuple = ("main (app.py:1)",)
        now = 0
        for _ in range(events // 2):
            if len(stack) > 1 and (len(stack) >= 14 or rng.random() < 0.5):
                stack = stack[:-1]
            else:
                stack = stack + (names[rng.randrange(len(names))],)
            length = rng.randint(50, 5000)
            now += length
            key = ids.get(stack)
            if key is None:
                key = ids[stack] = len(stacks)
                stacks.append(stack)
            rows.append((now, thread, key, length))
    rows.sort(key=lambda row: row[0])
    return FlameChart.from_columns(
        stacks,
        ["MainThread", "worker"],
        array("q", [r[0] for r in rows]),
        array("l", [r[1] for r in rows]),
        array("l", [r[2] for r in rows]),
        [r[3] for r in rows],
        fs.Metadata(unit="ns"),
    )


def build(events: int, svg_max: int) -> dict[str, dict[str, object]]:
    from flamespace.render import SvgOptions, svg
    from flamespace.render.chart_html import chart_html, read_chart_payload
    from flamespace.render.html import HtmlOptions

    OUT.mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    chart = synthetic(events)
    print(f"{events:,} events: chart generated in {time.perf_counter() - began:.1f} s", flush=True)
    pages: dict[str, dict[str, object]] = {}
    for label, percent in (("html --flamechart", HtmlOptions().min_percent), ("html --flamechart --minwidth 0", 0.0)):
        path = OUT / f"{events}-{percent:g}.html"
        began = time.perf_counter()
        chart_html(chart, HtmlOptions(min_percent=percent), path)
        seconds = time.perf_counter() - began
        boxes = read_chart_payload(path.read_text())["boxes"]["count"]
        pages[label] = {"path": path, "seconds": seconds, "boxes": boxes, "end": chart_end(path)}
    if events <= svg_max:
        path = OUT / f"{events}.svg"
        began = time.perf_counter()
        svg(chart, SvgOptions(flamechart=True), path)
        pages["svg --flamechart"] = {
            "path": path,
            "seconds": time.perf_counter() - began,
            "boxes": path.read_text().count("<rect") - 1,
            "end": None,
        }
    return pages


def chart_end(path: Path) -> float:
    from flamespace.render.chart_html import payload_of

    return float(payload_of(path.read_text(), "flamespace-chart-data")["end"])


def measure(pages: dict[str, dict[str, object]], repeat: int, zooms: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for label, page in pages.items():
            path = Path(str(page["path"]))
            own = path.as_uri()
            paints: list[float] = []
            per_zoom: list[float] = []
            for run in range(repeat):
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                context.route("**/*", lambda route, request: route.continue_() if request.url == own else route.abort())
                tab = context.new_page()
                errors: list[str] = []
                tab.on("pageerror", lambda error: errors.append(str(error)))
                tab.goto(own, timeout=600_000)
                if label.startswith("svg"):
                    tab.wait_for_load_state("load")
                    paints.append(tab.evaluate("new Promise(done => requestAnimationFrame(() => done(performance.now())))"))
                    if run == 0:
                        count = tab.evaluate("document.querySelectorAll('#frames > g > rect').length")
                        for k in range(zooms):
                            per_zoom.append(tab.evaluate(SVG_ZOOM, (k * 7919) % count))
                else:
                    tab.wait_for_function("window.flamespaceChart && window.flamespaceChart.firstPaint", timeout=600_000)
                    paints.append(tab.evaluate("window.flamespaceChart.firstPaint"))
                    if run == 0:
                        end = float(page["end"])  # type: ignore[arg-type]
                        for k in range(zooms):
                            lo = end * (k / zooms) * 0.9
                            per_zoom.append(tab.evaluate(CHART_ZOOM, [lo, lo + end / 10]))
                assert not errors, errors
                context.close()
            page["paint"] = statistics.median(paints)
            page["zoom"] = statistics.median(per_zoom) if per_zoom else float("nan")
            page["zoom_max"] = max(per_zoom) if per_zoom else float("nan")
            print(
                f"  {label}: first paint {page['paint']:.0f} ms, zoom {page['zoom']:.0f} ms (max {page['zoom_max']:.0f})",
                flush=True,
            )
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--zooms", type=int, default=10)
    parser.add_argument("--svg-max", type=int, default=100_000)
    args = parser.parse_args()
    if not os.path.exists(CHROMIUM):
        sys.exit(f"needs Chromium at {CHROMIUM}")
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"{platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}; load at start: {load}")
    rows = []
    for events in args.events:
        pages = build(events, args.svg_max)
        measure(pages, args.repeat, args.zooms)
        for label, page in pages.items():
            rows.append((events, label, page))
    print("\n| events | page | boxes | file | build | first paint | zoom (median, max) |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for events, label, page in rows:
        size = Path(str(page["path"])).stat().st_size / 1e6
        print(
            f"| {events:,} | {label} | {page['boxes']:,} | {size:.1f} MB | {page['seconds']:.1f} s | "
            f"{page['paint'] / 1000:.2f} s | {page['zoom']:.0f} ms, {page['zoom_max']:.0f} ms |"
        )
    print(f"\nload at end: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")


if __name__ == "__main__":
    main()
