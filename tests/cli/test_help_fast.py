"""`flamespace --help` without click: the same text click would print, from the same data."""

from __future__ import annotations

import inspect
import subprocess
import sys

import click
import pytest

from flamespace.cli import COMMANDS, HELP, SUMMARIES
from flamespace.cli._group import LazyGroup, cli
from flamespace.cli._help import group_help, short_help


def click_help(columns: int, monkeypatch: pytest.MonkeyPatch) -> str:
    """What click prints for ``flamespace --help`` with every command's module imported and
    its short help made by click itself from the command's own help."""
    monkeypatch.setenv("COLUMNS", str(columns))

    class Plain(LazyGroup):
        format_commands = click.Group.format_commands  # click's own: imports every command

    group = Plain(name="flamespace", help=cli.help, params=cli.params, context_settings=cli.context_settings)
    with group.make_context("flamespace", [], resilient_parsing=True) as ctx:
        return group.get_help(ctx) + "\n"


@pytest.mark.parametrize("columns", [40, 50, 63, 72, 80, 99, 100, 101, 137, 250])
def test_the_fast_help_is_clicks(columns, monkeypatch):
    expected = click_help(columns, monkeypatch)
    assert group_help("flamespace", HELP, list(SUMMARIES.items()), columns) == expected
    assert group_help("flamespace", HELP, list(SUMMARIES.items())) == expected  # $COLUMNS, as click reads it


@pytest.mark.parametrize("name", COMMANDS)
def test_each_summary_is_the_first_paragraph_of_its_commands_help(name):
    command = cli.get_command(click.Context(cli), name)
    assert command is not None and command.help is not None
    first = " ".join(inspect.cleandoc(command.help).partition("\n\n")[0].split())
    assert SUMMARIES[name] == first, f"cli.SUMMARIES[{name!r}]: copy the new first paragraph of its help"


@pytest.mark.parametrize("limit", [2, 10, 30, 45, 60, 200])
def test_short_help_is_clicks(limit):
    for text in [*SUMMARIES.values(), "One. Two.", "Compare vs. baseline now. More", "x" * 80, "", "word " * 3, "\b\nraw first\n\nsecond"]:
        assert short_help(text, limit) == click.Command("c", help=text).get_short_help_str(limit)


@pytest.mark.parametrize("args", [["--help"], ["-h"], []])
def test_help_does_not_import_click(args):
    code = ("import sys; from flamespace.cli import main; code = main(%r); "
            "sys.stderr.write('click' if 'click' in sys.modules else 'no click'); sys.exit(code)" % (args,))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"COLUMNS": "80", "PATH": ""})
    assert done.returncode == 0
    assert done.stderr == "no click"
    assert done.stdout.startswith("Usage: flamespace [OPTIONS] COMMAND [ARGS]...\n")
    assert "  top " in done.stdout


def test_help_into_a_closed_pipe_exits_0():
    script = f"{sys.executable} -c 'import sys; from flamespace.cli import main; sys.exit(main([\"--help\"]))' | head -c 1"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", script], capture_output=True, text=True)
    assert done.stderr == "" and done.returncode == 0


PIECES = ["a", "b", "Δ", "_", "1", "-", "--", "---", " ", "  ", "\n", "\t", ".", ",", "?", "!", "'", '"', "&", "(", ")",
          "|", "py-spy", "co-op-ed", "x--y", "-o", "--from", "e.g.", "\u00a0", "σ", "‖A − B‖", "word", "longerwordhere"]


def texts(count: int, seed: int):
    import random

    rng = random.Random(seed)
    for _ in range(count):
        yield "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 40)))


@pytest.mark.parametrize("seed", range(4))
def test_the_wrapping_is_clicks(seed):
    from click._textwrap import TextWrapper

    from flamespace.cli._help import _fill

    for text in [HELP, *SUMMARIES.values(), *texts(300, seed)]:
        for width in (3, 5, 8, 13, 21, 34, 55, 89):
            for first, rest in (("", ""), ("  ", "  "), ("Usage: x ", "         ")):
                if len(first) >= width or len(rest) >= width:
                    continue
                expected = TextWrapper(width, initial_indent=first, subsequent_indent=rest,
                                       replace_whitespace=False).fill(text.expandtabs())
                assert _fill(text, width, first, rest) == expected, (text, width, first)


@pytest.mark.parametrize("seed", range(4))
def test_shortening_is_clicks(seed):
    for text in texts(300, seed):
        for limit in (3, 4, 7, 12, 20, 45):
            assert short_help(text, limit) == click.Command("c", help=text).get_short_help_str(limit), (text, limit)


@pytest.mark.parametrize("name", COMMANDS)
def test_every_commands_help_heads_its_examples_alike(name, capsys):
    """'Examples:' in every command's help (four said 'Example:', some over several examples)."""
    from flamespace.cli import main

    assert main([name, "--help"]) == 0
    out = capsys.readouterr().out
    assert "Example:" not in out
