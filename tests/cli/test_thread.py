"""--thread NAME: one thread of a profile whose stacks start with their thread (record --threads),
as pyinstrument's first view shows the main thread, in top, text, svg, html and record; the
summaries say that one thread is shown, and a name no stack has is a one-line error (issue 25)."""

from __future__ import annotations

import json
import textwrap

import pytest

import flamespace as fs
from flamespace.cli import main
from flamespace.core.transforms import one_thread
from flamespace.errors import ArgumentError
from flamespace.render.html import read_payload

#: Two threads, as `record --threads` writes them: each stack under its thread's name.
THREADS = textwrap.dedent("""\
    # unit: ns
    # threads: 2
    # roots: thread
    MainThread;main (app.py:1);work (app.py:5) 30000000
    MainThread;main (app.py:1) 5000000
    worker;run (pool.py:3);wait (threading.py:320) 65000000
""")
#: The same without thread frames (recorded without --threads).
PLAIN = "main (app.py:1);work (app.py:5) 30\nrun (pool.py:3) 10\n"


@pytest.fixture
def threads_file(tmp_path):
    path = tmp_path / "threads.folded"
    path.write_text(THREADS)
    return path


def _run(capsys, *args) -> tuple:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


# -- the library ----------------------------------------------------------------------------------
def test_one_thread_keeps_its_stacks_without_the_thread_frame_and_says_which() -> None:
    graph = fs.FlameGraph({("MainThread", "a"): 3, ("MainThread", "a", "b"): 4, ("worker", "c"): 5}, unit="ns")
    main_thread = one_thread(graph, "main")  # 'main': the main thread's name too
    assert dict(main_thread.items()) == {("a",): 3, ("a", "b"): 4}
    assert main_thread.metadata.labels["thread"] == "MainThread" and main_thread.metadata.labels["threads"] == "1"
    assert dict(one_thread(graph, "worker").items()) == {("c",): 5}


def test_one_thread_under_process_frames_reads_the_roots_label() -> None:
    graph = fs.FlameGraph(
        {("app (1)", "MainThread", "a"): 3, ("app (1)", "worker", "c"): 5, ("child (2)", "MainThread", "d"): 2},
        labels={"roots": "process,thread"},
    )
    picked = one_thread(graph, "MainThread")
    assert dict(picked.items()) == {("app (1)", "a"): 3, ("child (2)", "d"): 2}
    assert picked.metadata.labels["roots"] == "process"  # the page's picker still offers the processes


def test_a_thread_no_stack_has_is_an_error_naming_the_threads() -> None:
    graph = fs.FlameGraph({("MainThread", "a"): 3, ("worker", "c"): 9}, labels={"roots": "thread"})
    with pytest.raises(ArgumentError, match=r"no thread named 'pool'; the threads are worker \(75%\), MainThread \(25%\)"):
        one_thread(graph, "pool")
    with pytest.raises(ArgumentError, match="record with --threads"):
        one_thread(fs.FlameGraph({("main (app.py:1)", "work"): 3}), "main")


# -- top, text ------------------------------------------------------------------------------------
def test_top_shows_one_thread_and_says_so(capsys, threads_file) -> None:
    code, out, err = _run(capsys, "top", "--thread", "main", threads_file)
    assert code == 0, err
    assert "total 35.0 ms, thread MainThread only)" in out.splitlines()[0]
    assert "work (app.py)" in out and "wait" not in out and "worker" not in out
    code, out, _ = _run(capsys, "top", "--thread", "worker", "--json", threads_file)
    data = json.loads(out)
    assert data["thread"] == "worker" and data["total"] == 65000000
    assert {row["name"] for row in data["functions"]} == {"run (pool.py)", "wait (threading.py)"}


def test_top_without_thread_frames_or_with_an_unknown_thread_fails_in_one_line(capsys, tmp_path, threads_file) -> None:
    plain = tmp_path / "plain.folded"
    plain.write_text(PLAIN)
    code, out, err = _run(capsys, "top", "--thread", "main", plain)
    assert code == 1 and not out
    assert err.count("\n") == 1 and str(plain) in err and "record with --threads" in err and "Traceback" not in err
    code, out, err = _run(capsys, "top", "--thread", "pool", threads_file)
    assert code == 1 and "no thread named 'pool'; the threads are worker (65%), MainThread (35%)" in err


def test_text_shows_one_thread_and_says_so(capsys, threads_file) -> None:
    code, out, err = _run(capsys, "text", "--thread", "worker", threads_file)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "thread worker only"
    assert "run (pool.py:3)" in out and "MainThread" not in out and "main (app.py:1)" not in out


# -- pages ------------------------------------------------------------------------------------------
def test_svg_draws_one_thread_with_a_subtitle_saying_so(capsys, tmp_path, threads_file) -> None:
    code, _, err = _run(capsys, "svg", "--thread", "main", threads_file, "-o", tmp_path / "main.svg")
    assert code == 0, err
    picture = (tmp_path / "main.svg").read_text()
    assert "Thread MainThread only" in picture and "work (app.py:5)" in picture and "pool.py" not in picture
    code, _, err = _run(capsys, "svg", "--thread", "main", "--subtitle", "run 3", threads_file, "-o", tmp_path / "s.svg")
    assert "run 3 \u00b7 thread MainThread only" in (tmp_path / "s.svg").read_text()


def test_html_draws_one_thread_and_a_recording_with_thread_roots_gets_the_picker(capsys, tmp_path, threads_file) -> None:
    code, _, err = _run(capsys, "html", "--thread", "main", threads_file, "-o", tmp_path / "main.html")
    assert code == 0, err
    data = read_payload((tmp_path / "main.html").read_text())
    assert data["subtitle"] == "Thread MainThread only" and data["roots"] == []
    assert "MainThread" not in data["names"] and not any("pool.py" in name for name in data["names"])
    assert data["total"] == 35000000
    # without --thread: the roots label of the recording offers the thread picker, no --roots needed
    code, _, err = _run(capsys, "html", threads_file, "-o", tmp_path / "all.html")
    assert code == 0, err
    assert read_payload((tmp_path / "all.html").read_text())["roots"] == ["thread"]


def test_html_refuses_thread_with_a_comparison(capsys, tmp_path, threads_file) -> None:
    code, _, err = _run(capsys, "html", "--diff", "--thread", "main", threads_file, threads_file, "-o", tmp_path / "d.html")
    assert code != 0 and "--thread does not apply to --diff or --series" in err


# -- record --------------------------------------------------------------------------------------------
from .test_record_html import PROGRAM  # two threads spinning 0.3 s: the main one and 'worker'  # noqa: E402 (beside the record tests that use it)


def test_record_thread_writes_the_main_thread_only(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prog.py").write_text(PROGRAM)
    code, _, err = _run(capsys, "record", "--rate", "200", "--thread", "main", "-o", "main.folded", "--", "prog.py")
    assert code == 0, err
    graph = fs.read(str(tmp_path / "main.folded"))
    assert graph.metadata.labels["thread"] == "MainThread" and "roots" not in graph.metadata.labels
    assert all(not stack[0].startswith(("MainThread", "worker", "Thread")) for stack in graph)  # no thread frames
    assert any(stack[0].startswith("<module> (prog.py:") for stack in graph)
    assert "thread MainThread only; wrote" in err


def test_record_threads_says_its_stacks_start_with_threads_and_top_reads_it(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prog.py").write_text(PROGRAM)
    code, _, err = _run(capsys, "record", "-q", "--rate", "200", "--threads", "-o", "all.folded", "--", "prog.py")
    assert code == 0, err
    assert fs.read(str(tmp_path / "all.folded")).metadata.labels["roots"] == "thread"
    code, out, err = _run(capsys, "top", "--thread", "worker", "all.folded")
    assert code == 0, err
    assert "thread worker only" in out and "spin (prog.py)" in out


def test_record_thread_refuses_a_timeline_format_and_keeps_every_thread_for_an_unknown_name(
    capsys, tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prog.py").write_text(PROGRAM)
    code, _, err = _run(capsys, "record", "--thread", "main", "-o", "run.speedscope.json", "--", "prog.py")
    assert code == 1 and "--thread writes one thread's flame graph; speedscope keeps the timeline" in err
    assert not (tmp_path / "run.speedscope.json").exists()
    code, _, err = _run(capsys, "record", "-q", "--rate", "200", "--thread", "pool", "-o", "all.folded", "--", "prog.py")
    assert code == 0 and "--thread pool: no thread named 'pool'; the threads are" in err and "wrote every thread" in err
    assert {stack[0] for stack in fs.read(str(tmp_path / "all.folded"))} >= {"MainThread", "worker"}
