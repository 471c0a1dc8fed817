"""In-process attach (record --pid --inject, CPython 3.14+): how long until the recorder runs in the target, and how
much the target slows down while it is recorded from inside, from outside, or not at all.

The target repeats a fixed piece of work and prints each round's time (its own clock). Conditions are interleaved
(none, outside, inside, none, ...) so that the machine's load drifts over all of them alike; each window records
for --seconds. The slowdown is the ratio of mean round times, with its standard error from the rounds' spread.

    python benchmarks/bench_inject.py --python /opt/cpython-3.14/bin/python3.14 --rate 100 --seconds 4 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import tempfile
import threading
import time

from _cli import python_command  # benchmarks/: how to run the CLI

TARGET = """
import sys, time

def work():
    total = 0
    for i in range(20000):
        total += i * i
    return total

print("ready", flush=True)
while True:
    start = time.perf_counter()
    work()
    print(time.perf_counter() - start, flush=True)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default="/opt/cpython-3.14/bin/python3.14", help="the target's Python (3.14+)")
    parser.add_argument("--rate", type=float, default=100)
    parser.add_argument("--seconds", type=float, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--starts", type=int, default=10, help="injections timed for the start latency")
    args = parser.parse_args()
    print(f"uptime: {os.popen('uptime').read().strip()}")
    with tempfile.TemporaryDirectory() as directory:
        script = os.path.join(directory, "target.py")
        with open(script, "w") as file:
            file.write(TARGET)
        target = subprocess.Popen([args.python, script], stdout=subprocess.PIPE, text=True)
        try:
            assert target.stdout is not None and target.stdout.readline() == "ready\n"
            rounds = Rounds(target)
            print(
                f"start latency (sys.remote_exec to a running recorder), {args.starts} injections:",
                start_latency(target.pid, args.starts),
            )
            results: dict[str, list[float]] = {"none": [], "outside": [], "inside": []}
            for _ in range(args.repeats):
                for condition in results:
                    results[condition] += window(rounds, target.pid, condition, args, directory)
            report(results, args)
        finally:
            target.kill()
            target.wait()


class Rounds:
    """The round times the target prints, collected by a thread; :meth:`take` returns those since the last call."""

    def __init__(self, target: subprocess.Popen) -> None:
        self.times: list[float] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, args=(target,), daemon=True).start()

    def _read(self, target: subprocess.Popen) -> None:
        for line in target.stdout:  # type: ignore[union-attr]
            with self.lock:
                self.times.append(float(line))

    def take(self) -> list[float]:
        with self.lock:
            taken, self.times = self.times, []
        return taken


def start_latency(pid: int, count: int) -> str:
    from flamespace.collect import SamplerOptions
    from flamespace.collect.remote.inject import InjectedRecorder
    from flamespace.collect.remote.process import attach

    process = attach(pid)
    latencies = []
    for _ in range(count):
        recorder = InjectedRecorder(process, "sampler", SamplerOptions(rate=100).as_dict())
        begin = time.perf_counter()
        recorder.run(0.0)
        latencies.append(recorder.start_seconds if recorder.start_seconds is not None else time.perf_counter() - begin)
    quartiles = statistics.quantiles(latencies, n=4)
    return f"median {statistics.median(latencies) * 1e3:.0f} ms (quartiles {quartiles[0] * 1e3:.0f}-{quartiles[2] * 1e3:.0f} ms)"


def window(rounds: Rounds, pid: int, condition: str, args: argparse.Namespace, directory: str) -> list[float]:
    command = [
        *python_command("main"),
        "record",
        "--pid",
        str(pid),
        "-r",
        str(args.rate),
        "-d",
        "600",
    ]
    command += ["-q", "-o", os.path.join(directory, f"{condition}.folded")]
    if condition == "inside":
        command.append("--inject")
    if condition == "none":
        time.sleep(0.5)
        rounds.take()
        time.sleep(args.seconds)
        return rounds.take()
    threads = len(os.listdir(f"/proc/{pid}/task"))
    recorder = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    if condition == "inside":  # until the recorder runs inside: its sampler's and watcher's threads
        while len(os.listdir(f"/proc/{pid}/task")) < threads + 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    else:  # until the recorder has attached (it maps its reader of other processes then)
        while time.monotonic() < deadline and "_remote." not in open(f"/proc/{recorder.pid}/maps").read():
            time.sleep(0.01)
    time.sleep(0.2)
    rounds.take()
    before, begin = other_threads_cpu(pid), time.monotonic()
    time.sleep(args.seconds)
    taken = rounds.take()
    EXTRA_CPU.setdefault(condition, []).append((other_threads_cpu(pid) - before) / (time.monotonic() - begin))
    recorder.send_signal(signal.SIGINT)
    recorder.wait()
    return taken


#: Per condition, the CPU (s a second) the target's threads other than its main one used in each window: the
#: in-process recorder's own cost (its sampler and watcher threads), which the machine's load does not blur.
EXTRA_CPU: dict[str, list[float]] = {}


def other_threads_cpu(pid: int) -> float:
    """CPU seconds of the target's threads but the main one (those alive now), from the scheduler's own ns count
    (/proc/.../schedstat: the 10 ms ticks of /proc/.../stat are too coarse for a sampler's cost)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        if int(task) == pid:
            continue
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat", "rb") as file:
                total += int(file.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return total / 1e9


def report(results: dict[str, list[float]], args: argparse.Namespace) -> None:
    base = statistics.fmean(results["none"])
    base_se = statistics.stdev(results["none"]) / len(results["none"]) ** 0.5
    print(f"target rounds of fixed work while recorded at {args.rate:g} Hz ({args.repeats} interleaved windows each)")
    print(f"{'condition':<10} {'rounds':>7} {'mean ms':>9} {'slowdown %':>11} {'± s.e.':>7} {'recorder CPU % core':>20}")
    for condition, times in results.items():
        mean = statistics.fmean(times)
        se = statistics.stdev(times) / len(times) ** 0.5
        ratio = mean / base
        ratio_se = ratio * ((se / mean) ** 2 + (base_se / base) ** 2) ** 0.5
        cpu = EXTRA_CPU.get(condition)
        extra = f"{100 * statistics.fmean(cpu):.2f}" if cpu else "0 (none in it)"
        print(
            f"{condition:<10} {len(times):>7} {mean * 1e3:>9.3f} {100 * (ratio - 1):>+11.2f} {100 * ratio_se:>7.2f} {extra:>20}"
        )


if __name__ == "__main__":
    main()
