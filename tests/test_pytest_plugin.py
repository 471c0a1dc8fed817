"""The pytest plugin (pytest --flamespace DIR), run on throwaway test files with pytester."""

from __future__ import annotations

from importlib.metadata import entry_points

import pytest

from flamespace.cli import main
from flamespace.formats.registry import read
from flamespace.pytest_plugin import run_directory_name

from .collect.recorder_error import boundary_error_ns

pytest_plugins = ["pytester"]

TESTS = '''
import time
import pytest


def slow():
    time.sleep(0.05)


@pytest.fixture(scope="session")
def bystander():
    """A thread running before the tests, as pytest-xdist's I/O thread is: not the test's."""
    import threading

    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name="bystander", daemon=True)
    thread.start()
    yield
    stop.set()


@pytest.mark.flamespace
def test_threads(bystander):
    import threading

    worker = threading.Thread(target=slow, name="worker")
    worker.start()
    worker.join()


@pytest.mark.flamespace
def test_marked():
    slow()


@pytest.mark.flamespace(mode="cpu")
@pytest.mark.parametrize("size", ["small", "big"])
def test_parametrized(size):
    sum(range(20000))


def test_unmarked():
    slow()


@pytest.mark.flamespace
def test_failing():
    slow()
    assert False
'''


def runs(directory):
    return sorted(p.name for p in directory.glob("run-*.folded"))


def test_the_plugin_is_installed_as_an_entry_point():
    found = (
        [e for e in entry_points().select(group="pytest11") if e.name == "flamespace"]
        if hasattr(entry_points(), "select")
        else [e for e in entry_points().get("pytest11", []) if e.name == "flamespace"]
    )
    assert [e.value for e in found] == ["flamespace.pytest_plugin"]


def test_the_marker_is_registered_and_does_nothing_without_the_option(pytester):
    pytester.makepyfile(test_rec=TESTS)
    result = pytester.runpytest("--strict-markers", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=5, failed=1)
    assert [p.name for p in pytester.path.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))] == []
    assert "@pytest.mark.flamespace(**options)" in pytester.runpytest("--markers").stdout.str()


def test_marked_tests_are_recorded_and_runs_accumulate_across_sessions(pytester):
    pytester.makepyfile(test_rec=TESTS)
    out = pytester.path / "prof"
    pytester.runpytest("--flamespace", str(out)).assert_outcomes(passed=5, failed=1)
    result = pytester.runpytest("--flamespace", str(out), "-k", "marked and not unmarked")
    result.assert_outcomes(passed=1)
    assert sorted(p.name for p in out.iterdir()) == [
        "test_rec.test_marked",
        "test_rec.test_parametrized_big",
        "test_rec.test_parametrized_small",
        "test_rec.test_threads",
    ]  # neither the unmarked test nor the failed one
    assert runs(out / "test_rec.test_marked") == ["run-001.folded", "run-002.folded"]
    graph = read(str(out / "test_rec.test_marked" / "run-001.folded"))
    stacks = [stack for stack, _ in graph.items()]
    # Stacks start at the test (pytest's frames are cut) and name frames without lines.
    assert all(stack[0] == "test_marked (test_rec.py)" for stack in stacks), stacks
    slow = sum(v for s, v in graph.items() if "slow (test_rec.py)" in s)
    # slow() sleeps 50 ms or more (more when the machine is slow to wake it); the profile may
    # miss at most a gap at each end of it. A plugin that left out the sleep would miss 50 ms.
    assert slow >= 0.05e9 - boundary_error_ns(graph, 2), (slow, graph.metadata.labels["longest_gap_ms"])
    assert graph.metadata.labels["test"] == "test_rec.test_marked"
    assert graph.metadata.metric == "wall"
    assert read(str(out / "test_rec.test_parametrized_big" / "run-001.folded")).metadata.metric == "cpu"
    # The thread the test started is recorded (from its own root), the one running before it is not.
    threads = read(str(out / "test_rec.test_threads" / "run-001.folded"))
    roots = {stack[0] for stack, _ in threads.items()}
    assert not any("wait (" in r for r in roots), roots
    # The worker sleeps 50 ms or more: a tick falls in it unless the sampler stalled as long (a
    # busy machine does that: longest_gap_ms says so; it counts the time to the stop too).
    if float(threads.metadata.labels["longest_gap_ms"]) < 50:
        assert any("slow (test_rec.py)" in stack for stack, _ in threads.items()), (roots, threads.metadata.labels)


def test_runs_option_repeats_each_marked_test_into_one_directory(pytester):
    pytester.makepyfile(test_rec=TESTS)
    out = pytester.path / "prof"
    result = pytester.runpytest("--flamespace", str(out), "--flamespace-runs", "3", "-k", "parametrized or unmarked")
    result.assert_outcomes(passed=7)  # 2 parameters x 3 runs, and the unmarked test once
    assert runs(out / "test_rec.test_parametrized_big") == ["run-001.folded", "run-002.folded", "run-003.folded"]
    assert runs(out / "test_rec.test_parametrized_small") == ["run-001.folded", "run-002.folded", "run-003.folded"]


def test_two_directories_compare_like_any_samples(pytester, capsys):
    pytester.makepyfile(test_rec=TESTS)
    for side in ("base", "head"):
        pytester.runpytest("--flamespace", str(pytester.path / side), "--flamespace-runs", "3", "-k", "test_marked")
    capsys.readouterr()
    code = main(
        [
            "compare",
            "-a",
            str(pytester.path / "base" / "test_rec.test_marked"),
            "-b",
            str(pytester.path / "head" / "test_rec.test_marked"),
        ]
    )
    out = capsys.readouterr().out
    assert code in (0, 3) and "Compared 3 baseline runs with 3 candidate runs" in out


def test_memory_modes_are_cut_at_the_test_too(pytester):
    pytester.makepyfile(
        test_mem="""
import pytest

KEPT = []


def grow():
    KEPT.append(bytearray(2_000_000))


@pytest.mark.flamespace(mode="live", lines=True)
def test_live():
    grow()
"""
    )
    out = pytester.path / "prof"
    pytester.runpytest("--flamespace", str(out)).assert_outcomes(passed=1)
    graph = read(str(out / "test_mem.test_live" / "run-001.folded"))
    ((stack, value),) = [(s, v) for s, v in graph.items() if v > 1_000_000]
    assert stack == ("test_live (test_mem.py:12)", "grow (test_mem.py:7)") and graph.metadata.metric == "live"
    assert all(s[0].startswith("test_live (") for s, _ in graph.items())


def test_bad_usage_is_reported(pytester):
    pytester.makepyfile(
        test_bad="""
import pytest

@pytest.mark.flamespace("cpu")
def test_positional():
    pass

@pytest.mark.flamespace(colour="red")
def test_unknown_option():
    pass
"""
    )
    result = pytester.runpytest("--flamespace", str(pytester.path / "prof"))
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*takes keyword options only*", "*colour*"])
    assert pytester.runpytest("--flamespace", "x", "--flamespace-runs", "0").ret == pytest.ExitCode.USAGE_ERROR


@pytest.mark.parametrize(
    "nodeid, name",
    [
        ("tests/test_io.py::test_parse", "tests.test_io.test_parse"),
        ("tests/test_io.py::TestX::test_parse[big-1]", "tests.test_io.TestX.test_parse_big-1"),
        ("test_io.py::test_parse[flamespace-run-2]", "test_io.test_parse"),
        ("test_io.py::test_parse[flamespace-run-2-big]", "test_io.test_parse_big"),
        ("test_io.py::test_parse[big-flamespace-run-12]", "test_io.test_parse_big"),
        ("test_io.py::test_parse[a b/c]", "test_io.test_parse_a_b_c"),
    ],
)
def test_run_directory_names(nodeid, name):
    assert run_directory_name(nodeid) == name


def test_write_run_takes_the_number_after_the_highest(tmp_path):
    from flamespace import FlameGraph
    from flamespace.pytest_plugin import write_run

    for name in ("run-001.folded", "run-003.folded", "notes.txt"):
        (tmp_path / name).write_text("a 1\n")
    path = write_run(FlameGraph({("f",): 5}), str(tmp_path))
    assert path == str(tmp_path / "run-004.folded") and read(path).total() == 5


def test_profiling_a_pytest_run_gives_no_assert_rewrite_warning(tmp_path, monkeypatch):
    """`flamespace record -m pytest` imports flamespace before pytest starts: pytest warned on every
    profiled run that it could not rewrite the asserts of its flamespace plugin."""
    import subprocess
    import sys

    (tmp_path / "test_sum.py").write_text("def test_sum():\n    assert 1 + 1 == 2\n")
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from flamespace.cli import main; sys.exit(main())",
            "record",
            "-q",
            "-o",
            "run.folded",
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "test_sum.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout and "PytestAssertRewriteWarning" not in done.stdout + done.stderr
