"""The one parser of every command (cli/_options.py): each kind of option, the errors and their
one-line form, suggestions, ``--`` and a program's words, subcommands and ``flamespace``'s own options."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from flamespace.cli import main
from flamespace.cli._options import Argument, Command, Option
from flamespace.cli._report import BadParameter, UsageError


def command(*options: Option, arguments=(Argument("files", nargs=-1),), **settings) -> Command:
    """A command that returns the values it is called with."""
    return Command("demo", lambda **values: values, arguments, options, help="Demo.", **settings)


EVERY_KIND = command(
    Option(("-o", "--output"), "output", "path", "-", allow_dash=True),
    Option(("-q", "--quiet"), "quiet", "flag"),
    Option(("-v",), "verbose", "flag"),
    Option(("--legend",), "legend", "pair", True, secondary=("--no-legend",)),
    Option(("--width",), "width", "int", 1200),
    Option(("--factor",), "factor", "float", 1.0),
    Option(("--title",), "title", "str", "Flame Graph"),
    Option(("--colors",), "colors", "choice", "hot", choices=("hot", "mem")),
    Option(("--base",), "base", "multiple"),
    Option(("--total",), "total", "number"),
    Option(("--top",), "top", "int", minimum=1),
    Option(("--alpha",), "alpha", "float", 0.05, minimum=0, maximum=1, open=True),
    Option(("--dir",), "dir", "dir"),
)


def test_nothing_given_is_every_default():
    assert EVERY_KIND.parse([]) == {
        "output": "-",
        "quiet": False,
        "verbose": False,
        "legend": True,
        "width": 1200,
        "factor": 1.0,
        "title": "Flame Graph",
        "colors": "hot",
        "base": (),
        "total": None,
        "top": None,
        "alpha": 0.05,
        "dir": None,
        "files": (),
    }


@pytest.mark.parametrize(
    "args, expected",
    [
        (["-o", "x.svg"], {"output": "x.svg"}),
        (["-ox.svg"], {"output": "x.svg"}),
        (["--output=x.svg"], {"output": "x.svg"}),
        (["-qv"], {"quiet": True, "verbose": True}),
        (["-qox.svg"], {"quiet": True, "output": "x.svg"}),
        (["--no-legend"], {"legend": False}),
        (["--no-legend", "--legend"], {"legend": True}),
        (["--width", "800", "--factor", "2.5"], {"width": 800, "factor": 2.5}),
        (["--title", "--help"], {"title": "--help"}),  # a value, whatever it looks like
        (["--factor", "-1"], {"factor": -1.0}),
        (["--colors=mem"], {"colors": "mem"}),
        (["--base", "a", "--base=b"], {"base": ("a", "b")}),
        (["--total", "12"], {"total": 12}),
        (["--total", "0.5"], {"total": 0.5}),
        (["--top", "1", "--alpha", "0.5"], {"top": 1, "alpha": 0.5}),
        (["a", "-q", "b"], {"quiet": True, "files": ("a", "b")}),
        (["-", "--", "-q", "--width"], {"files": ("-", "-q", "--width")}),
    ],
)
def test_each_kind_of_option(args, expected):
    values = EVERY_KIND.parse(args)
    assert {key: values[key] for key in expected} == expected
    assert type(values["total"]) is type(expected.get("total"))  # a count stays an int


@pytest.mark.parametrize(
    "args, message",
    [
        (["--zzzz"], "No such option '--zzzz'."),
        (["--widht", "3"], "No such option '--widht'. Did you mean '--width'?"),
        (["--colours"], "No such option '--colours'. Did you mean '--colors'?"),
        (["--tital"], "No such option '--tital'. (Did you mean one of: '--total', '--title'?)"),  # closest first
        (["-x"], "No such option '-x'."),
        (["-qx"], "No such option '-x'."),
        (["--width"], "Option '--width' requires an argument."),
        (["-o"], "Option '-o' requires an argument."),
        (["-qo"], "Option '-o' requires an argument."),
        (["--quiet=yes"], "Option '--quiet' does not take a value."),
        (["--width", "wide"], "Invalid value for '--width': 'wide' is not a valid integer."),
        (["--factor", "x"], "Invalid value for '--factor': 'x' is not a valid float."),
        (["--colors", "pink"], "Invalid value for '--colors': 'pink' is not one of 'hot', 'mem'."),
        (
            ["--total", "-3"],
            "Invalid value for '--total': '-3' must be a finite number >= 0 (a flame graph has no negative values)",
        ),
        (["--top", "0"], "Invalid value for '--top': 0 is not in the range x>=1."),
        (["--alpha", "1"], "Invalid value for '--alpha': 1.0 is not in the range 0<x<1."),
    ],
)
def test_what_is_refused_and_how_it_is_said(args, message):
    with pytest.raises(UsageError) as caught:
        EVERY_KIND.parse(args)
    assert str(caught.value) == message


def test_paths_are_checked(tmp_path):
    folder, file = tmp_path / "d", tmp_path / "f"
    folder.mkdir()
    file.write_text("")
    assert EVERY_KIND.parse(["-o", str(tmp_path / "new.svg"), "--dir", str(folder)])["dir"] == str(folder)
    with pytest.raises(BadParameter, match=f"Invalid value for '-o' / '--output': File '{folder}' is a directory."):
        EVERY_KIND.parse(["-o", str(folder)])
    with pytest.raises(BadParameter, match=f"Invalid value for '--dir': Directory '{file}' is a file."):
        EVERY_KIND.parse(["--dir", str(file)])
    must = command(Option(("--map",), "map", "path", exists=True))
    with pytest.raises(BadParameter, match="File 'nowhere' does not exist."):
        must.parse(["--map", "nowhere"])


def test_an_unreadable_path_is_refused(tmp_path, monkeypatch):
    secret = tmp_path / "secret.folded"
    secret.write_text("a 1\n")
    real_access = os.access  # root reads every file: the permission the check asks about is stood in for
    monkeypatch.setattr(
        os, "access", lambda path, mode, **kw: False if str(path) == str(secret) else real_access(path, mode, **kw)
    )
    with pytest.raises(BadParameter, match="is not readable"):
        command().parse([str(secret)])


def test_required_options_and_arguments():
    needy = command(
        Option(("-a", "--baseline"), "baseline", required=True),
        arguments=(Argument("factor", "number"), Argument("input", default="-")),
    )
    assert needy.parse(["-a", "x", "3"]) == {"baseline": "x", "factor": 3, "input": "-"}
    with pytest.raises(UsageError, match=r"^Missing argument 'FACTOR'\.$"):
        needy.parse([])  # an argument is said before an option
    with pytest.raises(UsageError, match=r"^Missing option '-a' / '--baseline'\.$"):
        needy.parse(["3"])
    with pytest.raises(BadParameter, match=r"^Invalid value for 'FACTOR': 'x' is not a number$"):
        needy.parse(["-a", "x", "x"])
    with pytest.raises(UsageError, match=r"^Got unexpected extra arguments \(b c\)$"):
        needy.parse(["-a", "x", "3", "a", "b", "c"])
    with pytest.raises(UsageError, match=r"^Got unexpected extra argument \(b\)$"):
        needy.parse(["-a", "x", "3", "a", "b"])
    many = command(arguments=(Argument("pilot", nargs=-1, required=True), Argument("last", "str")))
    assert many.parse(["a", "b", "c"]) == {"pilot": ("a", "b"), "last": "c"}
    with pytest.raises(UsageError, match=r"^Missing argument 'PILOT\.\.\.'\.$"):
        many.parse(["c"])


def test_callbacks_turn_values_and_name_the_option_they_refuse():
    def percent(text: str) -> float:
        if not text.endswith("%"):
            raise BadParameter(f"expected a percentage, not {text!r}")
        return float(text[:-1])

    with_callback = command(Option(("--minwidth",), "minwidth", "str", "0.1%", callback=percent))
    assert with_callback.parse([])["minwidth"] == 0.1  # the default goes through it too
    assert with_callback.parse(["--minwidth", "2%"])["minwidth"] == 2.0
    with pytest.raises(BadParameter) as caught:
        with_callback.parse(["--minwidth", "2"])
    assert str(caught.value) == "Invalid value for '--minwidth': expected a percentage, not '2'"


def test_a_program_and_its_words_are_left_to_it():
    """record, trace, collect, gate: the first word of the program ends our options, an option we do
    not know starts the program (its body then says what is wrong), -m/-c end them after their value."""
    runner = command(
        Option(("-q",), "quiet", "flag"),
        Option(("-m",), "module"),
        Option(("-o",), "output"),
        arguments=(Argument("command", "raw", nargs=-1),),
        interspersed=False,
        program_flags=("-m",),
    )
    assert runner.parse(["-q", "app.py", "-q", "--", "-o"]) == {
        "quiet": True,
        "module": None,
        "output": None,
        "command": ("app.py", "-q", "--", "-o"),
    }
    assert runner.parse(["-m", "pytest", "-q"])["command"] == ("-q",)
    assert runner.parse(["--bogus", "x"])["command"] == ("--bogus", "x")
    assert runner.parse(["-x"])["command"] == ("-x",)
    assert not runner.asks_help(["app.py", "--help"])  # the program's
    assert runner.asks_help(["-q", "-h", "app.py"])


def test_help_is_asked_anywhere_among_the_options_only():
    assert EVERY_KIND.asks_help(["a.folded", "--width", "3", "--help"])
    assert EVERY_KIND.asks_help(["--bogus", "-h"])
    assert not EVERY_KIND.asks_help(["--title", "-h"])
    assert not EVERY_KIND.asks_help(["--", "--help"])


def test_help_wins_over_an_error_on_the_command_line(capsys):
    """The fault: `svg -h -o` said "Option '-o' requires an argument" instead of showing the help."""
    assert main(["svg", "-h", "-o"]) == 0
    assert capsys.readouterr().out.startswith("Usage: flamespace svg [OPTIONS] [FILES]...")


def test_paths_and_numbers_given_to_main_are_their_text(tmp_path, capsys):
    from pathlib import Path

    source = tmp_path / "a.folded"
    source.write_text("a;b 3\n")
    assert main(["scale", 2, source, "-o", Path(tmp_path / "b.folded")]) == 0
    assert (tmp_path / "b.folded").read_text().splitlines()[-1] == "a;b 6"


@pytest.mark.parametrize(
    "args, line",
    [
        (
            ["svg", "--bogus"],
            "flamespace svg: error: No such option '--bogus'. Did you mean '--base'? (see 'flamespace svg --help')",
        ),
        (["scale"], "flamespace scale: error: Missing argument 'FACTOR'. (see 'flamespace scale --help')"),
        (
            ["compare", "-a", "x"],
            "flamespace compare: error: Missing option '-b' / '--candidate'. (see 'flamespace compare --help')",
        ),
        (
            ["history", "s", "--alpha", "2"],
            "flamespace history: error: Invalid value for '--alpha': 2.0 is not in the range 0<x<1. (see 'flamespace history --help')",
        ),
        (
            ["svg", "--fontsize", "-1"],
            "flamespace svg: error: Invalid value for '--fontsize': -1.0 is not a finite number > 0 (see 'flamespace svg --help')",
        ),
        (["scv"], "flamespace: error: No such command 'scv'. Did you mean 'svg'? (see 'flamespace --help')"),
        (["--bogus"], "flamespace: error: No such option '--bogus'. (see 'flamespace --help')"),
        (
            ["--colr", "never", "svg"],
            "flamespace: error: No such option '--colr'. Did you mean '--color'? (see 'flamespace --help')",
        ),
        (["--color"], "flamespace: error: Option '--color' requires an argument. (see 'flamespace --help')"),
        (
            ["--color", "maybe", "svg"],
            "flamespace svg: error: Invalid value for '--color': 'maybe' is not one of 'auto', 'always', 'never'. (see 'flamespace svg --help')",
        ),
        (["store"], "flamespace store: error: Missing command. (see 'flamespace store --help')"),
        (["store", "lss"], "flamespace store: error: No such command 'lss'. Did you mean 'ls'? (see 'flamespace store --help')"),
        (
            ["store", "ls", "a", "b"],
            "flamespace store: error: Got unexpected extra argument (b) (see 'flamespace store ls --help')",
        ),
        (
            ["store", "gc", "--keep-last", "0"],
            "flamespace store: error: Invalid value for '--keep-last': 0 is not in the range x>=1. (see 'flamespace store gc --help')",
        ),
        (
            ["html", "a.folded", "--diff", "--series"],
            "flamespace html: error: choose one of --diff and --series (see 'flamespace html --help')",
        ),
        (
            ["convert", "--to", "nope", "-"],
            "flamespace convert: error: Invalid value for '--to': 'nope' is not one of 'flamespace-json', "
            "'speedscope', 'gecko', 'chrome', 'pprof', 'folded-diff', 'folded'. (see 'flamespace convert --help')",
        ),
        (
            ["gate", "--base", "main", "--bogus", "x"],
            "flamespace gate: error: No such option '--bogus'. (see 'flamespace gate --help')",
        ),
    ],
)
def test_each_error_is_one_line_and_exit_1(args, line, capsys):
    assert main(args) == 1
    captured = capsys.readouterr()
    assert captured.err == line + "\n" and captured.out == ""


def test_store_dispatches_to_its_subcommands(tmp_path, capsys):
    pytest.importorskip("duckdb")
    source = tmp_path / "a.folded"
    source.write_text("a;b 3\n")
    store = str(tmp_path / "s")
    assert main(["store", "add", str(source), "--no-git", "--label", "bench=x", "--store", store]) == 0
    assert main(["store", "ls", "--json", "--store", store]) == 0
    assert '"bench": "x"' in capsys.readouterr().out


def test_the_colour_mode_and_the_version(tmp_path, capsys):
    from importlib.metadata import version

    from flamespace.cli import _style

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"flamespace {version('flamespace')}\n"
    source = tmp_path / "a.folded"
    source.write_text("a;b 3\n")
    for args, mode in ((["--color", "always"], "always"), (["--color=never"], "never"), ([], "auto")):
        assert main([*args, "info", str(source)]) == 0
        assert _style._mode["value"] == mode
    capsys.readouterr()


def test_convert_lists_the_reader_options_only_when_one_is_given():
    code = (
        "import sys; from flamespace.cli import main; code = main(sys.argv[1:]); "
        "sys.stderr.write(' '.join(m for m in ('flamespace.formats.pprof', 'click') if m in sys.modules)); sys.exit(code)"
    )
    plain = subprocess.run([sys.executable, "-c", code, "convert", "-"], input="a;b 1\n", capture_output=True, text=True)
    assert plain.returncode == 0 and plain.stdout.splitlines()[-1] == "a;b 1" and plain.stderr == ""
    asked = subprocess.run(
        [sys.executable, "-c", code, "convert", "-", "--kernel"], input="a;b 1\n", capture_output=True, text=True
    )
    assert asked.returncode == 1 and "does not apply to the folded format" in asked.stderr  # --kernel was known


def test_a_plain_svg_run_imports_no_click_typing_or_speedscope(tmp_path):
    (tmp_path / "a.folded").write_text("a;b 3\n")
    code = (
        "import sys; from flamespace.cli import main; "
        f"code = main(['svg', {str(tmp_path / 'a.folded')!r}, '-o', {str(tmp_path / 'p.svg')!r}]); "
        "print(code, ' '.join(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "0" and (tmp_path / "p.svg").read_text().startswith("<?xml")
    loaded = set(out[1:])
    assert not loaded & {"click", "typing", "difflib", "flamespace.formats.speedscope"}, loaded & {"click", "typing", "difflib"}


def test_errors_while_drawing_keep_their_messages_and_codes(capsys, tmp_path):
    code = main(["svg", str(tmp_path / "missing.folded"), "-o", str(tmp_path / "x.svg")])
    _, err = capsys.readouterr()
    assert code == 1 and err.startswith("flamespace svg: error: ") and "missing.folded" in err
    empty = tmp_path / "empty.folded"
    empty.write_text("")
    code = main(["svg", str(empty), "-o", str(tmp_path / "e.svg")])
    _, err = capsys.readouterr()
    assert code == 1 and err == f"flamespace svg: error: {empty}: no stack counts found: wrote an SVG that says so\n"
    code = main(["svg", "-", "-", "-o", str(tmp_path / "e.svg")])
    _, err = capsys.readouterr()
    assert code == 1 and err == "flamespace svg: error: stdin ('-') can be read only once (see 'flamespace svg --help')\n"
