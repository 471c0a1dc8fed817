"""Fuzz campaign: every reader in formats.registry, fed mutated copies of its fixtures.

    nice python benchmarks/fuzz_readers.py [--seconds 120 | --inputs 5000] [--formats chrome gecko]
                                           [--out fuzz-out] [--seed 1] [--memory-gb 2] [--timeout 10]

For each format (each in its own child process, under ``RLIMIT_AS`` of ``--memory-gb``) the
seeds are: what the project's writers write (for formats that have a writer), the seeds the
per-format fuzz tests use (``test_<format>_reader_raises_only_input_errors``), and every file
under tests/data/ and ../shared/peer-fixtures/ that the registry detects as that format. Each
input is one to four mutations of a seed -- truncation, byte flips, inserted bytes, a number
replaced by an out-of-range one (negative, huge, 10**300, 2**64, NaN), a repeated slice, a
splice of two seeds -- sometimes gzipped and damaged again, and is read the way the CLI reads
it (``registry.read``). What an input may end in:

* a profile whose values are positive and below 1e300 (the README's rule), and which, for a format with a writer, its
  own writer writes and its reader reads back (a writer may refuse with our error);
* our input error (:class:`flamespace.errors.FlamespaceError`, exit 1);
* anything else is an internal error (exit 2 in the CLI) -- including MemoryError and a
  reader that takes more than ``--timeout`` seconds: the input is saved under
  ``OUT/<format>/``, minimised (chunks dropped while the same error remains), once per
  distinct error (its type and the innermost flamespace frame).

Each input read is also converted to one writable format picked at random (as ``flamespace
convert`` would) and read back: a writer that writes what its reader refuses is a finding too.

Prints a table (inputs, internal errors, distinct ones, peak memory of the child) and writes it
as JSON to ``OUT/summary.json``. Keep the minimised inputs that found a bug as regression tests:
tests/data/fuzz/<format>/ (run by tests/formats/test_fuzz_regressions.py).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import os
import random
import re
import resource
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_DIRS = [ROOT / "tests" / "data", ROOT.parent / "shared" / "peer-fixtures"]
#: Seeds larger than this are cut to it at a line end (mutating megabytes wastes the time box).
MAX_SEED_BYTES = 64 * 1024
#: Numbers a mutation puts where a number was: each is out of some range the README names.
BAD_NUMBERS = [
    b"-1",
    b"-0.5",
    b"0",
    b"1e999",
    b"1e300",
    b"1e16",
    b"9" * 20,
    b"9" * 400,
    b"1" + b"0" * 300,
    b"18446744073709551616",
    b"9223372036854775808",
    b"-9223372036854775809",
    b"9" * 5000,
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"1e308",
    b"-1e308",
    b"",
    b"x",
    b"true",
    b"null",
    b"1.5",
    b"[]",
    b"{}",
    b'"1"',
]
MUTATIONS = ["truncate", "flip", "insert", "number", "number", "repeat", "splice", "delete"]


class Slow(Exception):
    """The reader ran past --timeout on one input (an internal error: a hang to the user)."""


# ---------------------------------------------------------------------------------------------
# Seeds


def _writer_seeds(format: str) -> list[bytes]:
    """What the format's writer writes of the fuzz tests' flame graph, chart and differential."""
    from tests.formats import test_fuzz

    from flamespace.errors import FlamespaceError
    from flamespace.formats import registry

    if format not in registry.writable_names():
        return []
    written = []
    for profile in (test_fuzz.GRAPH, test_fuzz.CHART, test_fuzz.DIFFERENTIAL):
        try:
            written.append(_written(profile, format))
        except (FlamespaceError, TypeError):
            continue  # a writer that cannot hold this kind of profile
    return written


def _written(profile: object, format: str) -> bytes:
    """The bytes ``flamespace convert --to format`` writes of ``profile`` (through registry.write)."""
    from flamespace.formats import registry

    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"fuzz-readers-{os.getpid()}.out"
    try:
        registry.write(profile, path, format)  # type: ignore[arg-type]
        return path.read_bytes()
    finally:
        path.unlink(missing_ok=True)


def _test_seeds(format: str) -> list[bytes]:
    """The seeds the format's own fuzz test starts from (empty when it has none to share)."""
    if format in ("chrome", "cpuprofile"):
        from tests.formats import test_chrome

        data = test_chrome.DATA
        return (
            [
                (data / "viztracer.json").read_bytes()[:4000].rpartition(b"},")[0] + b"}]}",
                test_chrome._written(test_chrome.CHART).encode(),
            ]
            if format == "chrome"
            else [(data / "node.cpuprofile").read_bytes()]
        )
    if format == "gecko":
        from tests.formats import test_gecko

        return list(test_gecko._seeds())
    if format == "austin":
        from tests.formats import test_austin

        return list(test_austin.SEEDS)
    if format == "pprof":
        from tests.formats import test_pprof

        return list(test_pprof.SEEDS)
    if format == "nytprof":
        from tests.formats import test_nytprof

        return [test_nytprof.CALLS if isinstance(test_nytprof.CALLS, bytes) else test_nytprof.CALLS.encode()]
    if format in ("pstats", "pyspy"):
        from tests.formats import test_python_profilers

        return list(test_python_profilers.PSTATS if format == "pstats" else test_python_profilers.PYSPY)
    if format == "perf":
        from tests.formats import test_perf_fuzz

        return [seed if isinstance(seed, bytes) else seed.encode() for seed in test_perf_fuzz.SEEDS]
    from tests.formats import test_collapse_fuzz

    return test_collapse_fuzz._seeds(format) if format in test_collapse_fuzz.FORMATS else []


def _fixture_seeds(format: str) -> list[bytes]:
    """Files under the fixture directories that the registry detects as ``format`` (or whose directory is named so)."""
    from flamespace.errors import FlamespaceError
    from flamespace.formats import recognition, registry

    seeds = []
    for folder in FIXTURE_DIRS:
        for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
            if (
                not path.is_file()
                or path.suffix in (".expected", ".svg", ".html", ".md", ".py")
                or "fuzz" in path.relative_to(folder).parts
            ):
                continue  # not profiles; or the campaign's own findings (seeds stay the same as they are added)
            head = path.read_bytes()[: recognition.SNIFF_BYTES]
            if head[:2] == b"\x1f\x8b":
                continue  # gzip: the mutations gzip on their own
            try:
                detected = registry.detect(head, str(path)).name
            except (FlamespaceError, OSError):
                detected = None
            if detected == format or path.parent.name == format:
                seeds.append(path.read_bytes())
    return seeds


def _cut(seed: bytes) -> bytes:
    if len(seed) <= MAX_SEED_BYTES:
        return seed
    end = seed.rfind(b"\n", 0, MAX_SEED_BYTES)
    return seed[: end + 1 if end > 0 else MAX_SEED_BYTES]


def seeds(format: str) -> list[bytes]:
    """Every seed of ``format``, cut to MAX_SEED_BYTES, without repeats."""
    found: dict[bytes, None] = {}
    for source in (_writer_seeds, _test_seeds, _fixture_seeds):
        for seed in source(format):
            found.setdefault(_cut(seed), None)
    return list(found)


# ---------------------------------------------------------------------------------------------
# Mutations


def mutate(rng: random.Random, pool: list[bytes]) -> bytes:
    """One to four mutations of a seed from ``pool``; one input in five gzipped and damaged again."""
    data = bytearray(rng.choice(pool))
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(MUTATIONS)
        at = rng.randint(0, len(data))
        if kind == "truncate":
            del data[at:]
        elif kind == "flip" and data:
            data[min(at, len(data) - 1)] = rng.randrange(256)
        elif kind == "insert":
            data[at:at] = rng.choice(
                [
                    bytes(rng.randrange(256) for _ in range(rng.randint(1, 8))),
                    b"{",
                    b"[",
                    b"]",
                    b"}",
                    b'"',
                    b",",
                    b"\n",
                    b";",
                    b"\x00",
                ]
            )
        elif kind == "delete":
            del data[at : at + rng.randint(1, 64)]
        elif kind == "repeat" and data:
            start = rng.randint(0, len(data) - 1)
            piece = data[start : start + rng.randint(1, 256)]
            data[at:at] = piece * rng.randint(1, 64)
        elif kind == "splice":
            other = rng.choice(pool)
            data[at:] = other[rng.randint(0, len(other)) :]
        else:
            numbers = list(re.finditer(rb"-?\d+(\.\d+)?([eE][-+]?\d+)?", bytes(data)))
            if numbers:
                match = rng.choice(numbers)
                data[match.start() : match.end()] = rng.choice(BAD_NUMBERS)
    if rng.randrange(5) == 0:
        data = bytearray(gzip.compress(bytes(data), mtime=0))
        if rng.randrange(2):
            at = rng.randint(0, len(data) - 1)
            if rng.randrange(2):
                del data[at:]
            else:
                data[at] ^= rng.randint(1, 255)
    return bytes(data)


# ---------------------------------------------------------------------------------------------
# Reading one input as the CLI does


def _check_values(profile: object) -> None:
    """What a reader returned is a valid profile: tuples of str, finite positive values."""
    from flamespace.core.chart import FlameChart
    from flamespace.core.differential import Differential
    from flamespace.core.vector import MAX_VALUE

    if isinstance(profile, FlameChart):
        profile = profile.graph()
    sides = [profile.before, profile.after] if isinstance(profile, Differential) else [profile]
    for side in sides:
        for stack, value in side.items():  # type: ignore[attr-defined]
            if not (isinstance(stack, tuple) and all(isinstance(f, str) for f in stack)):
                raise AssertionError(f"stack {stack!r:.80} is not a tuple of str")
            if not 0 < value < MAX_VALUE:
                raise AssertionError(f"value {value!r:.40} of a stack is not positive and below {MAX_VALUE:g} (README)")


def _round_trip(profile: object, format: str, into: str) -> None:
    """What the writer of ``into`` writes of ``profile`` (read as ``format``), its reader reads back
    (or the writer refuses with our error): ``flamespace convert`` then reading its output."""
    from flamespace.errors import FlamespaceError
    from flamespace.formats import registry

    try:
        written = _written(profile, into)
    except FlamespaceError:
        return  # a writer may refuse what it cannot hold, with our error
    try:
        registry.read(io.BytesIO(written), into)
    except FlamespaceError as error:
        raise AssertionError(f"read as {format}, the {into} writer wrote what its reader refuses: {error}") from None


def run_one(data: bytes, format: str, into: str | None = None) -> None:
    """Read ``data`` as ``format`` like the CLI, then write it as ``format`` (if it has a writer)
    and as ``into`` and read that back; our errors are answers, anything else escapes."""
    from flamespace.formats import registry

    profile = registry.read(io.BytesIO(data), format)
    _check_values(profile)
    for target in {format, into or format} & set(registry.writable_names()):
        _round_trip(profile, format, target)


def _is_input_error(error: BaseException) -> bool:
    """What the CLI reports with exit 1: our errors, and the system's (OSError with an errno)."""
    from flamespace.errors import FlamespaceError

    return isinstance(error, FlamespaceError) or (isinstance(error, OSError) and error.errno is not None)


def signature(error: BaseException) -> str:
    """The error's type and the innermost frame in flamespace: one saved input per signature."""
    if isinstance(error, AssertionError):  # a check of this script's: its message up to the first detail
        return f"AssertionError: {str(error).split(':')[0]}"
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if "flamespace" in frame.filename]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    return f"{type(error).__name__} at {where}"


def outcome(data: bytes, format: str, timeout: float, into: str | None = None) -> BaseException | None:
    """None if ``data`` was read or refused as it should be; the internal error otherwise."""
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        run_one(data, format, into)
    except Slow as slow:
        return slow
    except (Exception, RecursionError) as error:  # RecursionError is an Exception; named for the reader
        return None if _is_input_error(error) else error
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return None


def minimise(data: bytes, format: str, wanted: str, timeout: float, into: str | None, budget: float = 20.0) -> bytes:
    """Drop chunks of ``data`` (halves, then smaller) while the same error signature remains, for ``budget`` seconds."""

    def same(candidate: bytes) -> bool:
        error = outcome(candidate, format, timeout, into)
        return error is not None and signature(error) == wanted

    deadline = time.monotonic() + budget
    chunk = max(1, len(data) // 2)
    while chunk >= 1 and time.monotonic() < deadline:
        at, shrunk = 0, False
        while at < len(data) and time.monotonic() < deadline:
            candidate = data[:at] + data[at + chunk :]
            if same(candidate):
                data, shrunk = candidate, True
            else:
                at += chunk
        if not shrunk:
            chunk //= 2
    return data


def _alarm(signum: int, frame: object) -> None:
    raise Slow("the reader ran past the time limit on one input")


def campaign(format: str, seconds: float, inputs: int, seed: int, out: Path, timeout: float) -> dict:
    """Fuzz one format (in this process); the figures for the summary."""
    signal.signal(signal.SIGALRM, _alarm)
    pool = seeds(format)
    result: dict = {"format": format, "seeds": len(pool), "inputs": 0, "internal_errors": 0, "distinct": {}}
    if not pool:
        return result
    rng = random.Random(f"{seed}:{format}")
    from flamespace.formats import registry

    writable = registry.writable_names()
    started = time.monotonic()
    while result["inputs"] < inputs and time.monotonic() - started < seconds:
        data = mutate(rng, pool)
        into = rng.choice(writable)  # what a read input is also converted to, and read back from
        result["inputs"] += 1
        error = outcome(data, format, timeout, into)
        if error is None:
            continue
        result["internal_errors"] += 1
        key = signature(error)
        if key in result["distinct"]:
            result["distinct"][key]["count"] += 1
            continue
        small = minimise(data, format, key, timeout, into)
        name = hashlib.sha1(small).hexdigest()[:12]
        (out / format).mkdir(parents=True, exist_ok=True)
        (out / format / f"{name}.bin").write_bytes(small)
        (out / format / f"{name}.txt").write_text(
            f"{type(error).__name__}: {str(error)[:300]}\n{key}\n(read as {format}, converted to {into})\n"
        )
        result["distinct"][key] = {"count": 1, "file": f"{format}/{name}.bin", "message": str(error)[:200], "bytes": len(small)}
    result["seconds"] = round(time.monotonic() - started, 1)
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return result


# ---------------------------------------------------------------------------------------------
# The campaign over every format, each in a child


def _child(args: argparse.Namespace, format: str) -> dict:
    limit = int(args.memory_gb * 2**30)
    command = [
        sys.executable,
        __file__,
        "--child",
        format,
        "--seconds",
        str(args.seconds),
        "--inputs",
        str(args.inputs),
        "--seed",
        str(args.seed),
        "--out",
        str(args.out),
        "--timeout",
        str(args.timeout),
    ]

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        preexec_fn=cap,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"},
    )
    if done.returncode != 0:
        return {"format": format, "crashed": done.returncode, "stderr": done.stderr[-2000:]}
    result: dict = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _table(results: list[dict]) -> str:
    rows = ["| format | seeds | inputs | internal errors | distinct | peak RSS (MB) |", "|---|---:|---:|---:|---:|---:|"]
    for r in results:
        if "crashed" in r:
            rows.append(f"| {r['format']} | | | child died ({r['crashed']}) | | |")
        else:
            rows.append(
                f"| {r['format']} | {r['seeds']} | {r['inputs']} | {r['internal_errors']} | {len(r['distinct'])} | {r.get('peak_rss_mb', '')} |"
            )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0, help="time a format (default 120)")
    parser.add_argument("--inputs", type=int, default=10**9, help="inputs a format (default: no limit)")
    parser.add_argument("--formats", nargs="*", help="only these formats (default: every one in the registry)")
    parser.add_argument("--out", type=Path, default=Path("fuzz-out"), help="where crashing inputs and summary.json go")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--memory-gb", type=float, default=2.0, help="address-space cap of each format's child (default 2)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds one input may take (default 10)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.out = args.out.resolve()
    sys.path.insert(0, str(ROOT))
    if args.child:
        print(json.dumps(campaign(args.child, args.seconds, args.inputs, args.seed, args.out, args.timeout)))
        return 0
    from flamespace.formats import registry

    args.out.mkdir(parents=True, exist_ok=True)
    results = []
    for format in args.formats or registry.names():
        results.append(_child(args, format))
        print(_table(results[-1:]).splitlines()[-1], flush=True)
        (args.out / "summary.json").write_text(json.dumps(results, indent=1))
    print(_table(results))
    for r in results:
        for key, found in r.get("distinct", {}).items():
            print(f"{r['format']}: {key} x{found['count']}: {found['file']}: {found['message'][:120]}")
        if "crashed" in r:
            print(f"{r['format']}: child died: {r['stderr'][-400:]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
