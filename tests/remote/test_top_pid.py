"""top --pid against a real target, through a pseudo-terminal: keys sort, pause and quit; the terminal is put
back as it was on q, Ctrl-C, SIGTERM and the target's exit; piped, one table of the whole run."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import struct
import sys
import termios
import time
from pathlib import Path

import pytest

from flamespace.cli._live_top import ENTER, LEAVE

from .targets import FOREVER, Target, flamespace, python

#: Runs flamespace in the pseudo-terminal, and writes whether the terminal's settings after are those before.
CHILD = """
import json, sys, termios
from flamespace.cli import main
report = sys.argv.pop(1)
before = termios.tcgetattr(0)
code = main(sys.argv[1:])
after = termios.tcgetattr(0)
with open(report, "w") as file:
    json.dump({"code": code, "restored": before == after}, file)
"""
#: Long enough for a loaded machine's start-up; reached only by a failure.
PATIENCE = 120.0


class Pty:
    """flamespace ARGS in a child on a pseudo-terminal of 120x30."""

    def __init__(self, report: Path, *args: str) -> None:
        self.report = report
        self.pid, self.master = pty.fork()
        if self.pid == 0:  # the child
            os.environ["TERM"] = "xterm"
            os.execv(sys.executable, [sys.executable, "-c", CHILD, str(report), *args])
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
        self.output = ""
        self.status: int | None = None

    def read_until(self, text: str, after: int = 0) -> int:
        """Read the child's output until ``text`` appears past position ``after``; where it starts."""
        deadline = time.monotonic() + PATIENCE
        while (found := self.output.find(text, after)) < 0:
            assert time.monotonic() < deadline, f"no {text!r} in {self.output[after:][-3000:]!r}"
            if not self._read():
                assert self.output.find(text, after) >= 0, f"ended without {text!r}: {self.output[after:][-3000:]!r}"
        return found

    def _read(self) -> bool:
        if select.select([self.master], [], [], 0.1)[0]:
            try:
                data = os.read(self.master, 65536)
            except OSError:  # the child has closed the terminal
                return False
            if not data:
                return False
            self.output += data.decode(errors="replace")
        return True

    def press(self, keys: str) -> int:
        """Type ``keys``; the output's length at that moment (what the keys changed comes after it)."""
        mark = len(self.output)
        os.write(self.master, keys.encode())
        return mark

    def wait(self) -> dict:
        """The child's exit code and whether it put the terminal back, once it has ended."""
        deadline = time.monotonic() + PATIENCE
        while self.status is None:
            assert time.monotonic() < deadline, self.output[-3000:]
            self._read()
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.status = os.waitstatus_to_exitcode(status)
        while self._read() and select.select([self.master], [], [], 0)[0]:
            pass
        assert self.status == 0, (self.status, self.output[-3000:])
        return json.loads(self.report.read_text())

    def close(self) -> None:
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.master)


@pytest.fixture
def target(tmp_path):
    with Target(python("3.12"), FOREVER, tmp_path) as running:
        yield running


def start_top(tmp_path: Path, target: Target, *args: str) -> Pty:
    shown = Pty(tmp_path / "report.json", "top", "--pid", str(target.pid), *args)
    shown.read_until("spin_forever (target_program.py)")
    return shown


def test_keys_sort_pause_and_quit_and_the_terminal_is_put_back(tmp_path, target):
    """(Failed before: top had no --pid.)"""
    shown = start_top(tmp_path, target)
    try:
        assert ENTER in shown.output
        settings = termios.tcgetattr(shown.master)
        assert not settings[3] & (termios.ECHO | termios.ICANON)  # cbreak: keys one by one, unechoed
        assert settings[3] & termios.ISIG  # Ctrl-C still interrupts
        assert "  *%Own" in shown.output
        shown.read_until("*OwnTime", shown.press("3"))
        shown.read_until("*Function (file:line)", shown.press("5"))
        shown.read_until("[paused: space resumes]", shown.press(" "))
        left = shown.read_until(LEAVE, shown.press("q"))
        report = shown.wait()
    finally:
        shown.close()
    assert report == {"code": 0, "restored": True}
    assert "spin_forever (target_program.py)" in shown.output[left:]  # the last table stays on the screen
    assert "*Function (file:line)" in shown.output[left:]  # as it was last sorted
    assert target.process.poll() is None  # the target runs on


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm", "target-exit"])
def test_the_terminal_is_put_back_however_top_ends(how, tmp_path, target):
    shown = start_top(tmp_path, target)
    try:
        if how == "ctrl-c":
            shown.press("\x03")  # the terminal sends SIGINT to its foreground processes
        elif how == "sigterm":
            os.kill(shown.pid, signal.SIGTERM)
        else:
            target.process.kill()
            target.process.wait()
        shown.read_until(LEAVE)
        report = shown.wait()
    finally:
        shown.close()
    assert report == {"code": 0, "restored": True}
    if how == "target-exit":
        assert f"process {target.pid} exited after" in shown.output


def test_piped_top_prints_one_table_of_the_whole_run(target):
    done = flamespace("top", "--pid", str(target.pid), "-d", "0.5", "--thread", "main")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Top ") and "thread MainThread only" in lines[0]
    assert "\x1b" not in done.stdout  # no terminal sequences in a pipe
    assert any("spin_forever (target_program.py)" in line for line in lines)
    assert not any("sleeper" in line for line in lines)


def test_top_pid_refuses_an_input(target):
    done = flamespace("top", "--pid", str(target.pid), "profile.folded")
    assert done.returncode == 1 and "give no INPUT (profile.folded) with it" in done.stderr, done.stderr


def test_attach_options_need_pid(tmp_path):
    (tmp_path / "p.folded").write_text("a;b 1\n")
    done = flamespace("top", "--gil", str(tmp_path / "p.folded"))
    assert done.returncode == 1 and "--gil applies to --pid" in done.stderr, done.stderr


def test_ctrl_z_gives_the_terminal_back_and_the_view_returns(tmp_path, target):
    """Ctrl-Z: the view leaves the alternate screen and puts the terminal back before stopping, and draws
    itself again when continued. Here no shell controls the pseudo-terminal's process group (an orphaned
    group is not stopped by SIGTSTP), so it continues at once. (Failed before: Ctrl-Z did nothing.)"""
    shown = start_top(tmp_path, target)
    try:
        left = shown.read_until(LEAVE, shown.press("\x1a"))
        back = shown.read_until(ENTER, left)
        shown.read_until("spin_forever (target_program.py)", back)
        settings = termios.tcgetattr(shown.master)
        assert not settings[3] & termios.ICANON  # cbreak again
        shown.read_until(LEAVE, shown.press("q"))
        report = shown.wait()
    finally:
        shown.close()
    assert report == {"code": 0, "restored": True}
