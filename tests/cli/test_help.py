"""The one help renderer (cli/_help.py): a command's and a group's ``--help`` from their data."""

from __future__ import annotations

import importlib
import inspect
import random
import subprocess
import sys
import textwrap

import pytest

from flamespace.cli import COMMANDS, SUMMARIES, help_text, main
from flamespace.cli._help import fill, command_help, group_help, short_help
from flamespace.cli._options import Argument, Command, Option


def demo() -> Command:
    def run(**values: object) -> None:
        """Draw FILES.

        A second paragraph, long enough to be wrapped at the width of the help and so on and so forth.

        \b
        Examples:
            demo a.folded   -o  a.svg
        \f
        Not for the help.
        """

    return Command(
        "demo",
        run,
        [Argument("files", nargs=-1)],
        [
            Option(("-o", "--output"), "output", "path", "-", "Where to write.", show_default="stdout", allow_dash=True),
            Option(("--legend",), "legend", "pair", True, "A colour bar.", show_default=True, secondary=("--no-legend",)),
            Option(("--colors",), "colors", "choice", "hot", "Palette.", choices=("hot", "mem"), show_default=True),
            Option(("--alpha",), "alpha", "float", 0.05, "Error rate.", minimum=0, maximum=1, open=True, show_default=True),
            Option(("-a", "--baseline"), "baseline", "str", None, "The runs before.", required=True, metavar="RUNS"),
            Option(("--base",), "base", "multiple", help="Re-root; repeatable."),
            Option(("--hash",), "hash", "flag", help="Hash names."),
        ],
    )


def test_a_commands_help_shows_each_kind_of_option():
    assert (
        command_help("flamespace demo", demo(), columns=80)
        == """\
Usage: flamespace demo [OPTIONS] [FILES]...

  Draw FILES.

  A second paragraph, long enough to be wrapped at the width of the help and
  so on and so forth.

  Examples:
      demo a.folded   -o  a.svg

Options:
  -o, --output FILE       Where to write.  [default: (stdout)]
  --legend / --no-legend  A colour bar.  [default: legend]
  --colors [hot|mem]      Palette.  [default: hot]
  --alpha FLOAT RANGE     Error rate.  [default: 0.05; 0<x<1]
  -a, --baseline RUNS     The runs before.  [required]
  --base TEXT             Re-root; repeatable.
  --hash                  Hash names.
  -h, --help              Show this message and exit.
"""
    )


def test_the_group_help_lists_its_options_and_every_command():
    text = group_help(
        "flamespace",
        help_text(),
        list(SUMMARIES.items()),
        columns=100,
        options=(("--version", "Show the version and exit."), ("-h, --help", "Show this message and exit.")),
    )
    assert text.startswith("Usage: flamespace [OPTIONS] COMMAND [ARGS]...\n\n  Flame graphs as vectors")
    assert "\n      flamespace merge runs/ | flamespace filter --grep parse | flamespace top\n" in text  # kept line for line
    commands = text.split("\nCommands:\n")[1].splitlines()
    assert [line.split()[0] for line in commands] == list(SUMMARIES)
    assert all(len(line) <= 98 for line in text.splitlines() if not line.startswith("  --from"))


@pytest.mark.parametrize("args", [["--help"], ["-h"], []])
def test_flamespace_help(args, capsys):
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("Usage: flamespace [OPTIONS] COMMAND [ARGS]...\n")
    assert "--color [auto|always|never]" in out and "--version" in out and "\n  top " in out


def test_store_help_lists_its_subcommands_and_each_has_its_own(capsys):
    assert main(["store", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Usage: flamespace store [OPTIONS] COMMAND [ARGS]...\n")
    assert [line.split()[0] for line in out.split("\nCommands:\n")[1].splitlines()] == [
        "add",
        "ls",
        "get",
        "gc",
        "check",
        "repair",
    ]
    assert main(["store", "add", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Usage: flamespace store add [OPTIONS] DIR|FILE...\n") and "--label KEY=VALUE" in out


def test_convert_help_lists_every_reader_option(capsys):
    assert main(["convert", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--pid" in out and "--to [flamespace-json|" in out


@pytest.mark.parametrize("name", COMMANDS)
def test_each_summary_is_the_first_paragraph_of_its_commands_help(name):
    spec = importlib.import_module(f"flamespace.cli.{name}").SPEC
    first = " ".join(inspect.cleandoc(spec.help).partition("\n\n")[0].split())
    assert SUMMARIES[name] == first, f"cli.SUMMARIES[{name!r}]: copy the new first paragraph of its help"


@pytest.mark.parametrize("name", COMMANDS)
def test_every_commands_help_heads_its_examples_alike(name, capsys):
    """'Examples:' in every command's help (four said 'Example:', some over several examples)."""
    assert main([name, "--help"]) == 0
    out = capsys.readouterr().out
    assert "Example:" not in out
    assert "Examples:" in out


def test_help_into_a_closed_pipe_exits_0():
    script = f"{sys.executable} -c 'import sys; from flamespace.cli import main; sys.exit(main([\"--help\"]))' | head -c 1"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", script], capture_output=True, text=True)
    assert done.stderr == "" and done.returncode == 0


PIECES = [
    "a",
    "b",
    "Δ",
    "_",
    "1",
    "-",
    "--",
    "---",
    " ",
    "  ",
    "\n",
    "\t",
    ".",
    ",",
    "?",
    "!",
    "'",
    '"',
    "&",
    "(",
    ")",
    "|",
    "py-spy",
    "co-op-ed",
    "x--y",
    "-o",
    "--from",
    "e.g.",
    "\u00a0",
    "σ",
    "‖A − B‖",
    "word",
    "longerwordhere",
]


def texts(count: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        yield "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 40)))


class Wrapper(textwrap.TextWrapper):
    """textwrap's filling, but a word longer than the line is cut at the line's end, hyphen or not."""

    def _handle_long_word(self, reversed_chunks, cur_line, cur_len, width):
        space_left = max(width - cur_len, 1)
        cur_line.append(reversed_chunks[-1][:space_left])
        reversed_chunks[-1] = reversed_chunks[-1][space_left:]


@pytest.mark.parametrize("seed", range(4))
def test_the_wrapping_is_textwraps(seed):
    for text in [help_text(), *SUMMARIES.values(), *texts(300, seed)]:
        for width in (3, 5, 8, 13, 21, 34, 55, 89):
            for first, rest in (("", ""), ("  ", "  "), ("Usage: x ", "         ")):
                if len(first) >= width or len(rest) >= width:
                    continue
                expected = Wrapper(width, initial_indent=first, subsequent_indent=rest, replace_whitespace=False).fill(
                    text.expandtabs()
                )
                assert fill(text, width, first, rest) == expected, (text, width, first)


@pytest.mark.parametrize("seed", range(4))
def test_a_short_help_is_the_first_sentence_cut_to_fit(seed):
    for text in [*SUMMARIES.values(), "One. Two.", "Compare vs. baseline now. More", *texts(300, seed)]:
        for limit in (3, 4, 7, 12, 20, 45, 200):
            short = short_help(text, limit)
            assert len(short) <= max(limit, 3), (text, limit)
            words = " ".join(text.partition("\n\n")[0].split())
            if short.endswith("...") and not words.startswith(short):
                assert words.startswith(short[:-3].rstrip()), (text, limit, short)
            else:
                assert words.startswith(short), (text, limit, short)
    assert short_help("One. Two.", 100) == "One."
    assert short_help("Compare vs. baseline now. More", 100) == "Compare vs. baseline now."
    assert short_help("x" * 80, 10) == "..."
    assert short_help("alpha beta gamma delta", 15) == "alpha beta..."
