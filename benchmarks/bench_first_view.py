"""The first view beside pyinstrument's: both trees of one program, printed one after the other.

    python benchmarks/bench_first_view.py [--lines 16000]

The program highlights a generated Python file of ``--lines`` lines with pygments while a thread
polls (it only waits): ``flamespace record`` without ``-o`` prints its short tree, ``pyinstrument``
its console tree (docs/profiling.md, "The first view"). Needs pygments and pyinstrument
(``pip install pyinstrument``). Prints the machine's load (``uptime``) first: the times depend on it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

from _cli import executable, peer  # benchmarks/: the installed flamespace and its peers

PROGRAM = '''\
"""Highlight a generated Python file with pygments, while a thread polls (it only waits)."""
import sys, threading
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

stop = threading.Event()

def poll():
    while not stop.wait(0.05):
        pass

def source(lines):
    return "".join(f"def f{i}(x):\\n    return x * {i} + len('text {i}')  # comment\\n" for i in range(lines // 2))

def render(text):
    return highlight(text, PythonLexer(), HtmlFormatter())

def main():
    threading.Thread(target=poll, daemon=True).start()
    html = render(source(int(sys.argv[1])))
    stop.set()
    print(len(html), "characters of HTML", file=sys.stderr)

main()
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=16_000)
    args = parser.parse_args()
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    pyinstrument = peer("pyinstrument")
    with tempfile.TemporaryDirectory() as directory:
        script = Path(directory) / "highlight.py"
        script.write_text(PROGRAM)
        runs = [("flamespace record", [executable(), "--color", "never", "record", "--", str(script), str(args.lines)])]
        if pyinstrument:
            runs.append(("pyinstrument", [pyinstrument, str(script), str(args.lines)]))
        else:
            print("pyinstrument is not installed (pip install pyinstrument): only ours is shown")
        for name, command in runs:
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, cwd=directory, env={**os.environ, "NO_COLOR": "1"})
            seconds = time.perf_counter() - start
            print(f"\n== {name}: {seconds:.2f} s for the whole command, exit code {done.returncode}\n")
            print(done.stdout.rstrip())
            if done.returncode:
                print(done.stderr.rstrip())


if __name__ == "__main__":
    main()
