"""Reading other profilers' files: MB/s of the austin (text, MOJO), pprof and gecko readers, whole processes.

    python benchmarks/bench_profile_readers.py [--repeat 5] [--mb 4]

Builds (under benchmarks/.data/) inputs of about ``--mb`` MB: Austin text and MOJO from the
real Austin capture in tests/data/austin (its samples repeated), a Firefox Profiler file our
gecko writer makes of the same samples as a chart, and a pprof file of many distinct random
stacks (see ``_pprof``). Each reader runs as a fresh process
(``registry.read``, start-up included); beside it the peer where there is one, in the same
run: austin2speedscope (Austin text), mojo2austin (MOJO), protobuf's generated decoder
(``ParseFromString`` only: no flame graph built) and ``json.load`` (the floor of any JSON
reader). Prints the median wall time of ``--repeat`` runs and MB/s of input.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data"
FIXTURES = HERE.parent / "tests" / "data" / "austin"


def build(megabytes: float) -> dict:
    DATA.mkdir(parents=True, exist_ok=True)
    target = int(megabytes * 1e6)
    text = (FIXTURES / "wall.austin").read_text()
    head = "".join(line for line in text.splitlines(True) if line.startswith("#"))
    body = "".join(line for line in text.splitlines(True) if not line.startswith("#"))
    paths = {
        "austin": DATA / "readers.austin",
        "mojo": DATA / "readers.mojo",
        "pprof": DATA / "readers.pprof",
        "gecko": DATA / "readers.gecko.json",
    }
    if not paths["austin"].exists():
        paths["austin"].write_text(head + body * (target // len(body) + 1))
    if not paths["mojo"].exists():
        mojo = (FIXTURES / "wall.mojo").read_bytes()
        paths["mojo"].write_bytes(mojo[:4] + mojo[4:] * (target // len(mojo) + 1))  # the header once, then the events again
    if not paths["pprof"].exists():
        _pprof(paths["pprof"], target)
    if not paths["gecko"].exists():
        _gecko(paths["austin"], paths["gecko"], target)
    return {name: path for name, path in paths.items() if path.exists()}


def _pprof(out: Path, target: int) -> None:
    """Many distinct stacks (austin2pprof adds up equal ones, so repeated samples make a small file):
    random paths through 2,000 Python frames, 8 to 40 deep, one sample each, written by our writer, not gzipped."""
    import random

    from flamespace.core.vector import FlameGraph
    from flamespace.formats import pprof

    rng = random.Random(1)
    frames = [f"function_{i} (package/module_{i % 150}.py:{rng.randint(1, 900)})" for i in range(2000)]
    values = {}
    while len(values) * 50 < target:
        values[tuple(rng.choice(frames) for _ in range(rng.randint(8, 40)))] = rng.randint(1, 10_000)
    out.write_bytes(pprof.encode(FlameGraph(values, unit="ns", metric="cpu")))


def _gecko(austin: Path, out: Path, target: int) -> None:
    """The Austin samples as a flame chart (time from each sample's metric), written by our gecko writer."""
    from flamespace.core.chart import FlameChart
    from flamespace.core.metadata import Metadata
    from flamespace.core.python_frames import PythonFrames
    from flamespace.formats import austin as austin_format
    from flamespace.formats import registry

    names = PythonFrames()
    rows = []
    for line in austin.read_text().splitlines():
        if line.startswith("P"):
            stack, _, metric = line.rpartition(" ")
            parts = stack.split(";")
            frames = tuple(austin_format._text_frame(frame, names) for frame in parts[2:])
            if frames:
                rows.append((parts[1], frames, int(metric)))
    chart = FlameChart(Metadata(unit="us"))
    now = 0
    while True:
        for thread, frames, metric in rows:
            now += metric * 1000
            chart.append(now, thread, frames, metric)
        registry.write(chart, str(out), "gecko")
        if out.stat().st_size >= target:
            return


def timed(command: list[str], repeat: int) -> float | None:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if done.returncode:
            return None
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--mb", type=float, default=4.0)
    args = parser.parse_args()
    paths = build(args.mb)
    python = sys.executable
    read = "import sys; from flamespace.formats import registry; registry.read(sys.argv[1])"
    sink = str(DATA / "peer.out")
    peers = {
        "austin": ["austin2speedscope", str(paths["austin"]), sink] if shutil.which("austin2speedscope") else None,
        "mojo": ["mojo2austin", str(paths["mojo"]), sink] if shutil.which("mojo2austin") else None,
        "pprof": [
            python,
            "-c",
            "import sys; sys.path.insert(0, sys.argv[2]); from tests.formats._profile_proto import profile_class;"
            " profile_class()().ParseFromString(open(sys.argv[1], 'rb').read())",
            str(paths.get("pprof")),
            str(HERE.parent),
        ],
        "gecko": [python, "-c", "import json, sys; json.load(open(sys.argv[1]))", str(paths["gecko"])],
    }
    print(f"python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}, median of {args.repeat}")
    print(f"{'input':8} {'MB':>6} {'ours s':>8} {'MB/s':>7}   {'peer':18} {'peer s':>8} {'MB/s':>7}")
    for name, path in paths.items():
        size = path.stat().st_size / 1e6
        ours = timed([python, "-c", read, str(path)], args.repeat)
        peer = peers.get(name)
        theirs = timed(peer, args.repeat) if peer else None
        peer_name = {"austin": "austin2speedscope", "mojo": "mojo2austin", "pprof": "protobuf decode", "gecko": "json.load"}[name]
        line = f"{name:8} {size:6.2f} {ours or float('nan'):8.2f} {size / ours if ours else float('nan'):7.1f}"
        if theirs:
            line += f"   {peer_name:18} {theirs:8.2f} {size / theirs:7.1f}"
        print(line)


if __name__ == "__main__":
    main()
