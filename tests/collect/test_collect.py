"""flamespace collect: many runs of one program, or of two interleaved, through main([...]) and the API."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

import flamespace as fs
from flamespace.cli import main
from flamespace.collect.target import parse_command

#: Appends its side and run to a log (to see the order of runs), then works in a function named after its side.
#: The work is long enough (100 ms and more, sampled at 1 kHz) that a sample lands in it even when a
#: loaded machine keeps the process off the CPU for tens of milliseconds (20 ms once had none at load 13+).
PROGRAM = """
import os, sys, time

side = os.environ.get("SIDE", "alone")
with open(os.environ["RUN_LOG"], "a") as log:
    log.write(side + "\\n")

def work_alone(): time.sleep(0.1)
def work_base(): time.sleep(0.1)
def work_cand(): time.sleep(0.15)

{"alone": work_alone, "base": work_base, "cand": work_cand}[side]()
fail_every = int(os.environ.get("FAIL_EVERY", "0"))
if fail_every:
    with open(os.environ["RUN_LOG"]) as log:
        runs = len(log.read().split())
    if runs % fail_every == 0:
        print("something broke", file=sys.stderr)
        sys.exit(3)
"""


@pytest.fixture
def program(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RUN_LOG", str(tmp_path / "runs.log"))
    path = tmp_path / "prog.py"
    path.write_text(textwrap.dedent(PROGRAM), encoding="utf-8")
    return path


def collect(capsys, *args):
    code = main(["collect", "--rate", "1000", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def log(tmp_path: Path) -> list:
    return (tmp_path / "runs.log").read_text().split()


def test_one_program_gives_one_profile_per_run(capsys, tmp_path, program):
    code, out, err = collect(capsys, "-n", 3, "-o", "runs", "--", program)
    assert code == 0 and out == ""
    files = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert files == ["run-001.folded", "run-002.folded", "run-003.folded"]
    graph = fs.read(tmp_path / "runs" / "run-002.folded")
    assert any(frame.startswith("work_alone (prog.py") for stack in graph for frame in stack)
    assert graph.metadata.labels["run"] == "2" and graph.metadata.labels["mode"] == "wall"
    assert "3 runs kept" in err and "3 profiles in runs/ (run-001.folded ... run-003.folded)" in err
    assert "flamespace merge --mean runs" in err


def test_two_programs_run_in_rounds_with_their_own_environment(capsys, tmp_path, program):
    code, _, err = collect(
        capsys,
        "-n",
        2,
        "--warmup",
        1,
        "-o",
        "ab",
        "--baseline-cmd",
        f"{program.name}",
        "--candidate-cmd",
        f"python {program.name}",
        "--baseline-env",
        "SIDE=base",
        "--candidate-env",
        "SIDE=cand",
    )
    assert code == 0
    rounds = [sorted(log(tmp_path)[i : i + 2]) for i in (0, 2, 4)]
    assert rounds == [["base", "cand"]] * 3  # warm-up round first, then one run of each per round
    assert "SIDE" not in os.environ  # the sides' variables went to the programs only
    collections = set()
    for side, work in (("baseline", "work_base"), ("candidate", "work_cand")):
        assert sorted(p.name for p in (tmp_path / "ab" / side).iterdir()) == ["run-001.folded", "run-002.folded"]
        for number in (1, 2):
            graph = fs.read(tmp_path / "ab" / side / f"run-00{number}.folded")
            assert graph.metadata.labels["program"] == side and graph.metadata.labels["pair"] == str(number)
            collections.add(graph.metadata.labels["collection"])  # a round is a pair within its collection only
        assert any(stack[-1].startswith(work) for stack in graph)
    assert len(collections) == 1 and len(collections.pop()) == 16
    assert "4 runs kept, after 1 warm-up run of each" in err
    assert "next: flamespace compare --baseline ab/baseline --candidate ab/candidate" in err


def test_a_command_string_may_be_a_module_or_code(capsys, tmp_path, program):
    (tmp_path / "mod.py").write_text("import time\ntime.sleep(0.01)\n")
    code, _, _ = collect(
        capsys,
        "-n",
        1,
        "-o",
        "mc",
        "--baseline-cmd",
        "-m mod",
        "--candidate-cmd",
        "-c 'import time; time.sleep(0.01)'",
    )
    assert code == 0
    assert (tmp_path / "mc" / "baseline" / "run-001.folded").exists()
    assert (tmp_path / "mc" / "candidate" / "run-001.folded").exists()


def test_a_failing_run_stops_the_collection_and_says_which(capsys, tmp_path, program, monkeypatch):
    monkeypatch.setenv("FAIL_EVERY", "2")
    code, _, err = collect(capsys, "-n", 4, "-o", "runs", "--", program)
    assert code == 1
    assert "error: run 2 exited with code 3; the end of its stderr:\nsomething broke" in err
    assert log(tmp_path) == ["alone", "alone"]
    assert [p.name for p in (tmp_path / "runs").iterdir()] == ["run-001.folded"]


def test_keep_going_leaves_failed_runs_out(capsys, tmp_path, program, monkeypatch):
    monkeypatch.setenv("FAIL_EVERY", "2")
    code, _, err = collect(capsys, "-n", 4, "-o", "runs", "--keep-going", "--", program)
    assert code == 0
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["run-001.folded", "run-003.folded"]
    assert "warning: 2 of 4 runs failed and were left out (run 2, run 4; exit codes 3)" in err


def test_keep_going_still_fails_without_two_good_runs(capsys, tmp_path, program, monkeypatch):
    monkeypatch.setenv("FAIL_EVERY", "1")
    code, _, err = collect(capsys, "-n", 2, "-o", "runs", "--keep-going", "--", program)
    assert code == 1 and "too few good runs to compare (0 kept runs" in err


def test_untrusted_profiles_are_named_then_counted(capsys, tmp_path, program):
    """At 10 Hz a 20 ms run has far fewer than 100 samples: every run is untrusted. The first
    three runs are named, each with all its problems (one line each), the rest counted. Runs, not
    lines, are counted: on a busy machine a tick can come more than an interval (100 ms) late, and
    that run then has a second line ("the sampler fell behind"), as a run holding the GIL does."""
    code, _, err = main(["collect", "--rate", "10", "-n", 5, "-o", "runs", "-q", "--", str(program)]), *capsys.readouterr()
    assert code == 0
    named = [line for line in err.splitlines() if "warning: run " in line]
    runs_named = [line.split("warning: ")[1].split(" (")[0] for line in named]
    assert sorted(set(runs_named)) == ["run 1", "run 2", "run 3"], err
    assert all(f"warning: run {n} (runs/run-00{n}.folded): only " in err for n in (1, 2, 3)), err
    assert "2 more runs should not be trusted either" in err
    assert "runs kept" not in err  # -q: no summary


def test_a_directory_with_runs_is_refused_unless_overwrite(capsys, tmp_path, program):
    assert collect(capsys, "-n", 2, "-o", "runs", "--", program)[0] == 0
    code, _, err = collect(capsys, "-n", 1, "-o", "runs", "--", program)
    assert code == 1 and "runs already holds runs (run-001.folded, run-002.folded)" in err
    assert collect(capsys, "-n", 1, "-o", "runs", "--overwrite", "--", program)[0] == 0
    assert [p.name for p in (tmp_path / "runs").iterdir()] == ["run-001.folded"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--baseline-cmd", "prog.py"], "give both --baseline-cmd and --candidate-cmd"),
        (["--baseline-cmd", "prog.py", "--candidate-cmd", "prog.py", "--", "prog.py"], "not both"),
        (["--baseline-env", "A=1", "--", "prog.py"], "go with --baseline-cmd"),
        (
            ["--baseline-cmd", "prog.py", "--candidate-cmd", "prog.py", "--candidate-env", "NOEQUALS"],
            "'NOEQUALS' is not NAME=VALUE",
        ),
        (["--baseline-cmd", "prog.py 'unclosed", "--candidate-cmd", "prog.py"], "No closing quotation"),
        (["--baseline-cmd", "missing.py", "--candidate-cmd", "prog.py"], "no such script: missing.py"),
        (["--", "prog.py", "--weight", "bytes"], None),  # the program's own arguments are not ours
        (
            ["--weight", "bytes", "--", "prog.py"],
            "unknown weight 'bytes'; sampling weighs by time or samples (the memory modes by bytes or count)",
        ),
        (["-n", "0", "--", "prog.py"], "0 is not in the range"),
        (["--baseline-cwd", ".", "--", "prog.py"], "go with --baseline-cmd"),
        (
            ["--baseline-cmd", "prog.py", "--candidate-cmd", "prog.py", "--candidate-cwd", "nowhere"],
            "'nowhere' is not a directory",
        ),
        (["--baseline-cmd", "prog.py", "--candidate-cmd", "prog.py", "--candidate-cwd", "/"], "no such script: prog.py"),
    ],
)
def test_usage_errors_exit_1_with_a_message(capsys, tmp_path, program, args, message):
    code, _, err = collect(capsys, "-o", "runs", "-n", "1", *args)  # a later -n wins
    if message is None:
        assert code == 0
        return
    assert code == 1 and message in err and "Traceback" not in err


def test_api_collects_and_reports_each_run(tmp_path, program):
    seen = []
    target = parse_command([str(program)])
    programs = [fs.Program(target, "a", {"SIDE": "base"}), fs.Program(target, "b", {"SIDE": "cand"})]
    result = fs.collect_runs(programs, 2, tmp_path / "out", fs.SamplerOptions(rate=1000, seed=1), on_run=seen.append)
    assert sorted((r.number, r.program) for r in seen[:2]) == [(1, "a"), (1, "b")]  # a round: each once,
    assert sorted((r.number, r.program) for r in seen[2:]) == [(2, "a"), (2, "b")]  # in a random order
    assert result.profiles(programs[1]) == [str(tmp_path / "out" / "b" / f"run-00{i}.folded") for i in (1, 2)]
    assert not result.failed and result.seconds > 0
    with pytest.raises(fs.RunFailedError) as failure:
        fs.collect_runs([fs.Program(parse_command([], code="raise SystemExit(5)"))], 1, tmp_path / "fail", fs.SamplerOptions())
    assert failure.value.run.exit_code == 5 and "run 1 exited with code 5" in str(failure.value)


@pytest.mark.skipif(
    __import__("flamespace.collect.alloc", fromlist=["available"]).available() is not None, reason="alloc mode unavailable"
)
def test_memory_runs_take_a_seed_per_run_too(capsys, tmp_path, program):
    """collect seeds run i with seed + i; memory options must take that like sampling options."""
    code, out, err = collect(capsys, "-n", 2, "-o", "mem", "--mode", "alloc", "--seed", 5, "--", program)
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "mem").iterdir()) == ["run-001.folded", "run-002.folded"]
    assert fs.read(tmp_path / "mem" / "run-001.folded").metadata.unit == "bytes"


def test_the_order_within_a_round_is_random_and_seeded():
    """Which program runs first in a round is a coin flip (a paired test is exact by design);
    the same seed gives the same order. 40 rounds all in one order: probability 2 × 2⁻⁴⁰."""
    from flamespace.collect.runs import _round_order

    programs = ["a", "b"]
    order, again = _round_order(7), _round_order(7)
    firsts = [order(programs)[0] for _ in range(40)]
    assert set(firsts) == {"a", "b"}
    assert [again(programs)[0] for _ in range(40)] == firsts


def test_two_checkouts_each_run_from_its_root_give_the_same_frames(capsys, tmp_path, program):
    """`--baseline-cmd a/prog.py --candidate-cmd b/prog.py` names frames `a/prog.py` and `b/prog.py`:
    no stack matches. With --baseline-cwd a --candidate-cwd b each runs from its own checkout."""
    for checkout in ("a", "b"):
        (tmp_path / checkout).mkdir()
        (tmp_path / checkout / "prog.py").write_text(program.read_text())
    code, _, err = collect(
        capsys,
        "-o",
        "runs",
        "-n",
        "2",
        "--baseline-cmd",
        "prog.py",
        "--baseline-cwd",
        "a",
        "--candidate-cmd",
        "prog.py",
        "--candidate-cwd",
        "b",
    )
    assert code == 0, err
    for side in ("baseline", "candidate"):  # which lines were sampled varies: the files frames name must not
        frames = {
            frame
            for path in (tmp_path / "runs" / side).glob("run-*.folded")
            for stack in fs.read(path).support()
            for frame in stack
        }
        files = {frame.rsplit(" (", 1)[1].split(":")[0] for frame in frames if "prog.py" in frame}
        assert files == {"prog.py"}, frames  # not a/prog.py against b/prog.py
        assert any(frame.startswith("work_alone (prog.py:") for frame in frames), frames
