"""The target's own slowdown while a profiler is attached: flamespace ``record --pid`` beside py-spy.

    python benchmarks/bench_attach_slowdown.py [--window 4] [--repeats 7] [--rates 100 1000] [--hogs 0]
        [--python PATH] [--pyspy PATH]

The target (``--python``, default pyenv's 3.12) does rounds of fixed pure-Python work forever, 12
frames deep, beside a sleeping thread, and counts its rounds; on SIGUSR1 it writes the count and
its clock. Each window of ``--window`` seconds runs one condition: no profiler, ``flamespace
record --pid -r RATE``, ``py-spy record -r RATE`` (its default stops the target for each sample)
or ``py-spy record --nonblocking``. The profiler is started first and given a second to attach;
only the window after that is counted. Conditions run in a shuffled order in each repeat, so a
drift in the machine falls on all of them alike.

Reported per condition: the median over repeats of the target's rounds a second in that window
over the mean of the same repeat's profiler-free windows, minus one (the slowdown), with the
repeats' range, and the CPU of the profiler (a share of one core). ``uptime`` is printed first and last.
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
import textwrap
import time
from pathlib import Path

from _cli import python_command  # benchmarks/: how to run the CLI

TARGET = textwrap.dedent("""
    import signal, sys, threading, time

    rounds = 0

    def report(number, frame):
        with open(sys.argv[1], "a") as out:
            out.write(f"{rounds} {time.perf_counter()}\\n")

    def nest(depth):
        if depth:
            return nest(depth - 1)
        total = 0
        for i in range(2000):
            total += i * i
        return total

    def main_loop():
        global rounds
        while True:
            nest(10)
            rounds += 1

    signal.signal(signal.SIGUSR1, report)
    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
    main_loop()
""")
HOG = "while True: pass"
ATTACH_SECONDS = 1.0


class Counter:
    """The target's round count and clock, written to ``path`` on SIGUSR1."""

    def __init__(self, pid: int, path: Path) -> None:
        self.pid, self.path = pid, path

    def read(self) -> tuple[int, float]:
        before = len(self.path.read_text().splitlines()) if self.path.exists() else 0
        os.kill(self.pid, signal.SIGUSR1)
        while not self.path.exists() or len(self.path.read_text().splitlines()) == before:
            time.sleep(0.005)
        rounds, clock = self.path.read_text().splitlines()[-1].split()
        return int(rounds), float(clock)


def profiler_command(name: str, pid: int, rate: int, seconds: int, out: Path, pyspy: str) -> list[str]:
    if name == "flamespace":
        return python_command("main") + ["record", "--pid", str(pid), "-r", str(rate), "-d", str(seconds), "-q", "-o", str(out)]
    command = [pyspy, "record", "--pid", str(pid), "-r", str(rate), "-d", str(seconds), "-f", "raw", "-o", str(out)]
    return command + (["--nonblocking"] if name == "py-spy --nonblocking" else [])


def window(counter: Counter, seconds: float, command: list[str] | None) -> tuple[float, float]:
    """(the target's rounds a second over the window, the profiler's CPU as a share of one core)."""
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) if command else None
    time.sleep(ATTACH_SECONDS)
    rounds0, clock0 = counter.read()
    time.sleep(seconds)
    rounds1, clock1 = counter.read()
    cpu = 0.0
    if child is not None:
        _, status, usage = os.wait4(child.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            stderr = child.stderr.read().decode() if child.stderr else ""
            raise SystemExit(f"{command[0] if command else ''} failed: {stderr.strip()}")
        cpu = (usage.ru_utime + usage.ru_stime) / (seconds + 2 * ATTACH_SECONDS)
    return (rounds1 - rounds0) / (clock1 - clock0), cpu


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--window", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--rates", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--hogs", type=int, default=0)
    parser.add_argument("--python", default=str(Path.home() / ".pyenv/versions/3.12.1/bin/python3.12"))
    parser.add_argument("--pyspy", default=str(Path(sys.executable).with_name("py-spy")))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"uptime: {uptime()}")
    print(f"target: {args.python}; {args.hogs} CPU hogs; {args.window} s windows, {args.repeats} repeats")
    shuffle = random.Random(args.seed).shuffle
    profilers = [(name, rate) for rate in args.rates for name in ("flamespace", "py-spy", "py-spy --nonblocking")]
    results: dict[tuple[str, int], list[tuple[float, float]]] = {c: [] for c in [("none", 0), *profilers]}
    with tempfile.TemporaryDirectory() as directory:
        script = Path(directory) / "target.py"
        script.write_text(TARGET)
        hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(args.hogs)]
        target = subprocess.Popen([args.python, str(script), str(Path(directory) / "count.txt")])
        counter = Counter(target.pid, Path(directory) / "count.txt")
        try:
            time.sleep(1.0)
            for _ in range(args.repeats):
                order = [("none", 0), ("none", 0), *profilers]
                shuffle(order)
                baseline: list[float] = []
                measured: list[tuple[tuple[str, int], float, float]] = []
                for name, rate in order:
                    out = Path(directory) / "out.txt"
                    seconds = args.window + 2 * int(ATTACH_SECONDS)
                    command = None if name == "none" else profiler_command(name, target.pid, rate, seconds, out, args.pyspy)
                    speed, cpu = window(counter, args.window, command)
                    (baseline.append(speed) if name == "none" else measured.append(((name, rate), speed, cpu)))
                reference = statistics.fmean(baseline)
                results[("none", 0)].extend((speed / reference - 1, 0.0) for speed in baseline)
                for key, speed, cpu in measured:
                    results[key].append((speed / reference - 1, cpu))
        finally:
            target.kill()
            target.wait()
            for hog in hogs:
                hog.kill()
                hog.wait()
    print(f"{'profiler':<22} {'rate':>5} {'slowdown %':>10} {'range %':>16} {'CPU % core':>10}")
    for (name, rate), values in results.items():
        slow = [-100 * change for change, _ in values]
        cpu = statistics.median(c for _, c in values)
        label = "none (window to window)" if name == "none" else name
        spread = f"{min(slow):+.1f} .. {max(slow):+.1f}"
        print(f"{label:<22} {rate or '':>5} {statistics.median(slow):>+10.2f} {spread:>16} {100 * cpu:>10.1f}")
    print(f"uptime: {uptime()}")


if __name__ == "__main__":
    main()
