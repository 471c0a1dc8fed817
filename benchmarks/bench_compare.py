"""`flamespace compare` of 50 + 50 runs × 5,000 stacks, whole processes, beside Perl reading the same files.

    python benchmarks/bench_compare.py [--repeat 5] [--before DIR/src]

Generates (once, under benchmarks/.data/compare-runs/) 100 runs with bench_folded.py's
generator (5,000 stacks each out of 10,000: every stack is in about half of the runs); the
first 50 are the baseline, the last 50 the candidate. Each task is a fresh process, taken in
turn with the others (a, b, c, a, b, c, ...) so that load from other processes falls on all
alike; the table shows medians and peak RSS (wait4). The peer is the Perl one-liner that
only reads the 100 files and sums them per stack (no statistics at all):

    perl -ne '/^(.*) (\\d+)$/ and $h{$1}+=$2; END{print "$_ $h{$_}\\n" for keys %h}'

``--before`` runs the same commands with another checkout's ``src`` first on sys.path (the
code before a change), in the same run. Each ``src`` is byte-compiled first (as an installed
package is), so that no run pays for compiling modules (PYTHONDONTWRITEBYTECODE would
otherwise make every run compile them). CPU time (user + system, wait4) beside wall time:
on a loaded machine it is the steadier measure.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_folded import DATA, measure, shell_task, generate_runs  # noqa: E402
from _cli import compile_package, shell_command  # noqa: E402  (how to run the CLI)

RUNS = DATA / "compare-runs"
PERL = r"""perl -ne '/^(.*) (\d+)$/ and $h{$1}+=$2; END{print "$_ $h{$_}\n" for keys %h}'"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", metavar="SRC", help="also run an older checkout's src (its flamespace package's parent)")
    args = parser.parse_args()
    if not RUNS.exists():
        print("generating the runs ...", file=sys.stderr)
        generate_runs(RUNS, files=100)
    files = sorted(str(p) for p in RUNS.glob("*.folded"))
    baseline, candidate = files[:50], files[50:]
    sides = f"-a {' -a '.join(baseline)} -b {' -b '.join(candidate)}"
    everything = " ".join(files)
    versions: dict[str, str | None] = {"": None}
    if args.before:
        versions[" (before)"] = args.before
    for src in versions.values():
        compile_package(src)
    tasks: dict[str, object] = {"perl: read and sum the 100 files": lambda: shell_task(f"{PERL} {everything} > /dev/null")}
    for label, src in versions.items():
        exe = shell_command(src)
        for method in ("maxt", "welch"):
            tasks[f"flamespace compare -m {method}{label}"] = lambda exe=exe, method=method: shell_task(
                f"{exe} compare -m {method} {sides} > /dev/null; test $? -le 3"
            )
        tasks[f"flamespace compare -m hotelling (refused){label}"] = lambda exe=exe: shell_task(
            f"{exe} compare -m hotelling {sides} > /dev/null 2>&1; test $? -eq 1"
        )
    load = os.getloadavg()
    print(f"100 runs × 5,000 stacks (10,000 distinct); median of {args.repeat}; load {load[0]:.1f}", file=sys.stderr)
    results = measure(tasks, args.repeat)
    perl = results["perl: read and sum the 100 files"]
    print()
    after = os.getloadavg()
    print(
        f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the start, {after[0]:.1f} at the end"
    )
    print()
    print("| task | median s | × Perl | CPU s | × Perl (CPU) | peak RSS MB |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        print(
            f"| {name} | {r['wall']:.2f} | {r['wall'] / perl['wall']:.2f} | {r['cpu']:.2f} | {r['cpu'] / perl['cpu']:.2f} "
            f"| {r['rss_mb']:.0f} |"
        )


if __name__ == "__main__":
    main()
