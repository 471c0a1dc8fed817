"""Deep stacks: `flamespace text`, `svg` and `top` on one stack 100,000 frames deep, whole processes.

    python benchmarks/bench_deep.py [--depth 100000] [--timeout 120] [--max-memory-mb 4000]

Writes (under benchmarks/.data/) a folded file holding one stack of ``--depth`` distinct
frames, then runs each command as a fresh process with its output sent to /dev/null and
reports wall time and peak RSS (from wait4, so each figure is that process's alone). A
renderer that is not linear in the number of frames shows here: `text` once took over 300 s
and 7.3 GB on this input. Each child gets ``--timeout`` seconds and an address-space limit
of ``--max-memory-mb`` (a runaway renderer must not take the shared machine down); a child
that hits either is reported as such, not as a time. Speed is checked here, never by timed
unit tests.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import signal
import subprocess
import time
from pathlib import Path

from _cli import executable  # benchmarks/: the installed flamespace

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data"
COMMANDS = {"text": ["text", "--threshold", "0"], "svg": ["svg"], "top": ["top"]}


def deep_file(depth: int) -> Path:
    """One stack of ``depth`` distinct frames (generated once per depth)."""
    path = DATA / f"deep-{depth}.folded"
    if not path.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        path.write_text(";".join(f"function_{i} (module_{i % 97}.py:{i})" for i in range(depth)) + " 1000\n")
    return path


def run(argv: list[str], timeout: float, max_memory: int, expected: int = 0) -> tuple[float | None, float, str]:
    """(wall seconds or None, peak RSS in MB, status) of one child process; an exit code other
    than ``expected`` gives no time (the status says why)."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (max_memory, max_memory))

    start = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        child = subprocess.Popen(argv, stdout=sink, stderr=subprocess.PIPE, preexec_fn=limit)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            child.send_signal(signal.SIGKILL)
            _, status, usage = os.wait4(child.pid, 0)
            return None, usage.ru_maxrss / 1024, f"killed after {timeout:.0f} s"
        time.sleep(0.02)
    elapsed = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    error = child.stderr.read().decode(errors="replace").strip().splitlines() if child.stderr else []
    if child.returncode:
        status = f"exit {child.returncode}: {error[-1] if error else ''}"[:120]
        return (elapsed if child.returncode == expected else None), usage.ru_maxrss / 1024, status
    return (elapsed if expected == 0 else None), usage.ru_maxrss / 1024, "ok"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=100_000)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds each command may take")
    parser.add_argument("--max-memory-mb", type=int, default=4000, help="address-space limit of each command")
    parser.add_argument("--commands", default="text,svg,top", help="which of text, svg, top to run")
    args = parser.parse_args()
    path = deep_file(args.depth)
    exe = executable()
    print(
        f"input: one stack {args.depth:,} frames deep ({path.stat().st_size / 1e6:.1f} MB); "
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"load: {os.getloadavg()[0]:.2f}"
    )
    print("| command | wall s | peak RSS MB | status |\n|---|---:|---:|---|")
    for name in args.commands.split(","):
        seconds, rss, status = run([exe, *COMMANDS[name], str(path)], args.timeout, args.max_memory_mb * 1024 * 1024)
        shown = f"{seconds:.2f}" if seconds is not None else "-"
        print(f"| flamespace {' '.join(COMMANDS[name])} | {shown} | {rss:.0f} | {status} |", flush=True)


if __name__ == "__main__":
    main()
