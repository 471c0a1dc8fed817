"""HTML viewer speed in a real browser: file size, time to first paint and per zoom, beside our SVG.

    python benchmarks/bench_html.py [--frames 10000,100000,1000000] [--repeat 3] [--zooms 10] [--svg-max-frames 150000]
                                    [--no-svg] [--baseline-js old-page-script.js]
    python benchmarks/bench_html.py --stacks 200000 [--repeat 3] [--repeat-svg 1] [--zooms 10] [--no-svg]

``--frames``: synthetic profiles of exactly that many frames (every frame has samples of its
own; deterministic), each drawn as ``flamespace html --minwidth 0`` (every frame), at the
default ``--minwidth``, and as ``flamespace svg`` at its defaults and at ``--minwidth 0`` (the
same frames as the first page; opened in the browser only up to ``--svg-max-frames``, its
size is always reported). Besides first paint and zoom, the time of two in-page transforms
(invert, and hide frames by regex) on the HTML pages, from the click to the next animation frame
after the result is drawn, with the time the click's handler took and the longest main-thread
task meanwhile (PerformanceObserver "longtask"): where the page runs them (a worker from 20,000
frames) and, on the same pages, on the main thread; with ``--baseline-js``, the same transforms
on copies of the pages that hold another viewer script (e.g. main's), in the same run.
``--transforms-only`` leaves first paint and zoom out.

``--stacks``:

Input: the first ``--stacks`` lines of bench_folded.py's 200,000-stack file (generated once,
under benchmarks/.data/). Pages: ``flamespace html`` at its default --minwidth and at a finer
one (more frames laid out: the "1M frames" case), and ``flamespace svg`` at its defaults and at
the HTML's default --minwidth (the same frames as the first page); all
written in this process (build time shown), then opened in headless Chromium (Debian's, driven
by playwright) from file:// with every other request refused.

Measured per page, medians of ``--repeat`` loads: time to first paint (navigation start to the
first animation frame after the page drew; the SVG: after its load event), and per zoom
(``--zooms`` different frames, each zoomed from the whole view): the page script's own draw
time and the time until the next animation frame has run (what a user waits for; a frame at
60 Hz adds up to 16 ms). The SVG's zoom is a click event on a frame's rectangle.
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
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_folded import BIG  # noqa: E402  (the foundation's generator)

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
OUT = HERE / ".data" / "html"

NEXT_FRAME = "() => new Promise(done => requestAnimationFrame(() => setTimeout(() => done(performance.now()), 0)))"
HTML_ZOOM = """(i) => new Promise(done => {
    const api = window.flamespaceViewer; api.reset();
    const t = performance.now(); api.zoomTo(i); const draw = api.lastDraw;
    requestAnimationFrame(() => setTimeout(() => done([draw, performance.now() - t]), 0));
})"""
SVG_ZOOM = """(i) => new Promise(done => {
    const rects = document.querySelectorAll('#frames > g > rect');
    const t = performance.now();
    rects[i].dispatchEvent(new MouseEvent('click', {bubbles: true}));
    const sync = performance.now() - t;
    requestAnimationFrame(() => setTimeout(() => done([sync, performance.now() - t]), 0));
})"""


def synthetic(frames: int, seed: int = 17):
    """A profile of exactly ``frames`` frames: a random tree (depth 2-60, names from 20,000
    functions in 400 modules, heavy-tailed samples of its own on every frame)."""
    import random

    import flamespace as fs

    rng = random.Random(seed)
    names = [f"fn{k % 50}_{k // 50} (pkg/mod{k % 400}.py:{1 + k % 997})" for k in range(20_000)]
    stacks = {}
    path: list[str] = []
    taken: list[set] = [set()]  # the names of each open frame's children
    for _ in range(frames - 1):  # the root is one frame
        up = min(len(path), int(rng.expovariate(0.7))) if len(path) < 60 else rng.randint(1, 40)
        for _ in range(up):
            path.pop()
            taken.pop()
        while True:
            name = names[int(rng.paretovariate(0.6)) % len(names)] if rng.random() < 0.5 else rng.choice(names)
            if name not in taken[-1]:
                break
        taken[-1].add(name)
        path.append(name)
        taken.append(set())
        stacks[tuple(path)] = min(int(rng.paretovariate(1.1)), 100_000)
    return fs.FlameGraph(stacks)


def build_frames(frames: int, svg_max: int) -> dict[str, dict[str, object]]:
    """Write the pages of a synthetic profile of ``frames`` frames."""
    from flamespace.render import SvgOptions, svg
    from flamespace.render.html import HtmlOptions, html, read_payload

    OUT.mkdir(parents=True, exist_ok=True)
    profile = synthetic(frames)
    pages: dict[str, dict[str, object]] = {}
    default = HtmlOptions().min_percent
    for name, options in (
        ("html (--minwidth 0: every frame)", HtmlOptions(min_percent=0)),
        (f"html (default --minwidth {default:g}%)", HtmlOptions()),
    ):
        path = OUT / f"frames-{frames}-{options.min_percent:g}.html"
        began = time.perf_counter()
        html(profile, options, path)
        seconds = time.perf_counter() - began
        pages[name] = {"path": path, "seconds": seconds, "frames": read_payload(path.read_text())["frames"]["count"]}
    for name, options in (("svg (--minwidth 0: every frame)", SvgOptions(minwidth="0")), ("svg (defaults)", SvgOptions())):
        path = OUT / f"frames-{frames}-{str(options.minwidth).rstrip('%')}.svg"
        began = time.perf_counter()
        svg(profile, options, path)
        seconds = time.perf_counter() - began
        count = path.read_text().count("<g><title>")
        pages[name] = {"path": path, "seconds": seconds, "frames": count, "open": count <= svg_max}
    for page in pages.values():
        page["mb"] = Path(page["path"]).stat().st_size / 1e6  # type: ignore[arg-type]
    return pages


# From the click to the next animation frame after the transformed tree is shown (a page script
# without api.transforms transforms within the click), the time the click's handler took, and the
# longest main-thread task meanwhile (PerformanceObserver "longtask": tasks over 50 ms; 0: none).
TRANSFORM = """([which, where]) => new Promise(done => {
    const api = window.flamespaceViewer, before = api.transforms, tasks = [0];
    if (api.transformsIn) api.transformsIn(where);
    const observer = new PerformanceObserver(list => list.getEntries().forEach(e => tasks.push(e.duration)));
    observer.observe({type: 'longtask'});
    const t = performance.now();
    if (which === 'invert') document.getElementById('invert').click();
    else { const box = document.getElementById('hide'); box.value = 'mod1[0-9]\\.py'; box.dispatchEvent(new Event('input')); }
    const returned = performance.now() - t;
    const shown = () => api.transforms === undefined || api.transforms > before;
    const finish = () => requestAnimationFrame(() => setTimeout(() => {
        const elapsed = performance.now() - t;
        setTimeout(() => {  // the last task's entry is queued after it ends
            observer.takeRecords().forEach(e => tasks.push(e.duration));
            observer.disconnect();
            done([elapsed, returned, Math.max(...tasks), api.lastTransform ? api.lastTransform.where : 'main']);
        }, 100);
    }, 0));
    const wait = () => shown() ? finish() : setTimeout(wait, 2);
    wait();
})"""
UNDO = "() => document.getElementById('clear-transforms').click()"


def measure_transforms(browser, path: Path, repeat: int, where: str = "auto") -> dict[str, Any]:
    """Median times of the invert and hide transforms (each undone before the next), and the medians
    of the click handler's time (``... returned``) and of the longest main-thread task (``... task``);
    ``where``: "auto", "worker" or "main" (the page script's api.transformsIn, if it has one)."""
    times: dict[str, list[Any]] = {}
    for _ in range(repeat):
        context = browser.new_context(viewport={"width": 1200, "height": 800})
        context.route(
            "**/*", lambda route, request: route.continue_() if request.url.split("#")[0] == path.as_uri() else route.abort()
        )
        page = context.new_page()
        page.goto(path.as_uri(), wait_until="load", timeout=600_000)
        page.wait_for_function("window.flamespaceViewer && window.flamespaceViewer.firstPaint", timeout=600_000)
        for which in ("invert", "hide"):
            elapsed, returned, task, ran = page.evaluate(TRANSFORM, [which, where])
            for key, value in ((which, elapsed), (f"{which} returned", returned), (f"{which} task", task)):
                times.setdefault(key, []).append(value / 1000)
            times.setdefault(f"{which} in", []).append(ran)
            page.evaluate(UNDO)
        context.close()
    return {key: values[0] if key.endswith(" in") else statistics.median(values) for key, values in times.items()}


def baseline_pages(pages: dict[str, dict[str, object]], script: str) -> dict[str, dict[str, object]]:
    """Copies of the HTML pages with another viewer script (their transforms timed beside these)."""
    from flamespace.render.bundle import bundle
    from flamespace.render.html import SCRIPT

    current = bundle(SCRIPT)
    out: dict[str, dict[str, object]] = {}
    for name, page in pages.items():
        if name.startswith("html"):
            text = Path(page["path"]).read_text()  # type: ignore[arg-type]
            assert current in text, "the page does not hold this checkout's viewer script"
            path = Path(str(page["path"]).replace(".html", "-baseline.html"))
            path.write_text(text.replace(current, script))
            out[name.replace("html", "html, baseline script", 1)] = dict(page, path=path, **{"transforms only": True})
    return out


def build(stacks: int, fine: float) -> dict[str, dict[str, object]]:
    """Write the pages; their paths, sizes, frame counts and build times."""
    import flamespace as fs
    from flamespace.render import SvgOptions, svg
    from flamespace.render.html import HtmlOptions, html, read_payload

    OUT.mkdir(parents=True, exist_ok=True)
    source = OUT / f"input-{stacks}.folded"
    if not source.exists():
        with open(BIG) as whole, open(source, "w") as part:
            for _, line in zip(range(stacks), whole):
                part.write(line)
    profile = fs.read(source)
    pages: dict[str, dict[str, object]] = {}
    default = HtmlOptions().min_percent
    for name, options in (
        (f"html (--minwidth {default:g}%)", HtmlOptions()),
        (f"html (--minwidth {fine:g}%)", HtmlOptions(min_percent=fine)),
    ):
        path = OUT / f"{stacks}-{options.min_percent:g}.html"
        began = time.perf_counter()
        html(profile, options, path)
        seconds = time.perf_counter() - began
        frames = read_payload(path.read_text())["frames"]["count"]
        pages[name] = {"path": path, "seconds": seconds, "frames": frames}
    for name, options in (
        ("svg (defaults)", SvgOptions()),
        (f"svg (--minwidth {default:g}%)", SvgOptions(minwidth=f"{default:g}%")),
    ):
        path = OUT / f"{stacks}-{str(options.minwidth).rstrip('%')}.svg"
        began = time.perf_counter()
        svg(profile, options, path)
        seconds = time.perf_counter() - began
        frames = path.read_text().count("<g><title>")
        pages[name] = {"path": path, "seconds": seconds, "frames": frames}
    for page in pages.values():
        page["mb"] = Path(page["path"]).stat().st_size / 1e6  # type: ignore[arg-type]
    return pages


def zoom_targets(page, svg: bool, count: int) -> list[int]:
    """``count`` frames to zoom into: spread over the 1,000 widest narrower than the whole (the same kind in both)."""
    if svg:
        script = """() => { const r = [...document.querySelectorAll('#frames > g > rect')];
            return r.map((e, i) => [parseFloat(e.getAttribute('width')), i]).filter(p => p[0] < 1179)
                    .sort((a, b) => b[0] - a[0]).slice(0, 1000).map(p => p[1]); }"""
    else:
        script = """() => { const api = window.flamespaceViewer; const out = [];
            for (let i = 1; i < api.count; i++) { const w = api.width(i); if (w < 1179 / 1180) out.push([w, i]); }
            return out.sort((a, b) => b[0] - a[0]).slice(0, 1000).map(p => p[1]); }"""
    wide = page.evaluate(script)
    step = max(1, len(wide) // count)
    return wide[::step][:count]


def offline_tab(browser, path: Path):
    """A new 1200 x 800 tab that refuses (and lists) every request but ``path``'s own file: the
    pages must work offline. Returns the context (close it), the tab and the refused URLs."""
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    requests: list[str] = []

    def refuse(route, request):
        if request.url.split("#")[0] == path.as_uri():
            route.continue_()
        else:
            requests.append(request.url)
            route.abort()

    context.route("**/*", refuse)
    return context, context.new_page(), requests


def measure_page(browser, path: Path, svg: bool, repeat: int, zooms: int) -> dict[str, float]:
    paints, draws, frames = [], [], []
    for _ in range(repeat):
        context, page, requests = offline_tab(browser, path)
        page.goto(path.as_uri(), wait_until="load", timeout=600_000)
        if not svg:
            page.wait_for_function("window.flamespaceViewer && window.flamespaceViewer.firstPaint", timeout=600_000)
            paints.append(page.evaluate("window.flamespaceViewer.firstPaint") / 1000)
        else:
            paints.append(page.evaluate(NEXT_FRAME) / 1000)
        assert not requests, requests
        print(f"    first paint {paints[-1]:.2f} s", file=sys.stderr)
        for target in zoom_targets(page, svg, zooms):
            draw, frame = page.evaluate(SVG_ZOOM if svg else HTML_ZOOM, target)
            draws.append(draw / 1000)
            frames.append(frame / 1000)
        context.close()
    return {
        "paint": statistics.median(paints),
        "draw": statistics.median(draws) if draws else float("nan"),
        "frame": statistics.median(frames) if frames else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--frames", default="10000,100000,1000000", help="synthetic profiles of these many frames (comma-separated)"
    )
    parser.add_argument(
        "--svg-max-frames", type=int, default=150_000, help="open SVGs of at most this many frames (larger: size only)"
    )
    parser.add_argument("--stacks", type=int, default=None, help="instead: lines of the 200,000-stack file to use")
    parser.add_argument("--repeat", type=int, default=3, help="page loads per page (medians shown)")
    parser.add_argument("--repeat-svg", type=int, default=1, help="page loads per SVG (an SVG of a million frames takes minutes)")
    parser.add_argument("--zooms", type=int, default=10, help="frames zoomed into per load")
    parser.add_argument("--fine", type=float, default=0.0002, help="the finer --minwidth (a percentage of the total, without %%)")
    parser.add_argument(
        "--no-svg", action="store_true", help="leave the SVGs out (one of a million frames takes minutes to open)"
    )
    parser.add_argument(
        "--transforms-only",
        action="store_true",
        help="--frames: time only the transforms (in the worker, on the main thread and with --baseline-js's script)",
    )
    parser.add_argument(
        "--baseline-js",
        type=Path,
        default=None,
        metavar="FILE",
        help="--frames: also time the transforms of each HTML page with this page script instead (an "
        "older checkout's, e.g. its python -c 'from flamespace.render.bundle import bundle; "
        'print(bundle("viewer.mjs"), end="")\' > old.js), in the same run',
    )
    args = parser.parse_args()
    if args.stacks is None:
        frames_main(args)
        return
    if not BIG.exists():
        print("generating the 200,000-stack file (bench_folded.py --generate) ...", file=sys.stderr)
        subprocess.run([sys.executable, str(HERE / "bench_folded.py"), "--generate"], check=True)
    from playwright.sync_api import sync_playwright

    load_before = " ".join(f"{x:.1f}" for x in os.getloadavg())
    pages = build(args.stacks, args.fine)
    if args.no_svg:
        pages = {k: v for k, v in pages.items() if not k.startswith("svg")}
    results = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for name, page in pages.items():
            print(f"  measuring {name} ...", file=sys.stderr)
            svg = name.startswith("svg")
            results[name] = measure_page(browser, Path(page["path"]), svg, args.repeat_svg if svg else args.repeat, args.zooms)  # type: ignore[arg-type]
        browser.close()
    load_after = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"\n{args.stacks:,} stacks; {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"load average before {load_before}, after {load_after}; medians of {args.repeat} loads ({args.repeat_svg} of an SVG) x {args.zooms} zooms\n"
    )
    print("| page | frames | file | build | first paint | zoom: draw | zoom: to next frame |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, page in pages.items():
        r = results[name]
        print(
            f"| {name} | {page['frames']:,} | {page['mb']:.1f} MB | {page['seconds']:.1f} s | {r['paint']:.2f} s "
            f"| {1000 * r['draw']:.0f} ms | {1000 * r['frame']:.0f} ms |"
        )


def frames_main(args) -> None:
    """The synthetic profiles: one table row per page."""
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for frames in (int(f) for f in args.frames.split(",")):
            load_before = " ".join(f"{x:.1f}" for x in os.getloadavg())
            print(f"building {frames:,} frames ...", file=sys.stderr)
            pages = build_frames(frames, args.svg_max_frames)
            if args.no_svg:
                pages = {k: v for k, v in pages.items() if not k.startswith("svg")}
            if args.baseline_js:
                pages.update(baseline_pages(pages, args.baseline_js.read_text()))
            for name, page in pages.items():
                svg = name.startswith("svg")
                result: dict[str, Any] = {}
                print(f"  measuring {name} ...", file=sys.stderr)
                if not page.get("transforms only") and not args.transforms_only and (not svg or page["open"]):
                    result = measure_page(browser, Path(page["path"]), svg, 1 if svg else args.repeat, args.zooms)  # type: ignore[arg-type]
                if not svg:
                    result.update(measure_transforms(browser, Path(page["path"]), args.repeat))  # type: ignore[arg-type]
                    if not page.get("transforms only"):  # this script's transforms on the main thread too
                        main_thread = measure_transforms(browser, Path(page["path"]), args.repeat, "main")  # type: ignore[arg-type]
                        result.update({f"main: {key}": value for key, value in main_thread.items()})
                rows.append((frames, name, page, result))
            load_after = " ".join(f"{x:.1f}" for x in os.getloadavg())
            print(f"  load average before {load_before}, after {load_after}", file=sys.stderr)
            rows.append((frames, "load", {"before": load_before, "after": load_after}, {}))
        browser.close()
    print(
        f"\n{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; medians of {args.repeat} loads "
        f"(1 of an SVG) x {args.zooms} zooms\n"
    )
    print("| profile | page | frames | file | build | first paint | zoom: draw | zoom: to next frame | invert | hide |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    ms = lambda r, key: f"{1000 * r[key]:,.0f} ms" if key in r else "–"  # noqa: E731
    for frames, name, page, r in rows:
        if name == "load":
            print(f"| {frames:,} | load average {page['before']} → {page['after']} | | | | | | | | |")
            continue
        paint = f"{r['paint']:.2f} s" if "paint" in r else "not opened"
        print(
            f"| {frames:,} | {name} | {page['frames']:,} | {page['mb']:.1f} MB | {page['seconds']:.1f} s | {paint} "
            f"| {ms(r, 'draw')} | {ms(r, 'frame')} | {ms(r, 'invert')} | {ms(r, 'hide')} |"
        )
    print(
        "\nTransforms: from the click to the next animation frame after the result is shown; the click's own "
        'handler; the longest main-thread task meanwhile ("longtask": over 50 ms, else –)\n'
    )
    print("| profile | page | ran in | invert | invert: click | invert: longest task | hide | hide: click | hide: longest task |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    task = lambda r, key: ms(r, key) if r.get(key) else "–"  # noqa: E731
    for frames, name, page, r in rows:
        for prefix in ("", "main: "):
            if name == "load" or f"{prefix}invert" not in r:
                continue
            print(
                f"| {frames:,} | {name} | {r[prefix + 'invert in']} | {ms(r, prefix + 'invert')} | {ms(r, prefix + 'invert returned')} "
                f"| {task(r, prefix + 'invert task')} | {ms(r, prefix + 'hide')} | {ms(r, prefix + 'hide returned')} "
                f"| {task(r, prefix + 'hide task')} |"
            )


if __name__ == "__main__":
    main()
