"""record --sampler outside: the launcher samples the program it started from outside (collect/outside.py).

What each recording holds is also tested with both samplers in test_record.py (phases against the
program's own clock, cpu and idle modes, start-up in sitecustomize, Ctrl-C, --duration)."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap

import pytest

import flamespace as fs
from flamespace.cli import main
from flamespace.collect import Program, SamplerOptions, parse_command, record_program
from flamespace.collect.outside import MAX_REALTIME_SHARE, raise_priority

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the program's memory: Linux only")

FLAMESPACE = [os.path.join(os.path.dirname(sys.executable), "flamespace")]

# A 10 ms cycle of three functions that spin by the wall clock for 5, 3 and 2 ms, timed by the program itself.
CYCLE = """
import json, sys, time
T = time.perf_counter_ns
def spin(ns):
    end = T() + ns
    while T() < end:
        pass
def work_a():
    spin(5_000_000)
def work_b():
    spin(3_000_000)
def work_c():
    spin(2_000_000)
own = {"work_a": 0, "work_b": 0, "work_c": 0}
stop = T() + int(float(sys.argv[1]) * 1e9)
while T() < stop:
    for name, work in (("work_a", work_a), ("work_b", work_b), ("work_c", work_c)):
        t = T()
        work()
        own[name] += T() - t
with open("own.json", "w") as file:
    json.dump(own, file)
"""
FUNCTIONS = ("work_a", "work_b", "work_c")
#: How many standard errors a share may be off: 5 for each of 3 shares, a false failure of 3 x 5.7e-7
#: (normal two-sided tail) a run.
SHARE_Z = 5.0


def write(path, text: str):
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def record(tmp_path, *args, output="out.folded"):
    out = tmp_path / output
    return main(["record", "-q", "-o", str(out), *args]), out


def test_a_cycle_sampled_from_outside_reads_each_functions_share_within_its_sampling_error(tmp_path, monkeypatch):
    """The shares of a 10 ms cycle against the program's own clock. A share is a time-weighted mean of
    samples at random phases of the cycle: its variance is p(1-p) sum(w^2) / (sum w)^2, which is at most
    p(1-p) * longest gap / duration (each weight is a gap between ticks, sum w the duration): the
    recording's own headers bound it, load or no load. (Failed before: no --sampler.)"""
    monkeypatch.chdir(tmp_path)
    script = write(tmp_path / "cycle.py", CYCLE)
    code, out = record(tmp_path, "--sampler", "outside", "--rate", "500", "--", str(script), "1.5")
    assert code == 0
    graph = fs.read(out)
    labels = graph.metadata.labels
    own = json.loads((tmp_path / "own.json").read_text())
    measured = {name: sum(v for s, v in graph.items() if any(f.startswith(f"{name} (") for f in s)) for name in FUNCTIONS}
    total_measured, total_own = sum(measured.values()), sum(own.values())
    bound = float(labels["longest_gap_ms"]) / (float(labels["duration_s"]) * 1e3)
    for name in FUNCTIONS:
        truth, share = own[name] / total_own, measured[name] / total_measured
        error = SHARE_Z * math.sqrt(truth * (1 - truth) * bound)
        assert abs(share - truth) <= error, (name, share, truth, error, labels["longest_gap_ms"])


def test_the_recording_carries_the_samplers_metadata(tmp_path, monkeypatch):
    """The headers compare/plan screen (rate asked and achieved, missed share) and the time weights: the
    samples' weights add up to the recording's duration (each weighs the time since its previous tick)."""
    monkeypatch.chdir(tmp_path)
    script = write(tmp_path / "cycle.py", CYCLE)
    code, out = record(tmp_path, "--sampler", "outside", "--rate", "200", "--", str(script), "0.6")
    assert code == 0
    graph = fs.read(out)
    labels = graph.metadata.labels
    assert labels["sampler"] == "outside" and labels["sampler_priority"]
    assert labels["rate_requested"] == "200" and float(labels["rate_achieved"]) > 0
    assert 0 <= float(labels["missed_share"]) <= 1
    assert graph.metadata.unit == "ns" and labels["mode"] == "wall" and labels["weight"] == "time"
    assert int(labels["ticks"]) > 0 and int(labels["samples"]) > 0
    assert labels["command"].endswith("cycle.py 0.6")
    # one thread: its weights are the gaps between ticks, whose sum is the recording, from the program's first
    # frame to its last (the interpreter's end, with no frame, is not sampled: 0.02 s, as test_record.py allows)
    gap = float(labels["longest_gap_ms"]) * 1e6
    assert graph.total() == pytest.approx(float(labels["duration_s"]) * 1e9, abs=gap + 0.02e9)


def test_auto_samples_from_outside_where_it_can_and_inside_where_it_must(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    script = write(tmp_path / "quick.py", "import time\ntime.sleep(0.05)\n")
    for args, where in (((), "outside"), (("--threads",), "outside"), (("--async",), "inside"), (("--subprocesses",), "inside")):
        code, out = record(tmp_path, *args, "--", str(script))
        assert code == 0
        assert fs.read(out).metadata.labels["sampler"] == where, args


NAMED_THREADS = """
import threading, time
def spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass
worker = threading.Thread(target=spin, args=(0.4,), name="crunch")
worker.start()
spin(0.4)
worker.join()
"""


@pytest.mark.parametrize("args", [["--threads"], ["--format", "speedscope"]], ids=["threads", "timeline"])
def test_threads_and_timelines_are_sampled_from_outside_under_threadings_names(args, tmp_path, monkeypatch):
    """From outside, each thread is named as threading names it, so --threads and the time-ordered formats
    (one track a thread) no longer need the sampler inside. (Failed before: auto chose inside for both.)"""
    monkeypatch.chdir(tmp_path)
    script = write(tmp_path / "named.py", NAMED_THREADS)
    output = "out.speedscope.json" if "speedscope" in args else "out.folded"
    code, out = record(tmp_path, *args, "--rate", "200", "--", str(script), output=output)
    assert code == 0
    if "speedscope" in args:
        document = json.loads(out.read_text())
        names = {profile["name"] for profile in document["profiles"]}
        assert any("MainThread" in name for name in names) and any("crunch" in name for name in names), names
        assert document["flamespace"]["labels"]["sampler"] == "outside"
        return
    graph = fs.read(out)
    assert graph.metadata.labels["sampler"] == "outside"
    roots = {stack[0] for stack, _ in graph.items()}
    assert "MainThread" in roots and "crunch" in roots, roots


@pytest.mark.parametrize(
    "args, problem",
    [
        (["--async"], "--async (asyncio's tasks are read from the program's objects) needs the sampler inside"),
        (["--subprocesses"], "--subprocesses needs the sampler inside each program"),
        (["--mode", "alloc"], "--mode alloc records allocations inside the program: leave out --sampler outside"),
    ],
)
def test_what_only_the_inside_sampler_records_is_refused_with_the_reason(args, problem, tmp_path):
    script = write(tmp_path / "quick.py", "pass\n")
    done = subprocess.run(
        [*FLAMESPACE, "record", "--sampler", "outside", *args, "-o", str(tmp_path / "x.folded"), "--", str(script)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr, done.stderr
    assert problem in done.stderr, done.stderr
    assert not (tmp_path / "x.folded").exists()


@pytest.mark.parametrize(
    "args, problem",
    [
        (["record", "--pid", str(os.getpid()), "--sampler", "inside"], "--pid reads a running process from outside"),
        (["collect", "--tracer", "--sampler", "outside", "-n", "2"], "--tracer traces every call inside the program"),
    ],
)
def test_a_sampler_that_cannot_apply_is_refused(args, problem, tmp_path):
    command = [*FLAMESPACE, *args, "-o", str(tmp_path / "out")]
    if args[0] == "collect" or "--pid" not in args:
        command += ["--", str(write(tmp_path / "quick.py", "pass\n"))]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert problem in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_program_that_cannot_be_read_falls_back_to_the_inside_sampler_or_is_refused(tmp_path, monkeypatch):
    """auto: the child records itself (it waits for the launcher's word); outside: one clear error, the program
    stopped. (Simulated: attaching fails as it would where ptrace is not allowed.)"""
    from flamespace.collect.remote import process
    from flamespace.errors import FlamespaceError

    def refused(pid: int):
        raise process.AccessDenied(f"permission denied reading process {pid}'s memory")

    monkeypatch.setattr(process, "attach", refused)
    monkeypatch.chdir(tmp_path)
    script = write(tmp_path / "quick.py", "import time\ntime.sleep(0.05)\n")
    target = parse_command([str(script)])
    result = record_program(Program(target), SamplerOptions(sampler="auto"))
    assert result.exit_code == 0 and result.recording.graph.metadata.labels["sampler"] == "inside"
    with pytest.raises(FlamespaceError, match="--sampler outside: cannot read the program: permission denied"):
        record_program(Program(target), SamplerOptions(sampler="outside"))


def test_a_program_killed_by_sigkill_keeps_what_was_sampled_from_outside(tmp_path, monkeypatch):
    """The profile lives in the launcher: a program that dies without a word (SIGKILL) loses nothing of it."""
    monkeypatch.chdir(tmp_path)
    script = write(
        tmp_path / "killed.py",
        """
        import os, signal, time
        def busy():
            end = time.perf_counter() + 0.3
            while time.perf_counter() < end:
                pass
        busy()
        os.kill(os.getpid(), signal.SIGKILL)
        """,
    )
    code, out = record(tmp_path, "--sampler", "outside", "--rate", "500", "--", str(script))
    assert code == 128 + signal.SIGKILL
    graph = fs.read(out)
    assert any(f.startswith("busy (killed.py") for s in graph for f in s)


def test_code_made_after_start_up_code_was_freed_is_named_for_itself(tmp_path, monkeypatch):
    """A code object is freed once it has run (a module's, exec'd code) and a later one often takes its
    address: the reader must not give the new one the old one's name (it read `spin` as
    `<module> (<string>:1)` in a real recording before code objects carried an identity)."""
    monkeypatch.chdir(tmp_path)
    script = write(
        tmp_path / "churn.py",
        """
        import time
        for i in range(150):  # code objects that are sampled, then freed
            exec(compile("import time\\nend = time.perf_counter() + 0.002\\nwhile time.perf_counter() < end: pass", "<churn>", "exec"))
        made = {}
        for i in range(50):  # then functions made at run time, sampled too
            exec(compile(f"def made_{i}():\\n    import time\\n    end = time.perf_counter() + 0.004\\n"
                         "    while time.perf_counter() < end: pass\\n", "made.py", "exec"), made)
            made[f"made_{i}"]()
        """,
    )
    code, out = record(tmp_path, "--sampler", "outside", "--rate", "1000", "--", str(script))
    assert code == 0
    graph = fs.read(out)
    for stack in graph:
        names = [frame.partition(" (")[0] for frame in stack]
        for outer, inner in zip(names, names[1:]):
            # <churn> runs only at the top level of churn.py, made_N only under it: nothing else nests
            assert not (outer.startswith("made_") and inner == "<module>"), stack
            assert not (outer == "<module>" and "<churn>" in stack[0] and inner.startswith("made_")), stack
    assert sum(v for s, v in graph.items() if s[-1].startswith("made_")) > 0


#: The system's Python, which any user may run, with flamespace's source on its path (the test venv's
#: Python is under /root): as tests/remote/test_attach.py does.
AS_ANOTHER_USER = "import sys; sys.path.insert(0, sys.argv.pop(1)); from flamespace.cli import main; sys.exit(main())"


@pytest.mark.skipif(os.geteuid() != 0 or not os.path.exists("/usr/bin/python3.11"), reason="needs root and Debian's 3.11")
def test_a_user_without_privileges_records_from_outside_at_ordinary_priority(tmp_path):
    """Real-time scheduling is refused to an ordinary user: the recording is made all the same, and says
    what the sampler got (the short slice of Linux 6.12+, or nothing). Run as nobody."""
    import tempfile
    from pathlib import Path

    source = str(Path(fs.__file__).resolve().parent.parent)
    shared = Path(tempfile.mkdtemp(prefix="flamespace-nobody-"))
    try:
        shared.chmod(0o777)
        script = write(
            shared / "busy.py", "import time\nend = time.perf_counter() + 0.3\nwhile time.perf_counter() < end: pass\n"
        )
        done = subprocess.run(
            [
                "/usr/bin/python3.11",
                "-c",
                AS_ANOTHER_USER,
                source,
                "record",
                "-q",
                "--sampler",
                "outside",
                "-r",
                "500",
                "-o",
                str(shared / "out.folded"),
                "--",
                str(script),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            user="nobody",
            cwd="/",
            env={**os.environ, "TMPDIR": str(shared)},
        )
        assert done.returncode == 0, done.stderr
        labels = fs.read(shared / "out.folded").metadata.labels
    finally:
        import shutil

        shutil.rmtree(shared, ignore_errors=True)
    assert labels["sampler"] == "outside"
    assert labels["sampler_priority"] in ("short slice", "normal"), labels["sampler_priority"]


def test_raise_priority_says_what_it_got_and_never_raises():
    import threading

    got: list[str] = []
    thread = threading.Thread(target=lambda: got.append(raise_priority()))
    thread.start()
    thread.join()
    assert got == [got[0]] and got[0] in ("realtime", "short slice", "normal")
    assert 0 < MAX_REALTIME_SHARE < 1
