"""The Pythons the out-of-process reader is tested against, and the programs it reads."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
#: Every CPython this machine (and CI's) has: pyenv's 3.9-3.13 and the system's 3.11.
PYTHONS = {
    "3.9": PYENV / "3.9.18" / "bin" / "python3.9",
    "3.10": PYENV / "3.10.13" / "bin" / "python3.10",
    "3.11": PYENV / "3.11.7" / "bin" / "python3.11",
    "3.12": PYENV / "3.12.1" / "bin" / "python3.12",
    "3.13": PYENV / "3.13.0" / "bin" / "python3.13",
    "system-3.11": Path("/usr/bin/python3.11"),
}

#: Pythons newer than pyenv has here and than any registry CI reaches carries: tested where one is
#: installed (at /opt/cpython-3.X, or the path in FLAMESPACE_TEST_PY31X), skipped elsewhere, CI included.
NEWER_PYTHONS = {
    f"3.{minor}": Path(os.environ.get(f"FLAMESPACE_TEST_PY3{minor}", f"/opt/cpython-3.{minor}/bin/python3.{minor}"))
    for minor in (14, 15)
}
#: The words of a skip for a Python CI cannot install (tests/conftest.py's CI_ALLOWED_SKIPS names them).
NOT_IN_CI = "which CI cannot install"


def python(name: str) -> Path:
    """The interpreter ``name``, or a skip (a failure under CI=true: tests/conftest.py, except for the newer ones)."""
    if name in NEWER_PYTHONS:
        path = NEWER_PYTHONS[name]
        if not path.exists():
            variable = "FLAMESPACE_TEST_PY3" + name.split(".")[1]
            pytest.skip(f"needs CPython {name} at {path} or in {variable}, {NOT_IN_CI}")
        return path
    path = PYTHONS[name]
    if not path.exists():
        pytest.skip(f"needs CPython {name} at {path} (pyenv install)")
    return path


#: A program with phases of known length, each timed by the program itself: a thread that sleeps,
#: then (after a line on stdin) spin_a for A s, spin_b for B s, and a pause before it exits.
#: The phases' functions, shared by every program of phases (here and test_inject.py's).
PHASE_FUNCTIONS = textwrap.dedent("""
    def sleeper():
        time.sleep(3600)

    def spin_a(seconds):
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass

    def spin_b(seconds):
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass

    def timed(function, seconds):
        start = time.perf_counter()
        function(seconds)
        return time.perf_counter() - start
""")
PHASES = (
    "import json, sys, threading, time\n"
    + PHASE_FUNCTIONS
    + textwrap.dedent("""
    def main():
        threading.Thread(target=sleeper, name="sleeper", daemon=True).start()
        print("ready", flush=True)
        sys.stdin.readline()
        a = timed(spin_a, float(sys.argv[1]))
        b = timed(spin_b, float(sys.argv[2]))
        print(json.dumps({"a": a, "b": b}), flush=True)
        time.sleep(0.2)

    main()
""")
)

#: A program that spins forever in its main thread while another sleeps (for dump, and recordings cut by -d).
FOREVER = textwrap.dedent("""
    import threading, time

    def sleeper():
        time.sleep(3600)

    def spin_forever():
        while True:
            pass

    threading.Thread(target=sleeper, name="sleeper", daemon=True).start()
    print("ready", flush=True)
    spin_forever()
""")


#: A program that changes under the reader as fast as it can (threads born and ended, recursion that
#: grows and unwinds, code made by exec and dropped), then leaves with os._exit mid-recording.
CHURN = textwrap.dedent("""
    import os, sys, threading, time

    def recurse(depth):
        return 0 if depth == 0 else 1 + recurse(depth - 1)

    def short_life():
        recurse(30)

    def churn(until):
        while time.perf_counter() < until:
            threads = [threading.Thread(target=short_life) for _ in range(4)]
            for thread in threads:
                thread.start()
            for _ in range(100):  # most of the main thread's time: sampled even when starting threads is slow (load)
                recurse(200)
            exec(compile("def made(): return sum(range(100))\\nmade()", "<made>", "exec"), {})
            for thread in threads:
                thread.join()

    print("ready", flush=True)
    sys.stdin.readline()
    churn(time.perf_counter() + float(sys.argv[1]))
    os._exit(0)
""")


#: The GIL held by a thread other than the main one: a worker spins, the main thread sleeps.
WORKER_SPINS = textwrap.dedent("""
    import threading, time

    def worker_spin():
        while True:
            pass

    threading.Thread(target=worker_spin, name="worker", daemon=True).start()
    print("ready", flush=True)
    time.sleep(3600)
""")


#: Threads named by threading (given a name, or threading's own), one it knows only as a dummy (started by
#: _thread, then asking for threading.current_thread()), and one it never knows (started by _thread).
NAMED_THREADS = textwrap.dedent("""
    import _thread, threading, time

    def named_sleeper():
        time.sleep(3600)

    def numbered_sleeper():
        time.sleep(3600)

    def dummy_sleeper():
        threading.current_thread()
        time.sleep(3600)

    def unknown_sleeper():
        time.sleep(3600)

    threading.Thread(target=named_sleeper, name="worker ✓ 1", daemon=True).start()
    threading.Thread(target=numbered_sleeper, daemon=True).start()
    _thread.start_new_thread(dummy_sleeper, ())
    _thread.start_new_thread(unknown_sleeper, ())
    while len(threading._active) < 4:
        time.sleep(0.01)
    time.sleep(0.1)
    print("ready", flush=True)
    time.sleep(3600)
""")


#: A frame whose local variables are of every kind dump --locals shows: arguments, a cell a closure shares, a
#: long str, an int of several digits, objects shown by type, and one not assigned yet.
LOCALS = textwrap.dedent("""
    import enum, time

    class Thing:
        pass

    class Color(enum.Enum):
        RED = 1

    def inner(count, ratio, label, flag, nothing, blob, big, thing, items):
        long_text = "x" * 500
        kind, color = Thing, Color.RED
        shared = "captured"
        def closure():
            return shared
        print("ready", flush=True)
        time.sleep(3600)
        later = 1
        return later

    inner(42, 2.5, "héllo ✓", True, None, b"\\x00ab", -(2**100), Thing(), [1, 2])
""")


class Target:
    """A running program (``process``), stopped on leaving the ``with`` with every process it started (it
    runs in a session of its own: a child it leaves behind would spin on, orphaned, slowing the suite)."""

    def __init__(self, interpreter: Path, source: str, directory: Path, *args: str) -> None:
        script = directory / "target_program.py"
        script.write_text(source)
        self.script = script
        self.process = subprocess.Popen(
            [str(interpreter), str(script), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=directory,
            start_new_session=True,
        )
        assert self.process.stdout is not None and self.process.stdout.readline() == "ready\n"

    @property
    def pid(self) -> int:
        return self.process.pid

    def go(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("go\n")
        self.process.stdin.flush()

    def result(self) -> dict:
        assert self.process.stdout is not None
        return json.loads(self.process.stdout.readline())

    def __enter__(self) -> Target:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # the target and whatever it started, ended or not
        except ProcessLookupError:
            pass
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


def flamespace(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``flamespace ARGS`` in a child process (its stdout and stderr as text)."""
    command = [sys.executable, "-c", "import sys; from flamespace.cli import main; sys.exit(main())", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)
