"""top's default grouping drops line numbers without re (start-up), exactly as the pattern does."""

from __future__ import annotations

import re

from hypothesis import given, settings, strategies as st

from flamespace.core import ranking
from flamespace.core.transforms import STRIP_PRESETS

PATTERN, REPLACEMENT = STRIP_PRESETS["lines"]
PIECES = st.sampled_from(["f", " (", "app.py", ":", "12", "0", ")", "))", "٣", "²", "\n", ":x", " ", "a:1:2"])


def expected(frame):
    return re.sub(PATTERN, REPLACEMENT, frame, count=1)


@settings(max_examples=3000, deadline=None)
@given(st.lists(PIECES, max_size=8).map("".join))
def test_the_same_as_the_pattern(frame):
    assert ranking._without_line_number(frame) == expected(frame)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=10))
def test_the_same_as_the_pattern_on_any_text(text):
    for frame in (text, text + ":12", text + ":3)", "f (" + text + ":9)"):
        assert ranking._without_line_number(frame) == expected(frame)


def test_the_usual_frames():
    assert ranking._without_line_number("f (app.py:12)") == "f (app.py)"
    assert ranking._without_line_number("file.c:12") == "file.c"
    assert ranking._without_line_number("main") == "main"
