"""`flamespace convert` of `perf script` text against FlameGraph's stackcollapse-perf.pl, in one run.

    FLAMEGRAPH_DIR=/path/to/FlameGraph .venv/bin/python benchmarks/bench_convert.py [--repeat 5] [--sizes 100] [--gb]

Inputs: example-perf-stacks (3.1 MB of real `perf script` output, from ../shared/peer-fixtures
or FLAMEGRAPH_DIR), the same with every address made distinct (the worst case for our caches),
and files built by repeating it to ``--sizes`` MB (100 by default; ``--gb`` adds a 1,000 MB
one), under benchmarks/.data/ (never committed). Each task is a whole process,
start-up included, output read and hashed; the two tools alternate, ``--repeat`` times each, and
the table gives median wall time, MB/s, peak RSS (GNU time's %M: the process's own) and the ratio of
flamespace's time to the Perl script's. Both outputs are checked to be the same bytes once per
input (``--no-header``: the Perl script writes no metadata line). Speed is checked here, never
in unit tests.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _cli import executable  # benchmarks/: the installed flamespace

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data"
PEER_FIXTURES = HERE.parents[1] / "shared" / "peer-fixtures"
TIME = "/usr/bin/time"  # GNU time, for the peak RSS of each task


def example(flamegraph: Path) -> Path:
    """example-perf-stacks, unzipped once into benchmarks/.data."""
    target = DATA / "example-perf-stacks.txt"
    if not target.exists():
        for source in (
            PEER_FIXTURES / "flamegraph-examples/example-perf-stacks.txt.gz",
            flamegraph / "example-perf-stacks.txt.gz",
        ):
            if source.exists():
                DATA.mkdir(parents=True, exist_ok=True)
                with gzip.open(source, "rb") as src, open(target, "wb") as out:
                    shutil.copyfileobj(src, out)
                break
        else:
            sys.exit("example-perf-stacks.txt.gz not found (peer fixtures or FLAMEGRAPH_DIR)")
    return target


def distinct(source: Path) -> Path:
    """``source`` with every stack line's address made unique: the worst case for caches of lines
    (a system-wide profile sees one library at other addresses in other processes)."""
    import re

    target = DATA / "example-perf-stacks-distinct.txt"
    if not target.exists():
        count = iter(range(1, 1 << 40))
        text = re.sub(
            r"^(\s+)([0-9a-f]+) ",
            lambda m: f"{m.group(1)}{int(m.group(2), 16) + 16 * next(count):x} ",
            source.read_text(),
            flags=re.M,
        )
        target.write_text(text)
    return target


def repeated(source: Path, megabytes: int) -> Path:
    """``source`` repeated until the file holds ``megabytes`` MB (whole copies: every sample ends with its blank line)."""
    target = DATA / f"perf-{megabytes}mb.txt"
    if not target.exists():
        data = source.read_bytes()
        with open(target, "wb") as out:
            for _ in range(max(1, round(megabytes * 1e6 / len(data)))):
                out.write(data)
    return target


def run(argv: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MB, sha256 of stdout) of one process.

    The peak comes from GNU time (``/usr/bin/time -f %M``), a small process that starts the
    task: a task forked from this Python process would inherit its peak RSS (Linux keeps the
    high-water mark across exec), which wait4 would report instead of the task's own.
    """
    start = time.perf_counter()
    child = subprocess.Popen([TIME, "-f", "%M", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    digest = hashlib.sha256()
    assert child.stdout is not None and child.stderr is not None
    for block in iter(lambda: child.stdout.read(1 << 20), b""):  # type: ignore[union-attr]
        digest.update(block)
    errors = child.stderr.read().decode()
    status = child.wait()
    elapsed = time.perf_counter() - start
    if status != 0:
        sys.exit(f"{' '.join(argv)} failed with status {status}: {errors}")
    return elapsed, int(errors.split()[-1]) / 1024, digest.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="100", help="comma-separated sizes in MB of the repeated inputs")
    parser.add_argument("--gb", action="store_true", help="add a 1,000 MB input")
    args = parser.parse_args()
    flamegraph = Path(os.environ.get("FLAMEGRAPH_DIR", "/tmp/FlameGraph"))
    perl_script = flamegraph / "stackcollapse-perf.pl"
    if not perl_script.exists():
        sys.exit(f"{perl_script} not found: set FLAMEGRAPH_DIR to a checkout of FlameGraph")
    flamespace = executable()
    small = example(flamegraph)
    inputs = [small, distinct(small)] + [repeated(small, int(size)) for size in args.sizes.split(",") if size]
    if args.gb:
        inputs.append(repeated(small, 1000))
    print(
        f"# {platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}; load before: {os.getloadavg()[0]:.2f}"
    )
    print("| input | tool | median s | MB/s | peak RSS MB | ratio to Perl |")
    print("|---|---|---:|---:|---:|---:|")
    for path in inputs:
        size = path.stat().st_size / 1e6
        tools = {
            "stackcollapse-perf.pl": ["perl", str(perl_script), str(path)],
            "flamespace convert": [flamespace, "convert", str(path), "--no-header"],
        }
        times: dict[str, list[float]] = {name: [] for name in tools}
        peaks: dict[str, list[float]] = {name: [] for name in tools}
        digests = set()
        repeat = args.repeat if size < 500 else max(1, min(args.repeat, 3))
        for _ in range(repeat):
            for name, argv in tools.items():  # alternating: a change in load hits both
                elapsed, peak, digest = run(argv)
                times[name].append(elapsed)
                peaks[name].append(peak)
                digests.add(digest)
        if len(digests) != 1:
            sys.exit(f"outputs differ on {path}")
        perl = statistics.median(times["stackcollapse-perf.pl"])
        for name in tools:
            median = statistics.median(times[name])
            print(
                f"| {path.name} ({size:,.0f} MB) | {name} | {median:.3f} | {size / median:,.0f} | "
                f"{max(peaks[name]):,.0f} | {median / perl:.2f} |"
            )
    print(f"# load after: {os.getloadavg()[0]:.2f}; {args.repeat} runs per tool and input (3 at most on inputs over 500 MB)")


if __name__ == "__main__":
    main()
