"""Real signals to `flamespace record` and `collect`: the profile is saved, the temporary
directory removed, no process left behind (README, "Troubleshooting → Signals").

Every wait polls with a generous limit (a loaded 2-core CI machine); no fixed sleep is a check.
"""

import glob
import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="signals and PR_SET_PDEATHSIG: Linux")

LIMIT = 30.0  # seconds any expected event may take on a loaded machine

# Writes its pid to the marker file from waiting_here() (after the first run of a collection,
# which ends at once, if told to), then waits there for 10 minutes.
PROGRAM = """\
import os, sys, time
def waiting_here(marker):
    time.sleep(0.5)  # so that the sampler has seen this frame when the marker appears
    with open(marker + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(marker + ".tmp", marker)
    time.sleep(600)  # far longer than LIMIT: it must not end by itself during a check
marker, first_fast = sys.argv[1], len(sys.argv) > 2
if os.environ.get("IGNORE_SIGTERM"):
    import signal
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if first_fast and not os.path.exists(marker + ".first"):
    open(marker + ".first", "w").close()
    sys.exit(0)
waiting_here(marker)
"""

CLI = "import sys; from flamespace.cli import main; sys.argv[0] = 'flamespace'; sys.exit(main())"


def _wait_for(predicate, what: str) -> None:
    deadline = time.monotonic() + LIMIT
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"after {LIMIT:g} s: {what}")
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return file.read().rpartition(b")")[2].split()[0] != b"Z"
    except OSError:
        return False


#: The recorder options of each command that runs a program (trace has no modes or rates).
# The in-process sampler: what is tested here is how a profiled process saves (or fails to save) its own
# profile on each signal and fault; sampled from outside, the launcher keeps it (tests/collect/test_outside.py).
RECORDER_OPTIONS = {
    "record": ("--mode", "wall", "--rate", "200", "--sampler", "inside"),
    "collect": ("--mode", "wall", "--rate", "200", "--sampler", "inside"),
    "trace": (),
}


def _default_hangup() -> None:
    """SIGHUP as a terminal's session has it: the suite may run under ``nohup``, whose ignored SIGHUP
    a child inherits (and flamespace rightly keeps ignoring)."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _start(tmp_path, *args, first_fast: bool = False, new_group: bool = True, preexec_fn=None, **extra_env: str):
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    marker = tmp_path / "marker"
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp), **extra_env}
    argv = [sys.executable, "-c", CLI, *args, *RECORDER_OPTIONS[args[0]], "--", str(script), str(marker)]
    if first_fast:
        argv.append("first-fast")
    proc = subprocess.Popen(
        argv,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=new_group,
        preexec_fn=preexec_fn or _default_hangup,
    )
    try:
        _wait_for(lambda: marker.exists() or proc.poll() is not None, "the program did not start")
    except AssertionError:
        proc.kill()
        raise
    if not marker.exists():
        out, err = proc.communicate()
        raise AssertionError(f"flamespace ended early ({proc.returncode}): {err}")
    return proc, int(marker.read_text()), temp


def _finish(proc, child: int, temp):
    try:
        out, err = proc.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        proc.kill()
        os.kill(child, signal.SIGKILL) if _alive(child) else None
        raise AssertionError("flamespace did not end after the signal")
    _wait_for(lambda: not _alive(child), f"the program (pid {child}) still runs")
    assert glob.glob(str(temp / "flamespace-record-*")) == []
    return err


@pytest.mark.parametrize("command", ["record", "trace"])
@pytest.mark.parametrize(
    "signum, to_group, code",
    [
        (signal.SIGTERM, False, 143),
        (signal.SIGTERM, True, 143),
        (signal.SIGINT, False, 130),
        (signal.SIGINT, True, 130),
        (signal.SIGHUP, False, 129),
        (signal.SIGHUP, True, 129),  # a closed terminal: the program gets it too, and saves
    ],
)
def test_record_saves_what_was_recorded_on_a_signal(tmp_path, command, signum, to_group, code):
    out = tmp_path / "out.folded"
    proc, child, temp = _start(tmp_path, command, "-o", str(out))
    if to_group:
        os.killpg(proc.pid, signum)
    else:
        os.kill(proc.pid, signum)
    err = _finish(proc, child, temp)
    assert proc.returncode == code, err
    assert "waiting_here" in out.read_text(), err
    assert "interrupted" in err and signal.Signals(signum).name in err


@pytest.mark.parametrize("command", ["record", "trace"])
def test_under_nohup_a_hang_up_is_ignored(tmp_path, command):
    """SIGHUP ignored when flamespace starts (nohup): it stays ignored by us and by the program;
    the SIGTERM sent after it is what stops the run (a SIGHUP acted on would give 129)."""
    out = tmp_path / "out.folded"
    proc, child, temp = _start(tmp_path, command, "-o", str(out), preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    os.killpg(proc.pid, signal.SIGHUP)
    os.killpg(proc.pid, signal.SIGTERM)
    err = _finish(proc, child, temp)
    assert proc.returncode == 143, err
    assert "waiting_here" in out.read_text(), err
    assert "interrupted by SIGTERM" in err


def test_record_program_dies_with_flamespace(tmp_path):
    proc, child, temp = _start(tmp_path, "record", "-o", str(tmp_path / "out.folded"))
    proc.kill()
    proc.wait()
    try:
        _wait_for(lambda: not _alive(child), f"the program (pid {child}) outlived flamespace (kill -9)")
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)


def test_collect_keeps_finished_runs_on_sigterm(tmp_path):
    runs = tmp_path / "runs"
    proc, child, temp = _start(tmp_path, "collect", "-n", "5", "-o", str(runs), first_fast=True)
    os.kill(proc.pid, signal.SIGTERM)
    err = _finish(proc, child, temp)
    assert proc.returncode == 143, err
    assert sorted(os.listdir(runs)) == ["run-001.folded"], err
    assert "1 runs kept" in err and "SIGTERM" in err


def test_record_kills_a_program_that_ignores_sigterm(tmp_path):
    """It saved nothing (its SIGTERM is ignored): killed after the grace period, nothing written."""
    out = tmp_path / "out.folded"
    proc, child, temp = _start(tmp_path, "record", "-o", str(out), IGNORE_SIGTERM="1")
    os.kill(proc.pid, signal.SIGTERM)
    err = _finish(proc, child, temp)
    assert proc.returncode == 143, err
    assert not out.exists()
    assert "interrupted by SIGTERM" in err and "nothing written" in err


def _run_cli(tmp_path, *args, env=None, cli=CLI):
    """Run flamespace to its end (no signal from us): its exit code and stderr."""
    temp = tmp_path / "tmp"
    temp.mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(temp), **(env or {})}
    proc = subprocess.run(
        [sys.executable, "-c", cli, *args], env=env, capture_output=True, text=True, timeout=120, preexec_fn=_default_hangup
    )
    assert glob.glob(str(temp / "flamespace-record-*")) == []
    return proc.returncode, proc.stderr


def _script(tmp_path, text: str):
    path = tmp_path / "prog.py"
    path.write_text(text)
    return str(path)


# Sleeps in a function of its own (so that the recording has something to show), then execs.
EXEC_PROGRAM = """\
import os, sys, time
def before_exec():
    time.sleep(0.5)
before_exec()
{exec_call}
"""


@pytest.mark.parametrize("command", ["record", "trace"])
@pytest.mark.parametrize(
    "exec_call",
    [
        'os.execv("/bin/sh", ["sh", "-c", "exit 7"])',
        'os.execlp("sh", "sh", "-c", "exit 7")',
    ],
)
def test_exec_saves_what_was_recorded_and_gives_the_new_programs_exit_code(tmp_path, command, exec_call):
    out = tmp_path / "out.folded"
    script = _script(tmp_path, EXEC_PROGRAM.format(exec_call=exec_call))
    code, err = _run_cli(tmp_path, command, "-o", str(out), *RECORDER_OPTIONS[command], "--", script)
    assert code == 7, err
    assert "before_exec" in out.read_text(), err


def test_exec_of_python_with_subprocesses_records_both_programs(tmp_path):
    out = tmp_path / "out.folded"
    call = 'os.execv(sys.executable, [sys.executable, "-c", "import time\\ndef after_exec(): time.sleep(0.5)\\nafter_exec()"])'
    script = _script(tmp_path, EXEC_PROGRAM.format(exec_call=call))
    code, err = _run_cli(tmp_path, "record", "--subprocesses", "-o", str(out), *RECORDER_OPTIONS["record"], "--", script)
    assert code == 0, err
    text = out.read_text()
    assert "before_exec" in text and "after_exec" in text, err
    assert "not in the profile" not in err


def test_a_failed_exec_keeps_what_was_recorded(tmp_path):
    out = tmp_path / "out.folded"
    call = 'try:\n    os.execv("/nonexistent/program", ["x"])\nexcept OSError:\n    sys.exit(5)'
    script = _script(tmp_path, EXEC_PROGRAM.format(exec_call=call))
    code, err = _run_cli(tmp_path, "record", "-o", str(out), *RECORDER_OPTIONS["record"], "--", script)
    assert code == 5, err
    assert "before_exec" in out.read_text(), err


# Sleeps in a function of its own (so that the recording has something to show), then crashes.
CRASH_PROGRAM = """\
import ctypes, time
def before_the_crash():
    time.sleep(0.5)
before_the_crash()
ctypes.string_at(0)
"""


@pytest.mark.parametrize("command", ["record", "trace"])
def test_a_segfault_saves_what_was_recorded_and_gives_139(tmp_path, command):
    out = tmp_path / "out.folded"
    script = _script(tmp_path, CRASH_PROGRAM)
    code, err = _run_cli(tmp_path, command, "-o", str(out), *RECORDER_OPTIONS[command], "--", script)
    assert code == 128 + signal.SIGSEGV, err
    assert "killed by SIGSEGV (a segmentation fault): the profile ends there" in err, err
    assert "Traceback" not in err
    assert "before_the_crash" in out.read_text()


def test_a_save_that_hangs_after_a_crash_is_cut_short(tmp_path):
    """The save on a crash runs in a damaged process: if it hangs (here: made to, as on a lock
    the crash left held), the alarm ends the process with the crash's signal after 10 s."""
    out = tmp_path / "out.folded"
    script = _script(
        tmp_path,
        (
            "import ctypes, sys, time\n"
            "bootstrap = sys.modules['flamespace.collect._bootstrap']\n"
            "bootstrap._write_profile = lambda *args: time.sleep(600)\n"
            "ctypes.string_at(0)\n"
        ),
    )
    code, err = _run_cli(tmp_path, "record", "-o", str(out), *RECORDER_OPTIONS["record"], "--", script)
    assert code == 128 + signal.SIGSEGV, err
    assert "killed by SIGSEGV (a segmentation fault) before it saved its profile; nothing written" in err, err


def test_a_second_fault_during_the_save_ends_with_the_first_ones_signal(tmp_path):
    out = tmp_path / "out.folded"
    script = _script(
        tmp_path,
        (
            "import ctypes, os, sys\n"
            "sys.modules['flamespace.collect._bootstrap']._write_profile = lambda *args: os.abort()\n"
            "ctypes.string_at(0)\n"
        ),
    )
    code, err = _run_cli(tmp_path, "record", "-o", str(out), *RECORDER_OPTIONS["record"], "--", script)
    assert code == 128 + signal.SIGSEGV, err  # not SIGABRT's 134


def test_a_segfault_under_faulthandler_gives_139_and_says_so(tmp_path):
    """A faulthandler enabled before us is left alone: its traceback, no profile, the right exit code."""
    out = tmp_path / "out.folded"
    script = _script(tmp_path, CRASH_PROGRAM)
    code, err = _run_cli(
        tmp_path, "record", "-o", str(out), *RECORDER_OPTIONS["record"], "--", "python", "-X", "faulthandler", script
    )
    assert code == 128 + signal.SIGSEGV, err
    assert "Fatal Python error: Segmentation fault" in err  # faulthandler's traceback
    assert "killed by SIGSEGV (a segmentation fault) before it saved its profile; nothing written" in err, err
    assert not out.exists()


@pytest.mark.parametrize("deaf_to", [("SIGINT",), ("SIGINT", "SIGTERM")])
def test_duration_stops_a_program_that_ignores_ctrl_c_and_exits_0(tmp_path, deaf_to):
    """A program deaf to Ctrl-C (and to SIGTERM too) gets SIGTERM, then SIGKILL, once its profile is
    saved: --duration asked for the stop, so the exit code is 0 (it was 143, or 137)."""
    out = tmp_path / "out.folded"
    ignored = "".join(f"signal.signal(signal.{name}, signal.SIG_IGN)\n" for name in deaf_to)
    script = _script(
        tmp_path, ("import signal, time\n" + ignored + "def deaf():\n    while True:\n        time.sleep(0.01)\ndeaf()\n")
    )
    code, err = _run_cli(tmp_path, "record", "--duration", "0.5", "-o", str(out), *RECORDER_OPTIONS["record"], "--", script)
    assert code == 0, err
    assert "stopped after --duration" in err
    assert "deaf" in out.read_text()


# Runs the CLI with the output check replaced by one that signals us first: a signal that comes
# while the command prepares (after its first moment, before the program starts).
EARLY_CLI = """\
import os, signal, sys
import flamespace.formats as formats, flamespace.formats._io as io
real = io.check_output
def check_output(path):
    os.kill(os.getpid(), int(os.environ["EARLY_SIGNAL"]))
    return real(path)
formats.check_output = io.check_output = check_output
from flamespace.cli import main
sys.argv[0] = 'flamespace'
sys.exit(main())
"""


@pytest.mark.parametrize("command", ["record", "trace"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_before_the_program_starts_gives_128_plus_the_signal(tmp_path, command, signum):
    out = tmp_path / "out.folded"
    ran = tmp_path / "ran"
    script = _script(tmp_path, f"open({str(ran)!r}, 'w').close()\n")
    code, err = _run_cli(
        tmp_path,
        command,
        "-o",
        str(out),
        *RECORDER_OPTIONS[command],
        "--",
        script,
        env={"EARLY_SIGNAL": str(int(signum))},
        cli=EARLY_CLI,
    )
    assert code == 128 + signum, err
    assert f"interrupted by {signum.name} before the program started; nothing written" in err
    assert not ran.exists() and not out.exists()


def _full_filesystem(path):
    """A 64 KiB tmpfs at ``path``, filled up (root only: mount)."""
    path.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small full file system needs root")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(path)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    fd = os.open(path / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)


@pytest.fixture
def full_tmpdir(tmp_path):
    path = tmp_path / "full"
    try:
        _full_filesystem(path)
        yield path
    finally:
        subprocess.run(["umount", str(path)], capture_output=True)


@pytest.mark.parametrize("command", ["record", "trace"])
def test_a_full_tmpdir_is_one_clear_line(tmp_path, full_tmpdir, command):
    out = tmp_path / "out.folded"
    script = _script(tmp_path, "import time\ntime.sleep(0.1)\n")
    code, err = _run_cli(
        tmp_path, command, "-o", str(out), *RECORDER_OPTIONS[command], "--", script, env={"TMPDIR": str(full_tmpdir)}
    )
    assert code == 1, err
    assert "Traceback" not in err and "exec" not in err, err
    assert f"cannot save the profile in {full_tmpdir}: No space left on device" in err, err
    assert len(err.strip().splitlines()) == 1, err
    assert glob.glob(str(full_tmpdir / "flamespace-record-*")) == []


# Starts a non-Python child (sleep) and a shell that starts one of its own in the background,
# writes their pids to the marker, then waits.
FAMILY_PROGRAM = """\
import os, subprocess, sys, time
marker = sys.argv[1]
sleeper = subprocess.Popen(["sleep", "600"])
shell = subprocess.Popen(["sh", "-c", "sleep 600 & echo $! > " + marker + ".grandchild; wait"])
while not os.path.exists(marker + ".grandchild") or not open(marker + ".grandchild").read().strip():
    time.sleep(0.01)
pids = [os.getpid(), sleeper.pid, shell.pid, int(open(marker + ".grandchild").read())]
with open(marker + ".tmp", "w") as f:
    f.write(" ".join(map(str, pids)))
os.rename(marker + ".tmp", marker)
time.sleep(600)
"""


@pytest.mark.parametrize("command", ["record", "trace"])
def test_the_programs_children_die_with_flamespace_too(tmp_path, command):
    """kill -9 of flamespace: the program, the processes it started and theirs all end."""
    from flamespace.collect import launcher
    from flamespace.collect.target import Target

    if not launcher._child_can_die_with_us(Target(kind="code", value="pass")):
        pytest.skip("needs the C extension (_waiter) built for this interpreter")
    script = _script(tmp_path, FAMILY_PROGRAM)
    marker = tmp_path / "marker"
    temp = tmp_path / "tmp"
    temp.mkdir()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            CLI,
            command,
            "-o",
            str(tmp_path / "out.folded"),
            *RECORDER_OPTIONS[command],
            "--",
            script,
            str(marker),
        ],
        env={**os.environ, "TMPDIR": str(temp)},
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "stderr", "wb"),
    )  # not a pipe: a survivor would hold it open
    pids = []
    try:
        _wait_for(lambda: marker.exists() or proc.poll() is not None, "the program did not start")
        assert marker.exists(), (tmp_path / "stderr").read_text()
        pids = [int(word) for word in marker.read_text().split()]
        proc.kill()
        proc.wait()
        for pid in pids:
            _wait_for(lambda: not _alive(pid), f"process {pid} of {pids} outlived flamespace (kill -9)")
    finally:
        proc.kill()
        proc.wait()
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
