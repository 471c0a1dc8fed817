"""flamespace serve under load on loopback: pushes per second, and query latency over 1,000 windows.

    python benchmarks/bench_serve.py [--stacks 200] [--pushes 400] [--clients 4] [--servers 1] [--windows 1000]

A ``flamespace serve`` process on a free loopback port; ``--clients`` threads push PushRequests
as pyroscope-io does (protobuf, gzip, one series of one pprof sample of ``--stacks`` stacks, ten
seconds each, labels service_name and region), each on a kept-alive connection, ``--pushes`` in
all: pushes per second from the first send to the last answer (every answer is a 200: the
profile is durably stored), and the server's CPU a push; ``--servers 2`` runs two processes on
the one store, the clients split among them. Then the store is filled to ``--windows`` windows of 20 services
(the pushes above count; at least 80, as the compare query needs two runs a side) and each query of the API is timed, median of ``--repeat``, on the
store as pushed (the writer's parts) and again after ``flamespace store gc`` compacted it.
The profiles: a call tree of Python-like frames (depth 3..30), values of a 100 Hz sampler over
10 s (ns, as pyroscope-io sends them). Prints a table and the machine's load (uptime).
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.parse
from datetime import datetime, timedelta, timezone

from flamespace.core.metadata import Metadata
from flamespace.core.vector import FlameGraph
from flamespace.formats import pprof
from flamespace.formats._protobuf import encode_bytes, encode_int
from flamespace.stats.guards import MIN_RUNS

from _cli import executable  # benchmarks/: the installed flamespace

PUSH = "/push.v1.PusherService/Push"
T0 = datetime(2026, 11, 1, 0, 0, 0, tzinfo=timezone.utc)
#: The services the store is filled with (``--windows`` is split among them).
SERVICES = 20


def stacks(count: int, rng: random.Random) -> list[str]:
    """``count`` distinct stacks of a call tree of Python-like frames."""
    found: set[str] = set()
    frames = [f"f{i} (pkg/mod{i % 37}.py:{10 + i % 200})" for i in range(max(50, count // 3))]
    while len(found) < count:
        depth = rng.randint(3, 30)
        found.add(";".join(["<module> (app.py:1)"] + [frames[int(rng.paretovariate(1.2)) % len(frames)] for _ in range(depth)]))
    return sorted(found)


def window(texts: list[str], start: datetime, rng: random.Random) -> bytes:
    """A gzipped pprof of one 10 s window (100 Hz: 1,000 samples spread over the stacks)."""
    values = {t: 10_000_000 * (1 + int(rng.expovariate(1 / 3))) for t in texts}
    raw = bytearray(pprof.encode(FlameGraph.from_texts(values, metadata=Metadata(unit="ns", metric="cpu"))))
    encode_int(9, int(start.timestamp()) * 10**9, raw)
    encode_int(10, 10 * 10**9, raw)
    return gzip.compress(bytes(raw))


def request(labels: dict[str, str], profile: bytes) -> bytes:
    series = bytearray()
    for name, value in labels.items():
        pair = bytearray()
        encode_bytes(1, name.encode(), pair)
        encode_bytes(2, value.encode(), pair)
        encode_bytes(1, bytes(pair), series)
    sample = bytearray()
    encode_bytes(1, profile, sample)
    encode_bytes(2, bytes(sample), series)
    out = bytearray()
    encode_bytes(1, bytes(series), out)
    return gzip.compress(bytes(out))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(store: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    command = [executable(), "serve", "--store", store, "--port", str(port)]
    command += ["--ingest-limit", "off", "--query-limit", "off"]  # one address is every client here: a load test, not a fleet
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    for _ in range(600):
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return process, port
        except OSError:
            time.sleep(0.1)
    raise SystemExit("flamespace serve did not start")


def push_all(ports: list[int], bodies: list[bytes], clients: int) -> float:
    """Push every body (``clients`` threads, one connection each, to the servers on ``ports`` in
    turn); the seconds it took. Any answer but 200 stops the run."""
    chunks = [bodies[k::clients] for k in range(clients)]
    failures: list[str] = []

    def client(chunk: list[bytes], port: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for body in chunk:
            connection.request("POST", PUSH, body, {"Content-Type": "application/proto", "Content-Encoding": "gzip"})
            answer = connection.getresponse()
            answer.read()
            if answer.status != 200:
                failures.append(f"{answer.status}")
                return

    threads = [threading.Thread(target=client, args=(c, ports[k % len(ports)])) for k, c in enumerate(chunks)]
    began = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.perf_counter() - began
    if failures:
        raise SystemExit(f"pushes failed: {failures[:5]}")
    return took


def process_cpu(pid: int) -> float:
    """The CPU seconds (user + system) process ``pid`` has used, from /proc (0 where there is none)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(port: int, path: str, params: dict[str, str], repeat: int) -> float:
    """The median seconds of a GET (answered 200)."""
    times = []
    for _ in range(repeat):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        began = time.perf_counter()
        connection.request("GET", f"{path}?{urllib.parse.urlencode(params)}")
        answer = connection.getresponse()
        body = answer.read()
        times.append(time.perf_counter() - began)
        if answer.status != 200:
            raise SystemExit(f"{path} {params}: {answer.status} {body[:300]!r}")
    return statistics.median(times)


def queries(per_service: int) -> list[tuple[str, str, dict[str, str]]]:
    """The queries timed, over a store of ``per_service`` windows of each of 20 services."""
    half = per_service // 2
    until = (T0 + timedelta(seconds=10 * (half - 1))).replace(tzinfo=None).isoformat()
    since = (T0 + timedelta(seconds=10 * half)).replace(tzinfo=None).isoformat()
    return [
        ("label names", "/api/v1/labels", {}),
        ("values of service_name", "/api/v1/labels/service_name/values", {}),
        ("windows of a service", "/api/v1/windows", {"selector": "service_name=svc0"}),
        (f"merge: a service, {per_service} windows", "/api/v1/merge", {"selector": "service_name=svc0"}),
        (f"merge: all {20 * per_service:,} windows", "/api/v1/merge", {"format": "folded"}),
        (
            f"compare: {half} + {per_service - half} windows",
            "/api/v1/compare",
            {
                "baseline_selector": "service_name=svc0",
                "baseline_until": until,
                "candidate_selector": "service_name=svc0",
                "candidate_from": since,
            },
        ),
        ("history: a service by window, top 5", "/api/v1/history", {"selector": "service_name=svc0", "top": "5"}),
    ]


def refuse_impossible(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """One line for options the run cannot use: counts below 1, and fewer windows than the compare
    query needs (MIN_RUNS on each side of its split, for each of the services)."""
    for name in ("stacks", "pushes", "clients", "servers", "repeat"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, not {getattr(args, name)}")
    least = 2 * MIN_RUNS * SERVICES
    if args.windows < least:
        parser.error(
            f"--windows {args.windows}: give at least {least}: the compare query splits a service's windows "
            f"in two halves of at least {MIN_RUNS} runs each, and there are {SERVICES} services"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stacks", type=int, default=200)
    parser.add_argument("--pushes", type=int, default=400)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--servers", type=int, default=1, help="serve processes on the one store, the clients split among them")
    parser.add_argument("--windows", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    refuse_impossible(parser, args)
    rng = random.Random(args.seed)
    shapes = [stacks(args.stacks, rng) for _ in range(SERVICES)]
    per_service = args.windows // SERVICES
    total = SERVICES * per_service

    def body(k: int) -> bytes:
        service, slot = k % SERVICES, k // SERVICES
        start = T0 + timedelta(seconds=10 * slot)
        return request({"service_name": f"svc{service}", "region": "eu"}, window(shapes[service], start, rng))

    first = [body(k) for k in range(min(args.pushes, total))]
    rest = [body(k) for k in range(len(first), total)]
    sizes = sorted(len(b) for b in first)
    with tempfile.TemporaryDirectory() as directory:
        store = os.path.join(directory, "store")
        servers = [start_server(store) for _ in range(args.servers)]
        port = servers[0][1]
        try:
            cpu_before = sum(process_cpu(process.pid) for process, _ in servers)
            took = push_all([p for _, p in servers], first, args.clients)
            cpu = sum(process_cpu(process.pid) for process, _ in servers) - cpu_before
            push_all([port], rest, args.clients)
            parts = len(json.load(open(os.path.join(store, "MANIFEST.json")))["parts"])
            rows = [(name, timed(port, path, params, args.repeat)) for name, path, params in queries(per_service)]
            subprocess.run(
                [executable(), "store", "gc", "--store", store],
                check=True,
                capture_output=True,
            )
            compacted = [(name, timed(port, path, params, args.repeat)) for name, path, params in queries(per_service)]
        finally:
            for process, _ in servers:
                process.send_signal(signal.SIGTERM)
            for process, _ in servers:
                process.wait(timeout=120)
    print(
        f"ingest: {len(first)} pushes of {args.stacks} stacks ({sizes[len(sizes) // 2]:,} bytes gzipped, median), "
        f"{args.clients} clients, {args.servers} server{'s' if args.servers > 1 else ''}: {len(first) / took:.0f} pushes/s ({took:.1f} s); the server's CPU "
        f"{cpu / len(first) * 1000:.2f} ms a push ({cpu / took:.2f} cores)"
    )
    print(f"store of {total} windows ({SERVICES} services) in {parts} parts as pushed; queries, median of {args.repeat}:")
    print(f"  {'query':40} {'as pushed':>10} {'after gc':>10}")
    for (name, before), (_, after) in zip(rows, compacted):
        print(f"  {name:40} {before * 1000:8.0f} ms {after * 1000:8.0f} ms")
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
