"""record --pid beside py-spy on one running target: achieved rate, CPU cost, accuracy, under load.

    python benchmarks/bench_attach.py [--seconds 5] [--rates 100 1000] [--hogs 0 2 4] [--python PATH]

The target (started once, with ``--python``, default pyenv's 3.12) alternates two spin functions by
its own clock, ``spin_a`` 30 ms then ``spin_b`` 20 ms, forever, beside a thread that sleeps: the
main thread's wall share of ``spin_a`` is 60% on a quiet machine; under load a preempted spin runs
longer, so the true share of each run is the target's own: it adds up each spin's wall time and
writes the totals on SIGUSR1, read before and after each run. For each load (0, 2, 4 CPU hogs: ``while True:
pass`` processes) and each rate, each profiler records the same target for ``--seconds``:

- ``flamespace record --pid`` (wall mode);
- ``py-spy record`` (default: it stops the target for each sample) and ``py-spy record --nonblocking``
  (reads it running, as flamespace does).

``--tick-cost`` measures instead the CPU time of one tick (every thread's stack read once, names
cached as in a recording) against the target on each Python here: what 1,000 Hz costs, load aside.

Reported per run: the main thread's achieved rate (samples a second: flamespace's ``rate_achieved``;
py-spy's main-thread samples over the duration), the profiler's CPU time as a share of one core
(user + system, from wait4), and the estimated share of ``spin_a`` with its error against 60%
against the target's own share over the run (the sampling error of one run is about
sqrt(p(1-p)/n) for n samples: each run is one draw). ``uptime``'s load is printed first.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from _cli import peer, python_command  # benchmarks/: how to run the CLI

TARGET = textwrap.dedent("""
    import signal, sys, threading, time

    totals = {"a": 0.0, "b": 0.0}

    def report(number, frame):
        with open(sys.argv[1], "a") as out:
            out.write(f"{totals['a']} {totals['b']}\\n")

    def sleeper():
        time.sleep(3600)

    def spin(seconds):
        start = time.perf_counter()
        end = start + seconds
        while time.perf_counter() < end:
            pass
        return time.perf_counter() - start

    def spin_a():
        totals["a"] += spin(0.030)

    def spin_b():
        totals["b"] += spin(0.020)

    def main_loop():
        while True:
            spin_a()
            spin_b()

    signal.signal(signal.SIGUSR1, report)
    threading.Thread(target=sleeper, daemon=True).start()
    main_loop()
""")
HOG = "while True: pass"
#: spin_a's share on a quiet machine; under load the target's own clock says (a spin preempted runs longer).
NOMINAL_SHARE = 0.6


class OwnClock:
    """The target's own totals of spin_a and spin_b (s), written to ``path`` on SIGUSR1."""

    def __init__(self, pid: int, path: Path) -> None:
        self.pid, self.path = pid, path

    def read(self) -> tuple:
        before = len(self.path.read_text().splitlines()) if self.path.exists() else 0
        os.kill(self.pid, signal.SIGUSR1)
        while not self.path.exists() or len(self.path.read_text().splitlines()) == before:
            time.sleep(0.01)
        a, b = self.path.read_text().splitlines()[-1].split()
        return float(a), float(b)


def run_timed(command: list) -> tuple:
    """Run ``command``; its exit code and CPU seconds (user + system) from wait4."""
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    stderr = child.stderr.read().decode() if child.stderr else ""
    if child.returncode != 0:
        raise SystemExit(f"{command[0]} failed ({child.returncode}): {stderr.strip()}")
    return usage.ru_utime + usage.ru_stime


def folded_counts(path: Path) -> dict:
    counts: dict = {}
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        stack, _, value = line.rpartition(" ")
        counts[stack] = counts.get(stack, 0) + float(value)
    return counts


def shares(counts: dict) -> tuple:
    """(samples or ns of the main loop, share of spin_a among spin_a + spin_b)."""
    a = sum(v for s, v in counts.items() if "spin_a" in s)
    b = sum(v for s, v in counts.items() if "spin_b" in s)
    return a + b, (a / (a + b) if a + b else float("nan"))


def flamespace_run(pid: int, rate: int, seconds: float, out: Path) -> dict:
    command = [
        *python_command("main"),
        "record",
        "--pid",
        str(pid),
        "-r",
        str(rate),
        "-d",
        str(seconds),
        "-q",
        "-o",
        str(out),
    ]
    cpu = run_timed(command)
    labels = {}
    for line in out.read_text().splitlines():
        if line.startswith("# ") and ": " in line:
            key, _, value = line[2:].partition(": ")
            labels[key] = value
    _, share = shares(folded_counts(out))
    return {"rate": float(labels["rate_achieved"]), "cpu": cpu / seconds, "share": share}


def pyspy_run(pyspy: str, pid: int, rate: int, seconds: float, out: Path, nonblocking: bool) -> dict:
    command = [pyspy, "record", "--pid", str(pid), "-r", str(rate), "-d", str(int(seconds)), "-f", "raw", "-o", str(out)]
    if nonblocking:
        command.append("--nonblocking")
    cpu = run_timed(command)
    counts = folded_counts(out)
    main = sum(v for s, v in counts.items() if "main_loop" in s)
    _, share = shares(counts)
    return {"rate": main / seconds, "cpu": cpu / seconds, "share": share}


PYTHONS = [
    "3.9.18/bin/python3.9",
    "3.10.13/bin/python3.10",
    "3.11.7/bin/python3.11",
    "3.12.1/bin/python3.12",
    "3.13.0/bin/python3.13",
]


def tick_cost(directory: str, ticks: int = 3000) -> None:
    """CPU µs of one tick on each Python (pyenv's and the system's), median of 5 batches."""
    from flamespace.collect.remote.process import attach
    from flamespace.collect.remote.stacks import StackReader

    script = Path(directory) / "target.py"
    script.write_text(TARGET)
    interpreters = [str(Path.home() / ".pyenv/versions" / p) for p in PYTHONS] + ["/usr/bin/python3.11"]
    print(f"{'python':<40} {'threads':>7} {'frames':>6} {'CPU us/tick':>11}")
    for interpreter in interpreters:
        if not Path(interpreter).exists():
            continue
        target = subprocess.Popen([interpreter, str(script)])
        try:
            time.sleep(2.0)  # past its imports, into its loop
            reader = StackReader(attach(target.pid))
            stacks = reader.threads()
            batches = []
            for _ in range(5):
                start = time.process_time()
                for _ in range(ticks // 5):
                    reader.threads()
                batches.append((time.process_time() - start) / (ticks // 5) * 1e6)
            frames = sum(len(stack.frames) for stack in stacks)
            print(f"{interpreter:<40} {len(stacks):>7} {frames:>6} {sorted(batches)[2]:>11.1f}", flush=True)
        finally:
            target.kill()
            target.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rates", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--hogs", type=int, nargs="+", default=[0, 2, 4])
    parser.add_argument("--python", default=str(Path.home() / ".pyenv/versions/3.12.1/bin/python3.12"))
    parser.add_argument("--tick-cost", action="store_true", help="measure the CPU time of one tick on each Python")
    args = parser.parse_args()
    if args.tick_cost:
        print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
        with tempfile.TemporaryDirectory() as directory:
            tick_cost(directory)
        return
    pyspy = peer("py-spy") or "py-spy"
    print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    print(f"target: {args.python}; {args.seconds:g} s a run; spin_a's share {NOMINAL_SHARE:.0%} on a quiet machine")
    print(
        f"{'hogs':>4} {'rate':>5} {'profiler':<20} {'achieved Hz':>11} {'CPU % core':>10} {'spin_a %':>8} {'true %':>6} "
        f"{'error pts':>9}"
    )
    with tempfile.TemporaryDirectory() as directory:
        script = Path(directory) / "target.py"
        script.write_text(TARGET)
        target = subprocess.Popen([args.python, str(script), str(Path(directory) / "clock.txt")])
        clock = OwnClock(target.pid, Path(directory) / "clock.txt")
        time.sleep(0.5)
        try:
            for hogs in args.hogs:
                load = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(hogs)]
                try:
                    time.sleep(0.5)
                    for rate in args.rates:
                        out = Path(directory) / "out.txt"
                        runs = {
                            "flamespace --pid": lambda: flamespace_run(target.pid, rate, args.seconds, out),
                            "py-spy": lambda: pyspy_run(pyspy, target.pid, rate, args.seconds, out, False),
                            "py-spy --nonblocking": lambda: pyspy_run(pyspy, target.pid, rate, args.seconds, out, True),
                        }
                        for name, run in runs.items():
                            a0, b0 = clock.read()
                            result = run()
                            a1, b1 = clock.read()
                            true = (a1 - a0) / ((a1 - a0) + (b1 - b0))
                            print(
                                f"{hogs:>4} {rate:>5} {name:<20} {result['rate']:>11.0f} {100 * result['cpu']:>10.1f} "
                                f"{100 * result['share']:>8.1f} {100 * true:>6.1f} {100 * (result['share'] - true):>+9.1f}",
                                flush=True,
                            )
                finally:
                    for hog in load:
                        hog.kill()
                        hog.wait()
        finally:
            target.kill()
            target.wait()


if __name__ == "__main__":
    main()
