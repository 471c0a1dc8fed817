"""Small inputs that describe huge profiles: peak memory of `flamespace convert` on each, whole processes.

    python benchmarks/bench_small_inputs.py [--depth 100000] [--folded-mb 100] [--max-memory-mb 3000]

Writes (under benchmarks/.data/small-inputs/) the inputs of issue 24's item 4 and converts each
to folded as a fresh process under an address-space limit, reporting exit status, wall time
and peak RSS (from wait4: bench_deep.run). Before the limits of formats/_limits.py, each of the
first eight reached the limit (exit 2, MemoryError); now each reads in linear memory or stops
with exit 1 naming the limit. The last converts a folded file of distinct stacks, where the
peak is about 1.8 times the file (docs/robustness.md, "Small inputs, bounded memory", has the
figures).
"""

from __future__ import annotations

import argparse
import gzip
import json
import marshal
import os
import platform
import random
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from bench_deep import DATA, run
from _cli import executable  # the installed flamespace

if TYPE_CHECKING:
    import flamespace as fs

HERE = DATA / "small-inputs"


def pstats_layers(path: Path, depth: int) -> None:
    """200 layers of two functions, each calling both of the next: 2**200 paths in 55 KB."""
    stats = {}
    for layer in range(200):
        for k in range(2):
            callers = (
                {("m.py", 2 * (layer - 1) + j + 1, f"f{layer - 1}_{j}"): (1, 1, 0.001, 0.001 * (200 - layer)) for j in range(2)}
                if layer
                else {}
            )
            stats[("m.py", 2 * layer + k + 1, f"f{layer}_{k}")] = (2, 2, 0.001, 0.002 * (200 - layer), callers)
    path.write_bytes(marshal.dumps(stats))


def pstats_long_integer(path: Path, depth: int) -> None:
    path.write_bytes(marshal.dumps({("m.py", 1, "f"): (1, 10**50000, 0.1, 0.1, {})}))


def speedscope_gzip(path: Path, depth: int) -> None:
    """10 million open and close events (600 MB of JSON) in 1.7 MB."""
    head = (
        '{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"}]},'
        '"profiles":[{"type":"evented","name":"t","unit":"none","startValue":0,"endValue":1,"events":['
    )
    pair = '{"type":"O","frame":0,"at":0},{"type":"C","frame":0,"at":0}'
    with gzip.open(path, "wt", compresslevel=9) as out:
        out.write(head)
        for chunk in range(1000):
            out.write(("," if chunk else "") + ",".join([pair] * 10_000))
        out.write("]}]}")


def pprof_gzip(path: Path, depth: int) -> None:
    """37.5 million samples of one location (300 MB of protobuf) in 440 KB."""

    def field(number: int, payload: bytes) -> bytes:
        return bytes([number << 3 | 2, len(payload)]) + payload

    strings = b"".join(field(6, text) for text in (b"", b"samples", b"count", b"f"))
    head = field(1, b"\x08\x01\x10\x02") + field(4, b"\x08\x01" + field(4, b"\x08\x01")) + field(5, b"\x08\x01\x10\x03") + strings
    sample = field(2, field(1, b"\x01") + field(2, b"\x01"))
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.write(head)
        for _ in range(375):
            out.write(sample * 100_000)


def _deep_graph(depth: int) -> fs.FlameGraph:
    import flamespace as fs

    return fs.FlameGraph({tuple(f"f{k}" for k in range(depth)): 5}, unit="ms")


def chrome_deep(path: Path, depth: int) -> None:
    """One stack ``depth`` deep as flamespace writes it (convert --to chrome)."""
    from flamespace.formats import registry

    registry.write(_deep_graph(depth), str(path), "chrome")


def gecko_deep(path: Path, depth: int) -> None:
    from flamespace.formats import registry

    registry.write(_deep_graph(depth), str(path), "gecko")


def _cpuprofile(path: Path, depth: int, samples: list[int]) -> None:
    nodes = [
        {"id": k, "callFrame": {"functionName": f"f{k}", "url": "file:///a.js", "lineNumber": k}, "children": [k + 1]}
        for k in range(1, depth + 1)
    ]
    nodes[-1]["children"] = []
    path.write_text(
        json.dumps(
            {
                "nodes": nodes,
                "startTime": 0,
                "endTime": 10 * len(samples) + 10,
                "samples": samples,
                "timeDeltas": [10] * len(samples),
            }
        )
    )


def cpuprofile_deep(path: Path, depth: int) -> None:
    """A call tree ``depth`` deep, its deepest node sampled."""
    _cpuprofile(path, depth, [depth, depth])


def cpuprofile_every_depth(path: Path, depth: int) -> None:
    """A call tree a fifth of ``depth`` deep, every node sampled: depth**2 / 50 frames of stacks."""
    _cpuprofile(path, depth // 5, list(range(1, depth // 5 + 1)))


INPUTS: dict[str, Callable[[Path, int], None]] = {
    "layers.pstats": pstats_layers,
    "long-integer.pstats": pstats_long_integer,
    "events.speedscope.json.gz": speedscope_gzip,
    "samples.pb.gz": pprof_gzip,
    "deep.trace.json": chrome_deep,
    "deep.gecko.json": gecko_deep,
    "deep.cpuprofile": cpuprofile_deep,
    "every-depth.cpuprofile": cpuprofile_every_depth,
}


def folded_distinct(path: Path, megabytes: int) -> None:
    """Distinct stacks 5-25 deep of 2,000 frame names: nothing is shared between lines."""
    rng = random.Random(1)
    vocabulary = [f"module{m}.function_{k} (pkg/file{m}.py:{k})" for m in range(50) for k in range(40)]
    with open(path, "w") as out:
        size = 0
        while size < megabytes * 1_000_000:
            line = ";".join(rng.choices(vocabulary, k=rng.randrange(5, 25))) + f" {rng.randrange(1, 1000)}\n"
            size += out.write(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=100_000)
    parser.add_argument("--folded-mb", type=int, default=100, help="size of the folded file of distinct stacks")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds each command may take")
    parser.add_argument("--max-memory-mb", type=int, default=3000, help="address-space limit of each command")
    parser.add_argument("--make-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    HERE.mkdir(parents=True, exist_ok=True)
    paths = [HERE / (name if "deep" not in name and "every" not in name else f"{args.depth}-{name}") for name in INPUTS]
    paths.append(HERE / f"distinct-{args.folded_mb}MB.folded")
    if args.make_only:
        for path, make in zip(paths, INPUTS.values()):
            if not path.exists():
                make(path, args.depth)
        if not paths[-1].exists():
            folded_distinct(paths[-1], args.folded_mb)
        return
    # Made by a child: Linux carries a parent's peak RSS over exec into its children's figures.
    subprocess.run(
        [sys.executable, __file__, "--make-only", "--depth", str(args.depth), "--folded-mb", str(args.folded_mb)], check=True
    )
    exe = executable()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"load: {os.getloadavg()[0]:.2f}; address limit {args.max_memory_mb} MB"
    )
    print("| input | size MB | wall s | peak RSS MB | status |\n|---|---:|---:|---:|---|")
    os.chdir(HERE)  # inputs by name: the status line has room for the error's start
    for path in paths:
        seconds, rss, status = run([exe, "convert", path.name, "-o", os.devnull], args.timeout, args.max_memory_mb * 1024 * 1024)
        shown = f"{seconds:.2f}" if seconds is not None else "-"
        status = status.replace("flamespace convert: error: ", "")
        print(f"| {path.name} | {path.stat().st_size / 1e6:.2f} | {shown} | {rss:.0f} | {status} |", flush=True)


if __name__ == "__main__":
    main()
