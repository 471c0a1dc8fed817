"""record --pid --subprocesses: the child processes of a running Python program that are Python are sampled
too (each by its own Python's layout), the others named as skipped (docs/attach.md)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from flamespace.collect import SamplerOptions
from flamespace.collect.remote.family import FamilyRecorder, descendants, executable
from flamespace.collect.remote.process import attach

from ..collect.recorder_error import boundary_error_ns
from .targets import FOREVER, PHASE_FUNCTIONS, Target, flamespace, python
from .test_attach import time_in

#: How long each child spins (s, by its own clock): B ends (and exits) while A still spins.
SPIN_A, SPIN_B = 1.2, 0.6

#: A child: waits for a line on stdin, spins in ``spin_a`` or ``spin_b`` (argv[1]) for argv[2] s, prints its own timing.
CHILD = (
    "import json, sys, time\n"
    + PHASE_FUNCTIONS
    + textwrap.dedent("""
    sys.stdin.readline()
    print(json.dumps(timed(spin_a if sys.argv[1] == "a" else spin_b, float(sys.argv[2]))), flush=True)
""")
)

#: The parent: on each line from stdin, one step: start child A (its own Python) and `sleep` (not Python), start
#: child B (argv[1]'s Python), let both spin; then prints their timings and exits.
PARENT = textwrap.dedent(f"""
    import json, subprocess, sys, time
    CHILD = {CHILD!r}
    SPIN_A, SPIN_B = {SPIN_A}, {SPIN_B}

    def start(interpreter, which, seconds):
        return subprocess.Popen([interpreter, "-c", CHILD, which, str(seconds)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)

    print("ready", flush=True)
    sys.stdin.readline()
    a = start(sys.executable, "a", SPIN_A)
    sleeper = subprocess.Popen(["sleep", "60"])
    print(json.dumps([a.pid, sleeper.pid]), flush=True)
    sys.stdin.readline()
    b = start(sys.argv[1], "b", SPIN_B)
    print(json.dumps([b.pid]), flush=True)
    sys.stdin.readline()
    for child in (a, b):
        child.stdin.write("go\\n")
        child.stdin.flush()
    timing = {{"b": json.loads(b.stdout.readline()), "a": json.loads(a.stdout.readline())}}
    b.wait()
    a.wait()
    print(json.dumps(timing), flush=True)
    sleeper.kill()
    sleeper.wait()
    time.sleep(0.2)
""")


def _attached(recorder: FamilyRecorder, pids: list[int], thread: threading.Thread) -> None:
    """Wait until the recorder samples ``pids`` (children found every 0.1 s; attaching reads their ELF files)."""
    deadline = time.monotonic() + 60
    while not all(pid in recorder.children for pid in pids):
        assert thread.is_alive() and time.monotonic() < deadline, (pids, list(recorder.children), recorder.skipped)
        time.sleep(0.02)


def _line(target: Target) -> list[int]:
    assert target.process.stdout is not None
    return json.loads(target.process.stdout.readline())


def test_children_of_another_python_are_sampled_each_under_its_process(tmp_path):
    """A 3.12 parent starts a 3.12 child at once and a 3.10 child later: each child's spin is in the profile under
    that child's process root, within one gap between ticks of each end of it (the bound test_attach.py uses);
    the child that ends first keeps its samples; `sleep` is skipped by pid and executable. (Failed before: no
    FamilyRecorder; the CLI refused --subprocesses with --pid.)"""
    with Target(python("3.12"), PARENT, tmp_path, str(python("3.10"))) as target:
        recorder = FamilyRecorder(attach(target.pid), SamplerOptions(rate=200, seed=3))
        done: list = []
        thread = threading.Thread(target=lambda: done.append(recorder.run()))
        thread.start()
        target.go()
        a_pid, sleep_pid = _line(target)
        _attached(recorder, [a_pid], thread)
        target.go()
        (b_pid,) = _line(target)
        _attached(recorder, [a_pid, b_pid], thread)
        target.go()
        truth = target.result()
        thread.join(timeout=60)
        assert not thread.is_alive()
    assert recorder.ended == "exited"
    graph = recorder.recording(done[0]).graph
    bound = boundary_error_ns(graph, 2)
    roots = {stack[0] for stack in graph}
    for function, pid, seconds in (("spin_a", a_pid, truth["a"]), ("spin_b", b_pid, truth["b"])):
        (root,) = [root for root in roots if root.endswith(f"({pid})")]
        spent = sum(value for stack, value in graph.items() if stack[0] == root and stack[-1].startswith(function + " ("))
        assert abs(spent - seconds * 1e9) <= bound, (function, spent, seconds, bound)
        assert time_in(graph, function) == spent  # nowhere else: not in the parent, not in the other child
    versions = {child.process.pid: child.process.version for child in recorder.sampled()}
    assert versions[b_pid].startswith("3.10") and versions[a_pid].startswith("3.12"), versions
    assert graph.metadata.labels["roots"] == "process" and graph.metadata.labels["processes"] == "3"
    assert any(entry.startswith(f"{sleep_pid} (") and "sleep" in entry for entry in recorder.skipped_children())


def test_record_pid_subprocesses_names_the_skipped_child(tmp_path):
    """The CLI: a Python child of the target is recorded under its process root, a `sleep` child is named on the
    skip line, even with -q (it is data not recorded). (Failed before: '--subprocesses is not available with
    --pid'; then: -q hid the skip line.)"""
    parent = textwrap.dedent(f"""
        import subprocess, sys
        child = subprocess.Popen([sys.executable, "-c", {FOREVER!r}], stdout=subprocess.PIPE, text=True)
        child.stdout.readline()
        sleeper = subprocess.Popen(["sleep", "60"])
        print("ready", flush=True)
        sys.stdin.readline()
    """)
    with Target(python("3.12"), parent, tmp_path) as target:
        kids = descendants(target.pid)
        output = tmp_path / "out.folded"
        result = flamespace("record", "--pid", str(target.pid), "--subprocesses", "-q", "-d", "1.5", "-o", str(output))
        target.go()
    assert result.returncode == 0, result.stderr
    assert len(kids) == 2
    lines = output.read_text().splitlines()
    assert any(line.split(";")[0].endswith(f"({kids[0]})") and "spin_forever" in line for line in lines), lines[:5]
    (skip,) = [line for line in result.stderr.splitlines() if "skipped" in line]
    assert "skipped 1 child process" in skip and f"{kids[1]} (" in skip and "sleep" in skip, skip


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_descendants_finds_grandchildren_through_a_shell():
    """Children of children are found, through processes that are not Python (a shell and its subshell)."""
    shell = subprocess.Popen(["sh", "-c", "(sleep 60; true) & wait"], start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while not any(executable(pid).endswith("sleep") for pid in descendants(shell.pid)):  # once it has exec'd
            assert time.monotonic() < deadline, descendants(shell.pid)
            time.sleep(0.02)
        found = descendants(shell.pid)
        assert len(found) == 2 and shell.pid not in found
    finally:
        os.killpg(shell.pid, signal.SIGKILL)  # the shell's session: it, its subshell and their sleep
        shell.wait()


def test_a_child_that_execs_python_later_is_sampled_from_then(tmp_path):
    """A child that is a shell when found, and execs Python later, is sampled once it does, and no longer named as
    skipped. (Failed before: no FamilyRecorder.)"""
    parent = textwrap.dedent(f"""
        import subprocess, sys
        shell = subprocess.Popen(["sh", "-c", 'read line; exec "$0" -c "$1"', sys.executable, {FOREVER!r}],
                                 stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        print("ready", flush=True)
        print(shell.pid, flush=True)
        sys.stdin.readline()
        shell.stdin.write("go\\n")
        shell.stdin.flush()
        shell.wait()
    """)
    with Target(python("3.12"), parent, tmp_path) as target:
        assert target.process.stdout is not None
        shell_pid = int(target.process.stdout.readline())
        recorder = FamilyRecorder(attach(target.pid), SamplerOptions(rate=200, seed=5))
        done: list = []
        thread = threading.Thread(target=lambda: done.append(recorder.run()))
        thread.start()
        deadline = time.monotonic() + 60
        while shell_pid not in recorder.skipped:
            assert thread.is_alive() and time.monotonic() < deadline
            time.sleep(0.02)
        target.go()
        _attached(recorder, [shell_pid], thread)
        while recorder.children[shell_pid].quality.samples < 20:
            assert thread.is_alive() and time.monotonic() < deadline
            time.sleep(0.02)
        recorder.stop()
        thread.join(timeout=60)
    graph = recorder.recording(done[0]).graph
    assert any(stack[0].endswith(f"({shell_pid})") and stack[-1].startswith("spin_forever (") for stack in graph)
    assert not any(entry.startswith(f"{shell_pid} ") for entry in recorder.skipped_children())


def test_native_with_subprocesses_is_refused_in_one_line():
    """--native reads each process's C stack; with --subprocesses it is refused with what to leave out."""
    result = flamespace("record", "--pid", str(os.getpid()), "--subprocesses", "--native", "-d", "0.1")
    assert result.returncode == 1 and "leave out --native" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
