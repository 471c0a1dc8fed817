"""record --pid from inside the process (CPython 3.14+'s sys.remote_exec): known answers, the memory modes,
stopping cleanly, and what happens where it cannot be done. The 3.14/3.15 tests skip where no such Python is
installed (tests/remote/targets.py's NEWER_PYTHONS; CI allows that skip); the fallbacks run on pyenv's 3.12."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import flamespace as fs
from flamespace.collect import SamplerOptions
from flamespace.collect.memory import MemoryOptions
from flamespace.collect.recording import merge
from flamespace.collect.remote.inject import INJECTED_MARK, InjectedRecorder
from flamespace.collect.remote.process import attach

from ..collect.recorder_error import boundary_error_ns
from .targets import FOREVER, NEWER_PYTHONS, PHASE_FUNCTIONS, Target, flamespace, python
from .test_attach import one_line_error, time_in

NEWER = list(NEWER_PYTHONS)

#: Phases of known length after a go file appears; the main thread polls for it in Python, so that it reaches the
#: safe points where sys.remote_exec's script runs (a main thread blocked in readline would run it only later).
POLLING_PHASES = (
    "import json, os, sys, threading, time\n"
    + PHASE_FUNCTIONS
    + textwrap.dedent("""
    KEPT = []

    def keep_blocks(count, size):
        return [bytearray(size) for _ in range(count)]

    def main():
        threading.Thread(target=sleeper, name="sleeper", daemon=True).start()
        print("ready", flush=True)
        while not os.path.exists(sys.argv[1]):
            time.sleep(0.005)
        kept = KEPT[:] = keep_blocks(2000, 1000) if sys.argv[4] == "blocks" else []  # still held at exit
        a = timed(spin_a, float(sys.argv[2]))
        b = timed(spin_b, float(sys.argv[3]))
        print(json.dumps({"a": a, "b": b, "kept": len(kept or ())}), flush=True)
        time.sleep(0.2)

    main()
""")
)


def threads_of(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def inject_and_run(interpreter: Path, directory: Path, kind: str, arguments: dict, blocks: bool = False):
    """Record the polling program from inside (from before its phases to its exit); the recorder, its raw
    recording and the program's own timing."""
    go = directory / "go"
    with Target(interpreter, POLLING_PHASES, directory, str(go), "0.6", "0.4", "blocks" if blocks else "none") as target:
        recorder = InjectedRecorder(attach(target.pid), kind, arguments)
        done: list = []
        thread = threading.Thread(target=lambda: done.append(recorder.run(None)))
        thread.start()
        deadline = time.monotonic() + 60
        while not (recorder.directory and os.path.exists(os.path.join(recorder.directory, "started"))):
            assert time.monotonic() < deadline and thread.is_alive(), "the recorder did not start in the target"
            time.sleep(0.01)
        go.write_text("go")
        truth = target.result()
        thread.join(timeout=60)
        assert not thread.is_alive()
    return recorder, done[0], truth


@pytest.mark.parametrize("name", NEWER)
def test_inject_gives_each_phase_its_own_clocks_time(name, tmp_path):
    """flamespace's own sampler inside the target: each spin's time is the program's own measure within the
    sampler's documented bound; the recording ends with the target's exit and is handed over (atexit); nothing of
    the injection is in it. (Failed before: no in-process attach.)"""
    options = SamplerOptions(rate=200, threads=True, seed=7)
    recorder, raw, truth = inject_and_run(python(name), tmp_path, "sampler", options.as_dict())
    assert recorder.ended == "exited"
    graph = merge([raw], options, {}).graph
    bound = boundary_error_ns(graph, 2)
    for function, seconds in (("spin_a", truth["a"]), ("spin_b", truth["b"])):
        assert abs(time_in(graph, function) - seconds * 1e9) <= bound, (function, time_in(graph, function), seconds, bound)
    assert {stack[0] for stack in graph} >= {"MainThread", "sleeper"}  # threading's names, read from inside
    assert not any(INJECTED_MARK in frame or "_injected" in frame for stack in graph for frame in stack)
    assert not os.path.exists(recorder.directory)


@pytest.mark.parametrize("name", NEWER)
def test_live_mode_inside_names_the_function_that_holds_the_memory(name, tmp_path):
    """--mode live with --pid: the 2,000 blocks of 1,000 bytes the program keeps are under keep_blocks (tracemalloc
    counts them exactly: at least 2,000,000 bytes there), and nothing the injection allocated is counted."""
    options = MemoryOptions(mode="live")
    recorder, raw, truth = inject_and_run(python(name), tmp_path, "live", options.engine_arguments(), blocks=True)
    assert truth["kept"] == 2000
    graph = merge([raw], options, {}).graph
    kept = sum(value for stack, value in graph.items() if any(frame.startswith("keep_blocks (") for frame in stack))
    assert kept >= 2000 * 1000
    assert not any("_injected" in frame or "flamespace" in frame for stack in graph for frame in stack)


@pytest.mark.parametrize("name", NEWER)
def test_ctrl_c_stops_the_recorder_inside_and_saves(name, tmp_path):
    """SIGINT to record --pid --inject: the recorder inside stops, its recording is written, and the target is left
    as it was (its threads back to their number before: no sampler or watcher thread behind)."""
    with Target(python(name), FOREVER, tmp_path) as target:
        before = threads_of(target.pid)
        output = tmp_path / "out.folded"
        recording = subprocess.Popen(
            [sys.executable, "-c", "import sys; from flamespace.cli import main; sys.exit(main())"]
            + ["record", "--pid", str(target.pid), "--inject", "-o", str(output)],
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120
        while threads_of(target.pid) < before + 2:  # the sampler's thread and the watcher's
            assert time.monotonic() < deadline and recording.poll() is None, recording.stderr and recording.stderr.read()
            time.sleep(0.02)
        time.sleep(0.3)
        recording.send_signal(signal.SIGINT)
        _, err = recording.communicate(timeout=60)
        deadline = time.monotonic() + 10
        while threads_of(target.pid) > before and time.monotonic() < deadline:
            time.sleep(0.02)
        assert threads_of(target.pid) == before
        assert target.process.poll() is None  # the target runs on
    assert recording.returncode == 0, err
    assert "interrupted by SIGINT: saved" in err and "recorded inside process" in err
    graph = fs.read(output)
    assert graph.metadata.labels["attached"] == "pid, in-process (sys.remote_exec)"
    assert any(stack[-1].startswith("spin_forever (") for stack in graph)


@pytest.mark.parametrize("name", NEWER)
def test_a_killed_controller_leaves_nothing_running_in_the_target(name, tmp_path):
    """The recorder inside watches its controller: killed with SIGKILL (no chance to say stop), the recorder stops
    by itself, its threads end and its private directory is removed."""
    with Target(python(name), FOREVER, tmp_path) as target:
        before = threads_of(target.pid)
        recording = subprocess.Popen(
            [sys.executable, "-c", "import sys; from flamespace.cli import main; sys.exit(main())"]
            + ["record", "--pid", str(target.pid), "--inject", "-o", str(tmp_path / "out.folded")],
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 120
        while threads_of(target.pid) < before + 2:
            assert time.monotonic() < deadline and recording.poll() is None
            time.sleep(0.02)
        recording.kill()
        recording.wait()
        deadline = time.monotonic() + 20
        while threads_of(target.pid) > before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert threads_of(target.pid) == before
        assert target.process.poll() is None
    assert not (tmp_path / "out.folded").exists()


@pytest.mark.parametrize("name", NEWER)
def test_alloc_with_extensions_for_another_python_is_refused_with_what_to_run(name, tmp_path):
    """--mode alloc needs the _alloc extension built for the target's Python: the tests' flamespace is built for
    this Python, not 3.14/3.15, so the recorder inside refuses, and the message says which Python to run."""
    with Target(python(name), FOREVER, tmp_path) as target:
        line = one_line_error(
            flamespace("record", "--pid", str(target.pid), "--mode", "alloc", "-d", "1", "-o", str(tmp_path / "x.folded"))
        )
        assert target.process.poll() is None
    assert "--mode alloc needs flamespace's C extension built for this Python 3." in line
    assert "-m flamespace record --pid" in line
    assert not (tmp_path / "x.folded").exists()


@pytest.mark.parametrize("name", NEWER)
def test_a_target_that_refuses_remote_code_is_recorded_from_outside_or_refused(name, tmp_path):
    """-X disable-remote-debug: --inject falls back to the outside reader and says why; --mode live cannot."""
    script = tmp_path / "forever.py"
    script.write_text(FOREVER)
    target = subprocess.Popen([str(python(name)), "-X", "disable-remote-debug", str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert target.stdout is not None and target.stdout.readline() == "ready\n"
        done = flamespace("record", "--pid", str(target.pid), "--inject", "-d", "0.5", "-o", str(tmp_path / "out.folded"))
        live = flamespace("record", "--pid", str(target.pid), "--mode", "live", "-d", "0.5", "-o", str(tmp_path / "x.folded"))
    finally:
        target.kill()
        target.wait()
        target.stdout.close()
    assert done.returncode == 0, done.stderr
    assert "Remote debugging is not enabled in the remote process); recording from outside instead" in done.stderr
    assert fs.read(tmp_path / "out.folded").metadata.labels["attached"] == "pid"
    line = one_line_error(live)
    assert "--mode live records from inside the program" not in line  # it could be tried: the target refused
    assert "did not accept code to run (sys.remote_exec: RuntimeError: Remote debugging is not enabled" in line
    assert not (tmp_path / "x.folded").exists()


def test_inject_where_the_python_cannot_take_it_records_from_outside_and_says_so(tmp_path):
    with Target(python("3.12"), FOREVER, tmp_path) as target:
        done = flamespace("record", "--pid", str(target.pid), "--inject", "-d", "0.5", "-o", str(tmp_path / "out.folded"))
    assert done.returncode == 0, done.stderr
    assert "cannot record from inside: process" in done.stderr and "Python 3.14 or later" in done.stderr
    assert "recording from outside instead" in done.stderr
    graph = fs.read(tmp_path / "out.folded")
    assert graph.metadata.labels["attached"] == "pid"


@pytest.mark.parametrize("args", [["--mode", "live"], ["--async"]])
def test_what_needs_the_inside_is_refused_where_the_python_cannot_take_it(args, tmp_path):
    with Target(python("3.12"), FOREVER, tmp_path) as target:
        line = one_line_error(
            flamespace("record", "--pid", str(target.pid), *args, "-d", "0.5", "-o", str(tmp_path / "x.folded"))
        )
    assert f"{args[-1]} records from inside the program, and process {target.pid} runs Python 3.12.1" in line
    assert "Python 3.14 or later" in line
    assert not (tmp_path / "x.folded").exists()


def test_inject_needs_pid_and_cannot_read_the_gil(tmp_path):
    assert "--inject applies to --pid" in one_line_error(
        flamespace("record", "--inject", "-o", str(tmp_path / "x"), "-c", "pass")
    )
    line = one_line_error(flamespace("record", "--pid", str(os.getpid()), "--inject", "--gil", "-o", str(tmp_path / "x.folded")))
    assert "--gil reads the GIL's holder from outside the process" in line


def test_a_pickled_recording_from_another_users_process_is_not_unpickled(tmp_path, monkeypatch):
    """A recording with a timeline comes back pickled; from a process of another user (root attaching to it), whose
    files could hold any pickle, it is refused rather than unpickled (marshal-only data is read)."""
    import pickle

    from flamespace.collect.raw import RawRecording
    from flamespace.collect.remote import inject

    class Process:
        pid = os.getpid()

        def alive(self) -> bool:
            return True

    recorder = InjectedRecorder(Process(), "sampler", {})  # type: ignore[arg-type]
    recorder.directory, recorder.ended = str(tmp_path), "exited"
    (tmp_path / "result").write_bytes(b"P" + pickle.dumps(RawRecording("sampler", {("a",): 1}, 0, 1)))
    assert recorder._collect().totals == {("a",): 1}  # this user's process: read
    monkeypatch.setattr(InjectedRecorder, "_foreign", lambda self: True)
    with pytest.raises(inject.InjectError, match="belongs to another user"):
        recorder._collect()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root, to own files as another user")
def test_the_request_runs_as_root_only_through_an_interpreter_no_other_user_could_change(tmp_path):
    """Root attaching to another user's process runs that process's interpreter to make the request: as root only
    when the binary is root's and writable by nobody else, else as the target's user (no privilege to gain)."""
    from flamespace.collect.remote.inject import helper_identity

    nobody = 65534
    sleeper = subprocess.Popen(["sleep", "30"], user=nobody, group=nobody)
    try:
        trusted = tmp_path / "trusted"
        trusted.write_bytes(b"")
        trusted.chmod(0o755)
        assert helper_identity(sleeper.pid, str(trusted)) is None
        trusted.chmod(0o777)
        assert helper_identity(sleeper.pid, str(trusted)) == (nobody, nobody)
        os.chown(trusted, nobody, nobody)
        trusted.chmod(0o755)
        assert helper_identity(sleeper.pid, str(trusted)) == (nobody, nobody)
        assert helper_identity(os.getpid(), str(trusted)) is None  # root's own process: as root
    finally:
        sleeper.kill()
        sleeper.wait()


def test_the_controller_never_writes_or_reads_through_links_in_the_handed_over_directory(tmp_path):
    """The directory belongs to the target's user once handed over: a link named 'stop' to a file of the
    controller's is neither followed nor truncated, and a link named 'result' is not read."""
    victim = tmp_path / "victim"
    victim.write_text("keep")
    directory = tmp_path / "handed-over"
    directory.mkdir()
    (directory / "stop").symlink_to(victim)
    (directory / "result").symlink_to(victim)

    class Process:
        pid = os.getpid()

    recorder = InjectedRecorder(Process(), "sampler", {})  # type: ignore[arg-type]
    recorder.directory = str(directory)
    recorder._touch("stop")
    recorder._touch("cancel")
    assert victim.read_text() == "keep" and (directory / "cancel").exists()
    assert recorder._file("result") is None
