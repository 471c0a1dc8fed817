"""After -m MODULE, -c CODE or the script, every argument is the program's, as with python:
`record -o a.folded -m pytest -q` runs pytest -q (it made flamespace quiet instead)."""

from __future__ import annotations

import pytest

from flamespace.cli import collect, gate, record, trace

SPECS = {"record": record.SPEC, "trace": trace.SPEC, "collect": collect.SPEC}
#: Options each command needs besides, so that both parsers accept the line.
REQUIRED = {"record": [], "trace": [], "collect": ["-n", "3"]}


def both_parsers(name: str, args: "list[str]") -> "list[dict]":
    """What the small parser and click make of ``args`` (the small one may decline: then click alone)."""
    spec = SPECS[name]
    results = []
    fast = spec.parse(args)
    if fast is not None:
        results.append(fast)
    command = spec.click_command()
    with command.make_context(name, list(args)) as context:  # type: ignore[attr-defined]
        results.append(dict(context.params))
    return results


@pytest.mark.parametrize("name", SPECS)
@pytest.mark.parametrize("program, expected", [
    (["-m", "pytest", "-q", "-o", "theirs", "--rate", "5"], ("pytest", None, ("-q", "-o", "theirs", "--rate", "5"))),
    (["-mpytest", "-q"], ("pytest", None, ("-q",))),
    (["-c", "import sys", "-q", "--mode=cpu"], (None, "import sys", ("-q", "--mode=cpu"))),
    (["-m", "pytest", "--", "-q"], ("pytest", None, ("-q",))),
    (["script.py", "-q", "-o", "theirs"], (None, None, ("script.py", "-q", "-o", "theirs"))),
])
def test_options_after_the_program_are_the_programs(name: str, program: "list[str]", expected) -> None:
    for values in both_parsers(name, [*REQUIRED[name], "-o", "ours", *program]):
        assert values.get("output", values.get("out_dir")) == "ours"
        assert (values["module"], values["code"], tuple(values["command"])) == expected
        assert values.get("quiet", False) is False


def test_options_before_the_program_are_ours() -> None:
    for values in both_parsers("record", ["-q", "-o", "ours", "-m", "pytest", "-x"]):
        assert values["quiet"] is True and values["module"] == "pytest" and tuple(values["command"]) == ("-x",)


def test_gate_leaves_the_programs_options_to_it() -> None:
    """(gate's own -m is --method: its program follows --, as its help shows.)"""
    line = ["--base", "main", "-n", "4", "--", "-m", "mypkg.bench", "-n", "9", "-q"]
    parsed = gate.SPEC.parse(line)
    with gate.SPEC.click_command().make_context("gate", list(line)) as context:  # type: ignore[attr-defined]
        clicked = dict(context.params)
    for values in ([parsed] if parsed is not None else []) + [clicked]:
        assert values["runs"] == 4
        assert [word for word in values["command"] if word != "--"] == ["-m", "mypkg.bench", "-n", "9", "-q"]
