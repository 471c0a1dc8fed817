"""Every command beside its Perl or Python peer: the one table of docs/performance.md (``make bench``).

    python benchmarks/bench_commands.py [--repeat 5] [--repeat-fast 21] [--repeat-big 1] [--no-write]

Whole processes (what a user waits for: interpreter start-up, imports, reading, writing), the
command and its peer taking turns (A B A B ...) so that load from other processes falls on
both alike; medians of the runs, their ratio, and each side's peak RSS (wait4, one run more). The table is
written into docs/performance.md between the two marker comments below (replaced in place),
with the machine (CPU model, cores) and the load (``uptime`` before and after) beside it.

Peers: FlameGraph's Perl scripts from FLAMEGRAPH_DIR (default /tmp/FlameGraph when it is
there; rows that need them are skipped with a note otherwise), small Perl programs (a hash
sum), and ``python -c pass`` for start-up. Inputs are bench_folded.py's generated files
(under benchmarks/.data/, made once) and the 710-line flamegraph.pl example of the shared
peer fixtures.

The CLI is run as installed (the ``flamespace`` script next to this interpreter), so the
table measures whatever the commands do now, whichever branch made them faster.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Callable, Union
from collections.abc import Sequence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_folded import BIG, DATA, SMALL_DIR, generate_runs  # noqa: E402  (the shared generators)
from bench_record_startup import timed  # noqa: E402  (wall and CPU of one whole process)
from _cli import compile_package, executable  # noqa: E402  (how to run the CLI)

DOC = HERE.parent / "docs" / "performance.md"
BEGIN = "<!-- bench_commands.py: begin (make bench replaces everything down to the end marker) -->"
END = "<!-- bench_commands.py: end -->"
SECTION = "## Every command beside its peer (`make bench`, `benchmarks/bench_commands.py`)"

RUNS_B = DATA / "runs-b"  # 50 other runs of the same program as SMALL_DIR (the candidate side of compare)
SUB_A = DATA / "sub-a.folded"  # 100,000 stacks of big.folded
SUB_B = DATA / "sub-b.folded"  # 100,000 stacks of big.folded, 90,000 of them in SUB_A, other counts
SUB_STACKS = 100_000
EXAMPLES = HERE.parent / "examples"
SMALL_SVG = HERE.parents[1] / "shared" / "peer-fixtures" / "flamegraph-examples" / "example-perf-stacks-collapsed.txt"

Command = Union[list[str], str]  # an argv, or a shell line (pipes)

# A Perl hash sum: the least a program that merges folded files must do (read, add, sort, write).
PERL_SUM = r'while (<>) { $h{$1} += $2 if /^(.*) (\d+)$/ } print "$_ $h{$_}\n" for sort keys %h'
# What compare's peer must at least do: read both sides' files and sum every stack's counts per side.
PERL_READ_SUM = (
    r'my %s; for my $f (@ARGV) { $side = $f =~ m{runs-b/} ? 1 : 0; open my $in, "<", $f or die; '
    r'while (<$in>) { $s{$side}{$1} += $2 if /^(.*) (\d+)$/ } } print scalar(keys %{$s{0}}), "\n"'
)


class Row:
    """One line of the table: our command and its peer, how often to run them, and the target."""

    def __init__(
        self,
        task: str,
        ours: Command,
        peer_name: str,
        peer: Command,
        repeat: str,
        target: str,
        check: Callable[[float, float], bool],
        note: Callable[[float, float], str] = lambda o, p: "",
    ) -> None:
        self.task, self.ours, self.peer_name, self.peer, self.repeat = task, ours, peer_name, peer, repeat
        self.target, self.check, self.note = target, check, note


def generate() -> None:
    """bench_folded.py's inputs, plus the candidate runs of compare and the two files of sub."""
    if not BIG.exists() or not SMALL_DIR.exists():
        subprocess.run([sys.executable, str(HERE / "bench_folded.py"), "--generate"], check=True)
    if not RUNS_B.exists():
        generate_runs(RUNS_B, sample_seed=3)
    if not SUB_B.exists():
        with open(BIG) as big:
            lines = [next(big) for _ in range(SUB_STACKS + SUB_STACKS // 10)]
        rng = random.Random(4)
        SUB_A.write_text("".join(lines[:SUB_STACKS]))
        with open(SUB_B, "w") as out:  # a window shifted by a tenth, every count redrawn
            out.writelines(f"{line.rpartition(' ')[0]} {rng.randint(1, 5000)}\n" for line in lines[SUB_STACKS // 10 :])


# Peak RSS of a command, from a run started by a small process (python -S): a child's peak RSS
# counts the memory it had before exec, and a fork of this benchmark is bigger than
# `python -c pass`, whose peak would then read as this process's.
RSS_PROBE = (
    "import os, sys\npid = os.fork()\nif pid == 0:\n    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)\n"
    "    os.execvp(sys.argv[1], sys.argv[1:])\n_, status, usage = os.wait4(pid, 0)\nprint(usage.ru_maxrss, status)\n"
)


def argv_of(command: Command) -> list[str]:
    return ["bash", "-c", command] if isinstance(command, str) else command


def peak_rss_mb(command: Command) -> float:
    done = subprocess.run([sys.executable, "-S", "-c", RSS_PROBE, *argv_of(command)], capture_output=True, text=True, check=True)
    kilobytes, status = done.stdout.split()
    if status != "0":
        raise RuntimeError(f"{command} failed: wait status {status}")
    return int(kilobytes) / 1024


class Result:
    """Medians of one row's runs: wall and CPU seconds (user + system, children included) and peak RSS, per side."""

    def __init__(self, ours: list[tuple[float, float]], peer: list[tuple[float, float]], ours_mb: float, peer_mb: float) -> None:
        self.ours, self.peer = (
            (statistics.median(w for w, _ in ours), statistics.median(c for _, c in ours)),
            (statistics.median(w for w, _ in peer), statistics.median(c for _, c in peer)),
        )
        self.ours_mb, self.peer_mb = ours_mb, peer_mb


def measure(ours: Command, peer: Command, repeat: int) -> Result:
    """``repeat`` runs of each, taken in turn, and each one's peak RSS (one run more)."""
    samples: dict[str, list[tuple[float, float]]] = {"ours": [], "peer": []}
    for _ in range(repeat):
        for side, command in (("ours", ours), ("peer", peer)):
            samples[side].append(timed(argv_of(command)))
    return Result(samples["ours"], samples["peer"], peak_rss_mb(ours), peak_rss_mb(peer))


def uptime() -> str:
    done = subprocess.run(["uptime"], capture_output=True, text=True)
    return re.sub(r"\s+", " ", done.stdout.strip()) if done.returncode == 0 else "load average %.2f, %.2f, %.2f" % os.getloadavg()


def machine() -> str:
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as info:
            model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), model)
    except OSError:
        pass
    perl = subprocess.run(["perl", "-e", "print $^V"], capture_output=True, text=True).stdout if shutil.which("perl") else "none"
    return (
        f"{model}, {os.cpu_count()} cores ({platform.machine()}), {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}, Perl {perl or '?'}"
    )


def rows(exe: str, perl_dir: str | None) -> tuple[list[Row], list[str]]:
    """The table's rows that can run here, and notes on those that cannot."""
    python = [sys.executable, "-c", "pass"]
    runs_a = sorted(str(p) for p in SMALL_DIR.glob("*.folded"))
    runs_b = sorted(str(p) for p in RUNS_B.glob("*.folded"))
    big_mb = BIG.stat().st_size / 1e6
    small = str(EXAMPLES / "webapp-v1.folded")
    ratio_at_most = lambda limit: lambda o, p: o <= limit * p  # noqa: E731
    startup = "≤ 2x"
    rows = [
        Row(
            "`flamespace record -q -o /dev/null -c pass` (fixed cost)",
            [exe, "record", "-q", "-o", os.devnull, "-c", "pass"],
            "`python -c pass`",
            python,
            "fast",
            "≤ +50 ms",
            lambda o, p: o - p <= 0.050,
            lambda o, p: f"+{1000 * (o - p):.0f} ms",
        ),
        Row("`flamespace --help`", [exe, "--help"], "`python -c pass`", python, "fast", startup, ratio_at_most(2)),
        Row("`flamespace svg --help`", [exe, "svg", "--help"], "`python -c pass`", python, "fast", startup, ratio_at_most(2)),
        Row(
            "`flamespace compare --help`",
            [exe, "compare", "--help"],
            "`python -c pass`",
            python,
            "fast",
            startup,
            ratio_at_most(2),
        ),
        Row(
            "`flamespace text` of a 20-line file",
            [exe, "text", small],
            "`python -c pass`",
            python,
            "fast",
            startup,
            ratio_at_most(2),
        ),
        Row(
            "`flamespace info` of a 20-line file",
            [exe, "info", small],
            "`python -c pass`",
            python,
            "fast",
            startup,
            ratio_at_most(2),
        ),
        Row(
            "`flamespace top` of a 20-line file",
            [exe, "top", small],
            "`python -c pass`",
            python,
            "fast",
            startup,
            ratio_at_most(2),
        ),
        Row("`flamespace gate --help`", [exe, "gate", "--help"], "`python -c pass`", python, "fast", startup, ratio_at_most(2)),
        Row("`flamespace plan --help`", [exe, "plan", "--help"], "`python -c pass`", python, "fast", startup, ratio_at_most(2)),
    ]
    notes = []
    if shutil.which("perl") is None:
        notes.append("perl not found: the rows against Perl peers (parse, sub, merge, compare, svg) skipped.")
        return rows, notes
    merge = [exe, "merge", *runs_a]
    rows.append(
        Row(
            "`flamespace merge` 50 runs x 5,000 stacks",
            merge,
            "Perl hash sum",
            ["perl", "-e", PERL_SUM, *runs_a],
            "heavy",
            "≤ 1.0x",
            ratio_at_most(1),
        )
    )
    compare = f"{exe} compare -a {SMALL_DIR} -b {RUNS_B} > /dev/null || [ $? -eq 3 ]"  # 3: it found a change
    rows.append(
        Row(
            "`flamespace compare` 50 + 50 runs x 5,000 stacks",
            compare,
            "Perl read + sum",
            ["perl", "-e", PERL_READ_SUM, *runs_a, *runs_b],
            "heavy",
            "≤ 1.5x",
            ratio_at_most(1.5),
        )
    )
    if perl_dir is None:
        notes.append("FlameGraph's scripts not found (set FLAMEGRAPH_DIR): parse, sub and svg rows skipped.")
        return rows, notes
    recursive = os.path.join(perl_dir, "stackcollapse-recursive.pl")
    difffolded = os.path.join(perl_dir, "difffolded.pl")
    flamegraph = os.path.join(perl_dir, "flamegraph.pl")
    rows.insert(
        0,
        Row(
            f"`flamespace merge` of one {big_mb:.0f} MB file (parse + write)",
            [exe, "merge", str(BIG)],
            "stackcollapse-recursive.pl",
            ["perl", recursive, str(BIG)],
            "heavy",
            "≥ 100 MB/s",
            lambda o, p: big_mb / o >= 100,
            lambda o, p: f"{big_mb / o:.0f} MB/s",
        ),
    )
    rows.insert(
        1,
        Row(
            "`flamespace sub -n` of two 100,000-stack files",
            [exe, "sub", "-n", str(SUB_A), str(SUB_B)],
            "difffolded.pl -n \\| sort",
            f"perl {difffolded} -n {SUB_A} {SUB_B} | LC_ALL=C sort",
            "heavy",
            "≤ 1.0x",
            ratio_at_most(1),
        ),
    )
    if SMALL_SVG.exists():
        rows.append(
            Row(
                "`flamespace svg` of the 710-line example",
                [exe, "svg", str(SMALL_SVG)],
                "flamegraph.pl",
                ["perl", flamegraph, str(SMALL_SVG)],
                "fast",
                "≤ 1.0x",
                ratio_at_most(1),
            )
        )
    else:
        notes.append(f"{SMALL_SVG} not found: the small svg row skipped.")
    rows.append(
        Row(
            f"`flamespace svg` of the {big_mb:.0f} MB file (200,000 stacks)",
            [exe, "svg", str(BIG)],
            "flamegraph.pl",
            ["perl", flamegraph, str(BIG)],
            "big",
            "≤ 1.0x",
            ratio_at_most(1),
        )
    )
    return rows, notes


def table(results: Sequence[tuple[Row, int, Result]]) -> list[str]:
    lines = [
        "| task | peer | runs | flamespace s | peer s | ratio | target | met | CPU s: flamespace / peer (ratio) "
        "| flamespace MB | peer MB |",
        "|---|---|---:|---:|---:|---:|---|---|---:|---:|---:|",
    ]
    for row, repeat, result in results:
        (ours, ours_cpu), (peer, peer_cpu) = result.ours, result.peer
        note = row.note(ours, peer)
        ratio = f"{ours / peer:.2f}x" + (f" ({note})" if note else "")
        cpu_note = row.note(ours_cpu, peer_cpu)
        cpu = f"{ours_cpu:.3f} / {peer_cpu:.3f} ({ours_cpu / peer_cpu:.2f}x{', ' + cpu_note if cpu_note else ''})"
        met = "yes" if row.check(ours, peer) else "**no**"
        lines.append(
            f"| {row.task} | {row.peer_name} | {repeat} | {ours:.3f} | {peer:.3f} | {ratio} | {row.target} | {met} "
            f"| {cpu} | {result.ours_mb:.0f} | {result.peer_mb:.0f} |"
        )
    return lines


def write_doc(block: list[str]) -> None:
    """Replace the text between the markers of docs/performance.md (or add the section at the end)."""
    text = DOC.read_text(encoding="utf-8")
    body = "\n".join([BEGIN, *block, END])
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + body + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + f"\n\n{SECTION}\n\n{body}\n"
    DOC.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each heavy task (default 5)")
    parser.add_argument("--repeat-fast", type=int, default=21, help="runs of each start-up task (default 21)")
    parser.add_argument("--repeat-big", type=int, default=1, help="runs of the big SVG (flamegraph.pl: ~1 min; 0 skips it)")
    parser.add_argument("--only", help="run only the rows whose task contains this text")
    parser.add_argument("--no-write", action="store_true", help="print the table, leave docs/performance.md alone")
    parser.add_argument("--generate", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate:
        generate()
        return
    # in a child process: this one stays small, and so do the forked children (peak RSS counts from the fork)
    subprocess.run([sys.executable, __file__, "--generate"], check=True)
    exe = executable()
    perl_dir = os.environ.get("FLAMEGRAPH_DIR") or ("/tmp/FlameGraph" if os.path.isdir("/tmp/FlameGraph") else None)
    if perl_dir is not None and not os.path.exists(os.path.join(perl_dir, "flamegraph.pl")):
        perl_dir = None
    compile_package()  # as pip install does: a run must not pay for compiling our modules
    selected, notes = rows(exe, perl_dir)
    repeats = {"fast": args.repeat_fast, "heavy": args.repeat, "big": args.repeat_big}
    if args.only:
        selected = [row for row in selected if args.only in row.task]
    before = uptime()
    started = datetime.datetime.now(datetime.timezone.utc)
    results = []
    for row in selected:
        repeat = repeats[row.repeat]
        if repeat < 1:
            notes.append(f"{row.task}: skipped (0 runs asked).")
            continue
        print(f"{row.task} ({repeat} x 2 runs) ...", file=sys.stderr)
        results.append((row, repeat, measure(row.ours, row.peer, repeat)))
    after = uptime()
    block = [
        "",
        f"Measured {started:%Y-%m-%d %H:%M} UTC by `make bench` ({Path(__file__).name}) on: {machine()}.",
        "",
        f"Load: `{before}` before, `{after}` after. Whole processes, the command and its peer in turn; "
        f"medians of the runs shown; MB: peak RSS (one more run). Ratio: flamespace's time over the peer's; "
        f"targets are judged on wall time; CPU time (user + system) is less disturbed by the load.",
        "",
        *table(results),
        "",
        *(f"- {note}" for note in notes),
    ]
    print("\n".join(block))
    if not args.no_write and not args.only:
        write_doc(block)
        print(f"\nwritten into {DOC}", file=sys.stderr)


if __name__ == "__main__":
    main()
