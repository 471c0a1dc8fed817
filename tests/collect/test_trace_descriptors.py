"""The traced program's descriptors are its own: the tracer never writes, reads or closes a file
of the program's, whatever it does with the descriptors it inherited (issue 24).

Each case runs in a child interpreter: it closes every inherited descriptor (pytest's own among
them), as daemons and ``os.closerange(3, ...)`` do."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from flamespace.collect.trace_engine import available, backends_here

pytestmark = pytest.mark.skipif(
    available() is not None or "profile" not in backends_here() or sys.platform != "linux",
    reason=f"no C tracer here: {available()}",
)

#: fib(n)'s calls: 2 * F(n + 1) - 1.
FIB_CALLS = {12: 465, 20: 21_891}

PRELUDE = """
import json, os, sys

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def open_many():
    '''Files of the program's own on every low number, the ones the tracer's file had among them.'''
    files = [open(f"{i}.txt", "wb") for i in range(1000)]
    for i, file in enumerate(files):
        file.write(b"%d" % i)
        file.flush()
    return files

def finish(files):
    '''Write more into each file, then close it: fails if the tracer closed one.'''
    for i, file in enumerate(files):
        file.write(b" of %d" % i)
        file.close()
"""

IN_PROCESS = (
    PRELUDE
    + """
from flamespace.collect.trace_engine import TraceRecorder

kept = {"keep_event_file": True} if sys.argv[2] == "keep" else {}  # unlinked at once: the default
recorder = TraceRecorder(backend=sys.argv[1], event_dir=os.getcwd(), **kept).start()
fib(12)
os.closerange(3, 4096)
files = open_many()
fib(20)
raw = recorder.stop()
finish(files)
fib_calls = sum(n for stack, n in raw.calls.items() if stack[-1].startswith("fib "))
print(json.dumps({"fib_calls": fib_calls, "dropped": raw.dropped, "notes": raw.notes,
                  "left": [name for name in os.listdir() if name.startswith(".flamespace-trace")]}))
"""
)

AFTER_STOP = (
    PRELUDE
    + """
from flamespace.collect import _tracer

_tracer.start(False, False, 10 ** 6, "MainThread", os.path.join(os.getcwd(), "events"))
fib(12)
stream, *_ = _tracer.stop()
os.closerange(3, 4096)
files = open_many()
analysis = stream.analyse(_tracer.now(), False, 1000, False)
lost, events = getattr(stream, "lost", None), sum(len(thread[0]) for thread in analysis)
del stream
finish(files)
print(json.dumps({"lost": lost, "nodes": events}))
"""
)


def run(tmp_path, script, *args):
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def assert_files_are_the_programs(tmp_path):
    assert {path.name: path.read_bytes() for path in tmp_path.glob("*.txt")} == {
        f"{i}.txt": b"%d of %d" % (i, i) for i in range(1000)
    }


@pytest.mark.parametrize("backend", backends_here())
def test_a_kept_event_file_is_reopened_and_the_trace_is_whole(tmp_path, backend):
    """With its path kept (as `flamespace trace` keeps it), the tracer reopens its file when the
    program closed the descriptor or gave its number to a file of its own: nothing is lost, the
    program's files hold what it wrote, and the file is gone after stop."""
    found = run(tmp_path, IN_PROCESS, backend, "keep")
    assert_files_are_the_programs(tmp_path)
    assert found == {"fib_calls": FIB_CALLS[12] + FIB_CALLS[20], "dropped": 0, "notes": [], "left": []}


@pytest.mark.parametrize("backend", backends_here())
def test_an_unlinked_event_file_closed_by_the_program_is_stated_lost(tmp_path, backend):
    """Without a path to reopen it by (the in-process API: nothing is left behind), a closed event
    file is lost: the trace is empty and says why, and no file of the program's is written or
    closed by the tracer (its next writes succeed)."""
    found = run(tmp_path, IN_PROCESS, backend, "unlinked")
    assert_files_are_the_programs(tmp_path)
    assert found["fib_calls"] == 0 and found["dropped"] >= 2 * (FIB_CALLS[12] + FIB_CALLS[20])
    assert found["left"] == []
    [note] = [note for note in found["notes"] if "event file descriptor" in note]
    assert "events are lost and the trace is empty" in note and "no file of the program's was written" in note


def test_a_stream_whose_descriptor_the_program_reused_reads_and_closes_nothing(tmp_path):
    """After stop() the program's threads run on: a stream whose descriptor number now names a
    file of the program's reads nothing from it, says it is lost, and does not close it."""
    found = run(tmp_path, AFTER_STOP)
    assert_files_are_the_programs(tmp_path)
    assert found == {"lost": True, "nodes": 0}
