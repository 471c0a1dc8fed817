"""The agent's overhead beside `record`'s and no profiler, quiet and under CPU load, and what one
push costs.

    nice -n 10 .venv/bin/python benchmarks/bench_agent.py [--repeat 7] [--hogs 2] [--window 1]

Overhead: bench_overhead.py's workloads (``cpu``: one thread; ``threads``: four), each timing
its own work (start-up excluded), every configuration in a fresh process, interleaved round by
round; medians and the slowdown against no profiler. The agent pushes every ``--window`` seconds
(1 s: ten times as often as its default, so the pushes' share shows) to a server in this process
that accepts everything. ``--hogs N`` runs the whole table again with N busy-looping processes.

Push cost: a window of 2,000 stacks (a busy service's 10 s) encoded as a Connect push (pprof +
gzip) and sent to that server: the median over 50 pushes of the CPU time it takes the pushing
thread, and the body's size.
"""

from __future__ import annotations

import argparse
import http.server
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_overhead import WORKLOAD  # noqa: E402
from _cli import executable  # noqa: E402  (the installed flamespace)

#: bench_overhead's workload, also printing the CPU time of the whole process during the work
#: (every thread: the program's, the sampler's and the pusher's): on a shared machine whose load
#: swings, CPU time shows a profiler's cost where the wall time mostly shows the neighbours.
TIMED = WORKLOAD.replace(
    "def main(kind):\n    start = time.perf_counter()",
    "def main(kind):\n    cpu = time.process_time()\n    start = time.perf_counter()",
).replace(
    'print(f"WORK {time.perf_counter() - start:.6f}", file=sys.stderr)',
    'print(f"WORK {time.perf_counter() - start:.6f} {time.process_time() - cpu:.6f}", file=sys.stderr)',
)
assert TIMED.count("process_time") == 2


def work_seconds(command: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of the work, as the workload printed them."""
    result = subprocess.run(command, capture_output=True, text=True)
    for line in result.stderr.splitlines():
        if line.startswith("WORK "):
            wall, cpu = line.split()[1:3]
            return float(wall), float(cpu)
    raise RuntimeError(f"{' '.join(command[:4])}... printed no timing (exit {result.returncode}): {result.stderr[-500:]}")


class Sink(http.server.BaseHTTPRequestHandler):
    """Accepts every push (counts them)."""

    pushes = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        Sink.pushes += 1
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def configurations(url: str, window: float, tmp: Path) -> dict[str, list[str]]:
    flamespace, python = executable(), sys.executable
    agent = [flamespace, "agent", "-q", "--server", url, "--window", str(window), "--rate", "100"]
    return {
        "none": [python],
        "record wall 100 Hz": [flamespace, "record", "-q", "--rate", "100", "-o", str(tmp / "w.folded"), "--"],
        "record cpu 100 Hz": [flamespace, "record", "-q", "--mode", "cpu", "--rate", "100", "-o", str(tmp / "c.folded"), "--"],
        "agent cpu 100 Hz": [*agent, "--mode", "cpu", "--"],
        "agent wall 100 Hz": [*agent, "--mode", "wall", "--"],
    }


def overhead(repeat: int, window: float, url: str, tmp: Path, title: str) -> None:
    script = tmp / "workload.py"
    script.write_text(TIMED)
    configs = configurations(url, window, tmp)
    for kind in ("cpu", "threads"):
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in configs}
        for _ in range(repeat):
            for name, prefix in configs.items():
                times[name].append(work_seconds([*prefix, str(script), kind]))
        print(f"\n{title}, workload '{kind}' (median of {repeat}; the work only; spread = (max-min)/median):")
        print(f"  {'configuration':<20} {'wall s':>7} {'slowdown':>9} {'spread':>7} {'CPU s':>7} {'extra':>7} {'spread':>7}")
        base = [statistics.median(v[i] for v in times["none"]) for i in (0, 1)]
        for name, values in times.items():
            cells = []
            for i in (0, 1):
                column = [v[i] for v in values]
                median = statistics.median(column)
                spread = (max(column) - min(column)) / median
                cells.append(f"{median:7.3f} {100 * (median / base[i] - 1):+8.1f}% {100 * spread:6.1f}%")
            print(f"  {name:<20} {cells[0]} {cells[1]}")


def push_cost(url: str, tmp: Path) -> None:
    """CPU time of encoding and sending one window of a real profile, in this process."""
    from flamespace.collect.agent import Agent, AgentOptions, Window
    from flamespace.collect.push import requests_of, send
    import random

    rng = random.Random(1)
    frames = [f"function_{i} (module_{i % 40}.py:{10 + i})" for i in range(400)]
    totals = {tuple(rng.choice(frames) for _ in range(rng.randint(5, 40))): rng.randint(1, 10**7) for _ in range(2000)}
    agent = Agent(AgentOptions(url, {"service_name": "bench"}, mode="cpu"))
    window = Window(time.time_ns(), time.time_ns() + 10**10, {(): totals})
    series = [agent._series(labels, table) for labels, table in window.tables.items()]
    encode, whole, size = [], [], 0
    for _ in range(50):
        start = time.thread_time()
        (request,) = requests_of("connect", series, window.start_ns, window.end_ns, 100.0)
        encoded = time.thread_time()
        send(url, request, 10.0)
        encode.append(encoded - start)
        whole.append(time.thread_time() - start)
        size = len(request.body)
    print(f"\nPush cost: one window of {len(totals):,} stacks (5-40 frames of 400 functions), a Connect push")
    print(
        f"  encode (pprof + gzip): {1000 * statistics.median(encode):.2f} ms CPU; with the HTTP request: {1000 * statistics.median(whole):.2f} ms CPU; body {size / 1024:.1f} KiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--hogs", type=int, default=2, help="busy processes for the loaded table (0: no loaded table)")
    parser.add_argument("--window", type=float, default=1.0)
    args = parser.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    print(
        f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; Python {sys.version.split()[0]}; {os.cpu_count()} CPUs"
    )
    with tempfile.TemporaryDirectory() as directory:
        tmp = Path(directory)
        overhead(args.repeat, args.window, url, tmp, "Quiet")
        if args.hogs:
            hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.hogs)]
            try:
                overhead(args.repeat, args.window, url, tmp, f"Loaded ({args.hogs} busy processes)")
            finally:
                for hog in hogs:
                    hog.kill()
                    hog.wait()
        push_cost(url, tmp)
    print(f"\npushes received: {Sink.pushes}; load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    server.shutdown()


if __name__ == "__main__":
    main()
