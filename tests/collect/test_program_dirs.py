"""Frames of a profiled script name its files relative to the script's directory, so two
checkouts of one program (a/bench.py, b/bench.py) compare equal without options; files
elsewhere keep their names (site-packages/..., <stdlib>/..., relative to the working
directory, else absolute)."""

from __future__ import annotations

import json
import os
import textwrap

import flamespace as fs
from flamespace.cli import main
from flamespace.collect.launcher import program_dirs
from flamespace.collect.target import Target
from flamespace.core.python_frames import PathShortener


def test_files_under_the_programs_directory_are_named_relative_to_it_and_others_as_before():
    shorten = PathShortener(cwd="/home/me", stdlib_dirs=["/usr/lib/python3.11"], program_dirs=["/home/me/a/bench"])
    assert shorten("/home/me/a/bench/run.py") == "run.py"
    assert shorten("/home/me/a/bench/lib/helper.py") == "lib/helper.py"
    assert shorten("/home/me/a/bench/.venv/lib/python3.11/site-packages/requests/api.py") == "site-packages/requests/api.py"
    assert shorten("/usr/lib/python3.11/json/decoder.py") == "<stdlib>/json/decoder.py"
    assert shorten("/home/me/a/src/pkg/mod.py") == "a/src/pkg/mod.py"  # outside it: relative to the working directory
    assert shorten("/opt/tools/x.py") == "/opt/tools/x.py"
    assert shorten("<frozen importlib._bootstrap>") == "<frozen importlib._bootstrap>"
    nested = PathShortener(cwd="/w", stdlib_dirs=[], program_dirs=["/w/a", "/w/a/real"])  # a link and its target: the longer wins
    assert nested("/w/a/real/x.py") == "x.py" and nested("/w/a/y.py") == "y.py"


def test_a_script_names_from_its_own_directory_modules_and_code_from_the_working_directory(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "bench.py").write_text("")
    (tmp_path / "a" / "bench.py").symlink_to(tmp_path / "real" / "bench.py")
    script = Target("script", "a/bench.py")
    assert program_dirs(script, str(tmp_path)) == sorted([str(tmp_path / "a"), str(tmp_path / "real")])
    assert program_dirs(Target("module", "pkg.bench")) == [] and program_dirs(Target("code", "pass")) == []
    assert program_dirs(script, str(tmp_path), frame_root=".") == [str(tmp_path)]  # gate: the tree's root


PROGRAM = """
import json
import helper

helper.work()
json.dumps(list(range(200000)))
"""
HELPER = """
import time


def work():
    time.sleep(0.05)
"""


def test_two_copies_in_two_directories_collect_and_compare_equal(capsys, tmp_path, monkeypatch):
    """Before, frames carried a/ and b/ (a/bench.py, a/helper.py), so no stack matched and compare
    called them new. The runs are interleaved pairs, compared two-sided at α = 0.0005 with 12 pairs
    (the smallest p is 2/4096 = 0.00049): identical programs fail the test at most 0.05% of the
    time (it was 0.2% with 10 pairs, and failed once in a full run under load)."""
    monkeypatch.chdir(tmp_path)
    for copy in ("a", "b"):
        (tmp_path / copy).mkdir()
        (tmp_path / copy / "bench.py").write_text(textwrap.dedent(PROGRAM))
        (tmp_path / copy / "helper.py").write_text(textwrap.dedent(HELPER))
    code = main(
        [
            "collect",
            "--rate",
            "1000",
            "-n",
            "12",
            "-q",
            "-o",
            "runs",
            "--baseline-cmd",
            os.path.join("a", "bench.py"),
            "--candidate-cmd",
            os.path.join("b", "bench.py"),
        ]
    )
    assert code == 0, capsys.readouterr().err
    for side in ("baseline", "candidate"):
        files = {
            frame.rsplit(" (", 1)[1].rsplit(":", 1)[0]
            for path in (tmp_path / "runs" / side).glob("run-*.folded")
            for stack in fs.read(path).support()
            for frame in stack
            if " (" in frame
        }
        assert {"bench.py", "helper.py"} <= files, files
        assert not any(f.startswith(("a/", "b/", str(tmp_path))) for f in files), files
        assert all(f.startswith("<stdlib>/") for f in files if "json" in f), files
    capsys.readouterr()
    code = main(["compare", "-a", "runs/baseline", "-b", "runs/candidate", "--alpha", "0.0005", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "share few stacks" not in err and not json.loads(out)["regressed"]
    work = [s for s in json.loads(out)["stacks"] if s["stack"][-1].startswith("work (helper.py:")]
    assert work and all(s["baseline"] > 0 and s["candidate"] > 0 for s in work)  # one stack, both sides
