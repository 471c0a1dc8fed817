"""Long inputs that once took time quadratic in their length (issue 24, item 5), whole processes.

    python benchmarks/bench_long_inputs.py [--timeout 300] [--max-memory-mb 4000] [--cases a,b]
        [--flamespace "CMD"]

Writes (under benchmarks/.data/) each input once, then runs flamespace on it as a fresh process
with its output sent to /dev/null and reports wall time and peak RSS (bench_deep.run: a child
gets ``--timeout`` seconds and an address-space limit, and one that hits either is reported as
such). The cases:

- ``folded-line``: one folded line of 40 MB (20 million frames), ``convert --to folded``;
- ``folded-2gb-gzip``: a gzip of about 2 MB holding one line of 2 GB: refused at the line
  limit (128 MiB, formats/_io.py), so exit 1 is the expected result (timed; any other is not);
  ``perf-2gb-gzip``: the same for perf script text (a stack line of 2 GB);
- ``text``/``svg``/``html``: two stacks 100,000 frames deep that share all but their leaf;
  ``html-diff``: the comparison page of that profile with itself;
- ``faulthandler``: one faulthandler traceback 100,000 frames deep, ``convert --to folded``;
- ``top``: ``top`` of a profile with one frame name of 10 MB.

``--flamespace`` runs another flamespace (e.g. an older checkout, to measure "before"):
``--flamespace "env PYTHONPATH=/old/src python -c 'import sys; from flamespace.cli import main; sys.exit(main())'"``.
Speed is measured here, never by timed unit tests.
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import shlex
from pathlib import Path
from typing import Callable

# bench_deep's child runner: a timeout, a memory limit, figures from wait4
from bench_deep import DATA, run
from _cli import executable  # the installed flamespace

DEPTH = 100_000


def _write_once(name: str, write: Callable[[Path], None]) -> Path:
    path = DATA / name
    if not path.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(path.suffix + ".part")
        write(partial)
        partial.rename(path)
    return path


def long_line(path: Path) -> None:
    """One line of 40 MB: 20 million frames ``a``, then a short line."""
    path.write_bytes(b"a;" * 20_000_000 + b"leaf 1\nmain 2\n")


def two_gb_line_gzip(path: Path, head: bytes = b"", tail: bytes = b"leaf 1\n") -> None:
    """A gzip (about 2 MB) of ``head`` and one line of 2 GB, written a chunk at a time."""
    block = b"a;" * (1 << 22)  # 8 MiB
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.write(head)
        for _ in range((2 << 30) // len(block)):
            out.write(block)
        out.write(tail)


def perf_two_gb_line_gzip(path: Path) -> None:
    """perf script text: a sample whose stack line is 2 GB long, gzipped."""
    two_gb_line_gzip(path, b"app 100 [000] 10857.100000: 1 cycles:\n\tffffffff821f8b58 ", b" ([kernel.kallsyms])\n\n")


def deep_pair(path: Path) -> None:
    """Two stacks ``DEPTH`` frames deep that share all but their leaf."""
    shared = ";".join(f"function_{i} (module_{i % 97}.py:{i})" for i in range(DEPTH))
    path.write_text(f"{shared};leaf_a 1000\n{shared};leaf_b 10\n")


def deep_faulthandler(path: Path) -> None:
    """One faulthandler traceback ``DEPTH`` frames deep."""
    frames = "".join(f'  File "/app/module_{i % 97}.py", line {i} in function_{i}\n' for i in range(DEPTH))
    path.write_text(f"Thread 0x00007f0000000001 (most recent call first):\n{frames}\n")


def long_name(path: Path) -> None:
    """A profile with one frame name of 10 MB."""
    path.write_text(f"main;{'x' * 10_000_000} (app.py:12) 5\nmain;parse (app.py:3) 3\n")


#: case -> (input name, how to write it, the command's arguments before the input, the exit code expected)
CASES: dict[str, tuple[str, Callable[[Path], None], list[str], int]] = {
    "folded-line": ("long-line.folded", long_line, ["convert", "--to", "folded"], 0),
    "folded-2gb-gzip": ("line-2gb.folded.gz", two_gb_line_gzip, ["convert", "--to", "folded"], 1),
    "perf-2gb-gzip": ("line-2gb.perf.gz", perf_two_gb_line_gzip, ["convert", "--from", "perf", "--to", "folded"], 1),
    "text": ("deep-pair.folded", deep_pair, ["text", "--threshold", "0"], 0),
    "svg": ("deep-pair.folded", deep_pair, ["svg"], 0),
    "html": ("deep-pair.folded", deep_pair, ["html", "-o", os.devnull], 0),
    "html-diff": ("deep-pair.folded", deep_pair, ["html", "-o", os.devnull, "--diff", str(DATA / "deep-pair.folded")], 0),
    "faulthandler": ("deep.faulthandler", deep_faulthandler, ["convert", "--from", "faulthandler", "--to", "folded"], 0),
    "top": ("long-name.folded", long_name, ["top"], 0),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds each command may take")
    parser.add_argument("--max-memory-mb", type=int, default=4000, help="address-space limit of each command")
    parser.add_argument("--cases", default=",".join(CASES), help=f"which of {', '.join(CASES)} to run")
    parser.add_argument(
        "--flamespace",
        help="the command that runs flamespace (default: this environment's)",
    )
    args = parser.parse_args()
    command = shlex.split(args.flamespace) if args.flamespace else [executable()]
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"load before: {os.getloadavg()[0]:.2f}"
    )
    print("| case | input | command | wall s | peak RSS MB | status | load |\n|---|---:|---|---:|---:|---|---:|")
    for name in args.cases.split(","):
        file_name, write, arguments, expected = CASES[name]
        path = _write_once(file_name, write)
        seconds, rss, status = run([*command, *arguments, str(path)], args.timeout, args.max_memory_mb * 1024 * 1024, expected)
        shown = f"{seconds:.2f}" if seconds is not None else "-"
        size = path.stat().st_size / 1e6
        print(
            f"| {name} | {size:.1f} MB | flamespace {' '.join(arguments)} | {shown} | {rss:.0f} | {status} | "
            f"{os.getloadavg()[0]:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
