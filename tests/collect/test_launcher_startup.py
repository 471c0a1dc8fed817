"""The launcher's start-up pieces: waking on the child's end, its private directory, dying with us."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from flamespace.collect import launcher
from flamespace.collect.target import Target


def test_wait_briefly_gives_the_exit_code_of_an_ended_child():
    child = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    code = None
    while code is None:
        try:
            code = launcher._wait_briefly(child, 0.5)
        except subprocess.TimeoutExpired:
            pass
    assert code == 3 and child.returncode == 3
    assert launcher._wait_briefly(child, 0.01) == 3  # reaped already: Popen.wait answers


def test_wait_briefly_times_out_on_a_running_child():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            launcher._wait_briefly(child, 0.01)
    finally:
        child.kill()
        child.wait()


def test_private_directory_is_new_and_ours(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    first, second = launcher._private_directory("x-"), launcher._private_directory("x-")
    assert first != second
    for path in (first, second):
        assert os.path.dirname(path) == str(tmp_path) and os.path.basename(path).startswith("x-")
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o700
    (tmp_path / first / "1.raw").write_bytes(b"M")
    launcher._remove_directory(first)
    assert not os.path.exists(first)


def test_private_directory_without_a_usable_tmpdir(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path / "missing"))
    path = launcher._private_directory("x-")  # tempfile finds another place
    try:
        assert os.path.isdir(path)
    finally:
        launcher._remove_directory(path)


def test_the_child_dies_with_us_by_itself_only_with_our_interpreter():
    ours = Target(kind="code", value="pass")
    other = Target(kind="code", value="pass", interpreter="/bin/sh")
    assert not launcher._child_can_die_with_us(other)
    config = launcher._child_config(other, launcher.SamplerOptions(), "/nowhere", False)
    assert "die_with" not in config  # then Popen's preexec_fn does it
    try:
        from flamespace.collect import _waiter  # noqa: F401
    except ImportError:  # built without a C compiler: preexec_fn it is
        return
    if sys.platform.startswith("linux"):
        assert launcher._child_config(ours, launcher.SamplerOptions(), "/nowhere", False)["die_with"] == os.getpid()


def test_a_relative_tmpdir_gives_an_absolute_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t").mkdir()
    monkeypatch.setenv("TMPDIR", "t")
    path = launcher._private_directory("x-")  # the child runs in another directory: it must find it
    try:
        assert os.path.isabs(path) and os.path.dirname(path) == str(tmp_path / "t")
    finally:
        launcher._remove_directory(path)


def test_a_recording_removes_what_recordings_killed_with_sigkill_left(tmp_path, monkeypatch):
    """A recording killed with SIGKILL leaves its directory in $TMPDIR (a trace's event file can be
    hundreds of MB): the next recording removes those whose flamespace is gone, in this pid
    namespace, and nothing else."""
    import os
    import subprocess
    import sys

    from flamespace.collect import launcher

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    namespace = os.readlink("/proc/self/ns/pid")

    def left(pid: int, owner: str | None) -> os.PathLike[str]:
        directory = tmp_path / f"flamespace-record-{pid}-{os.urandom(3).hex()}"
        directory.mkdir()
        (directory / "events").write_bytes(b"x" * 1000)
        if owner is not None:
            (directory / launcher.OWNER).write_text(owner + "\n")
        return directory

    stale = left(ended.pid, namespace)
    running = left(os.getppid(), namespace)
    elsewhere = left(ended.pid, "pid:[1]")
    unowned = left(ended.pid, None)
    made = launcher._private_directory("flamespace-record-")
    assert not stale.exists()
    assert running.exists() and elsewhere.exists() and unowned.exists()
    assert (tmp_path / os.path.basename(made) / launcher.OWNER).read_text().strip() == namespace
