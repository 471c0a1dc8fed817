"""Reading long traces back: the whole `flamespace convert X -o X.folded` and `flamespace html
--flamechart X` of fib(27)'s trace (1.27 million events) as speedscope and as Chrome JSON.

    python benchmarks/bench_chart_read.py [--repeat 5] [--before OLD/src]

The traces are made once with this version's ``flamespace trace``. Each command is a whole
process (start-up, the JSON parsed, the chart built, the output written), interleaved round by
round with the same commands run from ``--before`` (another version's source tree: its ``src``
with the C extensions built, e.g. ``git archive`` of a commit, put first on PYTHONPATH), so
drift and load hit both alike. The table gives medians of wall and CPU time (user + system)
and the median peak RSS of the process; the folded outputs of both versions are checked to be
the same bytes. Speed is checked here, never in unit tests.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _cli import measure_rounds, medians, python_command, pythonpath_first  # benchmarks/: how to run and time the CLI

FIB = "def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)\nfib(27)\n"
TRACES = {"speedscope": "fib27.speedscope.json", "chrome": "fib27.trace.json"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", metavar="SRC", default=None, help="another version's src/ directory, run in the same rounds")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, not {args.repeat}")
    versions: dict[str, str] = {"now": "", **({"before": os.path.abspath(args.before)} if args.before else {})}
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; load before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as out:
        for file in TRACES.values():
            subprocess.run([*python_command(), "trace", "-q", "-o", os.path.join(out, file), "-c", FIB], check=True)
        runs: dict[tuple[str, str, str], list[str]] = {}
        for version in versions:
            for name, file in TRACES.items():
                trace = os.path.join(out, file)
                runs[(version, name, "convert")] = [
                    *python_command(),
                    "convert",
                    trace,
                    "-o",
                    os.path.join(out, f"{version}-{name}.folded"),
                ]
                runs[(version, name, "html --flamechart")] = [
                    *python_command(),
                    "html",
                    "--flamechart",
                    trace,
                    "-o",
                    os.path.join(out, f"{version}-{name}.html"),
                ]
        envs = {version: pythonpath_first(src or None) for version, src in versions.items()}
        found = measure_rounds({key: (argv, envs[key[0]]) for key, argv in runs.items()}, args.repeat)
        sizes = {name: os.path.getsize(os.path.join(out, file)) / 1e6 for name, file in TRACES.items()}
        if "before" in versions:
            for name in TRACES:
                same = Path(out, f"now-{name}.folded").read_bytes() == Path(out, f"before-{name}.folded").read_bytes()
                print(f"{name}: folded output {'the same' if same else 'DIFFERENT'} in both versions")
    print(
        f"\nwhole process, median of {args.repeat} (cpu: user + system; peak: the process's largest RSS); load after: "
        f"{os.getloadavg()[0]:.2f}"
    )
    print(f"  {'trace':11} {'command':18} {'version':8} {'wall s':>7} {'cpu s':>7} {'peak MB':>8} {'/JSON':>6} {'x before':>9}")
    for name in TRACES:
        for command in ("convert", "html --flamechart"):
            for version in versions:
                took, cpu, peak = medians(found[(version, name, command)])
                ratio = ""
                if version == "now" and "before" in versions:
                    ratio = f"{took / medians(found[('before', name, command)]).wall:8.2f}x"
                print(
                    f"  {name:11} {command:18} {version:8} {took:7.2f} {cpu:7.2f} {peak:8.0f} {peak / sizes[name]:5.1f}x {ratio:>9}"
                )
    print(f"  (JSON: speedscope {sizes['speedscope']:.1f} MB, Chrome {sizes['chrome']:.1f} MB)")


if __name__ == "__main__":
    main()
