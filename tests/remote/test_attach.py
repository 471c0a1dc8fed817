"""record --pid and dump --pid against every CPython here: known answers from programs that time
their own phases, and the errors a user can act on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import flamespace as fs
from flamespace.collect import SamplerOptions
from flamespace.collect.remote import layouts
from flamespace.collect.remote.process import UnsupportedPython, attach
from flamespace.collect.remote.recorder import RemoteRecorder

from ..collect.recorder_error import boundary_error_ns
from .targets import CHURN, FOREVER, PHASES, PYTHONS, WORKER_SPINS, Target, flamespace, python

#: The phases of the known-answer program (s): long enough for 1-2% shares at 200 Hz on a quiet machine.
SPIN_A, SPIN_B = 0.6, 0.4


def time_in(graph: fs.FlameGraph, function: str) -> float:
    """ns spent in stacks whose innermost frame is ``function`` (``function (file:line)``)."""
    return float(sum(value for stack, value in graph.items() if stack and stack[-1].startswith(function + " (")))


def record_phases(interpreter: Path, directory: Path) -> tuple[fs.FlameGraph, dict]:
    """Record the phases program from outside (sampling from its first tick before the phases start, to its
    exit); the profile and the program's own timing of its phases."""
    with Target(interpreter, PHASES, directory, str(SPIN_A), str(SPIN_B)) as target:
        recorder, thread, done = recording_in_thread(target.pid, SamplerOptions(rate=200, threads=True, seed=7))
        target.go()
        truth = target.result()
        thread.join(timeout=60)
        assert not thread.is_alive()
    assert recorder.ended == "exited"
    return recorder.recording(done[0]).graph, truth


def recording_in_thread(pid: int, options: SamplerOptions) -> tuple:
    """A recorder of ``pid`` running in a thread, once it has taken its first tick: (recorder,
    thread, done), ``done`` holding the recording when the thread ends."""
    recorder = RemoteRecorder(attach(pid), options)
    done: list = []
    thread = threading.Thread(target=lambda: done.append(recorder.run()))
    thread.start()
    while recorder.quality.ticks == 0 and thread.is_alive():
        time.sleep(0.005)
    return recorder, thread, done


@pytest.mark.parametrize("name", list(PYTHONS))
def test_record_pid_gives_each_phase_its_own_clocks_time(name, tmp_path):
    """Each spin's time is the program's own measure of it, within the recorder's documented error
    (at most one gap between ticks at each end of a phase: tests/collect/recorder_error.py), on every
    Python; the sleeping thread is there under its root frame all along. (Failed before: no --pid.)"""
    graph, truth = record_phases(python(name), tmp_path)
    bound = boundary_error_ns(graph, 2)
    for function, seconds in (("spin_a", truth["a"]), ("spin_b", truth["b"])):
        assert abs(time_in(graph, function) - seconds * 1e9) <= bound, (function, time_in(graph, function), seconds, bound)
    roots = {stack[0] for stack in graph}
    assert "MainThread" in roots and len(roots) == 2
    assert time_in(graph, "sleeper") >= (truth["a"] + truth["b"]) * 1e9 - bound
    assert graph.metadata.labels["target_python"].startswith(name.replace("system-", ""))


@pytest.mark.parametrize("name", list(PYTHONS))
def test_dump_names_the_function_each_thread_is_in(name, tmp_path):
    with Target(python(name), FOREVER, tmp_path) as target:
        done = flamespace("dump", "--pid", str(target.pid), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    threads = {thread["name"]: thread for thread in report["threads"]}
    assert threads["MainThread"]["native_id"] == target.pid
    assert threads["MainThread"]["frames"][0].startswith("spin_forever (target_program.py:")
    (other,) = [thread for name, thread in threads.items() if name != "MainThread"]
    assert other["frames"][0] == "sleeper (target_program.py:5)"
    assert report["python"].startswith(name.replace("system-", ""))
    assert all(thread["partial"] is None for thread in report["threads"])


def test_dump_prints_the_stacks_innermost_first(tmp_path):
    with Target(python("3.12"), FOREVER, tmp_path) as target:
        done = flamespace("dump", "--pid", str(target.pid))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    (main,) = [index for index, line in enumerate(lines) if line.startswith(f'Thread {target.pid} "MainThread" (')]
    assert lines[main + 1].strip() in ("spin_forever (target_program.py:8)", "spin_forever (target_program.py:9)")  # the loop
    assert lines[main + 2].strip() == "<module> (target_program.py:13)"


@pytest.mark.parametrize("output", ["out.folded", "out.speedscope.json", "out.html", "out.pprof"])
def test_record_pid_writes_every_format_and_stops_at_the_duration(output, tmp_path):
    with Target(python("3.12"), FOREVER, tmp_path) as target:
        done = flamespace("record", "--pid", str(target.pid), "-d", "0.5", "-r", "200", "--threads", "-o", str(tmp_path / output))
        assert target.process.poll() is None  # the target runs on
    assert done.returncode == 0, done.stderr
    assert "stopped after --duration" in done.stderr
    graph = fs.read(tmp_path / output) if output.endswith((".folded", ".pprof")) else None
    if graph is not None:
        assert any(frame.startswith("spin_forever (") for stack in graph for frame in stack)
    else:
        assert "spin_forever" in (tmp_path / output).read_text()


def wait_until_attached(recorder: subprocess.Popen) -> None:
    """Until the recorder has loaded its reader of other processes (it does so as it attaches): how long its
    start-up takes depends on the machine's load."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and recorder.poll() is None:
        with open(f"/proc/{recorder.pid}/maps") as maps:
            if "_remote." in maps.read():
                time.sleep(0.2)  # attached: its first ticks come within milliseconds
                return
        time.sleep(0.02)


def test_record_pid_ends_and_saves_when_the_target_exits(tmp_path):
    with Target(python("3.11"), PHASES, tmp_path, "0.3", "0.1") as target:
        recording = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from flamespace.cli import main; sys.exit(main())",
                "record",
                "--pid",
                str(target.pid),
                "-o",
                str(tmp_path / "out.folded"),
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        wait_until_attached(recording)
        target.go()
        _, err = recording.communicate(timeout=60)
    assert recording.returncode == 0, err
    assert f"process {target.pid} exited after" in err
    graph = fs.read(tmp_path / "out.folded")
    assert graph.metadata.labels["ended"] == "exited"
    assert any(stack[-1].startswith("spin_a (") for stack in graph)


def test_ctrl_c_stops_record_pid_and_saves(tmp_path):
    with Target(python("3.13"), FOREVER, tmp_path) as target:
        recording = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from flamespace.cli import main; sys.exit(main())",
                "record",
                "--pid",
                str(target.pid),
                "-o",
                str(tmp_path / "out.folded"),
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        wait_until_attached(recording)
        recording.send_signal(signal.SIGINT)
        _, err = recording.communicate(timeout=60)
    assert "interrupted by SIGINT: saved" in err
    graph = fs.read(tmp_path / "out.folded")
    assert any(stack[-1].startswith("spin_forever (") for stack in graph)


# -- errors a user can act on: one line, exit 1 --------------------------------------------------


def one_line_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 1, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


@pytest.mark.parametrize("command", ["dump", "record"])
def test_no_such_process(command, tmp_path):
    ended = subprocess.Popen(["true"])
    ended.wait()  # its pid is free now (and not reused this soon)
    line = one_line_error(
        flamespace(command, "--pid", str(ended.pid), *(["-o", str(tmp_path / "x.folded")] * (command == "record")))
    )
    assert line == f"flamespace {command}: error: no process with pid {ended.pid}"
    assert not (tmp_path / "x.folded").exists()


def test_not_a_python_process(tmp_path):
    other = subprocess.Popen(["sleep", "30"])
    try:
        line = one_line_error(flamespace("record", "--pid", str(other.pid), "-o", str(tmp_path / "x.folded")))
    finally:
        other.kill()
        other.wait()
    assert f"process {other.pid} (sleep) is not a Python process" in line
    assert not (tmp_path / "x.folded").exists()


def test_a_build_whose_layout_moved_is_refused_with_the_version_and_why(tmp_path, monkeypatch):
    """A table that does not fit the build (here: the thread state's interpreter pointer moved) is caught
    when attaching, never read wrongly."""
    moved = dict(layouts.TABLES[12], tstate_interp=24)
    monkeypatch.setitem(layouts.TABLES, 12, moved)
    with Target(python("3.12"), FOREVER, tmp_path) as target:
        with pytest.raises(UnsupportedPython) as caught:
            attach(target.pid)
    message = str(caught.value)
    assert "runs Python 3.12.1, whose memory does not match flamespace's layout for 3.12" in message
    assert "does not point back to the interpreter" in message


#: The system's Python, which any user may run, with flamespace's source on its path (the test venv's
#: Python is under /root); dump needs nothing beyond the standard library and the _remote extension.
AS_ANOTHER_USER = "import sys; sys.path.insert(0, sys.argv.pop(1)); from flamespace.cli import main; sys.exit(main())"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root, to read as another user")
def test_permission_denied_says_what_to_run(tmp_path):
    source = str(Path(fs.__file__).resolve().parent.parent)
    interpreter = python("system-3.11")
    with Target(python("3.12"), FOREVER, tmp_path) as target:
        done = subprocess.run(
            [str(interpreter), "-c", AS_ANOTHER_USER, source, "dump", "--pid", str(target.pid)],
            capture_output=True,
            text=True,
            timeout=60,
            user="nobody",
            cwd="/",
        )
    line = one_line_error(done)
    assert line.startswith(f"flamespace dump: error: permission denied reading process {target.pid}'s")
    assert "ptrace_scope" in line and "SYS_PTRACE" in line


@pytest.mark.parametrize(
    "args, problem",
    [
        (["-c", "pass"], "give no program"),
        (["--mode", "alloc"], "--mode alloc records from inside the program, and process"),
    ],
)
def test_record_pid_refuses_what_it_cannot_do(args, problem, tmp_path):
    line = one_line_error(flamespace("record", "--pid", str(os.getpid()), "-o", str(tmp_path / "x.folded"), *args))
    assert problem in line


def test_idle_and_cpu_modes_tell_a_waiting_thread_from_a_running_one(tmp_path):
    """The kernel's view of each thread (R or not) splits wall time: the sleeping thread is all idle (and
    absent in cpu mode); the spinning main thread is running whenever it has a CPU. (Failed before: no --pid.)"""
    with Target(python("3.12"), FOREVER, tmp_path) as target:
        for mode in ("idle", "cpu"):
            flags = ["--idle"] if mode == "idle" else ["--mode", "cpu"]
            done = flamespace(
                "record", "--pid", str(target.pid), "-d", "0.5", "--threads", *flags, "-o", str(tmp_path / f"{mode}.folded")
            )
            assert done.returncode == 0, done.stderr
    idle = fs.read(tmp_path / "idle.folded")
    sleeper = [(stack, value) for stack, value in idle.items() if any(f.startswith("sleeper (") for f in stack)]
    assert sleeper and all(stack[-1] == "[idle]" for stack, _ in sleeper)
    assert any(stack[-1].startswith("spin_forever (") for stack in idle)
    cpu = fs.read(tmp_path / "cpu.folded")
    assert not any(f.startswith("sleeper (") for stack in cpu for f in stack)
    assert any(stack[-1].startswith("spin_forever (") for stack in cpu)


@pytest.mark.parametrize("name", ["3.9", "3.12", "3.13"])
def test_a_program_that_changes_under_the_reader_and_exits_is_recorded_whole(name, tmp_path):
    """Threads born and ended, recursion, exec'd code, then os._exit, sampled at 1,000 Hz: no crash, the
    recording ends with the target and keeps what it read; stacks cut short are counted, never lost."""
    with Target(python(name), CHURN, tmp_path, "1.0") as target:
        recorder, thread, done = recording_in_thread(target.pid, SamplerOptions(rate=1000, seed=3))
        target.go()
        thread.join(timeout=120)
        assert not thread.is_alive()
    assert recorder.ended == "exited"
    recording = recorder.recording(done[0])
    graph = recording.graph
    assert any(frame.startswith("recurse (") for stack in graph for frame in stack)
    partial = sum(1 for stack in graph if stack[0] == "[partial stack]")
    assert (partial > 0) == (recorder.partial > 0)
    assert recorder.partial <= recorder.quality.samples
    if recorder.partial:
        assert any("cut short" in problem for problem in recording.problems)


@pytest.mark.parametrize("name", list(PYTHONS))
def test_dump_says_which_thread_holds_the_gil(name, tmp_path):
    """A worker thread spins (and so holds the GIL: no other thread asks for it) while the main thread
    sleeps: dump says the worker holds it, the main thread does not. (Failed before: no GIL read.)"""
    with Target(python(name), WORKER_SPINS, tmp_path) as target:
        time.sleep(0.2)  # the worker is in its loop
        done = flamespace("dump", "--pid", str(target.pid), "--json")
    assert done.returncode == 0, done.stderr
    threads = {thread["frames"][0].split(" (")[0]: thread for thread in json.loads(done.stdout)["threads"]}
    assert threads["worker_spin"]["holds_gil"] is True
    assert threads["<module>"]["holds_gil"] is False


def test_record_gil_keeps_only_the_holders_samples(tmp_path):
    with Target(python("3.12"), WORKER_SPINS, tmp_path) as target:
        time.sleep(0.2)
        done = flamespace(
            "record", "--pid", str(target.pid), "--gil", "--threads", "-d", "0.5", "-o", str(tmp_path / "gil.folded")
        )
    assert done.returncode == 0, done.stderr
    graph = fs.read(tmp_path / "gil.folded")
    assert graph.metadata.labels["gil"] == "holder only"
    assert all(stack[-1].startswith("worker_spin (") for stack in graph) and len(graph) > 0


def test_gil_needs_pid(tmp_path):
    line = one_line_error(flamespace("record", "--gil", "-o", str(tmp_path / "x.folded"), "-c", "pass"))
    assert "--gil applies to --pid" in line


def test_a_target_that_exits_before_the_first_sample_leaves_nothing(tmp_path, monkeypatch, capsys):
    from flamespace.cli import main
    from flamespace.collect.remote import process as process_module

    with Target(python("3.12"), FOREVER, tmp_path) as target:
        real_attach = process_module.attach

        def attach_then_end(pid: int):
            attached = real_attach(pid)
            target.process.kill()
            target.process.wait()  # reaped: every read fails with ESRCH from now on
            return attached

        monkeypatch.setattr(process_module, "attach", attach_then_end)
        code = main(["record", "--pid", str(target.pid), "-o", str(tmp_path / "x.folded")])
    err = capsys.readouterr().err
    assert code == 1
    assert err.strip() == f"flamespace record: process {target.pid} exited before a single sample was taken; nothing written"
    assert not (tmp_path / "x.folded").exists()


def test_a_thread_state_made_for_a_thread_not_yet_running_does_not_fail_the_layout_check(monkeypatch):
    """threading's start makes the new thread's state before the thread runs; its kernel id is 0 until
    then. Attaching in that moment refused a right layout ("names thread 0": CI, 3.13). A state naming a
    thread the process does not have still refuses it, and so do states that name none at all."""
    import struct
    from types import SimpleNamespace

    from flamespace.collect.remote import process as module

    layout = SimpleNamespace(tstate_interp=0, tstate_native_thread_id=8)
    fake = SimpleNamespace(
        pid=4242, layout=layout, interpreter=0x1000, native_id=lambda data: struct.unpack_from("<Q", data, 8)[0]
    )
    monkeypatch.setattr(module, "task_ids", lambda pid: [4242, 4243])

    def state(native: int) -> tuple[int, bytes]:
        return 0x5000 + native, struct.pack("<QQ", 0x1000, native)

    assert module._layout_problem(fake, [state(4242), state(0)]) is None
    assert "names thread 99" in module._layout_problem(fake, [state(4242), state(99)])
    assert "no thread state names" in module._layout_problem(fake, [state(0)])
