"""Every command's defaults are its options record's (as inferno's `default_options` test).

For each command with an options record, what the command builds from its options when
none is given (through the command's own parser, cli/_options.py) must equal the record's defaults, field by field: a default is
written down once, in the record, and the CLI can only take it from there.
"""

from __future__ import annotations

import pytest

import flamespace as fs
from flamespace._record import defaults, fields
from flamespace.cli import collect, compare, gate, plan, record, svg, text
from flamespace.cli._recording import recorder_settings
from flamespace.cli._options import Command
from flamespace.cli._svg_spec import OPTIONS, settings_of
from flamespace.collect import MemoryOptions, SamplerOptions
from flamespace.render import SvgOptions
from flamespace.render.text import TextOptions
from flamespace.stats.comparison import CompareOptions


def parsed_defaults(command: Command, args: list = ()) -> dict:
    """The values the parser passes ``command`` when ``args`` (only what is required) are given."""
    return command.parse(list(args))


def assert_same(built: object, expected: object) -> None:
    """Field by field, so that a failure names the field whose default differs."""
    for name in fields(type(expected)) if not hasattr(expected, "__dataclass_fields__") else expected.__dataclass_fields__:
        assert getattr(built, name) == getattr(expected, name), name
    assert built == expected


def svg_settings(values: dict) -> SvgOptions:
    """The command's SvgOptions; --minwidth is text ("0.1" or "0.5%"), the field's default a number: same meaning."""
    values = {
        k: v
        for k, v in values.items()
        if k not in ("files", "output", "cp", "palette_file", "skip_invalid", "input_format", "colour_by", "event", "thread")
    }
    settings = settings_of(**values)
    assert settings.minwidth_spec() == SvgOptions().minwidth_spec()
    return settings.replace(minwidth=SvgOptions().minwidth)


def test_svg_defaults_are_svgoptions():
    assert_same(svg_settings(parsed_defaults(svg.SPEC)), SvgOptions())


def test_svg_table_names_svgoptions_fields():
    """Each option whose dest is not a field is one the command turns into a field or uses itself."""
    dests = {option.dest for option in OPTIONS}
    assert dests - set(fields(SvgOptions)) == {
        "output",
        "cp",
        "palette_file",
        "truncate_right",
        "skip_invalid",
        "input_format",
        "colour_by",
        "event",
        "thread",
    }  # colour_by, event, thread: the inputs (cli/_colour_by.py, --thread)
    assert set(fields(SvgOptions)) - dests == {
        "truncate",
        "empty_text",
    }  # truncate: from truncate_right; empty_text: the library's


def test_text_defaults_are_textoptions():
    values = parsed_defaults(text.SPEC)
    for name in ("files", "output", "skip_invalid", "input_format", "thread", "fold_library", "short", "min_share", "show_all"):
        values.pop(name)
    assert_same(text.options_of(**values), TextOptions())


@pytest.mark.parametrize("command", [record.SPEC, collect.SPEC], ids=["record", "collect"])
def test_recorder_defaults_are_sampleroptions(command):
    values = parsed_defaults(command, ["-o", "runs", "prog.py"])
    settings = recorder_settings(
        values["mode"],
        values["rate"],
        values["weight"],
        values["bytes_per_sample"],
        values["idle"],
        values["no_lines"],
        values["threads"],
        values["async_stacks"],
        values["duration"],
        values["seed"],
        values["output_format"] or "folded",  # record's unset --format: -o's name says (folded for "runs")
    )
    assert_same(settings, SamplerOptions())


@pytest.mark.parametrize("mode", fs.collect.MEMORY_MODES)
def test_recorder_defaults_are_memoryoptions(mode):
    values = parsed_defaults(record.SPEC, ["--mode", mode, "prog.py"])
    from flamespace.collect.alloc import available

    if mode == "alloc" and available() is not None:
        pytest.skip("the alloc extension is not built")
    settings = recorder_settings(
        values["mode"],
        values["rate"],
        values["weight"],
        values["bytes_per_sample"],
        values["idle"],
        values["no_lines"],
        values["threads"],
        values["async_stacks"],
        values["duration"],
        values["seed"],
        values["output_format"] or "folded",
    )
    assert_same(settings, MemoryOptions(mode=mode))


@pytest.mark.parametrize("command, args", [(record.SPEC, ["prog.py"]), (text.SPEC, [])], ids=["record", "text"])
def test_short_tree_defaults_are_consoleoptions(command, args):
    from flamespace.cli._console import console_options
    from flamespace.render.console import ConsoleOptions

    values = parsed_defaults(command, args)
    assert_same(console_options(values["min_share"], values["show_all"], None), ConsoleOptions())


def test_compare_defaults_are_compareoptions():
    values = parsed_defaults(compare.SPEC, ["-a", "x", "-b", "y"])
    assert_same(compare.options_of(**values), CompareOptions())


def test_gate_defaults_are_compareoptions_but_one_sided():
    from flamespace.stats.comparison import GATE_DEFAULTS

    values = parsed_defaults(gate.SPEC, ["--base", "main", "--", "prog.py"])
    assert_same(compare.options_of(**values), GATE_DEFAULTS)
    assert GATE_DEFAULTS == CompareOptions(alternative="greater") and CompareOptions().alternative == "two-sided"


def test_plan_defaults_are_compareoptions():
    values = parsed_defaults(plan.SPEC, ["pilot", "--detect", "5%"])
    expected = CompareOptions()
    assert values["alpha"] == expected.alpha and values["alternative"] == expected.alternative
    assert values["min_runs"] == expected.frequency.min_runs
    assert (
        compare.options_of(**{**parsed_defaults(compare.SPEC, ["-a", "x", "-b", "y"]), "min_fraction": values["min_fraction"]})
        == expected
    )
    from flamespace.stats.power import POWER

    assert values["power"] == POWER


def test_record_defaults_are_read_from_the_class():
    assert defaults(SamplerOptions)["rate"] == SamplerOptions().rate
    assert defaults(SvgOptions)["nameattr"] == {} and defaults(SvgOptions)["nameattr"] is not defaults(SvgOptions)["nameattr"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["record", "--rate", "0", "-c", "pass"], "between 1 and 10,000"),
        (["record", "--duration", "0", "-c", "pass"], "duration must be positive"),
        (["record", "--mode", "alloc", "--bytes-per-sample", "-1", "-c", "pass"], "0 or more bytes"),
        (["compare", "-a", "x", "-b", "y", "--alpha", "1"], "alpha must be between 0 and 1"),
        (["compare", "-a", "x", "-b", "y", "--permutations", "0"], "permutations must be at least 1"),
        (["compare", "-a", "x", "-b", "y", "--min-delta", "-1"], "must be ≥ 0"),
        (["compare", "-a", "x", "-b", "y", "--min-runs", "-1"], "min_runs must be ≥ 0"),
    ],
)
def test_the_records_check_the_options(tmp_path, monkeypatch, capsys, args, message):
    """The CLI takes any value of the right type and leaves the check to the record: one place."""
    monkeypatch.chdir(tmp_path)
    assert fs.cli.main(args) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_compares_copy_of_the_statistics_choices_is_theirs():
    """compare's option table holds the statistics' choices and defaults without importing them (start-up)."""
    from flamespace.stats import comparison, moderation, power

    assert (compare.METHODS, compare.ALTERNATIVES, compare.FDR_CHOICES) == (
        comparison.METHODS,
        comparison.ALTERNATIVES,
        comparison.FDR_CHOICES,
    )
    assert compare.STATISTICS == moderation.STATISTICS and compare.STATISTICS[0] == moderation.DEFAULT_STATISTIC
    assert compare.POWER == power.POWER and compare.GATE_ALTERNATIVE == comparison.GATE_ALTERNATIVE
    expected = CompareOptions()
    frequency = {"min_runs": expected.frequency.min_runs, "min_fraction": expected.frequency.min_fraction}
    assert compare.DEFAULTS == {
        name: frequency[name] if name in frequency else getattr(expected, name) for name in compare.DEFAULTS
    }


def test_the_top_level_help_lists_every_format_in_sniffing_order():
    """`flamespace --help` lists every format of formats.recognition.ORDER, in that order, without
    importing a format module (start-up time)."""
    import re
    import subprocess
    import sys

    from flamespace.cli import help_text
    from flamespace.formats import recognition

    listed = help_text().split("\b\n", 2)[1].split("\n\n")[0]  # after the help's no-rewrap mark (a backspace)
    assert re.findall(r"[\w-]+", listed) == list(recognition.ORDER)
    code = "import sys; from flamespace.cli import help_text; help_text(); print(' '.join(sorted(sys.modules)))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    formats = {f"flamespace.formats.{name.replace('-', '_')}" for name in recognition.ORDER}
    assert not formats & set(loaded)
