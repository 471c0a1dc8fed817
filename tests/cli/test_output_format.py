"""Outputs are what their names say: -o's ending picks the format of every command that writes,
a name the command cannot write is refused before any work, and a `.gz` name is gzipped."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import flamespace as fs
from flamespace.cli import _output_format, main
from flamespace.cli._recording import FORMATS, MORE_FORMATS
from flamespace.errors import ArgumentError
from flamespace.formats import folded, registry

from .test_cli import run, write

ENDINGS = {"folded": (".folded",), "speedscope": (".speedscope.json",), "svg": (".svg",), "html": (".html", ".htm")}
WRITES = ("folded", "speedscope", "pprof", "svg", "html")


@pytest.mark.parametrize(
    "name, expected",
    [
        ("p.svg", "svg"),
        ("P.HTML", "html"),
        ("p.htm", "html"),
        ("p.speedscope.json", "speedscope"),
        ("p.folded", "folded"),
        ("p.pprof", "pprof"),
        ("p", "folded"),
        ("p.out", "folded"),
        ("runs.v2/p", "folded"),
        ("-", "folded"),
        ("/dev/null", "folded"),
        (".hidden", "folded"),
        ("p.folded.gz", "folded"),
    ],
)
def test_the_name_picks_the_format(name: str, expected: str) -> None:
    assert _output_format.choose(name, None, "record", WRITES, ENDINGS) == expected


def test_the_longest_ending_wins_and_a_given_format_beats_the_name() -> None:
    endings = {"json": (".json",), "lines-json": (".lines.json",)}
    assert _output_format.choose("t.lines.json", None, "trace", ["json", "lines-json"], endings) == "lines-json"
    assert _output_format.choose("p.svg", "folded", "record", WRITES, ENDINGS) == "folded"


@pytest.mark.parametrize(
    "name, what",
    [
        ("p.pdf", "PDF files (.pdf)"),
        ("p.PNG", "PNG files (.png)"),
        ("p.pstats", "the pstats format"),
        ("p.trace.json", "the chrome format"),
    ],
)
def test_a_name_the_command_cannot_write_is_refused_with_what_it_can(name: str, what: str) -> None:
    with pytest.raises(ArgumentError) as caught:
        _output_format.choose(name, None, "record", WRITES, ENDINGS)
    message = str(caught.value)
    assert f"-o {name}: record cannot write {what}" in message
    assert "it writes folded (.folded), speedscope (.speedscope.json), pprof (.pprof), svg (.svg), html (.html)" in message


def test_the_writable_list_is_asked_only_when_the_endings_do_not_settle_it() -> None:
    asked = []

    def writable():
        asked.append(True)
        return WRITES

    assert _output_format.choose("p.folded", None, "merge", writable, ENDINGS) == "folded" and not asked
    assert _output_format.choose("p.pprof", None, "merge", writable, ENDINGS) == "pprof" and asked


def test_record_offers_every_writer_of_the_registry() -> None:
    plain = {name for name in registry.writable_names() if name != "folded-diff"}
    assert set(FORMATS) | set(MORE_FORMATS) == plain


def as_graph(profile):
    """A profile read back as its flame graph (formats that keep time read as flame charts)."""
    return profile.graph() if isinstance(profile, fs.FlameChart) else profile


PROGRAM = "import time\nend = time.perf_counter() + 0.2\nwhile time.perf_counter() < end:\n    pass\n"


@pytest.mark.parametrize(
    "name, check",
    [
        ("run.svg", lambda data: data.lstrip().startswith(b"<?xml") and b"<svg" in data),
        ("run.html", lambda data: data.lstrip().lower().startswith(b"<!doctype html")),
        ("run.speedscope.json", lambda data: "speedscope" in json.loads(data)["$schema"]),
        ("run.trace.json", lambda data: "traceEvents" in json.loads(data)),
        ("run.folded.gz", lambda data: gzip.decompress(data).count(b"\n") >= 1),
    ],
)
def test_record_writes_what_the_name_says(tmp_path: Path, monkeypatch, name: str, check) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prog.py").write_text(PROGRAM)
    assert main(["record", "-q", "--rate", "200", "-o", name, "--", "prog.py"]) == 0
    assert check((tmp_path / name).read_bytes())
    if not name.endswith((".svg", ".html")):
        assert as_graph(fs.read(tmp_path / name)).total() > 0


def test_record_and_trace_refuse_a_pdf_before_the_program_runs(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prog.py").write_text("open('ran', 'w').close()\n")
    for command in ("record", "trace"):
        code, out, err = run(capsys, command, "-o", "report.pdf", "--", "prog.py")
        assert code == 1 and f"-o report.pdf: {command} cannot write PDF files (.pdf)" in err and "Traceback" not in err
    assert not (tmp_path / "ran").exists() and not (tmp_path / "report.pdf").exists()


def test_profile_commands_write_the_format_the_name_says(capsys, tmp_path: Path) -> None:
    source = write(tmp_path / "a.folded", "main;work 3\nmain 1\n")
    expected = folded.loads(source.read_text())
    for command in (["merge", source], ["filter", source], ["scale", "1", source], ["convert", source]):
        target = tmp_path / f"{command[0]}.speedscope.json"
        code, _, err = run(capsys, *command, "-o", target)
        assert code == 0, err
        assert "speedscope" in json.loads(target.read_text())["$schema"]
        assert as_graph(fs.read(target)) == expected


def test_a_gz_name_is_gzipped_and_reads_back(capsys, tmp_path: Path) -> None:
    source = write(tmp_path / "a.folded", "main;work 3\nmain 1\n")
    target = tmp_path / "merged.folded.gz"
    code, _, _ = run(capsys, "merge", source, source, "-o", target)
    assert code == 0 and target.read_bytes()[:2] == b"\x1f\x8b"
    assert fs.read(target) == 2 * folded.loads(source.read_text())


def test_names_no_writer_takes_are_refused_before_reading(capsys, tmp_path: Path) -> None:
    source = write(tmp_path / "a.folded", "main;work 3\n")
    code, _, err = run(capsys, "convert", source, "-o", tmp_path / "a.pstats")
    assert code == 1 and "convert cannot write the pstats format" in err and "--to FORMAT" in err
    code, _, err = run(capsys, "convert", source, "-o", tmp_path / "a.svg")
    assert code == 1 and "`flamespace svg PROFILE -o FILE` draws them" in err
    code, _, err = run(capsys, "sub", source, source, "-o", tmp_path / "d.pprof")
    assert code == 1 and "sub cannot write the pprof format; it writes folded (.folded)" in err
    assert not list(tmp_path.glob("a.pstats*")) and not (tmp_path / "d.pprof").exists()


def on_a_terminal(args: list[str], typed: bytes = b"") -> tuple[int, str]:
    """Run `flamespace ARGS` with a pseudo-terminal as stdin, stdout and stderr, typing ``typed`` once
    the command has said something; (exit code, what the terminal showed)."""
    import os
    import pty
    import select
    import signal
    import sys
    import time

    pid, fd = pty.fork()
    if pid == 0:  # the child: becomes the command
        os.execv(sys.executable, [sys.executable, "-c", "import sys; from flamespace.cli import main; sys.exit(main())", *args])
    shown = b""
    deadline = time.monotonic() + 60  # a command still waiting then is the failure (killed, exit -9)
    while time.monotonic() < deadline:
        try:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            chunk = os.read(fd, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        shown += chunk
        if typed and b"Ctrl-D" in shown:
            os.write(fd, typed)
            typed = b""
    done, status = os.waitpid(pid, os.WNOHANG)
    if done == 0:
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), shown.decode(errors="replace")


def test_a_picture_for_the_terminal_is_refused_with_how_to_save_it(tmp_path: Path) -> None:
    source = write(tmp_path / "a.folded", "main;work 3\n")
    code, shown = on_a_terminal(["svg", str(source)])
    assert code == 1 and "not writing an SVG picture to the terminal: give -o FILE (e.g. -o profile.svg)" in shown
    assert "<svg" not in shown


def test_reading_stdin_from_a_terminal_says_so_and_one_ctrl_d_ends_it() -> None:
    """The readers sniff the input and then read it again: a terminal's end of input comes once,
    so a second read waited for a second Ctrl-D."""
    code, shown = on_a_terminal(["info"], typed=b"main;work 3\n\x04")
    assert code == 0, shown
    assert "flamespace info: reading a profile from stdin... (Ctrl-D to end" in shown
    assert "3" in shown.split("Ctrl-D to end", 1)[1]
