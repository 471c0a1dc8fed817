"""flamespace trace end to end: known-answer programs traced in a child interpreter (counts, never times)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import textwrap

import pytest

import flamespace as fs
from flamespace.collect.trace_engine import available, backends_here

pytestmark = pytest.mark.skipif(available() is not None, reason=f"no tracer here: {available()}")

FLAMESPACE = os.path.join(os.path.dirname(sys.executable), "flamespace")

PROGRAM = """
import sys, threading

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def worker():
    fib(6)

def finish(code):
    sys.exit(code)

thread = threading.Thread(target=worker, name="helper")
thread.start()
thread.join()
fib(5)
print("args", sys.argv[1:])
finish(int(sys.argv[1]))
"""


def trace(tmp_path, *args, check_code=0):
    done = subprocess.run([FLAMESPACE, "trace", *args], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == check_code, done.stderr
    return done


def calls_by_function_path(path):
    """Calls per stack of a `.calls.folded` file, frames by function name only."""
    totals = {}
    for stack, count in fs.read(str(path)).items():
        key = tuple(frame.split(" (")[0] for frame in stack)
        totals[key] = totals.get(key, 0) + count
    return totals


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(textwrap.dedent(PROGRAM))
    return path


def test_a_script_with_threads_and_sys_exit(tmp_path, program):
    done = trace(tmp_path, "-o", "out.calls.folded", "--", "prog.py", "3", "x", check_code=3)
    assert done.stdout == "args ['3', 'x']\n"
    found = calls_by_function_path(tmp_path / "out.calls.folded")
    main = {stack[1:]: n for stack, n in found.items() if stack[:1] == ("<module>",)}
    assert {s: n for s, n in main.items() if s[:1] == ("fib",)} == {
        ("fib",): 1,
        ("fib", "fib"): 2,
        ("fib", "fib", "fib"): 4,
        ("fib", "fib", "fib", "fib"): 6,
        ("fib", "fib", "fib", "fib", "fib"): 2,
    }
    assert main[("finish",)] == 1  # sys.exit unwound it: one call, one return
    helper = {stack[2:]: n for stack, n in found.items() if stack[:2] == ("Thread.run", "worker")}
    assert helper.pop(()) == 1  # worker itself, in a thread started after tracing began
    assert sum(helper.values()) == 25  # fib(6): 25 calls
    assert not any("_bootstrap" in frame or "trace_engine.py" in frame for stack in found for frame in stack)


def test_the_function_table_as_csv_and_json(tmp_path, program):
    trace(tmp_path, "-o", "table.csv", "--", "prog.py", "0")
    with open(tmp_path / "table.csv", newline="") as file:
        rows = {row["function"].split(" (")[0]: row for row in csv.DictReader(file)}
    assert (rows["fib"]["calls"], rows["fib"]["primitive"]) == ("40", "2")  # fib(6) in the thread, fib(5) in main
    trace(tmp_path, "-o", "table.json", "-q", "--", "prog.py", "0")
    functions = {f["function"].split(" (")[0]: f for f in json.loads((tmp_path / "table.json").read_text())["functions"]}
    assert functions["worker"]["calls"] == 1
    assert functions["worker"]["inclusive"] >= functions["worker"]["exclusive"]


def test_folded_is_exclusive_ns(tmp_path, program):
    trace(tmp_path, "-o", "out.folded", "--", "prog.py", "0")
    graph = fs.read(str(tmp_path / "out.folded"))
    assert graph.metadata.unit == "ns" and graph.metadata.labels["mode"] == "trace"
    assert all(isinstance(value, int) and value > 0 for value in graph.values())
    assert any(stack[-1].startswith("fib (prog.py:") for stack in graph)


@pytest.mark.parametrize("output, format", [("run.speedscope.json", "speedscope"), ("run.trace.json", "chrome")])
def test_time_ordered_outputs_read_back(tmp_path, program, output, format):
    trace(tmp_path, "-o", output, "--", "prog.py", "0")
    profile = fs.read(str(tmp_path / output))
    chart_graph = profile.graph() if isinstance(profile, fs.FlameChart) else profile
    assert chart_graph.metadata.unit in ("ns", "us")
    assert any(stack[-1].startswith("worker (prog.py:") for stack in chart_graph)


def test_module_and_code_forms(tmp_path):
    (tmp_path / "tracedmod.py").write_text("def f():\n    return 1\n\nfor _ in range(3):\n    f()\n")
    trace(tmp_path, "-o", "m.calls.folded", "--builtins", "-m", "tracedmod")
    found = calls_by_function_path(tmp_path / "m.calls.folded")
    assert found[("<module>", "f")] == 3
    assert ("builtins.exec",) not in found and ("<module>",) in found
    assert not any("runpy" in frame for stack in fs.read(str(tmp_path / "m.calls.folded")) for frame in stack)
    trace(tmp_path, "-o", "c.calls.folded", "--builtins", "-c", "for i in range(4): len([i])")
    found = calls_by_function_path(tmp_path / "c.calls.folded")
    assert found[("<module>", "builtins.len")] == 4
    assert ("builtins.exec",) not in found


def test_the_event_bound_is_reported(tmp_path, program):
    done = trace(tmp_path, "-o", "out.folded", "--max-events", "200", "--", "prog.py", "0")
    assert "--max-events" in done.stderr and "dropped" in done.stderr
    assert fs.read(str(tmp_path / "out.folded")).metadata.labels["events"] == "200"


def test_bad_input_is_a_clear_error(tmp_path):
    done = trace(tmp_path, "-o", "out.folded", "--", "missing.py", check_code=1)
    assert "no such script" in done.stderr and "Traceback" not in done.stderr
    done = trace(tmp_path, "--max-events", "0", "-c", "pass", check_code=1)
    assert "max_events" in done.stderr and "Traceback" not in done.stderr


def test_subprocesses_and_forks_are_traced_each_under_its_root(tmp_path):
    (tmp_path / "parent.py").write_text(
        textwrap.dedent("""
        import os, subprocess, sys
        def parent_work():
            return 1
        parent_work()
        subprocess.run([sys.executable, "-c", "def child_work(): return 2\\nfor i in range(3): child_work()"], check=True)
        pid = os.fork()
        if pid == 0:
            def forked_work():
                return 3
            forked_work(); forked_work()
            os._exit(0)
        os.waitpid(pid, 0)
    """)
    )
    done = trace(tmp_path, "--subprocesses", "-o", "s.calls.folded", "--", "parent.py")
    assert "3 processes" in done.stderr
    found = {}
    for stack, count in fs.read(str(tmp_path / "s.calls.folded")).items():
        leaf = stack[-1].split(" (")[0]
        if leaf.endswith("_work"):
            found[leaf] = (found.get(leaf, (0, set()))[0] + count, found.get(leaf, (0, set()))[1] | {stack[0]})
    assert {leaf: n for leaf, (n, _) in found.items()} == {"parent_work": 1, "child_work": 3, "forked_work": 2}
    assert len({root for _, roots in found.values() for root in roots}) == 3  # one root frame per process


def calls_of(path, leaf):
    return sum(n for stack, n in calls_by_function_path(path).items() if stack[-1] == leaf)


def test_os_exit_and_sigterm_save_what_was_recorded(tmp_path):
    (tmp_path / "quits.py").write_text(
        textwrap.dedent("""
        import os, signal, sys
        def f():
            return 1
        for _ in range(3):
            f()
        if sys.argv[1] == "exit":
            os._exit(5)
        os.kill(os.getpid(), signal.SIGTERM)
    """)
    )
    trace(tmp_path, "-o", "exit.calls.folded", "--", "quits.py", "exit", check_code=5)
    assert calls_of(tmp_path / "exit.calls.folded", "f") == 3
    done = subprocess.run(
        [FLAMESPACE, "trace", "-o", "term.calls.folded", "--", "quits.py", "term"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (-15, 128 + 15), done.stderr
    assert calls_of(tmp_path / "term.calls.folded", "f") == 3


def test_a_fork_without_subprocesses_is_stated(tmp_path):
    (tmp_path / "forks.py").write_text(
        textwrap.dedent("""
        import os
        def child_work():
            return 1
        pid = os.fork()
        if pid == 0:
            child_work()
            os._exit(0)
        os.waitpid(pid, 0)
    """)
    )
    done = trace(tmp_path, "-o", "f.calls.folded", "--", "forks.py")
    assert "forked 1 child process while traced" in done.stderr and "--subprocesses" in done.stderr
    assert calls_of(tmp_path / "f.calls.folded", "child_work") == 0


def test_line_times_as_text_and_csv(tmp_path):
    (tmp_path / "lines.py").write_text(
        "def f(n):\n    t = 0\n    for i in range(n):\n        t += i\n    return t\n\nf(4)\nf(2)\n"
    )
    trace(tmp_path, "-o", "out.lines.csv", "--", "lines.py")
    with open(tmp_path / "out.lines.csv", newline="") as file:
        rows = {row["line"]: row for row in csv.DictReader(file)}
    assert rows["f (lines.py:4)"]["hits"] == "6" and rows["f (lines.py:2)"]["hits"] == "2"
    assert set(rows["f (lines.py:4)"]) == {"line", "hits", "exclusive_ns"}
    trace(tmp_path, "--lines", "-o", "out.lines.txt", "--", "lines.py")
    text = (tmp_path / "out.lines.txt").read_text().splitlines()
    assert text[0].split() == ["hits", "exclusive", "line"] and any(line.endswith("f (lines.py:4)") for line in text)
    done = trace(tmp_path, "-o", "x.txt", "--format", "lines", "--max-depth", "0", "--", "lines.py", check_code=1)
    assert "max_depth" in done.stderr and "Traceback" not in done.stderr


def test_collect_tracer_lets_compare_find_one_added_call_exactly(tmp_path):
    (tmp_path / "app.py").write_text(
        "import sys\ndef g():\n    return 1\ndef f(n):\n    for _ in range(n):\n        g()\nf(int(sys.argv[1]))\n"
    )
    done = subprocess.run(
        [
            FLAMESPACE,
            "collect",
            "-q",
            "--tracer",
            "--weight",
            "count",
            "-n",
            "5",
            "-o",
            "runs",
            "--baseline-cmd",
            "app.py 10",
            "--candidate-cmd",
            "app.py 11",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    done = subprocess.run(
        [FLAMESPACE, "compare", "--json", "--baseline", "runs/baseline", "--candidate", "runs/candidate"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = json.loads(done.stdout)
    changed = [
        (tuple(f.split(" (")[0] for f in s["stack"]), s["baseline"], s["candidate"]) for s in report["stacks"] if s["significant"]
    ]
    assert changed == [(("<module>", "f", "g"), 10.0, 11.0)]  # every other stack's count is equal in every run
    done = subprocess.run(
        [FLAMESPACE, "collect", "--tracer", "--rate", "50", "-n", "2", "-o", "r2", "--", "app.py", "1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1 and "--rate applies to sampling" in done.stderr


def test_the_chrome_trace_is_per_thread_balanced_and_in_time_order(tmp_path, program):
    trace(tmp_path, "-o", "run.trace.json", "--", "prog.py", "0")
    events = json.loads((tmp_path / "run.trace.json").read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    names = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert {"MainThread", "helper"} <= set(names.values())
    fib_opened = {}
    for tid in names:
        mine = [e for e in events if e.get("tid") == tid and e["ph"] in "BE"]
        times = [e["ts"] for e in mine]
        assert times == sorted(times), names[tid]  # exact time order within the thread
        depth = 0
        for e in mine:
            depth += 1 if e["ph"] == "B" else -1
            assert depth >= 0
            if e["ph"] == "B" and e["name"].startswith("fib ("):
                fib_opened[names[tid]] = fib_opened.get(names[tid], 0) + 1
        assert depth == 0, names[tid]  # every frame opened is closed
    assert fib_opened["helper"] >= 25 and fib_opened["MainThread"] >= 15  # fib(6) there, fib(5) here: each call seen


def test_ctrl_c_saves_what_was_traced_and_says_so(tmp_path):
    import signal
    import time

    (tmp_path / "waits.py").write_text(
        textwrap.dedent("""
        import os, sys, time
        def f():
            return 1
        def waiting_here(marker):
            for _ in range(4):
                f()
            with open(marker + ".tmp", "w") as file:
                file.write(str(os.getpid()))
            os.rename(marker + ".tmp", marker)
            time.sleep(600)
        waiting_here(sys.argv[1])
    """)
    )
    marker = tmp_path / "marker"
    proc = subprocess.Popen(
        [FLAMESPACE, "trace", "-o", "w.calls.folded", "--", "waits.py", str(marker)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), proc.stderr.read() if proc.poll() is not None else "the program did not start"
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole group
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "interrupted by SIGINT: saved" in err
    assert calls_of(tmp_path / "w.calls.folded", "f") == 4


def test_an_unwritable_event_directory_is_a_clear_error(tmp_path):
    done = subprocess.run(
        [FLAMESPACE, "trace", "-o", "x.folded", "-c", "pass"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TMPDIR": str(tmp_path / "missing")},
    )
    assert done.returncode == 1 and "not a writable directory (set TMPDIR to one)" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "x.folded").exists()


def test_every_backend_here_gives_the_same_calls_and_a_missing_one_is_a_clear_error(tmp_path, program):
    """--backend chooses how the tracer hears of calls; the calls per stack do not depend on it.
    A backend this interpreter lacks, or one that cannot record what is asked, is refused before
    the program runs."""
    from flamespace.collect.trace_engine import BACKENDS, backends_here

    found = {}
    for backend in backends_here():
        trace(tmp_path, "--backend", backend, "-o", f"{backend}.calls.folded", "--", "prog.py", "0")
        found[backend] = {
            stack: n
            for stack, n in calls_by_function_path(tmp_path / f"{backend}.calls.folded").items()
            if "_find_and_load" not in stack
        }  # the profile backend imports threading before the program
    assert all(calls == found["profile"] for calls in found.values()), found
    assert found["profile"][("<module>", "fib")] == 1
    for backend in set(BACKENDS) - set(backends_here()):
        done = trace(tmp_path, "--backend", backend, "-c", "print('ran')", check_code=1)
        assert "not available here" in done.stderr and "ran" not in done.stdout and "Traceback" not in done.stderr
    if "frame" in backends_here():
        done = trace(tmp_path, "--backend", "frame", "--builtins", "-c", "print('ran')", check_code=1)
        assert "Python frames only" in done.stderr and "ran" not in done.stdout


CLOSES_INHERITED = """
import os, sys

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

os.closerange(3, 4096)  # every inherited descriptor, the tracer's event file among them
with open("mine.txt", "wb") as file:  # takes the lowest number: the one the tracer had, before
    file.write(b"mine")
    file.flush()
    fib(20)  # 21,891 calls: the tracer writes many chunks while the file is open
    file.write(b" only")
fib(15)
"""

DAEMON = """
import os, resource, sys

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
os.closerange(0, soft)  # as a daemon does: every descriptor below the limit
null = os.open(os.devnull, os.O_RDWR)  # 0, 1 and 2 on /dev/null
os.dup2(null, 1)
os.dup2(null, 2)
files = []
for i in range(1000):  # enough files to take every low number, the tracer's first one among them
    files.append(open(f"d/{i}.txt", "wb"))
for i, file in enumerate(files):
    file.write(b"%d" % i)
    file.flush()
fib(20)
for file in files:
    file.close()
"""


@pytest.mark.parametrize("backend", backends_here())
def test_a_program_that_closes_inherited_descriptors_keeps_its_files_and_its_trace(tmp_path, backend):
    """The tracer's event file is on a descriptor the program closes (os.closerange): the program's
    next file gets that number, and the tracer wrote its events there (4 bytes grew to 3.6 MB). Its
    file holds only what it wrote, and the trace is whole: the tracer reopened its own file."""
    (tmp_path / "prog.py").write_text(textwrap.dedent(CLOSES_INHERITED))
    done = trace(tmp_path, "--backend", backend, "-o", "out.calls.folded", "--", "prog.py")
    assert (tmp_path / "mine.txt").read_bytes() == b"mine only"
    assert "warning" not in done.stderr, done.stderr
    found = calls_by_function_path(tmp_path / "out.calls.folded")
    assert sum(n for stack, n in found.items() if stack[-1:] == ("fib",)) == 21_891 + 1_973


FORKED_DAEMON = """
import os, resource

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

fib(10)
pid = os.fork()
if pid == 0:  # the daemon: a trace of its own (--subprocesses), then every descriptor closed
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    os.closerange(0, soft)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 1)
    os.dup2(null, 2)
    files = [open(f"d/{i}.txt", "wb") for i in range(1000)]
    for i, file in enumerate(files):
        file.write(b"%d" % i)
        file.flush()
    fib(20)
    for file in files:
        file.close()
    os._exit(0)
os.waitpid(pid, 0)
"""


@pytest.mark.parametrize("backend", backends_here())
def test_a_daemonising_program_keeps_its_files_and_its_trace(tmp_path, backend):
    """A daemon closes every descriptor up to its limit, puts 0-2 on /dev/null and opens many
    files (one of them takes the number the tracer's file had): each holds what it wrote."""
    (tmp_path / "prog.py").write_text(textwrap.dedent(DAEMON))
    (tmp_path / "d").mkdir()
    done = trace(tmp_path, "--backend", backend, "-o", "out.calls.folded", "--", "prog.py")
    assert {path.name: path.read_bytes() for path in (tmp_path / "d").iterdir()} == {f"{i}.txt": b"%d" % i for i in range(1000)}
    assert "warning" not in done.stderr, done.stderr
    found = calls_by_function_path(tmp_path / "out.calls.folded")
    assert sum(n for stack, n in found.items() if stack[-1:] == ("fib",)) == 21_891


def test_a_forked_daemon_traced_with_subprocesses_keeps_its_files_and_its_trace(tmp_path):
    """The forked child starts a trace of its own (--subprocesses), then closes every descriptor
    and opens its files: they hold what it wrote, and its trace is whole."""
    (tmp_path / "main.py").write_text(textwrap.dedent(FORKED_DAEMON))
    (tmp_path / "d").mkdir()
    done = trace(tmp_path, "--subprocesses", "-o", "out.calls.folded", "--", "main.py")
    assert {path.name: path.read_bytes() for path in (tmp_path / "d").iterdir()} == {f"{i}.txt": b"%d" % i for i in range(1000)}
    assert "warning" not in done.stderr, done.stderr
    found = calls_by_function_path(tmp_path / "out.calls.folded")
    assert sum(n for stack, n in found.items() if stack[-1:] == ("fib",)) == 177 + 21_891
