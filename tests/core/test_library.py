"""core/library.py: which frames are library code, and folding them into the program's frames."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flamespace import FlameGraph
from flamespace.core.library import LIBRARY, LIBRARY_PRESETS, entry_of, fold_stack, is_library, own_stack, package_of
from flamespace.core.transforms import fold_library

OURS = "work (app.py:11)"
JSON = "loads (<stdlib>/json/__init__.py:346)"
DECODE = "JSONDecoder.decode (<stdlib>/json/decoder.py:337)"
PYGMENTS = "lex (site-packages/pygments/lexer.py:700)"
FROZEN = "_find_and_load (<frozen importlib._bootstrap>:1176)"
THREADING = "Thread.run (<stdlib>/threading.py:982)"


@pytest.mark.parametrize(
    "frame, library, package",
    [
        (JSON, True, "json"),
        (DECODE, True, "json"),
        (PYGMENTS, True, "pygments"),
        (FROZEN, True, "importlib"),
        ("<frozen runpy>", True, "runpy"),
        (THREADING, True, "threading"),
        ("t (site-packages/_pytest/python.py:3)", True, "_pytest"),
        (OURS, False, None),
        ("main (src/site_packages_tool.py:3)", False, None),  # a name that only looks like one
        ("MainThread", False, None),
        ("[idle]", False, None),
        ("ext4_readdir_[k]", False, None),
    ],
)
def test_which_frames_are_library_code(frame: str, library: bool, package: str | None) -> None:
    assert is_library(frame) is library
    if library:
        assert package_of(frame) == package


def test_a_library_entry_is_its_package_and_function() -> None:
    assert entry_of(JSON) == "json.loads" and entry_of(DECODE) == "json.JSONDecoder.decode"
    assert entry_of("<frozen importlib._bootstrap>") == "importlib"


def test_the_viewer_presets_are_the_rule() -> None:
    """The page's presets and the fold share one regex, and JavaScript reads it alike (no Python-only syntax)."""
    assert LIBRARY == "|".join(LIBRARY_PRESETS.values())
    for regex in LIBRARY_PRESETS.values():
        assert not re.search(r"\(\?P|\(\?<|\\A|\\Z", regex)
    from flamespace.render.html import library_presets

    assert library_presets()[-1] == [LIBRARY, "both"]
    assert [label for _, label in library_presets()] == [*LIBRARY_PRESETS, "both"]


def test_library_frames_fold_into_the_nearest_frame_of_the_program() -> None:
    folded = fold_stack(("MainThread", "<module> (app.py:1)", OURS, JSON, DECODE))
    assert folded.stack == ("MainThread", "<module> (app.py:1)", OURS)
    assert folded.into == "json.loads" and folded.via == ((), (), ())  # the way into the library


def test_a_frame_reached_through_library_code_says_which() -> None:
    callback = "on_token (app.py:9)"
    folded = fold_stack((OURS, "highlight (site-packages/pygments/__init__.py:77)", THREADING, callback))
    assert folded.stack == (OURS, callback) and folded.into is None
    assert folded.via == ((), ("pygments", "threading"))


def test_a_stack_of_library_code_only_keeps_its_first_frame() -> None:
    folded = fold_stack((THREADING, "Thread._bootstrap_inner (<stdlib>/threading.py:1045)", JSON))
    assert folded.stack == (THREADING,) and folded.into == "threading.Thread._bootstrap_inner"
    assert fold_stack(()).stack == ()
    assert own_stack((FROZEN,)) == (FROZEN,)


frames = st.sampled_from([OURS, JSON, DECODE, PYGMENTS, FROZEN, "main (app.py:3)", "MainThread"])


@given(st.dictionaries(st.lists(frames, min_size=1, max_size=6).map(tuple), st.integers(1, 1000), max_size=12))
def test_folding_keeps_the_total_and_leaves_no_library_frame_below_the_first(values) -> None:
    graph = FlameGraph(values)
    folded = fold_library(graph)
    assert folded.total() == graph.total()
    for stack in folded:
        assert not any(is_library(frame) for frame in stack[1:])
        assert len(stack) == 1 or not is_library(stack[0])
