"""`flamespace agent -- app.py`: the program runs as under python, its profile is pushed when it
ends, when Ctrl-C or SIGTERM stops it, and bad options are one line, exit 1.

The server is the tests' tiny Pyroscope (tests/collect/_pyroscope_server.py). Every wait polls
with a generous limit (a loaded 2-core CI machine); no sleep is a check."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("google.protobuf", reason="protobuf (a test extra) decodes the pushes")

from ..collect._pyroscope_server import PyroscopeServer  # noqa: E402

LIMIT = 60.0
CLI = "import sys; from flamespace.cli import main; sys.argv[0] = 'flamespace'; sys.exit(main())"

# Spins in work() (on a CPU: the agent's default mode records CPU time), tells the test it has
# spun a while, then spins on until it is stopped.
PROGRAM = """\
import os, sys, time
def work(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        sum(range(1000))
marker = sys.argv[1]
work(0.3)
with open(marker + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename(marker + ".tmp", marker)
work(600)
"""

MODULE = """\
import sys, time
def work():
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        sum(range(1000))
work()
sys.exit(int(sys.argv[1]))
"""


@pytest.fixture
def server():
    running = PyroscopeServer()
    yield running
    running.close()


def agent(*args: str, cwd: str | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CLI, "agent", *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def stacks(received) -> list[str]:
    return [";".join(stack) for stack in received.graph.keys()]


@pytest.mark.skipif(sys.platform != "linux", reason="signals: Linux")
@pytest.mark.parametrize(("signum", "exit_code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stopped_program_pushes_its_last_window(server, tmp_path, signum, exit_code):
    script = tmp_path / "shop.py"
    script.write_text(PROGRAM)
    marker = tmp_path / "started"
    process = agent("--server", server.url, "--window", "1000", "--label", "region=eu", "--", str(script), str(marker))
    try:
        deadline = time.monotonic() + LIMIT
        while not marker.exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the program did not start"
            time.sleep(0.05)
        assert not server.received  # a window of 1000 s: nothing pushed yet
        os.kill(process.pid, signum)
        _, stderr = process.communicate(timeout=LIMIT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == exit_code, stderr
    (received,) = server.received
    assert received.labels["service_name"] == "shop" and received.labels["region"] == "eu"
    assert any("work (shop.py" in s for s in stacks(received)), stacks(received)
    assert not any("flamespace" in s.split(";")[0] for s in stacks(received))  # stacks start at the program
    assert f"pushed 1 profile to {server.url}" in stderr


def test_a_module_runs_as_under_python_and_its_exit_code_is_ours(server, tmp_path):
    (tmp_path / "billing.py").write_text(MODULE)
    process = agent("--server", server.url, "--window", "1000", "-q", "-m", "billing", "3", cwd=str(tmp_path))
    _, stderr = process.communicate(timeout=LIMIT)
    assert process.returncode == 3, stderr
    assert stderr == ""  # -q: no summary, and nothing went wrong
    (received,) = server.received
    assert received.labels["service_name"] == "billing"
    assert any(s.startswith("<module> (billing.py") and "work (billing.py" in s for s in stacks(received)), stacks(received)


def test_a_server_that_never_answers_is_reported_with_what_was_not_sent(tmp_path):
    closed = PyroscopeServer()
    url = closed.url
    closed.close()
    (tmp_path / "billing.py").write_text(MODULE)
    process = agent("--server", url, "--window", "1000", "-m", "billing", "0", cwd=str(tmp_path))
    _, stderr = process.communicate(timeout=LIMIT)
    assert process.returncode == 0, stderr
    assert "flamespace agent: cannot push" in stderr
    assert "pushed 0 profiles" in stderr and "1 profile not sent" in stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--server", "127.0.0.1:4040", "-c", "pass"], "http://"),
        (["--server", "http://h", "--label", "oops", "-c", "pass"], "--label 'oops'"),
        (["--server", "http://h", "--label", "__name__=x", "-c", "pass"], "__name__"),
        (["--server", "http://h", "--", "missing.py"], "no such script"),
    ],
)
def test_bad_options_are_one_line_and_exit_1(args, message):
    process = agent(*args)
    _, stderr = process.communicate(timeout=LIMIT)
    assert process.returncode == 1 and message in stderr and "Traceback" not in stderr, stderr
