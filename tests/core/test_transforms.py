"""Transforms, the tree view and top functions on hand-made examples."""

from __future__ import annotations

import pytest

import flamespace as fs
from flamespace import FlameGraph


def fg(text: str) -> FlameGraph:
    """'a;b 3, c 1' -> FlameGraph."""
    values = {}
    for item in text.split(","):
        stack, count = item.strip().rsplit(" ", 1)
        values[tuple(stack.split(";"))] = int(count)
    return FlameGraph(values)


PROFILE = fg("main;parse;lex 4, main;parse 2, main;eval;parse;lex 3, main;eval 1, idle 5")


def test_select_includes_and_excludes_by_frame_regex():
    assert fs.select(PROFILE, include="^lex$") == fg("main;parse;lex 4, main;eval;parse;lex 3")
    assert fs.select(PROFILE, exclude="eval|idle") == fg("main;parse;lex 4, main;parse 2")
    # a pattern is searched in one frame, never across the ';'
    assert len(fs.select(PROFILE, include="main;parse")) == 0


def test_invalid_regex_is_an_argument_error():
    with pytest.raises(fs.FlamespaceError, match="invalid regular expression"):
        fs.select(PROFILE, include="(")


def test_rebase_at_outermost_occurrence_and_drops_the_rest():
    assert fs.rebase(PROFILE, "parse") == fg("parse;lex 7, parse 2")
    recursive = fg("a;f;g;f;h 2, b 1")
    assert fs.rebase(recursive, "f") == fg("f;g;f;h 2")
    assert fs.rebase(PROFILE, ["eval", "idle"]) == fg("eval;parse;lex 3, eval 1, idle 5")


def test_map_frames_merges_and_drops_empty_frames():
    g = fg("f (a.py:1);g (a.py:7) 2, f (a.py:2);g (a.py:9) 3")
    assert fs.strip(g, "lines") == fg("f (a.py);g (a.py) 5")
    assert fs.map_frames(g, [(r"^f .*", "")]) == fg("g (a.py:7) 2, g (a.py:9) 3")
    assert fs.map_frames(g, lambda f: f.upper())[("F (A.PY:1)", "G (A.PY:7)")] == 2


@pytest.mark.parametrize(
    "preset, frame, expected",
    [
        ("lines", "f (x.py:12)", "f (x.py)"),
        ("lines", "file.c:12", "file.c"),
        ("offsets", "do_syscall_64+0x5b", "do_syscall_64"),
        ("hex", "[unknown] 0x7f00ab", "[unknown] 0x..."),
        ("annotations", "ext4_readdir_[k]", "ext4_readdir"),
        ("annotations", "Interpreter_[j]", "Interpreter"),
    ],
)
def test_strip_presets(preset, frame, expected):
    assert fs.strip(FlameGraph({(frame,): 1}), preset) == FlameGraph({(expected,): 1})


def test_unknown_strip_preset():
    with pytest.raises(fs.FlamespaceError, match="unknown strip preset"):
        fs.strip(PROFILE, "nope")


def test_fold_recursion_collapses_consecutive_repeats_only():
    g = fg("a;b;b;b;c 2, a;b;c 1, a;b;a;b 4")
    assert fs.fold_recursion(g) == fg("a;b;c 3, a;b;a;b 4")


def test_reverse_limit_depth_and_prefix():
    assert fs.reverse(fg("a;b;c 2")) == fg("c;b;a 2")
    assert fs.limit_depth(PROFILE, 2) == fg("main;parse 6, main;eval 4, idle 5")
    assert fs.limit_depth(PROFILE, 0) == FlameGraph({(): 15})
    assert fs.prefix(fg("a 1"), "app", "host") == fg("app;host;a 1")
    with pytest.raises(ValueError):
        fs.limit_depth(PROFILE, -1)


def test_prune_folds_small_frames_into_parents_and_keeps_the_total():
    # total 15; 'main;eval' has 4 (26.7%), 'main;eval;parse' 3 (20%)
    pruned = fs.prune(PROFILE, 0.25)
    assert pruned == fg("main;parse;lex 4, main;parse 2, main;eval 4, idle 5")
    assert pruned.total() == PROFILE.total()
    assert fs.prune(PROFILE, 0) == PROFILE
    assert fs.prune(PROFILE, 1.0) == FlameGraph({(): 15})
    with pytest.raises(ValueError):
        fs.prune(PROFILE, 1.5)


def test_prune_with_a_reference_prunes_two_sides_alike():
    before, after = fg("a;b 1, a;c 9"), fg("a;b 9, a;c 1")
    both = before + after
    assert fs.prune(before, 0.4, reference=both) == before  # b has 10 of 20 in the sum


def test_function_costs_group_lines_of_one_function_and_count_them_once_per_stack():
    g = fs.FlameGraph({("m (a.py:1)", "f (a.py:3)", "f (a.py:9)"): 4, ("m (a.py:1)", "f (a.py:3)"): 2, ("x",): 1})
    by_function = {c.name: c for c in fs.function_costs(g, "function")}
    assert by_function["f (a.py)"] == fs.FunctionCost("f (a.py)", 6, 6)
    assert by_function["x"] == fs.FunctionCost("x", 1, 1)
    by_line = {c.name: (c.self_value, c.inclusive_value) for c in fs.function_costs(g)}
    assert by_line["f (a.py:3)"] == (2, 6) and by_line["f (a.py:9)"] == (4, 4)
    assert {c.name: c.inclusive_value for c in fs.function_costs(g, "file")} == {"a.py": 6, "x": 1}
    with pytest.raises(fs.ArgumentError):
        fs.function_costs(g, "module")


def test_top_functions_count_recursion_once_per_stack():
    g = fg("main;f;f;f 6, main;g 4")
    costs = {c.name: c for c in fs.function_costs(g)}
    assert costs["f"].inclusive_value == 6 and costs["f"].self_value == 6
    assert costs["main"].inclusive_value == 10 and costs["main"].self_value == 0
    top = fs.top_functions(g, 2, by="inclusive")
    assert [c.name for c in top] == ["main", "f"]
    assert [c.name for c in fs.top_functions(g, 5, by="self")] == ["f", "g", "main"]
    with pytest.raises(ValueError):
        fs.top_functions(g, by="nope")


def test_tree_check_detects_a_broken_invariant():
    tree = fs.Tree.from_graph(PROFILE)
    tree.check()
    tree.find(("main", "parse", "lex")).self_value += 1
    with pytest.raises(ValueError, match="main;parse;lex"):
        tree.check()


def test_tree_is_walked_iteratively_on_very_deep_stacks():
    deep = FlameGraph({tuple(f"f{i}" for i in range(20000)): 1})
    tree = fs.Tree.from_graph(deep)
    tree.check()
    assert tree.max_depth() == 20000
    assert len(tree) == 20001
    assert fs.prune(deep, 0.5) == deep
