"""flamespace.gate(...): the gate as a library call, on test_gate's throwaway repositories.

The regression is test_gate's +150 ms of CPU time in slow(), found on any load with its STRICT
statistics (Welch, α = 0.001, a 20 ms margin, 8 runs a side): tests/cli/test_gate.py's
docstring gives the reasoning and the false-failure rate (below 1 in 1000).
"""

from __future__ import annotations

import json

import pytest

import flamespace as fs
from flamespace.collect import SamplerOptions
from flamespace.stats.comparison import CompareOptions

from ..cli.test_gate import assert_clean, git, make_repo, temp  # noqa: F401 (temp: a fixture)

#: test_gate's STRICT as the library takes it.
RUNS = 8
OPTIONS = CompareOptions(method="welch", alpha=0.001, min_delta=20_000_000, alternative="greater")
RECORDER = SamplerOptions(mode="cpu", rate=1000, lines=False)  # the gate's frames: no line numbers


def test_gate_returns_a_typed_result_writes_the_reports_and_prints_nothing(capsys, tmp_path, temp):
    repo = make_repo(tmp_path / "repo")
    out = tmp_path / "out"
    said: list = []
    result = fs.gate(
        "v1",
        ["bench/workload.py"],
        head="v2",
        repo=str(repo),
        out_dir=str(out),
        runs=RUNS,
        install=False,
        recorder=RECORDER,
        choose_rate=False,
        options=OPTIONS,
        say=said.append,
    )
    assert capsys.readouterr() == ("", "")  # the library never prints: all of it went to say
    assert result.regressed and isinstance(result, fs.GateResult) and result.out_dir == str(out)
    assert [c.stack for c in result.comparison.regressions] == [("<module> (bench/workload.py)", "slow (pkg/__init__.py)")]
    run = result.run
    assert (run.base.ref, run.head.ref, run.base.runs, run.head.runs) == ("v1", "v2", RUNS, RUNS)
    assert run.base.commit == git(repo, "rev-parse", "v1").strip() and not run.base.stored
    assert run.command.endswith("bench/workload.py") and run.rate == 1000 and not run.installed and run.warmup == 1
    assert run.run_time is not None and run.run_time.delta > 0
    assert sorted(result.samples) == ["baseline", "candidate"] and len(result.samples["candidate"].names) == RUNS
    data = json.loads((out / "report.json").read_text())
    assert data["gate"] == json.loads(json.dumps(run.as_dict())) and data["regressed"] is True
    assert (out / "report.md").read_text().startswith("## flamespace gate: ❌ **regression**\n\nBase: v1 (")
    assert (out / "report.txt").read_text().startswith(f"Gate: base {run.base.description} against head {run.head.description}.")
    assert (out / "delta.svg").exists() and (out / "grown.folded").exists()
    assert "baseline: v1 (" in said[0] and any(line.startswith("running ") for line in said)
    assert not any(line.startswith("rate: ") for line in said)  # choose_rate=False: the recorder's rate
    assert_clean(repo, temp)


def test_gate_setup_errors_are_gate_errors_and_leave_nothing(tmp_path, temp):
    repo = make_repo(tmp_path / "repo")
    with pytest.raises(fs.GateError, match="unknown ref 'no-such-ref'"):
        fs.gate("no-such-ref", ["bench/workload.py"], repo=str(repo), out_dir=str(tmp_path / "out"), runs=2, install=False)
    with pytest.raises(fs.GateError, match="nothing to run"):
        fs.gate("v1", [], repo=str(repo), out_dir=str(tmp_path / "out"), runs=2)
    assert_clean(repo, temp)


def test_sigterm_stops_the_gate_with_gate_stopped_after_cleaning_up(tmp_path, temp):
    """The library does not exit: SIGTERM (a cancelled CI job) leaves through the clean-up as
    GateStopped, whose exit_code the CLI exits with; the previous handler is back afterwards."""
    import os
    import signal

    repo = make_repo(tmp_path / "repo")
    before = signal.getsignal(signal.SIGTERM)

    def say(line: str) -> None:
        if line.startswith("running "):  # the worktrees exist: the clean-up has something to do
            os.kill(os.getpid(), signal.SIGTERM)

    with pytest.raises(fs.GateStopped) as stopped:
        fs.gate(
            "v1",
            ["bench/workload.py"],
            head="v2",
            repo=str(repo),
            out_dir=str(tmp_path / "out"),
            runs=2,
            install=False,
            recorder=RECORDER,
            choose_rate=False,
            say=say,
        )
    assert stopped.value.signal == signal.SIGTERM and stopped.value.exit_code == 128 + signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) == before
    assert_clean(repo, temp)
