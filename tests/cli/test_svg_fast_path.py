"""`flamespace svg`'s click-free parser: the same options and files as click, or it lets click decide."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from flamespace.cli import main
from flamespace.cli._options import Option, parse
from flamespace.cli._svg_spec import parse_fast
from flamespace.cli.svg import command


def click_params(args):
    """What click gives the svg command for ``args``, or the UsageError it raises."""
    try:
        with command.make_context("svg", list(args), resilient_parsing=False) as ctx:
            return dict(ctx.params)
    except click.exceptions.Exit:
        return "exit"
    except click.UsageError as exc:
        return exc


@pytest.fixture
def places(tmp_path):
    (tmp_path / "a.folded").write_text("a;b 1\n")
    (tmp_path / "dir").mkdir()
    return tmp_path


VALID = [
    [],
    ["{a}"],
    ["-", "-o", "-"],
    ["{a}", "-o", "{out}"],
    ["--output={out}", "{a}", "{a}"],
    ["{a}", "--reverse", "--title", "T", "--subtitle=", "--width", "800", "--height=20"],
    ["--minwidth", "0.5%", "--fontsize", "11", "--fontwidth=0.6", "--factor", "2.5", "--total", "100"],
    ["--colors", "python", "--bgcolors", "#123456", "--hash", "--seed", "3", "--delta=self", "--negate"],
    ["--truncate-text-left", "--truncate-text-right", "--truncate-text-left"],
    ["--base", "main", "--base=run", "--sort-by-value", "--inverted", "--flamechart", "--fluid"],
    ["--cp", "--random", "--palette-file", "{out}", "--notes", "n", "--encoding", "latin-1"],
    ["--countname", "ms", "--nametype", "Fn:", "--fonttype", "Mono", "--search-color", "red", "--stroke-color=x"],
    ["--skip-invalid", "--from", "folded", "{a}", "--", "-o", "--reverse"],
    ["--width", " 5 ", "--title", "-"],
    ["{a}", "--width", "1_000", "{dir}"],
]

INVALID = [
    ["-h"],
    ["--help"],
    ["--bogus"],
    ["--rev"],  # click does not take abbreviations
    ["--width"],
    ["--width", "wide"],
    ["--width=1.5"],
    ["--fontsize", "big"],
    ["--colors", "pink"],
    ["--from", "json"],
    ["--reverse=1"],
    ["-o", "{dir}"],
    ["--nameattr", "{dir}"],
    ["--seed"],
]
#: Valid for click, but the small parser does not guess: an option-like value, an attached short value.
DEFERRED = [["--title", "--reverse"], ["-o{out}"], ["--title", "-x"]]


def fill(args, places):
    return [a.format(a=places / "a.folded", out=places / "out.svg", dir=places / "dir") for a in args]


@pytest.mark.parametrize("args", VALID, ids=" ".join)
def test_the_fast_parser_gives_what_click_gives(args, places):
    args = fill(args, places)
    expected = click_params(args)
    assert isinstance(expected, dict), expected
    assert parse_fast(args) == expected


@pytest.mark.parametrize("args", INVALID, ids=" ".join)
def test_what_click_refuses_goes_to_click(args, places):
    args = fill(args, places)
    assert parse_fast(args) is None
    assert not isinstance(click_params(args), dict)


@pytest.mark.parametrize("args", DEFERRED, ids=" ".join)
def test_what_the_small_parser_does_not_guess_goes_to_click(args, places):
    args = fill(args, places)
    assert parse_fast(args) is None
    assert isinstance(click_params(args), dict)


def test_a_flag_given_a_value_goes_to_click():
    assert parse([Option(("--reverse",), "reverse", "flag")], ["--reverse=yes"]) is None
    assert parse([Option(("--reverse",), "reverse", "flag")], ["--reverse"]) == ({"reverse": True}, ())


def test_unreadable_paths_go_to_click(places):
    secret = places / "secret.folded"
    secret.write_text("a 1\n")
    secret.chmod(0)
    try:
        if not __import__("os").access(secret, __import__("os").R_OK):  # not as root
            assert parse_fast([str(secret)]) is None
            assert not isinstance(click_params([str(secret)]), dict)
    finally:
        secret.chmod(0o644)


def test_errors_while_drawing_keep_their_messages_and_codes(capsys, places):
    code = main(["svg", str(places / "missing.folded"), "-o", str(places / "x.svg")])
    _, err = capsys.readouterr()
    assert code == 1 and err.startswith("flamespace svg: error: ") and "missing.folded" in err
    empty = places / "empty.folded"
    empty.write_text("")
    code = main(["svg", str(empty), "-o", str(places / "e.svg")])
    _, err = capsys.readouterr()
    assert code == 1 and err == f"flamespace svg: error: {empty}: no stack counts found: wrote an SVG that says so\n"
    code = main(["svg", "-", "-", "-o", str(places / "e.svg")])
    _, err = capsys.readouterr()
    assert code == 1 and "stdin ('-') can be read only once (see 'flamespace svg --help')" in err
    code = main(["svg", "--colors", "pink"])
    _, err = capsys.readouterr()
    assert code == 1 and "'pink' is not one of" in err and "(see 'flamespace svg --help')" in err


def test_a_plain_svg_run_does_not_import_click_typing_or_speedscope(places):
    code = (
        "import sys; from flamespace.cli import main; "
        f"code = main(['svg', {str(places / 'a.folded')!r}, '-o', {str(places / 'p.svg')!r}]); "
        "print(code, ' '.join(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "0" and (places / "p.svg").read_text().startswith("<?xml")
    loaded = set(out[1:])
    assert "click" not in loaded
