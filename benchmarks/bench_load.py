"""The recorder's accuracy under CPU load: known-answer programs that time their own phases.

    python benchmarks/bench_load.py [--runs 6] [--hogs 0,2,4] [--rate 1000] [--no-pyspy]
                                    [--samplers default|outside,inside] [--baseline-src OTHER_CHECKOUT/src] [--json FILE]

A program made of phases (a 30 ms sleep in ``sitecustomize``, CPU-bound imports at the top
of the module, a 30 ms sleep after them, a 100 ms busy loop, a 50 ms sleep three calls
deep, a 40 ms loop one call deep) times each phase itself with ``time.perf_counter_ns``
and writes the figures to a side file. Each run is a whole process under ``flamespace
record`` (wall mode; ``--samplers outside,inside``: once with each ``--sampler``, as
``flamespace-outside`` and ``flamespace-inside``) and, beside it, ``py-spy record --idle`` at the same rate (skipped
with a message when py-spy is not installed) and, with ``--baseline-src``, an older
flamespace, taking turns, while 0, 2 or 4 busy-loop processes (hogs, started here and
killed after) compete for the CPUs. For each phase the profile's time (everything under
the phase's function) is compared with the program's own clock: the table gives the median
and the largest absolute error in ms over the runs, the median signed error (the bias),
the achieved sampling rate and flamespace's ``missed_share`` and ``longest_gap_ms``
headers. ``uptime`` is printed beside each load level: on a shared machine "0 hogs" is not
quiet. Results: docs/performance.md, "Accuracy under CPU load".
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _cli import peer, python_command, record_args  # benchmarks/: how to run the CLI and find the peers

SITECUSTOMIZE = r"""
import os, time
with open(os.environ["KNOWN_ANSWER_OUT"], "a") as _f:
    _f.write(f"t_start {time.perf_counter_ns()}\n")  # the program's first line, for py-spy's rate
def phase_site_sleep():
    time.sleep(0.030)
_t = time.perf_counter_ns()
phase_site_sleep()
with open(os.environ["KNOWN_ANSWER_OUT"], "a") as _f:
    _f.write(f"site_sleep {time.perf_counter_ns() - _t}\n")
"""

PROGRAM = r"""
import os, time
T = time.perf_counter_ns
def phase_imports():  # CPU-bound start-up work of a typical program (in a fresh process)
    import asyncio, decimal, email.mime.multipart, json, logging.handlers, urllib.request
_t = T()
phase_imports()
_times = {"imports": T() - _t}
def phase_startup_sleep():
    time.sleep(0.030)
_t = T()
phase_startup_sleep()
_times["startup_sleep"] = T() - _t

def phase_spin(ns):
    end = T() + ns
    while T() < end:
        pass

def inner():
    time.sleep(0.050)
def middle():
    inner()
def phase_nested_sleep():
    middle()

def phase_short_spin(ns):
    phase_spin(ns)

def main():
    for name, call in (("spin", lambda: phase_spin(100_000_000)), ("nested_sleep", phase_nested_sleep),
                       ("short_spin", lambda: phase_short_spin(40_000_000))):
        t = T()
        call()
        _times[name] = T() - t
    with open(os.environ["KNOWN_ANSWER_OUT"], "a") as f:
        for name, ns in _times.items():
            f.write(f"{name} {ns}\n")
        f.write(f"t_end {T()}\n")

main()
"""
#: Issue 26: a run's start-up stack agrees with the program's own clock within this many ms or
#: this share of the phase (whichever is larger) in at least 90% of runs, with 4 hogs on 2 cores.
STARTUP_TOLERANCE_MS, STARTUP_TOLERANCE_SHARE = 5.0, 0.15
# The outermost frame whose function names the phase (short_spin calls phase_spin: first wins).
PHASES = ("site_sleep", "imports", "startup_sleep", "spin", "nested_sleep", "short_spin")


def write_program(tmp: Path) -> tuple[Path, Path]:
    site_dir = tmp / "site"
    site_dir.mkdir(exist_ok=True)
    (site_dir / "sitecustomize.py").write_text(SITECUSTOMIZE)
    program = tmp / "known_phases.py"
    program.write_text(PROGRAM)
    return program, site_dir


def start_hogs(count: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-S", "-c", "while True: pass"]) for _ in range(count)]


def stop_hogs(hogs: list[subprocess.Popen]) -> None:
    for hog in hogs:
        hog.kill()
    for hog in hogs:
        hog.wait()


def uptime() -> str:
    with open("/proc/loadavg") as file:
        return "load average " + " ".join(file.read().split()[:3])


def read_profile(path: Path, scale: float) -> tuple[dict[str, float], dict[str, str]]:
    """ms under each phase's outermost frame, and the ``# key: value`` headers.
    ``scale`` turns a value into ms (1e-6 for ns, 1000/rate for py-spy's sample counts)."""
    times = dict.fromkeys(PHASES, 0.0)
    headers: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            key, _, value = line[1:].partition(":")
            headers[key.strip()] = value.strip()
            continue
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        for frame in stack.split(";"):
            name = frame.split(" (")[0].strip()
            if name.startswith("phase_") and name[6:] in times:
                times[name[6:]] += float(count) * scale
                break
    return times, headers


def own_times(path: Path) -> tuple[dict[str, float], float]:
    """The program's own ms per phase, and from its first line to its last (ms)."""
    result = {}
    for line in path.read_text().splitlines():
        name, ns = line.split()
        result[name] = int(ns) / 1e6
    return {p: result[p] for p in PHASES}, result["t_end"] - result["t_start"]


def run_once(kind: str, rate: float, program: Path, site_dir: Path, tmp: Path, pyspy: str | None, src: str | None):
    """One whole process under one profiler: (phase errors in ms, achieved rate, missed_share,
    longest_gap_ms); the last two are NaN for py-spy.
    ``src``: run flamespace from this source tree instead of the installed one."""
    side = tmp / "times.txt"
    side.unlink(missing_ok=True)
    path = os.pathsep.join([*([src] if src else []), str(site_dir)])
    env = {**os.environ, "KNOWN_ANSWER_OUT": str(side), "PYTHONPATH": path}
    out = tmp / ("out.txt" if kind == "py-spy" else "out.folded")
    if kind == "py-spy":
        command = [pyspy, "record", "--idle", "-r", f"{rate:g}", "-f", "raw", "-o", str(out), "--", sys.executable, str(program)]
    else:
        sampler = kind.partition("-")[2] if kind.startswith("flamespace-") else None
        command = [*python_command("main"), *record_args(rate, out, [str(program)], sampler)]
    out.unlink(missing_ok=True)
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0 or not side.exists() or not out.exists():
        raise RuntimeError(f"{kind} failed (exit {result.returncode}): {result.stderr[-400:]}")
    truth, program_ms = own_times(side)
    # py-spy's raw output counts samples: each stands for one nominal interval, as in its own graphs
    measured, headers = read_profile(out, 1000.0 / rate if kind == "py-spy" else 1e-6)
    errors = {phase: measured[phase] - truth[phase] for phase in PHASES}
    if kind == "py-spy":  # no quality figures: its samples over the program's own run time
        samples = sum(float(line.rpartition(" ")[2]) for line in out.read_text().splitlines() if line.strip())
        return errors, samples / (program_ms / 1e3), float("nan"), float("nan")
    # missed_share and longest_gap_ms are absent before flamespace wrote them
    return (
        errors,
        float(headers.get("rate_achieved", "nan")),
        float(headers.get("missed_share", "nan")),
        float(headers.get("longest_gap_ms", "nan")),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=6, help="runs per profiler and load level")
    parser.add_argument("--hogs", default="0,2,4", help="numbers of busy-loop processes, comma-separated")
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--no-pyspy", action="store_true")
    parser.add_argument(
        "--samplers",
        default="default",
        help="'default' (record's own choice), or flamespace's --sampler values to run, e.g. outside,inside",
    )
    parser.add_argument(
        "--baseline-src",
        metavar="DIR",
        help="also run flamespace from this source tree "
        "(the src/ of another checkout, C extensions built in place), as 'baseline'",
    )
    parser.add_argument("--json", help="also write every run's figures here")
    args = parser.parse_args()
    pyspy = None if args.no_pyspy else peer("py-spy")
    ours = ["flamespace"] if args.samplers == "default" else [f"flamespace-{name}" for name in args.samplers.split(",")]
    kinds = ours + (["baseline"] if args.baseline_src else []) + (["py-spy"] if pyspy else [])
    sources = {"baseline": str(Path(args.baseline_src).resolve())} if args.baseline_src else {}
    if not pyspy and not args.no_pyspy:
        print("py-spy not found (pip install py-spy): flamespace only", file=sys.stderr)
    print(
        f"Phase errors (profile minus the program's own clock), ms; {args.runs} runs per cell, "
        f"wall mode, {args.rate:g} Hz requested; {os.cpu_count()} CPUs; rate: achieved Hz (median); "
        "missed, gap ms: flamespace's missed_share and longest_gap_ms (medians)"
    )
    every: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="bench-load-") as name:
        tmp = Path(name)
        program, site_dir = write_program(tmp)
        for hogs in [int(h) for h in args.hogs.split(",")]:
            processes = start_hogs(hogs)
            try:
                before = uptime()
                cells: dict[str, list] = {kind: [] for kind in kinds}
                for _ in range(args.runs):
                    for kind in kinds:  # interleaved, so drift in the load hits both alike
                        try:
                            cells[kind].append(run_once(kind, args.rate, program, site_dir, tmp, pyspy, sources.get(kind)))
                        except RuntimeError as exc:
                            print(f"  {kind}: {exc}", file=sys.stderr)
                after = uptime()
            finally:
                stop_hogs(processes)
            print(f"\n{hogs} hogs ({before} before, {after} after)")
            print(
                f"  {'profiler':<18} {'phase':<14} {'median |err|':>12} {'max |err|':>10} {'median err':>11}"
                f" {'rate Hz':>8} {'missed':>7} {'gap ms':>7}"
            )
            for kind, runs in cells.items():
                if not runs:
                    continue
                rate = statistics.median(r[1] for r in runs)
                missed = statistics.median(r[2] for r in runs)
                gap = statistics.median(r[3] for r in runs)
                for phase in PHASES:
                    errors = [r[0][phase] for r in runs]
                    print(
                        f"  {kind:<18} {phase:<14} {statistics.median(abs(e) for e in errors):12.1f}"
                        f" {max(abs(e) for e in errors):10.1f} {statistics.median(errors):+11.1f}"
                        f" {rate:8.0f} {'' if missed != missed else f'{100 * missed:6.1f}%':>7}"
                        f" {'' if gap != gap else f'{gap:7.1f}':>7}"
                    )
                every_error = [abs(r[0][phase]) for r in runs for phase in PHASES]
                print(f"  {kind:<18} {'all phases':<14} {statistics.median(every_error):12.1f} {max(every_error):10.1f}")
                for phase, truth in (("site_sleep", 30.0), ("startup_sleep", 30.0)):
                    agree = sum(abs(r[0][phase]) <= max(STARTUP_TOLERANCE_MS, STARTUP_TOLERANCE_SHARE * truth) for r in runs)
                    print(
                        f"  {kind:<18} {phase:<14} within {STARTUP_TOLERANCE_MS:g} ms or "
                        f"{100 * STARTUP_TOLERANCE_SHARE:g}% of the program's clock in {agree} of {len(runs)} runs"
                    )
                every.extend(
                    {
                        "hogs": hogs,
                        "profiler": kind,
                        "errors_ms": r[0],
                        "rate": r[1],
                        "missed_share": r[2],
                        "longest_gap_ms": r[3],
                        "load": [before, after],
                    }
                    for r in runs
                )
    if args.json:
        Path(args.json).write_text(json.dumps(every, indent=1))


if __name__ == "__main__":
    main()
