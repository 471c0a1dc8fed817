"""Comparison page speed in a real browser: file size, time to first paint, per zoom with one pane and
with three panes in step, beside the single-profile viewer of the same pair's differential.

    python benchmarks/bench_compare_html.py [--repeat 3] [--zooms 10]

Input: bench_folded.py's pair of 100,000-stack profiles (sub_a.folded, sub_b.folded, generated once
under benchmarks/.data/). Pages, written in this process (build time shown): ``html --diff A B``
(render/compare_page.py) and, as the peer, ``sub A B | html`` (one pane of the same pair, coloured
by change). Opened in headless Chromium (Debian's, driven by playwright) from file:// with every
other request refused.

Measured per page, medians of ``--repeat`` loads: time to first paint (navigation start to the
first animation frame after the page drew), and per zoom (``--zooms`` frames among the 1,000
widest, each zoomed from the whole view) the time until the next animation frame has run: on the
overlay (one pane) and on the A | B | Δ tab (the zoom of one pane carried to the two others,
three draws), plus the time to open that tab the first time (three panes made and drawn), then the first visit of every other tab in turn (its views derived
and its pane made and drawn) and the way back to the overlay (already made: one draw).

``--out DIR`` writes the pages elsewhere (to keep a build of another version); ``--before DIR``
measures the comparison page built there too, in the same browser run (e.g. the previous payload).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_folded import SUB_A, SUB_B  # noqa: E402  (the pair the foundation's benchmarks use)
from bench_html import ARGS, CHROMIUM, offline_tab  # noqa: E402

OUT = HERE / ".data" / "compare-html"

ZOOM = """([which, i]) => new Promise(done => {
    const pane = which === 'single' ? window.flamespaceViewer.pane : window.flamespaceCompare.panes()[0];
    pane.reset();
    const t = performance.now(); pane.zoomTo(i);
    requestAnimationFrame(() => setTimeout(() => done(performance.now() - t), 0));
})"""
TARGETS = """(which) => {
    const pane = which === 'single' ? window.flamespaceViewer.pane : window.flamespaceCompare.panes()[0];
    const t = pane.tree(), out = [];
    for (let i = 1; i < t.count; i++) if (t.value[i] < t.total * 0.999) out.push([t.value[i], i]);
    return out.sort((a, b) => b[0] - a[0]).slice(0, 1000).map(p => p[1]); }"""
OPEN_TAB = """(tab) => new Promise(done => {
    const t = performance.now(); window.flamespaceCompare.show(tab);
    requestAnimationFrame(() => setTimeout(() => done(performance.now() - t), 0));
})"""
#: The tabs visited after the overlay's zooms, in this order (each first visit timed, then the overlay again).
LATER_TABS = ("panes", "whiteblack", "appeared", "grown", "disappeared", "shrunk", "overlay")


def frame_count(path: Path) -> int:
    """The frames of a comparison page, read from its payload's head (any payload version)."""
    import re

    with open(path, encoding="utf-8") as stream:
        head = stream.read(1 << 24)
    found = re.search(r'"frames":\{"count":(\d+)', head)
    assert found, f"{path}: no frame count"
    return int(found.group(1))


def build(out: Path = OUT) -> dict[str, dict[str, object]]:
    import flamespace as fs
    from flamespace.core.differential import Differential
    from flamespace.render.compare_page import comparison_html
    from flamespace.render.html import HtmlOptions, html, read_payload

    out.mkdir(parents=True, exist_ok=True)
    a, b = fs.read(SUB_A), fs.read(SUB_B)
    pages: dict[str, dict[str, object]] = {}
    path = out / "diff.html"
    began = time.perf_counter()
    comparison_html([a, b], ["a", "b"], HtmlOptions(), path)
    pages["html --diff A B"] = {
        "path": path,
        "seconds": time.perf_counter() - began,
        "frames": frame_count(path),
        "which": "compare",
    }
    path = out / "sub.html"
    began = time.perf_counter()
    html(Differential(a, b), HtmlOptions(), path)
    pages["sub A B | html (one pane)"] = {
        "path": path,
        "seconds": time.perf_counter() - began,
        "frames": read_payload(path.read_text())["frames"]["count"],
        "which": "single",
    }
    for page in pages.values():
        page["mb"] = Path(page["path"]).stat().st_size / 1e6  # type: ignore[arg-type]
    return pages


def measure(browser, path: Path, which: str, repeat: int, zooms: int) -> dict[str, float]:
    paints: list[float] = []
    zoom_times: list[float] = []
    tab_times: list[float] = []
    three: list[float] = []
    later: dict[str, list[float]] = {tab: [] for tab in LATER_TABS}
    ready = (
        "window.flamespaceViewer && window.flamespaceViewer.firstPaint"
        if which == "single"
        else "window.flamespaceCompare && window.flamespaceCompare.firstPaint"
    )
    for _ in range(repeat):
        context, page, requests = offline_tab(browser, path)
        page.goto(path.as_uri(), wait_until="load", timeout=600_000)
        page.wait_for_function(ready, timeout=600_000)
        paints.append(page.evaluate(ready.split(" && ")[1]) / 1000)
        print(f"    first paint {paints[-1]:.2f} s", file=sys.stderr)
        targets = page.evaluate(TARGETS, which)
        targets = targets[:: max(1, len(targets) // zooms)][:zooms]
        zoom_times += [page.evaluate(ZOOM, [which, i]) / 1000 for i in targets]
        if which != "single":
            tab_times.append(page.evaluate(OPEN_TAB, "panes") / 1000)
            targets = page.evaluate(TARGETS, which)
            targets = targets[:: max(1, len(targets) // zooms)][:zooms]
            three += [page.evaluate(ZOOM, [which, i]) / 1000 for i in targets]
            page.evaluate("window.flamespaceCompare.panes()[0].reset()")
            for tab in LATER_TABS[1:]:
                later[tab].append(page.evaluate(OPEN_TAB, tab) / 1000)
        assert not requests, requests
        context.close()
    nan = float("nan")
    return {
        "paint": statistics.median(paints),
        "zoom": statistics.median(zoom_times) if zoom_times else nan,
        "tab": statistics.median(tab_times) if tab_times else nan,
        "three": statistics.median(three) if three else nan,
        **{f"tab:{tab}": statistics.median(times) for tab, times in later.items() if times},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="page loads per page (medians shown)")
    parser.add_argument("--zooms", type=int, default=10, help="frames zoomed into per load")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the pages")
    parser.add_argument("--before", type=Path, help="also measure the comparison page built in this directory")
    args = parser.parse_args()
    if not (SUB_A.exists() and SUB_B.exists()):
        print("generating the 100,000-stack pair (bench_folded.py --generate) ...", file=sys.stderr)
        subprocess.run([sys.executable, str(HERE / "bench_folded.py"), "--generate"], check=True)
    from playwright.sync_api import sync_playwright

    load_before = " ".join(f"{x:.1f}" for x in os.getloadavg())
    pages = build(args.out.resolve())
    if args.before:
        before = args.before.resolve() / "diff.html"
        pages["html --diff A B (before)"] = {
            "path": before,
            "seconds": float("nan"),
            "frames": frame_count(before),
            "which": "compare",
            "mb": before.stat().st_size / 1e6,
        }
    results = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for name, page in pages.items():
            print(f"  measuring {name} ...", file=sys.stderr)
            results[name] = measure(browser, Path(page["path"]), str(page["which"]), args.repeat, args.zooms)  # type: ignore[arg-type]
        browser.close()
    load_after = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"\n100,000 + 100,000 stacks; {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"load average before {load_before}, after {load_after}; medians of {args.repeat} loads x {args.zooms} zooms\n"
    )
    print("| page | frames | file | build | first paint | zoom, one pane | open A \\| B \\| Δ | zoom, three panes in step |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, page in pages.items():
        r = results[name]

        def ms(value: float) -> str:
            return "–" if value != value else f"{1000 * value:.0f} ms"

        print(
            f"| {name.replace('|', chr(92) + '|')} | {page['frames']:,} | {page['mb']:.1f} MB | {page['seconds']:.1f} s | {r['paint']:.2f} s "
            f"| {ms(r['zoom'])} | {ms(r['tab'])} | {ms(r['three'])} |"
        )
    print("\nFirst visit of each later tab (overlay: back to the tab made at load)\n")
    print("| page | " + " | ".join(LATER_TABS[1:]) + " |")
    print("|---|" + "---:|" * (len(LATER_TABS) - 1))
    for name, r in results.items():
        if f"tab:{LATER_TABS[1]}" in r:
            print(
                f"| {name.replace('|', chr(92) + '|')} | "
                + " | ".join(f"{1000 * r[f'tab:{tab}']:.0f} ms" for tab in LATER_TABS[1:])
                + " |"
            )


if __name__ == "__main__":
    main()
