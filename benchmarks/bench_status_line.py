"""What record's live status line costs the profiled program (issue 13, point 7).

    python benchmarks/bench_status_line.py [--rounds 9] [--rate 1000]

A/B: bench_overhead.py's ``cpu`` workload recorded with ``record_program`` without a watcher
(no status channel: what a pipe gets) and with one (the sampler rewrites its status file 5
times a second; the launcher reads it 4 times a second), interleaved round by round, the
order alternating; the workload times its own work. Then the cost of one status write in
the child (open, pwrite, close), measured alone, times the writes per second.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_overhead import WORKLOAD  # noqa: E402

from flamespace.collect import Program, SamplerOptions, parse_command  # noqa: E402
from flamespace.collect import launcher  # noqa: E402
from flamespace.collect._bootstrap import STATUS_SECONDS, _status_writer  # noqa: E402
from flamespace.collect.raw import Quality  # noqa: E402


#: The process's CPU time (every thread: the sampler's status writes too), start-up included
#: (the same on both sides): less disturbed by other load than the work's wall time.
CPU_LINE = 'print(f"CPU {time.process_time():.6f}", file=sys.stderr)\n'


def work_seconds(script: Path, rate: float, watched: bool, log: Path) -> tuple[float, float]:
    """(the work's wall time, the process's CPU time)."""
    with open(log, "w") as err:
        launcher.record_program(
            Program(parse_command([str(script), "cpu"])),
            SamplerOptions(rate=rate),
            stderr=err,
            progress=(lambda progress: None) if watched else None,
        )
    found = {}
    for line in log.read_text().splitlines():
        if line.startswith(("WORK ", "CPU ")):
            found[line.split()[0]] = float(line.split()[1])
    if len(found) != 2:
        raise RuntimeError(f"the workload printed no timing: {log.read_text()[-500:]}")
    return found["WORK"], found["CPU"]


def summary(name: str, values: list[float]) -> str:
    return f"min {min(values):.3f} s, median {statistics.median(values):.3f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--rate", type=float, default=1000.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-status-") as tmp:
        script = Path(tmp) / "workload.py"
        script.write_text(WORKLOAD + CPU_LINE)
        log = Path(tmp) / "err.txt"
        times: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
        for round_ in range(args.rounds):
            for watched in (False, True) if round_ % 2 == 0 else (True, False):
                times[watched].append(work_seconds(script, args.rate, watched, log))
        print(f"cpu workload at {args.rate:g} Hz, {args.rounds} rounds, interleaved")
        for index, what in ((0, "work wall time"), (1, "process CPU time")):
            without = [t[index] for t in times[False]]
            with_ = [t[index] for t in times[True]]
            ratios = [b / a for a, b in zip(without, with_)]
            print(
                f"  {what}: without status {summary(what, without)}; with {summary(what, with_)}; "
                f"min ratio {min(with_) / min(without):.4f}, median paired ratio {statistics.median(ratios):.4f}"
            )

        status = Path(tmp) / "status"
        status.write_bytes(b"")
        write = _status_writer(str(status))
        quality = Quality()
        count = 20000
        seconds = min(timeit.repeat(lambda: write(quality, 123_456_789), number=count, repeat=5)) / count
        per_second = 1 / STATUS_SECONDS
        print(
            f"one status write: {seconds * 1e6:.1f} µs; {per_second:g} a second: {seconds * per_second * 1e6:.0f} µs of each "
            f"second ({100 * seconds * per_second:.4f}%)"
        )
        print(f"load: {os.getloadavg()}")


if __name__ == "__main__":
    main()
