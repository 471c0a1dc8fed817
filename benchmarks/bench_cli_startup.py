"""Start-up of the command line, this tree against another copy of the package (before a change).

    python benchmarks/bench_cli_startup.py [--before DIR] [--repeat 21] [--only TEXT]

Each task is one whole process, ``python -c "...script()" ARGS``, run with PYTHONPATH at this
tree's ``src`` and, when ``--before`` names another ``src`` directory (a copy of the package
as it was, C extensions built), at that one, the two in turn (A B A B ...) so that load from
other processes falls on both alike. Prints the median wall and CPU (user + system, of the
process and its children) milliseconds of each, and their ratio; CPU time is the steadier
figure on a loaded machine. ``python -c pass`` is the floor.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_record_startup import timed  # noqa: E402  (wall and CPU of one whole process)
from _cli import python_command  # noqa: E402  (python -c LAUNCH: the console script under this interpreter)

SRC = HERE.parent / "src"


def tasks(small: str, out: str) -> dict[str, list[str]]:
    """The command lines measured (after :func:`_cli.python_command`)."""
    return {
        "flamespace --help": ["--help"],
        "flamespace svg --help": ["svg", "--help"],
        "flamespace svg small.folded -o x.svg": ["svg", small, "-o", out],
        "flamespace compare --help": ["compare", "--help"],
        "flamespace history --help": ["history", "--help"],
        "flamespace store ls --help": ["store", "ls", "--help"],
        "flamespace html --help": ["html", "--help"],
    }


def run(src: Path, args: list[str]) -> tuple[float, float]:
    os.environ["PYTHONPATH"] = str(src)
    try:
        return timed([*python_command(), *args] if args != ["pass"] else [sys.executable, "-c", "pass"])
    finally:
        del os.environ["PYTHONPATH"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, default=None, help="another copy of src/ to compare with")
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--only", default=None, help="only the tasks whose name contains this text")
    options = parser.parse_args()
    sides: dict[str, Path] = {"now": SRC}
    if options.before is not None:
        sides = {"before": options.before.resolve(), "now": SRC}
    with tempfile.TemporaryDirectory() as tmp:
        small = os.path.join(tmp, "small.folded")
        with open(small, "w") as f:
            f.write("".join(f"main;work;f{i} {i + 1}\n" for i in range(20)))
        out = os.path.join(tmp, "x.svg")
        measured = {
            "python -c pass": ["pass"],
            **{name: args for name, args in tasks(small, out).items() if options.only is None or options.only in name},
        }
        print(f"load before: {os.getloadavg()}")
        results: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(options.repeat):
            for name, args in measured.items():
                for side, src in sides.items():
                    results.setdefault((name, side), []).append(run(src, args))
        print(f"load after: {os.getloadavg()}")
    header = "| task | " + " | ".join(f"{side} wall ms | {side} CPU ms" for side in sides)
    ratio: str | None = "now/before CPU" if len(sides) == 2 else None
    print(header + (f" | {ratio} |" if ratio else " |"))
    print("|---" * (1 + 2 * len(sides) + (1 if ratio else 0)) + "|")
    for name in measured:
        cells = []
        cpu = {}
        for side in sides:
            runs = results[(name, side)]
            wall_ms = 1000 * statistics.median(w for w, _ in runs)
            cpu[side] = 1000 * statistics.median(c for _, c in runs)
            cells += [f"{wall_ms:.1f}", f"{cpu[side]:.1f}"]
        line = f"| `{name}` | " + " | ".join(cells)
        if ratio:
            line += f" | {cpu['now'] / cpu['before']:.2f}"
        print(line + " |")


if __name__ == "__main__":
    main()
