"""folded's ``# key: value`` lines are read without ``re`` (start-up), exactly as the pattern reads them."""

from __future__ import annotations

import re

from hypothesis import given, settings, strategies as st

from flamespace.formats import folded

PATTERN = re.compile(folded._METADATA_PATTERN)
#: What the pattern cares about, and characters whose class differs between ASCII and Unicode.
PIECES = st.sampled_from(
    [
        "#",
        " ",
        "\t",
        ":",
        "_",
        ".",
        "-",
        "a",
        "Z",
        "9",
        "é",
        "٣",
        "\u00a0",
        "\u2003",
        "\x0b",
        "\x1c",
        "unit",
        "x y",
        "\n",
        "²",
        "ǅ",
        "#unit: ns",
    ]
)


def expected(line):
    match = PATTERN.match(line)
    return (match.group(1), match.group(2)) if match else None


@settings(max_examples=3000, deadline=None)
@given(st.lists(PIECES, max_size=10).map("".join))
def test_the_same_as_the_pattern(line):
    assert folded._metadata_match(line) == expected(line)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=12))
def test_the_same_as_the_pattern_on_any_text(text):
    for line in (text, "#" + text, "# " + text, "# unit:" + text):
        assert folded._metadata_match(line) == expected(line)


def test_the_usual_headers():
    assert folded._metadata_match("# unit: samples") == ("unit", "samples")
    assert folded._metadata_match("#  command:  python app.py") == ("command", " python app.py")
    assert folded._metadata_match("# not a header") is None
