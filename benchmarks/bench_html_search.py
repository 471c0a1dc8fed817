"""What the HTML viewer's exact matched share costs: page size, build time, first paint and search.

    python benchmarks/bench_html_search.py [--frames 100000,600000,1000000] [--repeat 3]
    python benchmarks/bench_html_search.py --build FILE [--without]

``--build FILE``: only the page's build time, size and this process's peak memory for one
profile (e.g. bench_folded.py's benchmarks/.data/big.folded); ``--without``: as before the fix
(the pruned layout, no block of left-out frames). One process per measurement.

For each synthetic profile (bench_html.py's: exactly N frames, every frame with samples of its own)
the page at the default --minwidth is written twice from one payload: as the viewer writes it now
(with the ``narrow`` block of the frames too narrow to lay out, which the search counts) and
without that block (as before issue 25's fix). Each is opened in headless Chromium (Debian's,
driven by playwright); measured per page, medians of ``--repeat`` loads: time to the page's
first draw, and the time of one search (``flamespaceViewer.search``: the regex over the names,
the matched share, one draw), and the share the page shows beside the library's
(``select(graph, include=pattern)``).
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_html import ARGS, CHROMIUM, synthetic  # noqa: E402

PATTERN = r"mod1\d\b"  # about a tenth of the synthetic profile's 400 modules
SEARCH = """(term) => { const api = window.flamespaceViewer; const t = performance.now(); api.search(term);
    return [performance.now() - t, api.pane.matched()]; }"""


def pages(frames: int, folder: Path):
    """(graph, build seconds, {"exact": path, "before": path}, frames laid out, frames left out)."""
    import json

    from flamespace.render.html import _PAYLOAD_OPEN, HtmlOptions, html, read_payload, render_page

    graph = synthetic(frames)
    began = time.perf_counter()
    buffer = io.StringIO()
    html(graph, HtmlOptions(), buffer)
    build = time.perf_counter() - began
    page = buffer.getvalue()
    start = page.find(_PAYLOAD_OPEN) + len(_PAYLOAD_OPEN)
    data = json.loads(page[start : page.index("</script>", start)])
    left_out = sum(read_payload(page).get("narrow", {}).get("count", []))
    exact, before = folder / f"exact-{frames}.html", folder / f"before-{frames}.html"
    exact.write_text(page)
    data.pop("narrow", None)
    before.write_text(render_page(data))
    return graph, build, {"exact": exact, "before": before}, data["frames"]["count"], left_out


def measure(browser, path: Path, repeat: int):
    """Medians of (ms to the first draw, ms of one search) and the share the page shows."""
    loads, searches, share = [], [], None
    for _ in range(repeat):
        tab = browser.new_page(viewport={"width": 1200, "height": 800})
        tab.route("**/*", lambda route, request: route.continue_() if request.url.startswith("file:") else route.abort())
        tab.goto(path.as_uri())
        tab.wait_for_function("window.flamespaceViewer && window.flamespaceViewer.ready", timeout=300_000)
        loads.append(tab.evaluate("window.flamespaceViewer.firstDraw"))  # performance.now(): ms since navigation began
        ms, share = tab.evaluate(SEARCH, PATTERN)
        searches.append(ms)
        tab.close()
    return statistics.median(loads), statistics.median(searches), share


def build_only(path: str, without: bool) -> None:
    """--build: the page of one profile, with or without the left-out frames: seconds, MB, peak RSS."""
    import resource

    import flamespace as fs
    from flamespace.render.html import HtmlOptions, html, payload, render_page
    from flamespace.render.layout import layout

    graph = fs.read(path)
    began = time.perf_counter()
    if without:
        options = HtmlOptions()
        page = render_page(payload(layout(graph, options.layout_options()), graph, options))
    else:
        buffer = io.StringIO()
        html(graph, HtmlOptions(), buffer)
        page = buffer.getvalue()
    seconds = time.perf_counter() - began
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{'without' if without else 'with'} the left-out frames: build {seconds:.1f} s, page {len(page) / 1e6:.1f} MB, "
        f"peak memory {peak:,.0f} MB (load average {os.getloadavg()[0]:.1f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", default="100000,600000,1000000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--build", default=None, metavar="FILE")
    parser.add_argument("--without", action="store_true")
    args = parser.parse_args()
    if args.build:
        build_only(args.build, args.without)
        return
    from playwright.sync_api import sync_playwright

    from flamespace.core.transforms import select

    print(f"load average: {os.getloadavg()[0]:.1f}")
    print("| frames | laid out | left out | page | build | first draw | search | shown | library |")
    print("|---:|---:|---:|---|---:|---|---|---|---:|")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for frames in (int(n) for n in args.frames.split(",")):
            graph, build, written, laid, left_out = pages(frames, Path(tmp))
            library = select(graph, include=PATTERN).total() / graph.total()
            results = {kind: measure(browser, path, args.repeat) for kind, path in written.items()}
            sizes = {kind: path.stat().st_size / 1e6 for kind, path in written.items()}
            e, b = results["exact"], results["before"]
            print(
                f"| {frames:,} | {laid:,} | {left_out:,} | {sizes['exact']:.1f} MB (before {sizes['before']:.1f}) | {build:.1f} s "
                f"| {e[0]:.0f} ms (before {b[0]:.0f}) | {e[1]:.1f} ms (before {b[1]:.1f}) "
                f"| {100 * e[2]:.2f}% (before {100 * b[2]:.2f}%) | {100 * library:.2f}% |",
                flush=True,
            )
        browser.close()
    print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
