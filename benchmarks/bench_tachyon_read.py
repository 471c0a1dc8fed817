"""Reading Tachyon captures (CPython 3.15 ``profiling.sampling --binary``): the reader's time, in process.

    python benchmarks/bench_tachyon_read.py [--repeat 21] [--python python3.15]

Inputs: tests/data/tachyon/known.bin (the fixture: 200 samples a second of known.py) and a capture
of the same program at ten times the rate (``-r 2000``), made once under benchmarks/.data/ by
``--python`` (a CPython 3.15: the capture cannot be made without one; it is skipped then). Times
``registry.read`` of each (the flame chart or graph the reader gives, decoding included; no start-up),
and ``read_graph`` (what every command but the chart ones gets). Prints the median and the
fastest of ``--repeat`` runs, and the samples per second of the median.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data"
FIXTURES = HERE.parent / "tests" / "data" / "tachyon"


def inputs(python: str) -> dict[str, Path]:
    """The fixture, and the capture at ten times its rate when a CPython 3.15 can make it."""
    found = {"known.bin": FIXTURES / "known.bin"}
    large = DATA / "tachyon-known-r2000.bin"
    if not large.exists() and shutil.which(python):
        DATA.mkdir(parents=True, exist_ok=True)
        command = [python, "-m", "profiling.sampling", "run", "-r", "2000", "-a", "--binary", "--compression", "none"]
        subprocess.run([*command, "-o", str(large), str(FIXTURES / "known.py")], check=True, capture_output=True)
    if large.exists():
        found["known at -r 2000"] = large
    return found


def timed(function, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--python", default="python3.15", help="a CPython 3.15 to make the larger capture with")
    args = parser.parse_args()
    from flamespace.formats import registry

    print("| capture | bytes | samples | read | read_graph | samples/s (read) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, path in inputs(args.python).items():
        samples = sum(registry.read_graph(path, "tachyon").values())
        read = timed(lambda: registry.read(path, "tachyon"), args.repeat)
        graph = timed(lambda: registry.read_graph(path, "tachyon"), args.repeat)
        median = statistics.median(read)
        print(
            f"| {name} | {path.stat().st_size} | {samples} | {median * 1e3:.2f} ms (fastest {min(read) * 1e3:.2f}) "
            f"| {statistics.median(graph) * 1e3:.2f} ms (fastest {min(graph) * 1e3:.2f}) | {samples / median:,.0f} |"
        )


if __name__ == "__main__":
    main()
