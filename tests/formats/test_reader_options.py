"""Every reader option is documented once, in its ReadOptions docstring, and shown by `convert --help`."""

from __future__ import annotations

import re

import pytest

from flamespace.cli import main
from flamespace.formats import registry

SPHINX = re.compile(r"``|:[a-z]+:`")
OPTIONS = [(fmt.name, field, help) for fmt in registry.formats() for field, _, help in registry.read_options(fmt)]


def test_some_formats_have_options() -> None:
    assert {name for name, _, _ in OPTIONS} >= {"perf", "austin", "elfutils", "jstack", "speedscope", "perf-sched"}


@pytest.mark.parametrize("name, field, help", OPTIONS, ids=[f"{n}-{f}" for n, f, _ in OPTIONS])
def test_every_reader_option_has_plain_help(name: str, field: str, help: str) -> None:
    assert help.strip(), f"{name}'s ReadOptions docstring has no ``{field}``: paragraph"
    assert not SPHINX.search(help), f"{name}.{field}: {help!r} shows Sphinx markup"


def test_field_help_reads_continued_paragraphs() -> None:
    doc = "Intro.\n\n    ``a``: first line\n    goes on.\n    ``b``: other.\n"
    assert registry._field_help(doc) == {"a": "first line goes on.", "b": "other."}


def test_convert_help_shows_each_formats_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "[austin] the value to add up" in text
    assert "[elfutils] put the process id at the root" in text
    assert ":data:" not in text
