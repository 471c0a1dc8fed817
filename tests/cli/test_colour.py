"""Colour in text, top and compare: on a terminal only, never with NO_COLOR or in a pipe, and
the same bytes as without colour once the escape codes are taken out."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from flamespace.cli import _style, main

from ._terminal import run_on_terminal
from .test_compare import write_runs

ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
PROFILE = """\
main;a (app.py:3);b (lib.py:4) 10
main;a (app.py:3);c (lib.py:9) 70
main;ext4_readdir_[k] 5
main;tiny 1
"""


@pytest.fixture
def profile(tmp_path: Path) -> Path:
    path = tmp_path / "app.folded"
    path.write_text(PROFILE)
    return path


@pytest.fixture
def differential(tmp_path: Path) -> Path:
    path = tmp_path / "diff.folded"
    path.write_text("main;grew 10 30\nmain;shrank 40 20\n")
    return path


@pytest.fixture
def runs(tmp_path: Path):
    return write_runs(tmp_path / "base", 1, False), write_runs(tmp_path / "cand", 2, True)


def commands(profile: Path, runs) -> dict:
    return {
        "text": ["text", str(profile)],
        "short": ["text", "--short", str(profile)],
        "top": ["top", "--by", "line", str(profile)],
        "compare": ["compare", "-a", str(runs[0]), "-b", str(runs[1]), "--all", "--alternative", "two-sided"],
    }


def output(capsys, args, *group) -> str:
    main([*group, *args])
    return capsys.readouterr().out


@pytest.mark.parametrize("name", ["text", "short", "top", "compare"])
def test_a_pipe_gets_no_colour_and_always_differs_only_by_escape_codes(capsys, monkeypatch, profile, runs, name):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    args = commands(profile, runs)[name]
    plain = output(capsys, args)
    assert "\x1b" not in plain
    assert output(capsys, args, "--color", "never") == plain
    coloured = output(capsys, args, "--color", "always")
    assert ESCAPE.search(coloured) and ESCAPE.sub("", coloured) == plain


@pytest.mark.parametrize("name", ["text", "short", "top", "compare"])
def test_environment_decides_in_auto_mode(capsys, monkeypatch, profile, runs, name):
    args = commands(profile, runs)[name]
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" in output(capsys, args)
    monkeypatch.setenv("NO_COLOR", "1")  # wins over FORCE_COLOR
    assert "\x1b" not in output(capsys, args)
    assert "\x1b[" in output(capsys, args, "--color", "always")  # the option wins over both


def test_the_decision():
    class Terminal:
        def __init__(self, tty: bool) -> None:
            self.tty = tty

        def isatty(self) -> bool:
            return self.tty

    cases = [  # mode, NO_COLOR, FORCE_COLOR, TERM, a terminal? -> colour
        ("auto", None, None, "xterm", True, True),
        ("auto", None, None, "xterm", False, False),
        ("auto", "", None, "xterm", True, True),  # empty: not set (no-color.org)
        ("auto", "0", None, "xterm", True, False),  # any non-empty value
        ("auto", None, "1", "xterm", False, True),
        ("auto", None, "", "xterm", False, False),
        ("auto", "1", "1", "xterm", False, False),
        ("auto", None, None, "dumb", True, False),
        ("never", None, "1", "xterm", True, False),
        ("always", "1", None, "dumb", False, True),
    ]
    environ = {}
    try:
        for mode, no_color, force, term, tty, expected in cases:
            environ = {k: v for k, v in (("NO_COLOR", no_color), ("FORCE_COLOR", force), ("TERM", term)) if v is not None}
            with pytest.MonkeyPatch.context() as patch:
                for key in ("NO_COLOR", "FORCE_COLOR", "TERM"):
                    patch.delenv(key, raising=False)
                for key, value in environ.items():
                    patch.setenv(key, value)
                _style.set_mode(mode)
                assert _style.enabled(Terminal(tty)) is expected, (mode, environ, tty)
    finally:
        _style.set_mode("auto")
    with pytest.raises(ValueError):
        _style.set_mode("sometimes")


@pytest.mark.parametrize("name", ["text", "short", "top", "compare"])
def test_a_terminal_is_coloured_unless_no_color(tmp_path, profile, runs, name):
    args = commands(profile, runs)[name]
    code, shown, _ = run_on_terminal(args, cwd=str(tmp_path))
    assert code in (0, 3) and ESCAPE.search(shown.decode())
    code, shown, _ = run_on_terminal(args, env={"NO_COLOR": "1"}, cwd=str(tmp_path))
    assert code in (0, 3) and b"\x1b" not in shown and shown.strip()


def test_text_colours_by_share_and_dims_locations(capsys, profile):
    lines = output(capsys, ["text", str(profile)], "--color", "always").splitlines()
    hot, warm, location = (_style.paint("x", s).partition("x")[0] for s in (_style.HOT, _style.WARM, _style.LOCATION))
    by_name = {ESCAPE.sub("", line).split("%  ", 1)[1].split("─ ")[-1].split()[0]: line for line in lines}
    assert by_name["c"].startswith(hot + "  81.40%")  # ≥ 20%
    assert by_name["b"].startswith(warm + "  11.63%")  # ≥ 5%
    assert by_name["tiny"].startswith("   1.16%")  # below: plain
    assert location + " (lib.py:9)" in by_name["c"]
    assert "ext4_readdir" in by_name and location not in by_name["ext4_readdir"]


def test_text_colours_changes_by_sign(capsys, differential):
    lines = output(capsys, ["text", str(differential)], "--color", "always").splitlines()
    more, less = (_style.paint("x", s).partition("x")[0] for s in (_style.MORE, _style.LESS))
    grew = next(line for line in lines if "grew" in line)
    shrank = next(line for line in lines if "shrank" in line)
    assert more + "[+" in grew and less + "[-" in shrank


def test_cut_lines_keep_their_parts(capsys, profile):
    plain = output(capsys, ["text", "--width", "24", str(profile)]).splitlines()
    coloured = output(capsys, ["text", "--width", "24", str(profile)], "--color", "always").splitlines()
    assert [ESCAPE.sub("", line) for line in coloured] == plain
    assert any(line.endswith("..") for line in plain)


def test_compare_colours_rows_by_kind_and_the_verdict(capsys, runs):
    shown = output(capsys, commands(None, runs)["compare"], "--color", "always")
    codes = {
        s: _style.paint("x", s).partition("x")[0]
        for s in (_style.REGRESSION, _style.IMPROVEMENT, _style.UNCHANGED, _style.VERDICT)
    }
    lines = shown.splitlines()
    assert any(line.startswith(codes[_style.VERDICT] + "2 stack(s) changed significantly") for line in lines)
    assert codes[_style.REGRESSION] + "<startup>;sitecustomize" in shown
    assert codes[_style.IMPROVEMENT] + "main;c;b;a" in shown  # it shrank
    assert codes[_style.UNCHANGED] + "main;c " in shown  # tested, not significant (--all)


def test_names_are_not_read_as_markup(capsys, profile):
    assert "ext4_readdir_[k]" in output(capsys, ["top", "--by", "line", str(profile)])


@pytest.mark.parametrize("options", [{}, {"width": 24}, {"width": 31}, {"max_depth": 1}, {"reverse": True}])
def test_text_parts_are_the_lines_and_say_where_their_parts_are(profile, differential, options):
    import flamespace as fs
    from flamespace.render.text import TextOptions, iter_text_lines, iter_text_parts

    for path in (profile, differential):
        graph = fs.read(str(path))
        parts = list(iter_text_parts(graph, TextOptions(**options)))
        assert [p.text for p in parts] == list(iter_text_lines(graph, TextOptions(**options)))
        for part in parts:
            assert part.text[: part.share_end].strip().endswith("%") or part.text.endswith("..")
            start, end = part.location
            assert start <= end <= len(part.text)
            if end > start and not part.text.endswith(".."):
                assert part.text[start:end].startswith(" (") and part.text[start:end].endswith(")")
            if part.change is not None and not part.text.endswith(".."):
                assert part.text[part.change_start :].startswith("[") and part.text.endswith("%]")
            assert (part.change is None) == (path == profile)


def test_gate_colours_its_terminal_report_as_compare_does(capsys, tmp_path, monkeypatch):
    """Needs a regression to colour: test_gate's +150 ms of CPU time, which the gate finds on
    any load (test_gate's docstring)."""
    from .test_gate import gate, make_repo

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    repo = make_repo(tmp_path / "repo")
    out = tmp_path / "out"
    code, shown, stderr = gate(
        capsys, repo, out, "--base", "v1", "--head", "v2", "--no-install", "--", "bench/workload.py", before=("--color", "always")
    )
    assert code == 3, stderr
    assert _style.paint("x", _style.REGRESSION).partition("x")[0] in shown
    assert ESCAPE.sub("", shown) == (out / "report.txt").read_text()  # the file has no colour
