"""Layout: every frame's x and width follow from the values, with flamegraph.pl's ordering rules."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import flamespace as fs
from flamespace.core.chart import FlameChart
from flamespace.render import SvgOptions, layout
from flamespace.render.layout import XPAD, fit_label

G = fs.FlameGraph({("a", "b"): 30, ("a",): 10, ("a", "c"): 60, ("z",): 100})


def by_name(drawn):
    return {f.name: f for f in drawn.frames}


def test_positions_follow_from_values() -> None:
    drawn = layout(G, SvgOptions(width=1020))  # 1000 px for 200 samples: 5 px each
    frames = by_name(drawn)
    assert [f.name for f in drawn.frames] == ["all", "a", "b", "c", "z"]  # parents first, name order
    assert frames["all"].x == XPAD and frames["all"].width == 1000
    assert (frames["a"].x, frames["a"].width) == (XPAD, 500)
    # a's own time (10) is drawn left of its children, as flamegraph.pl sorts "a 10" before "a;b 30"
    assert (frames["b"].x, frames["b"].width) == (XPAD + 50, 150)
    assert (frames["c"].x, frames["c"].width) == (XPAD + 200, 300)
    assert (frames["z"].x, frames["z"].depth) == (XPAD + 500, 1)
    assert drawn.max_depth == 2 and drawn.total == 200


def test_minwidth_pixels_and_percent_elide_frames_but_keep_their_time() -> None:
    assert "b" not in by_name(layout(G, SvgOptions(width=1020, minwidth=151)))
    assert "b" in by_name(layout(G, SvgOptions(width=1020, minwidth=150)))
    elided = by_name(layout(G, SvgOptions(minwidth="20%")))
    assert "b" not in elided and elided["a"].value == 100 and "c" in elided


def test_sort_by_value_puts_the_widest_first() -> None:
    drawn = layout(fs.FlameGraph({("a",): 1, ("b",): 5, ("c",): 3}), SvgOptions(sort_by_value=True))
    assert [f.name for f in drawn.frames] == ["all", "b", "c", "a"]


def test_reverse_merges_from_the_leaf() -> None:
    drawn = layout(fs.FlameGraph({("x", "hot"): 2, ("y", "hot"): 3}), SvgOptions(reverse=True))
    assert [(f.name, f.depth, f.value) for f in drawn.frames] == [("all", 0, 5), ("hot", 1, 5), ("x", 2, 2), ("y", 2, 3)]


def test_base_reroots() -> None:
    drawn = layout(fs.FlameGraph({("m", "s", "q"): 2, ("m", "t"): 3}), SvgOptions(base=("s",)))
    assert [(f.name, f.depth) for f in drawn.frames] == [("all", 0), ("s", 1), ("q", 2)]


def test_flamechart_keeps_order_and_merges_only_neighbours() -> None:
    chart = FlameChart()
    for t, stack in enumerate([("m", "a"), ("m", "b"), ("m", "a")]):
        chart.append(t, "main", stack, 1)
    drawn = layout(chart, SvgOptions(flamechart=True, width=320))  # 100 px per sample
    assert [(f.name, f.x) for f in drawn.frames] == [("all", 10), ("m", 10), ("a", 10), ("b", 110), ("a", 210)]
    merged = layout(chart, SvgOptions(width=320))
    assert [(f.name, f.value) for f in merged.frames] == [("all", 3), ("m", 3), ("a", 2), ("b", 1)]


def test_flamechart_merges_only_with_the_previous_stack() -> None:
    chart = FlameChart()
    for t, stack in enumerate([("m", "a"), ("m",), ("m", "a")]):  # m's own sample in between splits a, as flamegraph.pl
        chart.append(t, "main", stack, 1)
    drawn = layout(chart, SvgOptions(flamechart=True, width=320))
    assert [(f.name, f.x, f.value, f.self_value) for f in drawn.frames] == [
        ("all", 10, 3, 0), ("m", 10, 3, 1), ("a", 10, 1, 1), ("a", 210, 1, 1)
    ]


def test_folded_input_order_is_the_chart_order() -> None:
    graph = fs.formats.folded.loads("m;z 1\nm;a 1\n")
    drawn = layout(graph, SvgOptions(flamechart=True))
    assert [f.name for f in drawn.frames] == ["all", "m", "z", "a"]


def test_total_widens_the_whole_and_is_ignored_when_too_small() -> None:
    drawn = layout(G, SvgOptions(width=1020, total=400))
    assert by_name(drawn)["a"].width == 250 and by_name(drawn)["all"].value == 400
    small = layout(G, SvgOptions(total=10))
    assert small.total == 200 and small.warnings


def test_differential_deltas() -> None:
    pair = fs.Differential(fs.FlameGraph({("a", "b"): 10, ("a", "c"): 5}), fs.FlameGraph({("a", "b"): 4, ("a",): 8}))
    inclusive = by_name(layout(pair))
    assert inclusive["a"].delta == 12 - 15 and inclusive["b"].delta == -6 and inclusive["a"].value == 12
    assert "c" not in inclusive  # no width in the second profile
    leaf = by_name(layout(pair, SvgOptions(delta="self")))
    assert leaf["a"].delta == 8 and leaf["b"].delta == -6
    assert leaf["a"].colour == "rgb(255,0,0)"  # the largest change is fully saturated
    assert leaf["b"].colour == f"rgb({int(210 * 2 / 8)},{int(210 * 2 / 8)},255)"
    assert by_name(layout(pair, SvgOptions(delta="self", negate=True)))["a"].colour == "rgb(0,0,255)"


def test_chain_marks_wakers_and_separators_are_grey() -> None:
    frames = by_name(layout(fs.FlameGraph({("off", "--", "waker"): 5, ("x", "-", "y"): 5}), SvgOptions(colors="chain")))
    assert "waker_[w]" in frames and frames["waker_[w]"].label == "waker_[w]"[:-4]
    assert frames["--"].colour == "rgb(160,160,160)" and frames["-"].colour == "rgb(200,200,200)"
    assert frames["waker_[w]"].colour != frames["off"].colour


def test_labels_are_cut_with_dots_and_annotations_stripped() -> None:
    options = SvgOptions(fontsize=10, fontwidth=1)  # 10 px per character
    assert fit_label("function_[k]", 200, options) == "function"
    assert fit_label("function", 50, options) == "fun.."
    assert fit_label("function", 29, options) == ""
    assert fit_label("function", 50, SvgOptions(fontsize=10, fontwidth=1, truncate="left")) == "..ion"


def test_deep_stacks_do_not_recurse() -> None:
    deep = tuple(f"f{i}" for i in range(5000))
    drawn = layout(fs.FlameGraph({deep: 1}), SvgOptions(minwidth=0))
    assert drawn.max_depth == 5000


stacks = st.lists(st.sampled_from("abcd"), min_size=0, max_size=5).map(tuple)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(stacks, st.integers(1, 1000), min_size=1, max_size=30))
def test_children_nest_inside_parents_without_overlap(values) -> None:
    graph = fs.FlameGraph(values)
    drawn = layout(graph, SvgOptions(minwidth=0, width=10_000))
    per_value = (10_000 - 2 * XPAD) / graph.total()
    tree = fs.Tree.from_graph(graph)
    parents = []
    for frame in drawn.frames:
        del parents[frame.depth:]
        assert abs(frame.width - frame.value * per_value) < 1e-6
        if parents:
            parent = parents[-1]
            assert parent.x - 1e-6 <= frame.x and frame.x + frame.width <= parent.x + parent.width + 1e-6
        parents.append(frame)
    assert len(drawn.frames) == len(tree)
    for depth in range(drawn.max_depth + 1):
        row = sorted((f.x, f.x + f.width) for f in drawn.frames if f.depth == depth)
        assert all(end <= start + 1e-6 for (_, end), (start, _) in zip(row, row[1:]))


def tree_layout(graph: fs.FlameGraph, min_value: float, by_value: bool = False) -> list:
    """The frames to draw by the definition: walk the whole merged tree, keep nodes at least
    ``min_value`` wide whose parents are kept; own time first, children by name (or widest first)."""
    tree = fs.Tree.from_graph(graph)
    drawn = []
    pending = [(tree.root, 0)]
    while pending:
        node, x = pending.pop()
        drawn.append((node.name, node.depth, x, node.value, node.self_value))
        children = node.sorted_children()
        if by_value:
            children.sort(key=lambda child: -child.value)
        placed, offset = [], x + node.self_value
        for child in children:
            if child.value >= min_value:
                placed.append((child, offset))
            offset += child.value
        pending.extend(reversed(placed))
    return drawn


weights = st.integers(1, 50)


@settings(max_examples=80, deadline=None)
@given(
    st.dictionaries(stacks, weights, min_size=1, max_size=40),
    st.sampled_from([0, 1, 5, 30, 80]),
    st.booleans(),
)
def test_pruned_layout_equals_the_walk_of_the_whole_tree(values, min_pixels, by_value) -> None:
    """Skipping narrow subtrees and placing single-stack chains at once change nothing."""
    graph = fs.FlameGraph(values)
    width = 1000 + 2 * XPAD
    per_value = 1000 / graph.total()
    drawn = layout(graph, SvgOptions(minwidth=min_pixels, width=width, sort_by_value=by_value))
    got = [(f.name, f.depth, round((f.x - XPAD) / per_value, 6), f.value, f.self_value) for f in drawn.frames]
    expected = [(n, d, round(x, 6), v, s) for n, d, x, v, s in tree_layout(graph, min_pixels / per_value, by_value)]
    assert got == expected


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(stacks, weights, min_size=1, max_size=30), st.dictionaries(stacks, weights, min_size=1, max_size=30))
def test_differential_deltas_are_changes_of_the_merged_tree(before, after) -> None:
    pair = fs.Differential(fs.FlameGraph(before), fs.FlameGraph(after))
    old, new = fs.Tree.from_graph(pair.before), fs.Tree.from_graph(pair.after)
    for mode in ("inclusive", "self"):
        for frame, path in zip(*_frames_with_paths(layout(pair, SvgOptions(minwidth=0, delta=mode)))):
            if not path:
                continue
            a, b = new.find(path), old.find(path)
            field = "value" if mode == "inclusive" else "self_value"
            assert frame.delta == getattr(a, field) - (getattr(b, field) if b is not None else 0)


def _frames_with_paths(drawn) -> tuple:
    paths, stack = [], []
    for frame in drawn.frames:
        del stack[max(frame.depth - 1, 0):]
        if frame.depth:
            stack.append(frame.name)
        paths.append(tuple(stack))
    return drawn.frames, paths
