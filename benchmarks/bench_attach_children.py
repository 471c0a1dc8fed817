"""The cost of ``record --pid --subprocesses``: the profiler's CPU with 0 and with N Python children at one rate.

    python benchmarks/bench_attach_children.py [--seconds 5] [--rate 100] [--children 0 4] [--repeats 3] [--python PATH]

The target (``--python``, default pyenv's 3.12) starts N children of its own Python, each sleeping in a
Python function (so each tick reads one thread's Python stack in each of them, and they take no CPU from the
profiler on a 2-core machine), then waits. ``flamespace record --pid --subprocesses`` records it for
``--seconds`` (wall mode, ``--rate``); its CPU time (user + system, from wait4) over the run is reported as a
share of one core, mean ± standard deviation over ``--repeats`` runs, and the time one scan for children takes
(``collect/remote/family.descendants``, once every 0.1 s). ``uptime``'s load is printed first.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import textwrap
import time
from pathlib import Path

from _cli import python_command  # benchmarks/: how to run the CLI

TARGET = textwrap.dedent("""
    import subprocess, sys, time

    CHILD = "import time\\ndef nap():\\n    time.sleep(3600)\\nnap()\\n"
    children = [subprocess.Popen([sys.executable, "-c", CHILD]) for _ in range(int(sys.argv[1]))]
    print("ready", flush=True)
    try:
        sys.stdin.readline()
    finally:
        for child in children:
            child.kill()
            child.wait()
""")


def profiler_cpu(pid: int, seconds: float, rate: float) -> float:
    """The CPU share of one core that ``record --pid PID --subprocesses`` used over ``seconds``."""
    command = [
        *python_command("main"),
        "record",
        "--pid",
        str(pid),
        "--subprocesses",
        "-q",
    ]
    command += [
        "-d",
        str(seconds),
        "--rate",
        str(rate),
        "-o",
        os.path.join(os.environ.get("TMPDIR", "/tmp"), "bench_children.folded"),
    ]
    start = time.perf_counter()
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    _pid, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"record --pid failed: {process.stderr.read() if process.stderr else ''}")
    return (usage.ru_utime + usage.ru_stime) / elapsed


def scan_ms(pid: int, times: int = 200) -> float:
    """The mean time (ms) of one scan for ``pid``'s descendants."""
    from flamespace.collect.remote.family import descendants

    start = time.perf_counter()
    for _ in range(times):
        descendants(pid)
    return (time.perf_counter() - start) / times * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--children", type=int, nargs="+", default=[0, 4])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--python", default=str(Path.home() / ".pyenv/versions/3.12.1/bin/python"))
    args = parser.parse_args()
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    for count in args.children:
        target = subprocess.Popen(
            [args.python, "-c", TARGET, str(count)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        try:
            assert target.stdout is not None and target.stdout.readline() == "ready\n"
            time.sleep(0.5)  # the children's interpreters up
            shares = [profiler_cpu(target.pid, args.seconds, args.rate) for _ in range(args.repeats)]
            spread = statistics.stdev(shares) if len(shares) > 1 else 0.0
            print(
                f"{count} children, {args.rate:g} Hz: profiler CPU {statistics.mean(shares) * 100:.1f}% ± {spread * 100:.1f}% "
                f"of a core ({args.repeats} runs of {args.seconds:g} s); one scan {scan_ms(target.pid):.3f} ms"
            )
        finally:
            if target.stdin is not None:
                target.stdin.close()
            target.wait()


if __name__ == "__main__":
    main()
