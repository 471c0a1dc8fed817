"""Layout: every frame's start and width follow from the values (value units, no pixels), with
flamegraph.pl's ordering rules; the layout is pure (no pixels, fonts, colours or files)."""

from __future__ import annotations

import builtins

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flamespace as fs
from flamespace.core.chart import FlameChart
from flamespace.errors import ArgumentError
from flamespace.render import LayoutOptions, SvgOptions, TextOptions, layout

G = fs.FlameGraph({("a", "b"): 30, ("a",): 10, ("a", "c"): 60, ("z",): 100})


def by_name(drawn):
    return {f.name: f for f in drawn.frames}


def test_frames_are_in_value_units() -> None:
    drawn = layout(G)
    frames = by_name(drawn)
    assert [f.name for f in drawn.frames] == ["all", "a", "b", "c", "z"]  # parents first, name order
    assert (frames["all"].start, frames["all"].width) == (0, 200)
    assert (frames["a"].start, frames["a"].width, frames["a"].self_value) == (0, 100, 10)
    # a's own time (10) is laid out left of its children, as flamegraph.pl sorts "a 10" before "a;b 30"
    assert (frames["b"].start, frames["b"].end) == (10, 40)
    assert (frames["c"].start, frames["c"].end) == (40, 100)
    assert (frames["z"].start, frames["z"].depth, frames["z"].value) == (100, 1, 100)
    assert drawn.max_depth == 2 and drawn.total == 200 and frames["z"].delta is None


def test_the_layout_has_no_pixels_labels_or_colours() -> None:
    frame = layout(G).frames[0]
    assert set(frame._fields) == {"name", "depth", "start", "value", "self_value", "delta"}
    assert not {"xs", "widths", "labels", "colours"} & set(layout(G).columns.__slots__)
    # the same layout whatever the picture's size: pixels are the emitter's
    assert layout(G, SvgOptions(width=300).layout_options().replace(min_width=0)).frames == layout(G).frames


def test_min_value_prunes_in_value_units_and_keeps_the_time_in_parents() -> None:
    assert "b" in by_name(layout(G, LayoutOptions(min_value=30)))  # exactly the limit: kept, as flamegraph.pl
    pruned = by_name(layout(G, LayoutOptions(min_value=30.5)))
    assert "b" not in pruned and pruned["a"].value == 100 and "c" in pruned
    assert "a" not in by_name(layout(G, LayoutOptions(min_value=101)))


def test_min_percent_and_min_width_of_an_extent() -> None:
    assert "b" not in by_name(layout(G, LayoutOptions(min_percent=20)))  # 30 < 40
    assert "b" in by_name(layout(G, LayoutOptions(min_percent=15)))  # 30 = 30
    # 150 of 1000 parts of 200 is 30: b is kept; 151 parts is more than b
    assert "b" in by_name(layout(G, LayoutOptions(min_width=150, extent=1000)))
    assert "b" not in by_name(layout(G, LayoutOptions(min_width=151, extent=1000)))
    # the largest limit wins
    assert "b" not in by_name(layout(G, LayoutOptions(min_value=1, min_percent=20)))


def test_svg_and_text_options_give_the_layout_theirs() -> None:
    pixels = SvgOptions(width=1020, minwidth=150).layout_options()
    assert (pixels.min_width, pixels.extent, pixels.min_percent) == (150, 1000, 0)
    assert SvgOptions(minwidth="5%").layout_options().min_percent == 5
    assert SvgOptions(colors="chain", reverse=True).layout_options().replace(min_width=0, extent=None) == LayoutOptions(
        reverse=True, mark_wakers=True
    )
    assert TextOptions(threshold=0.05, delta="self").layout_options() == LayoutOptions(min_percent=5, delta="self")


@pytest.mark.parametrize(
    "options", [{"delta": "both"}, {"total": 0}, {"min_value": -1}, {"min_percent": -1}, {"min_width": 1}, {"extent": 0}]
)
def test_bad_layout_options_are_refused(options: dict) -> None:
    with pytest.raises(ArgumentError):
        LayoutOptions(**options)


def test_layout_takes_layout_options_only() -> None:
    with pytest.raises(ArgumentError, match="layout_options"):
        layout(G, SvgOptions())  # type: ignore[arg-type]


def test_layout_touches_no_file(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"layout opened {args[0]!r}")

    import flamespace.render.frame  # noqa: F401  (imported before: pytest's assertion rewriting of our package opens files)

    monkeypatch.setattr(builtins, "open", refuse)
    chain = fs.FlameGraph({("off", "--", "waker"): 5})
    assert len(layout(chain, SvgOptions(colors="chain", random=True).layout_options()).frames) == 4


def test_sort_by_value_puts_the_widest_first() -> None:
    drawn = layout(fs.FlameGraph({("a",): 1, ("b",): 5, ("c",): 3}), LayoutOptions(sort_by_value=True))
    assert [(f.name, f.start) for f in drawn.frames] == [("all", 0), ("b", 0), ("c", 5), ("a", 8)]


def test_reverse_merges_from_the_leaf() -> None:
    drawn = layout(fs.FlameGraph({("x", "hot"): 2, ("y", "hot"): 3}), LayoutOptions(reverse=True))
    assert [(f.name, f.depth, f.value) for f in drawn.frames] == [("all", 0, 5), ("hot", 1, 5), ("x", 2, 2), ("y", 2, 3)]


def test_base_reroots() -> None:
    drawn = layout(fs.FlameGraph({("m", "s", "q"): 2, ("m", "t"): 3}), LayoutOptions(base=("s",)))
    assert [(f.name, f.depth) for f in drawn.frames] == [("all", 0), ("s", 1), ("q", 2)]


def test_mark_wakers_names_the_frames_after_a_separator() -> None:
    drawn = layout(fs.FlameGraph({("off", "--", "waker"): 5}), LayoutOptions(mark_wakers=True))
    assert [f.name for f in drawn.frames] == ["all", "off", "--", "waker_[w]"]


def test_flamechart_keeps_order_and_merges_only_neighbours() -> None:
    chart = FlameChart()
    for t, stack in enumerate([("m", "a"), ("m", "b"), ("m", "a")]):
        chart.append(t, "main", stack, 1)
    drawn = layout(chart, LayoutOptions(flamechart=True))
    assert [(f.name, f.start) for f in drawn.frames] == [("all", 0), ("m", 0), ("a", 0), ("b", 1), ("a", 2)]
    merged = layout(chart)
    assert [(f.name, f.value) for f in merged.frames] == [("all", 3), ("m", 3), ("a", 2), ("b", 1)]


def test_flamechart_merges_only_with_the_previous_stack() -> None:
    chart = FlameChart()
    for t, stack in enumerate([("m", "a"), ("m",), ("m", "a")]):  # m's own sample in between splits a, as flamegraph.pl
        chart.append(t, "main", stack, 1)
    drawn = layout(chart, LayoutOptions(flamechart=True))
    assert [(f.name, f.start, f.value, f.self_value) for f in drawn.frames] == [
        ("all", 0, 3, 0),
        ("m", 0, 3, 1),
        ("a", 0, 1, 1),
        ("a", 2, 1, 1),
    ]


def test_folded_input_order_is_the_chart_order() -> None:
    graph = fs.formats.folded.loads("m;z 1\nm;a 1\n")
    drawn = layout(graph, LayoutOptions(flamechart=True))
    assert [f.name for f in drawn.frames] == ["all", "m", "z", "a"]


def test_total_widens_the_whole_and_is_ignored_when_too_small() -> None:
    drawn = layout(G, LayoutOptions(total=400))
    assert by_name(drawn)["a"].width == 100 and by_name(drawn)["all"].value == 400 and drawn.total == 400
    assert not drawn.warnings
    small = layout(G, LayoutOptions(total=10))
    assert small.total == 200 and small.warnings == ["--total 10 is less than the actual total 200, so it is ignored"]


def test_differential_deltas() -> None:
    pair = fs.Differential(fs.FlameGraph({("a", "b"): 10, ("a", "c"): 5}), fs.FlameGraph({("a", "b"): 4, ("a",): 8}))
    inclusive = by_name(layout(pair))
    assert inclusive["a"].delta == 12 - 15 and inclusive["b"].delta == -6 and inclusive["a"].value == 12
    assert "c" not in inclusive  # no width in the second profile
    leaf = by_name(layout(pair, LayoutOptions(delta="self")))
    assert leaf["a"].delta == 8 and leaf["b"].delta == -6


def test_empty_input_is_an_empty_layout() -> None:
    drawn = layout(fs.FlameGraph({}))
    assert drawn.empty and drawn.frames == [] and drawn.total == 0


def test_deep_stacks_do_not_recurse() -> None:
    deep = tuple(f"f{i}" for i in range(5000))
    drawn = layout(fs.FlameGraph({deep: 1}))
    assert drawn.max_depth == 5000


stacks = st.lists(st.sampled_from("abcd"), min_size=0, max_size=5).map(tuple)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(stacks, st.integers(1, 1000), min_size=1, max_size=30), st.booleans())
def test_children_fill_their_parents_exactly(values, by_value) -> None:
    """Unpruned, a frame's own value and its children's values add up to its value, and the
    children lie side by side inside it, own value first: widths sum to the parent's value."""
    graph = fs.FlameGraph(values)
    drawn = layout(graph, LayoutOptions(sort_by_value=by_value))
    frames = drawn.frames
    assert len(frames) == len(fs.Tree.from_graph(graph)) and frames[0].value == graph.total()
    children: dict = {}
    parents: list = []
    for index, frame in enumerate(frames):
        del parents[frame.depth :]
        if parents:
            children.setdefault(parents[-1], []).append(frame)
        parents.append(index)
    for index, frame in enumerate(frames):
        kids = children.get(index, [])
        assert frame.self_value + sum(kid.width for kid in kids) == frame.value
        edge = frame.start + frame.self_value
        for kid in sorted(kids, key=lambda kid: kid.start):
            assert kid.start == edge
            edge = kid.end
        assert edge == frame.end


def tree_layout(graph: fs.FlameGraph, min_value: float, by_value: bool = False) -> list:
    """The frames to lay out by the definition: walk the whole merged tree, keep nodes at least
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
def test_pruned_layout_equals_the_walk_of_the_whole_tree(values, min_value, by_value) -> None:
    """Skipping narrow subtrees and placing single-stack chains at once change nothing."""
    graph = fs.FlameGraph(values)
    drawn = layout(graph, LayoutOptions(min_value=min_value, sort_by_value=by_value))
    got = [(f.name, f.depth, f.start, f.value, f.self_value) for f in drawn.frames]
    assert got == tree_layout(graph, min_value, by_value)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(stacks, weights, min_size=1, max_size=30), st.sampled_from([0.1, 1, 7]), st.sampled_from([200, 1180]))
def test_min_width_is_flamegraph_pl_s_pixels(values, pixels, extent) -> None:
    """min_width of an extent keeps what flamegraph.pl keeps at --minwidth pixels: value >= pixels / (extent / total)."""
    graph = fs.FlameGraph(values)
    drawn = layout(graph, LayoutOptions(min_width=pixels, extent=extent))
    assert [f[:3] for f in tree_layout(graph, pixels / (extent / graph.total()))] == [
        (f.name, f.depth, f.start) for f in drawn.frames
    ]


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(stacks, weights, min_size=1, max_size=30), st.dictionaries(stacks, weights, min_size=1, max_size=30))
def test_differential_deltas_are_changes_of_the_merged_tree(before, after) -> None:
    pair = fs.Differential(fs.FlameGraph(before), fs.FlameGraph(after))
    old, new = fs.Tree.from_graph(pair.before), fs.Tree.from_graph(pair.after)
    for mode in ("inclusive", "self"):
        for frame, path in zip(*_frames_with_paths(layout(pair, LayoutOptions(delta=mode)))):
            if not path:
                continue
            a, b = new.find(path), old.find(path)
            field = "value" if mode == "inclusive" else "self_value"
            assert frame.delta == getattr(a, field) - (getattr(b, field) if b is not None else 0)


def _frames_with_paths(drawn) -> tuple:
    paths, stack = [], []
    for frame in drawn.frames:
        del stack[max(frame.depth - 1, 0) :]
        if frame.depth:
            stack.append(frame.name)
        paths.append(tuple(stack))
    return drawn.frames, paths
