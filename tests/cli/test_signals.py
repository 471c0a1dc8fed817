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


def _start(tmp_path, *args, first_fast: bool = False, new_group: bool = True, **extra_env: str):
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    marker = tmp_path / "marker"
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp), **extra_env}
    argv = [sys.executable, "-c", CLI, *args, "--mode", "wall", "--rate", "200", "--", str(script), str(marker)]
    if first_fast:
        argv.append("first-fast")
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=new_group)
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


@pytest.mark.parametrize("signum, to_group, code", [
    (signal.SIGTERM, False, 143),
    (signal.SIGTERM, True, 143),
    (signal.SIGINT, False, 130),
    (signal.SIGINT, True, 130),
    (signal.SIGHUP, False, 129),
])
def test_record_saves_what_was_recorded_on_a_signal(tmp_path, signum, to_group, code):
    out = tmp_path / "out.folded"
    proc, child, temp = _start(tmp_path, "record", "-o", str(out))
    if to_group:
        os.killpg(proc.pid, signum)
    else:
        os.kill(proc.pid, signum)
    err = _finish(proc, child, temp)
    assert proc.returncode == code, err
    assert "waiting_here" in out.read_text(), err
    assert "interrupted" in err and signal.Signals(signum).name in err


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
