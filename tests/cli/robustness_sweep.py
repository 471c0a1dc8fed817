"""Run every command with hostile-but-plausible arguments and list those that end in an internal
error (exit 2), a traceback or a hang. Not a test (pytest does not collect it): a campaign whose
findings became tests in tests/cli/test_robustness_misc.py; docs/robustness.md ("Internal errors
and leftovers") lists what it tried and found.

    python tests/cli/robustness_sweep.py [-j JOBS] [COMMAND ...]
"""

from __future__ import annotations

import argparse
import os
import stat
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from flamespace.formats.recognition import ORDER

EXE = str(Path(sys.executable).parent / "flamespace")
#: Numbers that are not what an option means: every numeric option gets each.
NUMBERS = ("nan", "inf", "-inf", "1e400", "-0", "-1", "0", "1e-400", "99999999999999999999999999", "")
#: Seconds before a run counts as a hang.
TIMEOUT = 60


def places(root: Path) -> dict:
    """The files the commands are given: a profile, samples of runs, hostile inputs and outputs."""
    profile = root / "p.folded"
    profile.write_text("main;parse 3\nmain;parse;lex 2\nmain;eval 5\n")
    for side, extra in (("base", 0), ("cand", 3)):
        (root / side).mkdir()
        for run in range(4):
            (root / side / f"run-{run}.folded").write_text(f"main;work {10 + run + extra}\nmain;idle {5 + run % 2}\n")
    (root / "empty.folded").write_text("")
    (root / "garbage.bin").write_bytes(bytes(range(256)) * 4)
    (root / "dir").mkdir()
    (root / "readonly").mkdir()
    os.chmod(root / "readonly", stat.S_IRUSR | stat.S_IXUSR)
    return {
        "p": str(profile),
        "base": str(root / "base"),
        "cand": str(root / "cand"),
        "out": str(root / "out"),
        "d": str(root / "parts"),
        "root": str(root),
    }


#: Each command as it runs with good arguments ({p} a profile, {out} an output, ...).
COMMANDS = {
    "info": ["info", "{p}"],
    "top": ["top", "{p}"],
    "text": ["text", "{p}"],
    "svg": ["svg", "{p}", "-o", "{out}"],
    "html": ["html", "{p}", "-o", "{out}"],
    "merge": ["merge", "{p}"],
    "convert": ["convert", "{p}"],
    "filter": ["filter", "{p}"],
    "scale": ["scale", "2", "{p}"],
    "sub": ["sub", "{p}", "{p}"],
    "similarity": ["similarity", "{p}", "{p}"],
    "decompose": ["decompose", "{p}", "{p}", "-d", "{d}"],
    "plan": ["plan", "{base}"],
    "compare": ["compare", "-a", "{base}", "-b", "{cand}"],
    "record": ["record", "-o", "{out}", "-c", "pass"],
    "trace": ["trace", "-o", "{out}", "-c", "pass"],
    "collect": ["collect", "-n", "2", "-o", "{d}", "-c", "pass"],
    "formats": ["formats"],
}
#: The numeric options of each command (and their kind of value).
NUMERIC = {
    "top": ["-n"],
    "text": ["--max-depth", "--width", "--threshold"],
    "svg": ["--width", "--height", "--fontsize", "--fontwidth", "--factor", "--total", "--seed", "--minwidth"],
    "html": ["--top", "--minwidth"],
    "filter": ["--max-depth", "--min-share"],
    "scale": [],
    "plan": ["--alpha", "--power", "--top", "--min-runs", "--min-fraction", "--detect"],
    "compare": [
        "--alpha",
        "--permutations",
        "--seed",
        "--min-delta",
        "--min-rel",
        "--min-runs",
        "--min-fraction",
        "--limit",
        "--max-missed",
    ],
    "record": ["--rate", "--bytes-per-sample", "--duration", "--seed"],
    "trace": ["--max-events", "--max-depth"],
    "collect": ["-n", "--warmup", "--rate", "--duration"],
}
#: Runs that do what was asked, for long: not counted as hangs.
LONG_BY_DESIGN = {"collect -n='99999999999999999999999999'"}
#: Formats, each given an empty file and garbage with --from.
FORMATS = ORDER
#: Odd arguments of the options that are not numbers.
ODD = [
    ["html", "--diff", "{p}", "-o", "{out}"],
    ["html", "--series", "{p}", "-o", "{out}"],
    ["html", "--diff", "{p}", "{p}", "{p}", "-o", "{out}"],
    ["html", "--calls", "{root}/garbage.bin", "{p}", "-o", "{out}"],
    ["html", "--calls", "{root}/dir", "{p}", "-o", "{out}"],
    ["html", "--label", "a", "--label", "b", "--label", "c", "--diff", "{p}", "{p}", "-o", "{out}"],
    ["html", "--colour-by", "event:nothing", "{p}", "-o", "{out}"],
    ["svg", "--colour-by", "event:nothing", "{p}", "-o", "{out}"],
    ["svg", "--colour-by", "{root}/garbage.bin", "{p}", "-o", "{out}"],
    ["svg", "--colour-by", "", "{p}", "-o", "{out}"],
    ["svg", "--nameattr", "{root}/garbage.bin", "{p}", "-o", "{out}"],
    ["svg", "--nameattr", "{root}/dir", "{p}", "-o", "{out}"],
    ["svg", "--palette-file", "{root}/dir", "{p}", "-o", "{out}"],
    ["svg", "--palette-file", "{root}/garbage.bin", "{p}", "-o", "{out}"],
    ["svg", "--encoding", "bogus", "{p}", "-o", "{out}"],
    ["svg", "--encoding", "utf-16", "{p}", "-o", "{out}"],
    ["svg", "--bgcolors", "#zzzzzz", "{p}", "-o", "{out}"],
    ["svg", "--minwidth", "nan%", "{p}", "-o", "{out}"],
    ["svg", "--minwidth", "inf%", "{p}", "-o", "{out}"],
    ["svg", "--minwidth", "1e400", "{p}", "-o", "{out}"],
    ["svg", "--base", "", "{p}", "-o", "{out}"],
    ["svg", "--title", "\x01</text>&", "{p}", "-o", "{out}"],
    ["text", "--threshold", "nan%", "{p}"],
    ["text", "--threshold", "inf%", "{p}"],
    ["text", "--threshold", "200%", "{p}"],
    ["filter", "--grep", "(", "{p}"],
    ["filter", "--map", "x", "{p}"],
    ["filter", "--map", "(=y", "{p}"],
    ["filter", "--strip", "bogus", "{p}"],
    ["filter", "--base", "", "{p}"],
    ["filter", "--prefix", "", "{p}"],
    ["top", "-n", "-1", "{p}"],
    ["plan", "{base}", "--detect", "nan%"],
    ["plan", "{base}", "--detect", "inf"],
    ["plan", "{base}", "--detect", "-5%"],
    ["plan", "{p}"],
    ["compare", "-a", "{p}", "-b", "{p}"],
    ["compare", "-a", "{base}", "-b", "{cand}", "--html", "{root}/dir"],
    ["compare", "-a", "{base}", "-b", "{cand}", "--html", ""],
    ["compare", "-a", "{base}", "-b", "{cand}", "--cluster", "nonsense"],
    ["compare", "-a", "{base}", "-b", "{base}"],
    ["similarity", "{root}/empty.folded", "{root}/empty.folded"],
    ["sub", "{root}/empty.folded", "{root}/empty.folded"],
    ["decompose", "{root}/empty.folded", "{root}/empty.folded", "-d", "{d}"],
    ["scale", "2", "{root}/empty.folded"],
    ["svg", "{root}/empty.folded", "-o", "{out}"],
    ["html", "{root}/empty.folded", "-o", "{out}"],
    ["text", "{root}/empty.folded"],
    ["top", "{root}/empty.folded"],
    ["convert", "{p}", "--to", "bogus"],
    ["formats", "bogus"],
    ["record", "-o", "{out}", "--", "{root}/dir"],
    ["record", "-o", "{out}", "--", "{root}/empty.folded"],
    ["record", "-o", "{out}", "-m", ""],
    ["trace", "-o", "{out}", "-m", ""],
    ["record", "-o", "{out}", "-c", ""],
    ["collect", "-n", "2", "-o", "{d}", "--", "{root}/dir"],
]
#: Inputs that are not profiles, and outputs that cannot be written.
INPUTS = ("{root}/empty.folded", "{root}/dir", "{root}/missing.folded", "/dev/null", "{root}/garbage.bin", "")
OUTPUTS = ("{root}/missing/x", "{root}/readonly/x", "/dev/full", "{root}/dir", "")


def cases(names) -> list:
    """(label, args) of every hostile run."""
    out = []
    for name in names:
        base = COMMANDS[name]
        for option in NUMERIC.get(name, []):
            for value in NUMBERS:
                out.append((f"{name} {option}={value!r}", base + [option, value]))
        if name == "scale":
            out += [(f"scale {value!r}", ["scale", value, "{p}"]) for value in NUMBERS]
        if "{p}" in base:
            for bad in INPUTS:
                out.append((f"{name} input {bad}", [bad if a == "{p}" else a for a in base]))
        if "-o" in base or name in ("merge", "convert", "filter", "sub", "text"):
            for bad in OUTPUTS:
                args = [a for a in base]
                if "-o" in args:
                    args[args.index("-o") + 1] = bad
                else:
                    args += ["-o", bad]
                out.append((f"{name} -o {bad!r}", args))
        if name == "convert":
            for fmt in FORMATS:
                out += [
                    (f"convert --from {fmt} {bad}", ["convert", "--from", fmt, f"{{root}}/{bad}"])
                    for bad in ("empty.folded", "garbage.bin")
                ]
        if "-d" in base:
            for bad in OUTPUTS:
                args = list(base)
                args[args.index("-d") + 1] = bad
                out.append((f"{name} -d {bad!r}", args))
    if set(names) == set(COMMANDS):
        out += [(" ".join(repr(a) if not a or " " in a else a for a in args), args) for args in ODD]
    return out


def run(label: str, args: list, where: dict) -> tuple:
    """(label, verdict, stderr's last line): verdict 'ok', 'exit N', 'INTERNAL', 'TRACEBACK' or 'HANG'."""
    args = [a.format(**where) for a in args]
    try:
        result = subprocess.run(
            [EXE, *args], capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL, cwd=where["root"]
        )
    except subprocess.TimeoutExpired:
        return label, "long, as asked" if label in LONG_BY_DESIGN else "HANG", ""
    last = (result.stderr.strip().splitlines() or [""])[-1][:200]
    if "Traceback" in result.stderr:
        return label, "TRACEBACK", last
    if result.returncode == 2 or "internal error" in result.stderr:
        return label, "INTERNAL", last
    return label, f"exit {result.returncode}", last


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commands", nargs="*", default=list(COMMANDS))
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("-a", "--all", action="store_true", help="print every case, not only the failures")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="flamespace-sweep-") as directory:
        where = places(Path(directory))
        todo = cases(options.commands)
        with ThreadPoolExecutor(options.jobs) as pool:
            results = list(pool.map(lambda case: run(case[0], case[1], where), todo))
        os.chmod(Path(directory) / "readonly", stat.S_IRWXU)
    bad = [r for r in results if r[1] in ("INTERNAL", "TRACEBACK", "HANG")]
    for label, verdict, last in results if options.all else bad:
        print(f"{verdict:9} {label}: {last}")
    print(f"{len(results)} runs, {len(bad)} internal errors, tracebacks or hangs", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
