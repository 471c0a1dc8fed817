"""record --pid --native beside py-spy record --native: how often the merge is right, achieved rate, CPU.

The target (tests/remote/native_program.py, timed mode) calls C from known Python functions in turn:
zlib.compress, json.dumps (the C encoder), a pathological regular expression and a ctypes function
that spins, each for --phase seconds, round and round. Each profiler records it for --seconds at
--rate; each sample that is inside a phase (its stack has the phase's ``in_<phase>`` Python frame) is
judged: *right* when the phase's C function is there under its Python caller (no Python frame below
it), *wrong* when the C function is elsewhere, *no C* when it is missing (the target between two
calls, or a native stack that was not read). "right %" is right samples among the phase's samples
(``flamespace`` without ``--native``, there for its rate and CPU, has no C frames: 0 right);
the program spends 92-100% of each phase in the C call, so that is the most a profiler can get.
py-spy hides the interpreter's own C functions, among them ``map_next`` of the callback phase (Python
-> C -> Python): for py-spy that phase is judged on the order of the Python frames alone.

    python benchmarks/bench_native.py [--seconds 6] [--rate 100] [--phase 0.5] [--pythons 3.9 3.12]

Prints the machine's load (uptime) first; CPU is the profiler's user + system time over the run
(start-up included) as a share of one core. Each figure is of one run: a share's standard error is
sqrt(p(1-p)/n) for n samples of the phase (about 150 at 100 Hz over 6 s).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.remote.native_program import EXPECTED, PROGRAM, build_library, judge, phase_of  # noqa: E402
from _cli import peer, python_command  # noqa: E402  (benchmarks/: how to run the CLI)

PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
PYTHONS = {"3.9": "3.9.18", "3.10": "3.10.13", "3.11": "3.11.7", "3.12": "3.12.1", "3.13": "3.13.0"}


def run_timed(command: list[str]) -> float:
    """Run ``command``; its CPU seconds (user + system, from wait4). Exits with its stderr if it fails."""
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    stderr = child.stderr.read().decode() if child.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{command[0]} failed: {stderr.strip()}")
    return usage.ru_utime + usage.ru_stime


def folded(path: Path) -> tuple[dict[str, float], dict[str, str]]:
    counts: dict[str, float] = {}
    labels: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if line.startswith("# ") and ": " in line:
            key, _, value = line[2:].partition(": ")
            labels[key] = value
        elif line and not line.startswith("#"):
            stack, _, value = line.rpartition(" ")
            counts[stack] = counts.get(stack, 0) + float(value)
    return counts, labels


def verdicts(counts: dict[str, float], interpreter_frames: bool = True) -> dict[str, dict[str, float]]:
    """Per phase: samples judged right, wrong, and without the C function (``interpreter_frames``: see judge)."""
    found: dict[str, dict[str, float]] = {phase: {"right": 0, "wrong": 0, "other": 0} for phase in EXPECTED}
    for text, count in counts.items():
        stack = text.split(";")
        phase = phase_of(stack)
        if phase is not None:
            found[phase][judge(stack, phase, interpreter_frames)] += count
    return found


def flamespace_run(
    pid: int, rate: int, seconds: float, out: Path, native: bool = True
) -> tuple[dict, float, float, dict[str, str]]:
    command = [*python_command("main"), "record", "--pid", str(pid)]
    command += ["--native"] if native else []
    command += ["--weight", "samples", "-r", str(rate), "-d", str(seconds), "-q", "-o", str(out)]
    cpu = run_timed(command)
    counts, labels = folded(out)
    return verdicts(counts), float(labels["rate_achieved"]), cpu / seconds, labels


def pyspy_run(pyspy: str, pid: int, rate: int, seconds: float, out: Path) -> tuple[dict, float, float, dict[str, str]]:
    command = [
        pyspy,
        "record",
        "--native",
        "--pid",
        str(pid),
        "-r",
        str(rate),
        "-d",
        str(int(seconds)),
        "-f",
        "raw",
        "-o",
        str(out),
    ]
    cpu = run_timed(command)
    counts, _ = folded(out)
    return verdicts(counts, interpreter_frames=False), sum(counts.values()) / int(seconds), cpu / seconds, {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--rate", type=int, default=100)
    parser.add_argument("--phase", type=float, default=0.5)
    parser.add_argument("--pythons", nargs="*", default=list(PYTHONS))
    args = parser.parse_args()
    profilers = {"flamespace": "", "flamespace --native": None, "py-spy --native": peer("py-spy")}
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"{args.seconds} s a run at {args.rate} Hz; phases of {args.phase} s; right % per phase (samples of the phase)")
    header = f"{'python':7} {'profiler':20} {'Hz':>5} {'CPU %':>6} " + " ".join(f"{phase:>14}" for phase in EXPECTED)
    print(header + "  wrong  wait/held us")
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        library = build_library(folder)
        script = folder / "native_calls.py"
        script.write_text(PROGRAM)
        for name in args.pythons:
            interpreter = PYENV / PYTHONS[name] / "bin" / f"python{name}"
            if not interpreter.exists():
                print(f"{name:7} (not installed: {interpreter})")
                continue
            for profiler, path in profilers.items():
                if profiler.startswith("py-spy") and path is None:
                    print(f"{name:7} {profiler:20} (py-spy not installed: pip install py-spy)")
                    continue
                target = subprocess.Popen(
                    [str(interpreter), str(script), str(library), str(args.phase)], stdout=subprocess.PIPE, text=True
                )
                assert target.stdout is not None and target.stdout.readline() == "ready\n"
                try:
                    out = folder / "out.txt"
                    if not path:
                        found, rate, cpu, labels = flamespace_run(target.pid, args.rate, args.seconds, out, native=path is None)
                    else:
                        found, rate, cpu, labels = pyspy_run(path, target.pid, args.rate, args.seconds, out)
                finally:
                    target.kill()
                    target.wait()
                cells = []
                wrong = 0.0
                for phase in EXPECTED:
                    counts = found[phase]
                    total = sum(counts.values())
                    wrong += counts["wrong"]
                    cells.append(f"{100 * counts['right'] / total:6.1f} ({total:5.0f})" if total else f"{'-':>14}")
                stop = f"{labels['native_wait_us']}/{labels['native_stop_us']}" if "native_wait_us" in labels else "-"
                print(f"{name:7} {profiler:20} {rate:5.0f} {100 * cpu:6.1f} " + " ".join(cells) + f"  {wrong:5.0f}  {stop:>7}")


if __name__ == "__main__":
    main()
