"""record without -o prints the short tree (render/console.py) on stdout and writes the profile where it
says; text --short replays it from the file; top and text take --fold-library (issue 30)."""

from __future__ import annotations

import textwrap

import pytest

import flamespace as fs
from flamespace.cli import main

from ..conftest import DATA

#: The main thread parses JSON (library code) for a while; another thread only sleeps.
PROGRAM = textwrap.dedent("""\
    import json, threading, time

    def parse(text):
        return json.loads(text)

    def work():
        text = json.dumps([{"a": i, "b": [i] * 20} for i in range(3000)])
        end = time.process_time() + 0.4
        while time.process_time() < end:
            parse(text)

    sleeper = threading.Thread(target=time.sleep, args=(0.3,))
    sleeper.start()
    work()
    sleeper.join()
""")
APP = DATA / "render" / "console" / "app.folded"


def _run(capsys, *args) -> tuple:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def program(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    (tmp_path / "prog.py").write_text(PROGRAM)
    return tmp_path


def test_record_without_output_prints_the_tree_and_writes_the_profile(capsys, program) -> None:
    code, out, err = _run(capsys, "record", "--rate", "200", "--", "prog.py")
    assert code == 0, err
    written = list(program.glob("profile-*.folded"))
    assert len(written) == 1 and f"wrote {written[0]}" in err
    summary, *lines = out.splitlines()
    assert summary.startswith(tuple("0123456789")) and "library code folded (--show-all)" in summary
    # the sleeping thread only waited: the main thread alone, with its own frames and json folded into parse
    assert "MainThread only (1 other thread only waited" in summary
    assert any("parse (prog.py:4)" in line and " in json" in line for line in lines), out
    assert not any("<stdlib>" in line for line in lines), out
    assert "\x1b" not in out  # captured: not a terminal
    # what the tree needs is in the file: each thread's name and its waiting time, so text --short replays it
    graph = fs.read(str(written[0]))
    assert graph.metadata.labels["roots"] == "thread" and any(stack[-1] == "[idle]" for stack in graph)
    code, replay, err = _run(capsys, "text", "--short", written[0])
    assert code == 0, err
    assert replay.splitlines()[1:] == lines


def test_show_all_keeps_library_frames_and_thread_all_shows_every_thread(capsys, program) -> None:
    code, out, err = _run(capsys, "record", "--show-all", "--thread", "all", "--min-share", "0", "--", "prog.py")
    assert code == 0, err
    assert "<stdlib>/json/" in out and "2 threads summed" in out
    roots = [line for line in out.splitlines()[1:] if line[17:19] not in ("├─", "└─", "│ ", "  ")]
    assert any("MainThread" in line for line in roots) and len(roots) >= 2, out


def test_thread_main_writes_and_shows_that_thread(capsys, program) -> None:
    code, out, err = _run(capsys, "record", "--thread", "main", "--", "prog.py")
    assert code == 0, err
    assert " · MainThread only · " in out.splitlines()[0] and "thread MainThread only; wrote" in err
    assert "MainThread" not in "".join(out.splitlines()[1:])  # no thread frame: the tree starts at the program


def test_no_tree_with_an_output_or_quiet(capsys, program) -> None:
    code, out, err = _run(capsys, "record", "-o", "run.folded", "--", "prog.py")
    assert code == 0 and out == "", (out, err)
    assert "roots" not in fs.read(str(program / "run.folded")).metadata.labels  # recorded as asked
    code, out, err = _run(capsys, "record", "-q", "--", "prog.py")
    assert code == 0 and out == "" and "wrote" not in err  # warnings still are
    assert list(program.glob("profile-*.folded"))


def test_a_bad_min_share_is_refused_before_the_program_runs(capsys, program) -> None:
    code, out, err = _run(capsys, "record", "--min-share", "lots", "--", "prog.py")
    assert code == 1 and "--min-share" in err and "Traceback" not in err
    assert not list(program.glob("profile-*"))


def test_text_short_of_a_file(capsys) -> None:
    code, out, err = _run(capsys, "text", "--short", "--min-share", "10%", APP)
    assert code == 0, err
    assert out == (DATA / "render" / "console" / "min-share-10.txt").read_text()


def test_top_fold_library_ranks_the_programs_functions_with_the_library_time_they_caused(capsys) -> None:
    code, out, err = _run(capsys, "top", "--fold-library", "--thread", "main", "--json", APP)
    assert code == 0, err
    import json

    rows = {row["name"]: row for row in json.loads(out)["functions"]}
    assert not any("<stdlib>" in name or "site-packages" in name for name in rows)
    assert rows["parse (app.py)"]["self"] == 110_000_000  # its time in json (the 4 ms waiting there: [idle]'s)
    assert rows["render (app.py)"]["self"] == 25_000_000  # pygments' lexer


def test_text_fold_library(capsys) -> None:
    code, out, err = _run(capsys, "text", "--fold-library", "--thread", "main", APP)
    assert code == 0, err
    assert "<stdlib>" not in out and "site-packages" not in out and "on_token (app.py:9)" in out


def test_a_live_profile_of_a_running_process_is_what_was_allocated_when_recording_stopped(capsys):
    """--mode live with --pid (in-process, 3.14+) stops with the recording, not at the program's exit:
    the summary said 'still allocated at exit' there too."""
    from types import SimpleNamespace

    from flamespace import FlameGraph
    from flamespace.cli.record import _report
    from flamespace.core.metadata import Metadata

    def said(labels: dict[str, str]) -> str:
        graph = FlameGraph({("main", "grow"): 4096}, metadata=Metadata(unit="bytes", labels={"blocks": "3", **labels}))
        _report(SimpleNamespace(recording=SimpleNamespace(problems=[], graph=graph), signal=None), "x.folded", False)
        return capsys.readouterr().err

    assert "still allocated when the recording stopped" in said({"attached": "pid, in-process (sys.remote_exec)"})
    assert "still allocated at exit" in said({})
