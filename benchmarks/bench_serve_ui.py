"""flamespace serve's web UI: first paint of the page and of the range's flame graph over a day of windows.

    nice -n 10 python benchmarks/bench_serve_ui.py [--windows 8640] [--stacks 200] [--repeat 5]

A store of one service with ``--windows`` windows of 10 s ending now (8,640: a day), each a profile of
``--stacks`` stacks (bench_serve.py's call tree of Python-like frames), written with ``Store.add`` in
batches of 720 (as the writer would after compaction, without the HTTP pushes). ``flamespace serve``
runs over it on a loopback port, and headless Chromium (/usr/bin/chromium, playwright) opens
``/?service=svc&range=1d`` ``--repeat`` times, each in a fresh context (no cache). Measured in the
page, from the start of navigation: first contentful paint (the header), the timeline drawn (the
``/windows`` answer of every window), and the day's flame graph drawn in its frame (``/merge?format=html``
of every window, then the viewer's first draw). Also the API's answers alone (median of ``--repeat``),
and once the comparison the UI's comparison view starts with (the day's first half against its second).
Prints medians with the range of the runs, and the machine's load (uptime).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import datetime, timedelta, timezone

from bench_serve import start_server, stacks

from flamespace.core.metadata import Metadata
from flamespace.core.vector import FlameGraph
from flamespace.store import open_store

CHROMIUM = "/usr/bin/chromium"
BATCH = 720


def fill(store_path: str, windows: int, count: int, rng: random.Random) -> float:
    """``windows`` windows of 10 s ending now, one service; seconds it took."""
    texts = stacks(count, rng)
    end = datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)
    first = end - timedelta(seconds=10 * windows)
    store = open_store(store_path)
    began = time.perf_counter()
    for batch in range(0, windows, BATCH):
        items = []
        for k in range(batch, min(windows, batch + BATCH)):
            start = first + timedelta(seconds=10 * k)
            labels = {
                "service_name": "svc",
                "region": "eu",
                "time": start.isoformat(),
                "time_end": (start + timedelta(seconds=10)).isoformat(),
            }
            values = {t: 10_000_000 * (1 + int(rng.expovariate(1 / 3))) for t in texts}
            graph = FlameGraph.from_texts(values, metadata=Metadata(unit="ns", metric="cpu", labels=labels))
            items.append((graph, f"svc {labels['time']}"))
        store.add(items)
    return time.perf_counter() - began


def api_time(url: str, repeat: int) -> tuple[float, int]:
    """Median seconds of GET url, and the answer's size."""
    took, size = [], 0
    for _ in range(repeat):
        began = time.perf_counter()
        with urllib.request.urlopen(url, timeout=600) as answer:
            size = len(answer.read())
        took.append(time.perf_counter() - began)
    return statistics.median(took), size


PAINT = "(performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint') || {}).startTime"


def ui_times(base: str, repeat: int) -> list[dict[str, float]]:
    from playwright.sync_api import sync_playwright

    runs = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        for _ in range(repeat):
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            page.goto(base + "/?service=svc&range=1d")
            page.wait_for_selector("#timeline svg rect.bar", timeout=600_000)
            timeline = page.evaluate("performance.now()")
            frame = page.wait_for_selector("#page:not([hidden])", timeout=600_000).content_frame()
            frame.wait_for_function("window.flamespaceViewer && window.flamespaceViewer.draws > 0", timeout=600_000)
            flame = page.evaluate("performance.now()")
            runs.append({"paint": page.evaluate(PAINT), "timeline": timeline, "flame": flame})
            context.close()
        browser.close()
    return runs


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):,.0f} ms ({min(values):,.0f}-{max(values):,.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", type=int, default=8640)
    parser.add_argument("--stacks", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as directory:
        store = os.path.join(directory, "store")
        filled = fill(store, args.windows, args.stacks, rng)
        print(f"store: {args.windows:,} windows of {args.stacks} stacks, one service, written in {filled:.0f} s")
        process, port = start_server(store)
        base = f"http://127.0.0.1:{port}"
        try:
            for name, path in (
                ("the page (/)", "/"),
                ("/windows of the day", "/api/v1/windows?selector=service_name=svc&from=now-1d"),
                ("/merge?format=html of the day", "/api/v1/merge?selector=service_name=svc&from=now-1d&format=html"),
            ):
                took, size = api_time(base + path, args.repeat)
                print(f"  {name:34} {took * 1000:8,.0f} ms  {size:>12,} bytes")
            runs = ui_times(base, args.repeat)
            # the comparison view's default over the day: its first half against its second, each window a run
            halves = "baseline_selector=service_name=svc&baseline_from=now-1d&baseline_until=now-12h"
            halves += "&candidate_selector=service_name=svc&candidate_from=now-12h"
            took, size = api_time(f"{base}/api/v1/compare?{halves}", 1)
            print(f"  {'/compare of the halves (once)':34} {took * 1000:8,.0f} ms  {size:>12,} bytes")
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=120)
    print(f"in Chromium, from navigation, median of {args.repeat} (range):")
    print("  first contentful paint         ", spread([r["paint"] for r in runs]))
    print("  timeline drawn                 ", spread([r["timeline"] for r in runs]))
    print("  the day's flame graph drawn    ", spread([r["flame"] for r in runs]))
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    sys.exit(main())
