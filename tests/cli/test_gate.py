"""flamespace gate on throwaway git repositories: exit codes, reports, clean-up.

The programs spin: `slow()` runs 10 ms of its thread's CPU time at the first commit and 160 ms
at the second. Every gate here records CPU time (``--mode cpu``), 8 runs a side, with
``--method welch --alpha 0.001 --min-delta 20ms``: a stack fails the gate only if its mean
grew significantly at α = 0.001 *and* by at least 20 ms.

Why CPU time: the programs used to sleep and the gates recorded wall time, which load breaks.
A busy machine stretches the sleeps themselves and holds the sampler up (gaps of 300 ms at
load 19-27 on 2 cores), and a late tick charges its whole gap to the stack it sees: a
baseline's 10 ms sleep read 231 and 302 ms, Welch's |t| fell to 4.1-4.2 and 2 gates in 8 missed
the +150 ms; run alone (``quiet``), it still missed it at load 13 from other processes. A thread's CPU time does not grow with the load, and in CPU
mode a late tick charges only the CPU time the thread used in the gap, so a phase is off by
at most that at each of its two ends (tests/collect/recorder_error.py). Here that bounds
slow() by what the thread runs: at the first commit by its 10 ms plus the CPU before it in a
gap (work()'s 20 ms, ``import pkg``), about 35 ms; at the second commit it loses only the CPU
time the thread ran in the gap at its end, while the sampler, a thread of the same process,
waited for a CPU. To miss the regression (one-sided Welch, Holm over the 6 stacks the gate
tests), one candidate run in 8 must lose more than 155 of its 160 ms so, or two runs more than
110 ms each: the thread must run that long while the sampler, runnable, gets no CPU. Measured
at load 12 on 2 cores (two CPU hogs and two gates at once), over 80 runs a side: slow() read
5-25 ms at the first commit and 159-164 ms at the second, max |t| over 100. So these tests
need no quiet machine.
A false failure of unchanged code needs a false rejection at α = 0.001 *and* a 20 ms shift
of a stack's mean over 8 runs, so it happens less than once in 1000 runs of the test (the α
bound; the margin makes it rarer still), on any load.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flamespace.cli import main

#: The gate's statistics and CPU time, as the module docstring explains.
STRICT = ("--method", "welch", "--alpha", "0.001", "--min-delta", "20000000", "-n", "8", "--rate", "1000", "--mode", "cpu")
#: STRICT without its --rate: the gate chooses the rate.
UNTIMED = STRICT[:8] + STRICT[10:]

#: Each function spins for its thread's own CPU time (the profiler's threads do not count),
#: in its own frame so the stacks are `work` and `slow`.
PACKAGE = """import time


def work():
    end = time.thread_time() + 0.02
    while time.thread_time() < end:
        pass


def slow():
    end = time.thread_time() + {seconds}
    while time.thread_time() < end:
        pass
"""
WORKLOAD = "import pkg\n\npkg.work()\npkg.slow()\n"
#: A PEP 517 backend that needs nothing installed (the tests run offline): packs pkg/ into a wheel.
BACKEND = """import base64, hashlib, os, zipfile

NAME, VERSION = "gatepkg", "0.1"


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    {failure}
    dist = NAME + "-" + VERSION + ".dist-info"
    files = {{"pkg/" + n: open(os.path.join("pkg", n), "rb").read() for n in sorted(os.listdir("pkg")) if n.endswith(".py")}}
    files[dist + "/METADATA"] = ("Metadata-Version: 2.1\\nName: " + NAME + "\\nVersion: " + VERSION + "\\n").encode()
    files[dist + "/WHEEL"] = b"Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(name + ",sha256=" + digest + "," + str(len(data)))
    files[dist + "/RECORD"] = ("\\n".join(record + [dist + "/RECORD,,"]) + "\\n").encode()
    wheel = NAME + "-" + VERSION + "-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return wheel
"""
PYPROJECT = '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n'


def git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout


def make_repo(path: Path, installable: bool = False, failure: str = "pass") -> Path:
    """Commit v1 (slow() spins 10 ms), then commit v2 (160 ms): HEAD is v2."""
    path.mkdir()
    git(path, "init", "-q")
    (path / "pkg").mkdir()
    (path / "bench").mkdir()
    (path / "bench" / "workload.py").write_text(WORKLOAD)
    if installable:
        (path / "pyproject.toml").write_text(PYPROJECT)
        (path / "backend.py").write_text(BACKEND.format(failure=failure))
    for tag, seconds in (("v1", 0.01), ("v2", 0.16)):
        (path / "pkg" / "__init__.py").write_text(PACKAGE.format(seconds=seconds))
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", tag)
        git(path, "tag", tag)
    return path


@pytest.fixture
def temp(tmp_path, monkeypatch):
    """A private temporary directory: what the gate leaves behind is seen."""
    directory = tmp_path / "tmp"
    directory.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(directory))
    return directory


def gate(capsys, repo: Path, out: Path, *args: str, before: tuple = (), options: tuple = STRICT):
    code = main([*before, "gate", "--repo", str(repo), "-o", str(out), *options, *args])
    stdout, stderr = capsys.readouterr()
    return code, stdout, stderr


def assert_clean(repo: Path, temp: Path) -> None:
    assert git(repo, "worktree", "list").count("\n") == 1, git(repo, "worktree", "list")
    assert list(temp.iterdir()) == []


def test_a_slower_function_fails_the_gate_and_the_report_names_its_stack(capsys, tmp_path, temp):
    repo = make_repo(tmp_path / "repo")
    out = tmp_path / "out"
    code, stdout, stderr = gate(capsys, repo, out, "--base", "v1", "--head", "v2", "--no-install", "--", "bench/workload.py")
    assert code == 3, stderr
    report = (out / "report.md").read_text()
    assert "regression" in report and "`<module> (bench/workload.py);slow (pkg/__init__.py)`" in report
    assert "work (pkg" not in report  # the unchanged stack is not reported
    data = json.loads((out / "report.json").read_text())
    assert (
        data["regressed"] is True
        and data["gate"]["base"]["ref"] == "v1"
        and data["gate"]["runs"] == {"baseline": 8, "candidate": 8}
    )
    timing = data["gate"]["run_time"]  # the whole run's time change, in report.md too (not only on stderr)
    assert (
        not timing["paired"] and timing["runs"] == 8 and timing["lower"] <= timing["delta"] <= timing["upper"]
    )  # welch: unpaired
    whole = [line for line in report.splitlines() if line.startswith("Whole run: ")]
    assert len(whole) == 1 and whole[0].endswith("(99.8% interval, two-sided; Welch's t).")
    assert "slow (pkg/__init__.py)" in stdout and stdout == (out / "report.txt").read_text()
    assert (out / "delta.svg").exists() and len(list((out / "runs" / "candidate").glob("run-*.folded"))) == 8
    assert "flamespace gate: regression (exit 3)" in stderr
    assert data["gate"]["rate"] == 1000 and "flamespace gate: rate:" not in stderr  # --rate given: nothing chosen
    assert_clean(repo, temp)


def test_without_rate_the_gate_chooses_one_from_the_warm_up_runs_and_says_so(capsys, tmp_path, temp):
    """v1's run spins about 35 ms of CPU time: at the default 100 Hz it would get about 4 samples,
    so the gate asks for more (a run would have to last 2 s for 100 Hz to give 200). Even --warmup 0
    gets one warm-up run a side: the rate is chosen from its length."""
    repo = make_repo(tmp_path / "repo")
    out = tmp_path / "out"
    code, _, stderr = gate(
        capsys,
        repo,
        out,
        "--base",
        "v1",
        "--head",
        "v1",
        "--no-install",
        "--warmup",
        "0",
        "--",
        "bench/workload.py",
        options=UNTIMED,
    )
    assert code in (0, 3), stderr  # (the verdict is not this test's)
    assert "flamespace gate: 1 warm-up run a side after all, to time the benchmark" in stderr
    gate_info = json.loads((out / "report.json").read_text())["gate"]
    rate = gate_info["rate"]
    assert gate_info["warmup"] == 1 and 100 < rate <= 10_000
    said = [line for line in stderr.splitlines() if line.startswith("flamespace gate: rate: ")]
    assert len(said) == 1 and said[0].startswith(f"flamespace gate: rate: {rate:,g} Hz, ") and "--rate sets it" in said[0], stderr
    recorded = {fs_read(path).metadata.labels["rate_requested"] for path in (out / "runs").glob("*/run-*.folded")}
    assert recorded == {f"{rate:g}"}
    assert_clean(repo, temp)


def fs_read(path: Path):
    import flamespace

    return flamespace.read(path)


def test_the_same_code_passes_and_the_working_tree_is_the_default_head(capsys, tmp_path, temp):
    repo = make_repo(tmp_path / "repo")
    (repo / "bench" / "untracked.py").write_text(WORKLOAD)  # the working tree, untracked files too
    code, _, stderr = gate(capsys, repo, tmp_path / "out", "--base", "v2", "--no-install", "--", "bench/untracked.py")
    assert code == 1 and "bench/untracked.py: no such file at the baseline's v2" in stderr
    (repo / "pkg" / "__init__.py").write_text(PACKAGE.format(seconds=0.01))  # uncommitted: as fast as v1
    code, stdout, stderr = gate(capsys, repo, tmp_path / "out", "--base", "v1", "--no-install", "--", "-m", "bench.workload")
    assert code == 0, stdout + stderr
    assert "with uncommitted changes" in stderr and "no regression (exit 0)" in stderr
    assert json.loads((tmp_path / "out" / "report.json").read_text())["regressed"] is False
    assert git(repo, "status", "--porcelain") == " M pkg/__init__.py\n?? bench/untracked.py\n"  # untouched
    assert_clean(repo, temp)


def test_each_side_is_installed_into_its_own_virtualenv(capsys, tmp_path, temp, monkeypatch):
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # offline: the in-tree backend needs nothing
    repo = make_repo(tmp_path / "repo", installable=True)
    out = tmp_path / "out"
    code, _, stderr = gate(capsys, repo, out, "--base", "v1", "--head", "v2", "--", "bench/workload.py")
    assert code == 3, stderr
    assert "`<module> (bench/workload.py);slow (site-packages/pkg/__init__.py)`" in (out / "report.md").read_text()
    assert "Successfully installed gatepkg-0.1" in (out / "install-baseline.log").read_text()
    assert json.loads((out / "report.json").read_text())["gate"]["installed"] is True
    assert_clean(repo, temp)


def test_a_failed_install_names_pip_and_quotes_its_last_lines(capsys, tmp_path, temp, monkeypatch):
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    repo = make_repo(tmp_path / "repo", installable=True, failure="raise RuntimeError('no compiler for gatepkg')")
    code, _, stderr = gate(capsys, repo, tmp_path / "out", "--base", "v1", "--", "bench/workload.py")
    assert code == 1
    assert "error: installing the baseline (v1 (" in stderr and "no compiler for gatepkg" in stderr
    assert_clean(repo, temp)


@pytest.mark.parametrize(
    "args, message",
    [
        (("--base", "v1", "--no-install"), "nothing to run"),
        (("--base", "v1", "--alpah", "0.01", "--", "bench/workload.py"), "such option"),
        (("--base", "no-such-ref", "--no-install", "--", "bench/workload.py"), "unknown ref 'no-such-ref'"),
        (("--base", "v1", "--head", "v0", "--no-install", "--", "bench/workload.py"), "unknown ref 'v0'"),
        (("--base", "v1", "--no-install", "--", "bench/missing.py"), "bench/missing.py: no such file at the baseline's v1"),
    ],
)
def test_usage_and_setup_errors_exit_1_and_leave_nothing(capsys, tmp_path, temp, args, message):
    repo = make_repo(tmp_path / "repo")
    code, _, stderr = gate(capsys, repo, tmp_path / "out", *args)
    assert code == 1 and message in stderr and "Traceback" not in stderr
    assert_clean(repo, temp)


def test_outside_a_git_repository_is_an_error(capsys, tmp_path, temp):
    code, _, stderr = gate(capsys, tmp_path, tmp_path / "out", "--base", "main", "--", "bench/workload.py")
    assert code == 1 and "is not in a git repository" in stderr


def test_a_failing_program_stops_the_gate_with_its_stderr(capsys, tmp_path, temp):
    repo = make_repo(tmp_path / "repo")
    (repo / "bench" / "workload.py").write_text("raise SystemExit('the benchmark broke')\n")
    code, _, stderr = gate(capsys, repo, tmp_path / "out", "--base", "v1", "--no-install", "--", "bench/workload.py")
    assert code == 1 and "candidate warm-up run 1 exited with code 1" in stderr and "the benchmark broke" in stderr
    assert_clean(repo, temp)


def test_sigterm_cleans_up_and_exits_as_terminated(tmp_path):
    repo = make_repo(tmp_path / "repo")
    (repo / "bench" / "long.py").write_text("import time\ntime.sleep(60)\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a long benchmark")
    temp = tmp_path / "tmp"
    temp.mkdir()
    command = ["gate", "--repo", str(repo), "-o", str(tmp_path / "out"), "--base", "HEAD", "--no-install", "--", "bench/long.py"]
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from flamespace.cli import main; sys.exit(main(sys.argv[1:]))", *command],
        env={**os.environ, "TMPDIR": str(temp)},
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not list(temp.glob("flamespace-record-*")) and time.monotonic() < deadline:  # the first run started
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert git(repo, "worktree", "list").count("\n") == 1
    assert list(temp.iterdir()) == []  # worktrees, and the run's own directory: the run was stopped too


def test_the_next_gate_removes_the_worktrees_of_a_gate_killed_with_sigkill(capsys, tmp_path, temp):
    """The fault: kill -9 left both worktrees (and the workspace) behind, and later gates never removed them."""
    repo = make_repo(tmp_path / "repo")
    (repo / "bench" / "long.py").write_text("import time\ntime.sleep(60)\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a long benchmark")
    command = ["gate", "--repo", str(repo), "-o", str(tmp_path / "out"), "--base", "HEAD", "--no-install", "--", "bench/long.py"]
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from flamespace.cli import main; sys.exit(main(sys.argv[1:]))", *command],
        env={**os.environ, "TMPDIR": str(temp)},
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not list(temp.glob("flamespace-record-*")) and time.monotonic() < deadline:  # both trees are checked out
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)  # the gate and its run, as a killed CI job
    process.wait(timeout=60)
    assert git(repo, "worktree", "list").count("\n") == 3  # the repository and the two trees the gate left
    (stale,) = temp.glob("flamespace-gate-*")
    kept = temp / "flamespace-gate-kept"  # a workspace without an owner (--keep, an older flamespace): not touched
    kept.mkdir()
    code, _, stderr = gate(capsys, repo, tmp_path / "out", "--base", "no-such-ref", "--no-install", "--", "bench/long.py")
    assert code == 1 and "unknown ref 'no-such-ref'" in stderr
    assert (
        f"removed {stale} and its git worktrees, left by an earlier gate that is no longer running (pid {process.pid})" in stderr
    )
    assert git(repo, "worktree", "list").count("\n") == 1
    assert sorted(p.name for p in temp.iterdir() if p.name.startswith("flamespace-gate-")) == ["flamespace-gate-kept"]


def test_a_gate_that_still_runs_keeps_its_workspace(capsys, tmp_path, temp):
    """Only a dead owner's workspace is removed: two gates at once leave each other alone."""
    repo = make_repo(tmp_path / "repo")
    busy = temp / "flamespace-gate-busy"
    busy.mkdir()
    (busy / "owner.json").write_text(
        json.dumps({"pid": os.getpid(), "started": None, "host": os.uname().nodename, "root": str(repo)})
    )
    elsewhere = temp / "flamespace-gate-elsewhere"  # another container's gate: its pid means nothing here
    elsewhere.mkdir()
    (elsewhere / "owner.json").write_text(
        json.dumps({"pid": 2**22 + 1, "started": None, "host": "another-host", "root": str(repo)})
    )
    code, _, stderr = gate(capsys, repo, tmp_path / "out", "--base", "no-such-ref", "--no-install", "--", "bench/workload.py")
    assert code == 1 and "removed" not in stderr and busy.exists() and elsewhere.exists()


def test_the_rate_choice_stays_between_the_default_and_the_highest_and_says_why():
    from flamespace.workflows.gate import RateChoice as _RateChoice
    from flamespace.collect import SamplerOptions
    from flamespace.collect.raw import Quality
    from flamespace.collect.runs import Run

    def warmup(seconds: float, samples: int) -> Run:
        quality = Quality()
        quality.duration_ns, quality.ticks, quality.samples = int(seconds * 1e9), samples, samples
        return Run("baseline", 1, True, 0, seconds, quality=quality)

    said: list = []
    choose = _RateChoice(SamplerOptions(), said.append)
    assert choose([warmup(0.5, 50), warmup(0.4, 40)]).rate == 500  # the shorter run's 200 / 0.4 s
    assert said[-1] == (
        "rate: 500 Hz, so that each run gets about 200 samples (the shortest warm-up run recorded "
        "0.4 s and 40 samples at 100 Hz; --rate sets it)"
    )
    assert _RateChoice(SamplerOptions(), said.append)([warmup(30.0, 3000)]).rate == 100
    assert said[-1].startswith("rate: 100 Hz, the default: it gives each run 200 samples or more")
    assert _RateChoice(SamplerOptions(), said.append)([warmup(0.01, 1)]).rate == 10_000
    assert said[-1].startswith("rate: 10,000 Hz, the highest, and still only about 100 samples a run: make the benchmark longer")
    failed = Run("baseline", 1, True, 1, 0.1, error="killed")
    assert _RateChoice(SamplerOptions(), said.append)([failed]).rate == 100 and "recorded nothing to time them by" in said[-1]
