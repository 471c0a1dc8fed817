"""The registry's readers from many threads at once (a server's first requests): each thread gets a whole module."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from flamespace.core.vector import FlameGraph
from flamespace.formats import pprof

RACE = """
import io, sys, threading
from flamespace.formats import registry

data = open(sys.argv[1], "rb").read()
barrier = threading.Barrier(8)
errors = []

def read():
    barrier.wait()
    try:
        registry.read_graph(io.BytesIO(data), "pprof")
    except Exception as exc:
        errors.append(repr(exc))

threads = [threading.Thread(target=read) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(errors)
"""


def test_first_reads_of_a_format_from_eight_threads_at_once(tmp_path):
    path = tmp_path / "p.pprof"
    path.write_bytes(pprof.encode(FlameGraph.from_texts({"a;b": 1})))
    script = tmp_path / "race.py"
    script.write_text(textwrap.dedent(RACE))
    for _ in range(3):  # a fresh interpreter each time: the format module is not imported yet
        done = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True, timeout=120)
        assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stdout + done.stderr
