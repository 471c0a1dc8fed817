"""After -m MODULE, -c CODE or the script, every argument is the program's, as with python:
`record -o a.folded -m pytest -q` runs pytest -q (it made flamespace quiet instead)."""

from __future__ import annotations

import pytest

from flamespace.cli import collect, gate, record, trace

SPECS = {"record": record.SPEC, "trace": trace.SPEC, "collect": collect.SPEC}
#: Options each command needs besides, so that the parser accepts the line.
REQUIRED = {"record": [], "trace": [], "collect": ["-n", "3"]}


def parsed(name: str, args: list[str]) -> dict:
    """What the parser makes of ``args``."""
    return SPECS[name].parse(args)


@pytest.mark.parametrize("name", SPECS)
@pytest.mark.parametrize(
    "program, expected",
    [
        (["-m", "pytest", "-q", "-o", "theirs", "--rate", "5"], ("pytest", None, ("-q", "-o", "theirs", "--rate", "5"))),
        (["-mpytest", "-q"], ("pytest", None, ("-q",))),
        (["-c", "import sys", "-q", "--mode=cpu"], (None, "import sys", ("-q", "--mode=cpu"))),
        (["-m", "pytest", "--", "-q"], ("pytest", None, ("-q",))),
        (["script.py", "-q", "-o", "theirs"], (None, None, ("script.py", "-q", "-o", "theirs"))),
    ],
)
def test_options_after_the_program_are_the_programs(name: str, program: list[str], expected) -> None:
    values = parsed(name, [*REQUIRED[name], "-o", "ours", *program])
    assert values.get("output", values.get("out_dir")) == "ours"
    assert (values["module"], values["code"], tuple(values["command"])) == expected
    assert values.get("quiet", False) is False


def test_options_before_the_program_are_ours() -> None:
    values = parsed("record", ["-q", "-o", "ours", "-m", "pytest", "-x"])
    assert values["quiet"] is True and values["module"] == "pytest" and tuple(values["command"]) == ("-x",)


def test_gate_leaves_the_programs_options_to_it() -> None:
    """(gate's own -m is --method: its program follows --, as its help shows.)"""
    line = ["--base", "main", "-n", "4", "--", "-m", "mypkg.bench", "-n", "9", "-q"]
    values = gate.SPEC.parse(line)
    assert values["runs"] == 4
    assert list(values["command"]) == ["-m", "mypkg.bench", "-n", "9", "-q"]
