"""What the guard of `flamespace serve` (tokens and rate limits) costs a request.

    nice -n 10 .venv/bin/python benchmarks/bench_guard.py [--requests 20000] [--repeat 7]

Each configuration runs ``--requests`` requests of the query API through the ASGI application
``GuardMiddleware(app)`` in one event loop, the inner ``app`` answering at once (so what is timed
is the guard and the ASGI calls, not a query); the table gives the median per request over
``--repeat`` rounds (configurations interleaved round by round), and the guard's share: that time
less the same requests to the inner app alone. A real query takes 10-1,000 ms (docs/serve.md,
Performance). The clients: 100 addresses taking turns, so the limiter keeps 100 buckets.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import statistics
import os
import subprocess
import tempfile
import time

from flamespace.workflows.serve.guard import Guard, GuardMiddleware
from flamespace.workflows.serve.ratelimit import Limit
from flamespace.workflows.serve.tokens import TokenFile, parse_tokens

READ = "read-0123456789abcdef00"
#: A server's token file: a few roles' tokens, the read one last (every digest is compared anyway).
TOKENS = "\n".join([f"ingest ingest-{k:016d}" for k in range(4)] + [f"read dash-{k:016d}" for k in range(3)] + [f"read {READ}"])
UNLIMITED = Limit(1e12, 1_000_000_000)  # a limiter that always has a token: its cost, never a refusal


async def inner(scope, receive, send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"{}"})


async def receive() -> dict:
    return {"type": "http.request", "body": b"", "more_body": False}


async def send(message) -> None:
    pass


def scopes(authorization: str | None, n: int) -> list[dict]:
    headers = [(b"host", b"127.0.0.1:4040"), (b"user-agent", b"bench"), (b"accept", b"*/*")]
    if authorization:
        headers.append((b"authorization", authorization.encode()))
    return [
        {"type": "http", "method": "GET", "path": "/api/v1/labels", "headers": headers, "client": (f"10.0.0.{k % 100}", 50000)}
        for k in range(n)
    ]


async def run(app, batch: list[dict]) -> float:
    start = time.perf_counter_ns()
    for scope in batch:
        await app(scope, receive, send)
    return (time.perf_counter_ns() - start) / len(batch)


def token_file() -> TokenFile:
    """The tokens in a private file, as ``serve --token-file`` reads them (looked at again once a second)."""
    path = os.path.join(tempfile.mkdtemp(), "tokens")
    with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write(TOKENS)
    return TokenFile(path)


def configurations() -> dict[str, tuple[object, str | None]]:
    tokens = parse_tokens(TOKENS)
    basic = "Basic " + base64.b64encode(f"dash:{READ}".encode()).decode()
    return {
        "no guard (the inner app alone)": (inner, None),
        "limits only (no --token-file)": (GuardMiddleware(inner, Guard(None, UNLIMITED, UNLIMITED)), None),
        "tokens (Bearer), no limits": (GuardMiddleware(inner, Guard(tokens)), f"Bearer {READ}"),
        "tokens (Bearer) and limits": (GuardMiddleware(inner, Guard(tokens, UNLIMITED, UNLIMITED)), f"Bearer {READ}"),
        "tokens (basic auth) and limits": (GuardMiddleware(inner, Guard(tokens, UNLIMITED, UNLIMITED)), basic),
        "token file (Bearer) and limits: serve's": (
            GuardMiddleware(inner, Guard(token_file(), UNLIMITED, UNLIMITED)),
            f"Bearer {READ}",
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    setups = configurations()
    times: dict[str, list[float]] = {name: [] for name in setups}
    loop = asyncio.new_event_loop()
    for _ in range(args.repeat):
        for name, (app, authorization) in setups.items():
            times[name].append(loop.run_until_complete(run(app, scopes(authorization, args.requests))))
    base = statistics.median(times["no guard (the inner app alone)"])
    print(f"{args.requests:,} requests a round, median of {args.repeat} rounds (spread: lowest-highest round)")
    print(f"  {'configuration':34} {'µs/request':>10} {'guard µs':>9} {'spread µs':>13}")
    for name, values in times.items():
        median = statistics.median(values)
        print(
            f"  {name:34} {median / 1000:10.2f} {(median - base) / 1000:9.2f} {min(values) / 1000:6.2f}-{max(values) / 1000:.2f}"
        )
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
