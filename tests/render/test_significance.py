"""The significance-coloured flame graph of compare --out-dir: grey unless significant, a legend, Δ % in tooltips."""

from __future__ import annotations

import re
import xml.dom.minidom

import pytest

from flamespace.core.metadata import Metadata
from flamespace.core.vector import FlameGraph
from flamespace.render import SvgOptions
from flamespace.render.significance import TINT, grey, significance_drawing, significance_svg

MS = 10**6
META = Metadata(unit="ns")
BASELINE = FlameGraph(
    {
        ("main", "c", "b", "a"): 200 * MS,
        ("main", "c", "b"): 100 * MS,
        ("main", "c"): 50 * MS,
        ("main", "old"): 30 * MS,
        ("main", "io"): 40 * MS,
    },
    metadata=META,
)
CANDIDATE = FlameGraph(
    {
        ("main", "c", "b", "a"): 150 * MS,
        ("main", "c", "b"): 101 * MS,
        ("main", "c"): 50 * MS,
        ("<startup>", "sitecustomize"): 100 * MS,
        ("main", "io"): 45 * MS,
    },
    metadata=META,
)
KINDS = {
    ("main", "c", "b", "a"): "shrunk",
    ("<startup>", "sitecustomize"): "appeared",
    ("main", "old"): "disappeared",
    ("main", "io"): "",
}  # io: significant but within the margin


def frames(drawn) -> dict:
    """name -> (colour, tooltip) of each drawn frame (names are unique here)."""
    return {name: (colour, name + info) for name, colour, info in zip(drawn.layout.columns.names, drawn.colours, drawn.infos)}


@pytest.fixture
def candidate_side():
    return frames(significance_drawing(BASELINE, CANDIDATE, KINDS, note="Test: maxt, α = 0.05"))


def rgb(colour: str) -> tuple:
    return tuple(map(int, re.findall(r"\d+", colour)))


def test_significant_leaves_are_coloured_and_unchanged_frames_grey(candidate_side):
    red = rgb(candidate_side["sitecustomize"][0])
    blue = rgb(candidate_side["a"][0])
    assert red[0] == 255 and red[1] == red[2] < 200  # red: appeared
    assert blue[2] == 255 and blue[0] == blue[1] < 200  # blue: shrank
    assert candidate_side["io"][0] == grey("io")  # within the margin: grey
    level = rgb(candidate_side["io"][0])
    assert level[0] == level[1] == level[2]


def test_the_larger_change_is_the_deeper_colour(candidate_side):
    # sitecustomize +100 ms, a -50 ms: the appeared stack is the deepest colour
    assert rgb(candidate_side["sitecustomize"][0])[1] < rgb(candidate_side["a"][0])[0]


def test_callers_of_a_change_are_tinted(candidate_side):
    assert candidate_side["b"][0] == TINT[-1] and candidate_side["<startup>"][0] == TINT[1]
    assert "contains a significant change" in candidate_side["c"][1]


def test_tooltips_give_value_delta_relative_change_and_verdict(candidate_side):
    a = candidate_side["a"][1]
    assert a.startswith("a (150 ms, ") and "Δ -50.0 ms, Δ % -25.0%; significant: shrank)" in a
    assert "Δ +100 ms, Δ % new; significant: appeared" in candidate_side["sitecustomize"][1]
    assert "significant but within the margin" in candidate_side["io"][1]
    b = candidate_side["b"][1]  # inclusive Δ -49 ms of 300 ms; its own stack +1 ms, not significant
    assert "Δ -49.0 ms, Δ % -16.3%; own time: not significant; contains a significant change" in b
    for _, tooltip in candidate_side.values():
        assert "(" not in tooltip[tooltip.index(" (") + 2 :]  # the page script finds the name by the last " ("


def test_baseline_widths_show_what_disappeared_with_the_same_colours():
    drawn = frames(significance_drawing(BASELINE, CANDIDATE, KINDS, baseline_widths=True))
    assert "sitecustomize" not in drawn  # no width in the baseline
    assert rgb(drawn["old"][0])[2] == 255 and "significant: disappeared" in drawn["old"][1]
    assert "Δ -30.0 ms, Δ % -100.0%" in drawn["old"][1]
    assert rgb(drawn["a"][0])[2] == 255 and drawn["a"][1].startswith("a (200 ms, ")  # still blue


def test_the_svg_has_a_legend_and_stays_valid():
    document = significance_svg(BASELINE, CANDIDATE, KINDS, SvgOptions(title="t"), note="Test: maxt, α = 0.05")
    xml.dom.minidom.parseString(document)
    legend = document[document.index('<g id="legend">') : document.index('<g id="frames">')]
    for meaning in (
        "no significant change",
        "significantly slower: grew or appeared",
        "significantly faster: shrank or disappeared",
        "Test: maxt, α = 0.05",
    ):
        assert meaning in legend
    swatches = re.findall(r'<rect [^>]*fill="(rgb[^"]+)"', legend)
    assert grey("legend") in swatches and TINT[1] in swatches and len(swatches) == 5
    # the colour bar: from the largest shrinkage's depth to the largest growth's, here +100 ms (sitecustomize appeared)
    assert ">\u2212100 ms</text>" in legend and ">+100 ms</text>" in legend and 'fill="url(#change-scale)"' in legend
    legend_bottom = max(float(y) for y in re.findall(r'<text x="[\d.]+" y="([\d.]+)"', legend))
    frame_top = min(float(y) for y in re.findall(r'<rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" fill=', document))
    assert legend_bottom < frame_top  # the legend does not overlap the frames


def test_a_profile_with_no_significant_change_is_all_grey():
    drawn = significance_drawing(BASELINE, CANDIDATE, {})
    assert drawn.colours == [grey(name) for name in drawn.layout.columns.names]
    assert all(info.endswith("not significant)") for info in drawn.infos)


def test_units_in_tooltips_follow_the_profile():
    in_bytes = Metadata(unit="bytes")
    before = FlameGraph({("main", "alloc"): 1024**2}, metadata=in_bytes)
    after = FlameGraph({("main", "alloc"): 3 * 1024**2}, metadata=in_bytes)
    drawn = frames(significance_drawing(before, after, {("main", "alloc"): "grown"}))
    assert drawn["alloc"][1].startswith("alloc (3.00 MiB, 100.00%; Δ +2.00 MiB, Δ % +200.0%; significant: grew)")


def test_options_that_rewrite_stacks_are_refused():
    from flamespace.errors import ArgumentError

    with pytest.raises(ArgumentError, match="no reverse"):
        significance_drawing(BASELINE, CANDIDATE, KINDS, SvgOptions(reverse=True))


def test_the_deepest_colours_get_white_labels_and_no_legend_is_drawn_when_asked():
    drawn = significance_drawing(BASELINE, CANDIDATE, KINDS)
    deepest = drawn.layout.columns.names.index("sitecustomize")  # the largest change: the deepest red
    assert drawn.colours[deepest] == "rgb(255,80,80)" and drawn.inks is not None and not drawn.inks[deepest]
    shrunk = significance_drawing(BASELINE, CANDIDATE, {("main", "c", "b", "a"): "shrunk"})
    leaf = shrunk.layout.columns.names.index("a")  # the only change: the deepest blue, where white reads better
    assert shrunk.colours[leaf] == "rgb(80,80,255)" and shrunk.inks[leaf]
    assert 'class="light"' in significance_svg(BASELINE, CANDIDATE, {("main", "c", "b", "a"): "shrunk"})
    plain = significance_svg(BASELINE, CANDIDATE, KINDS, SvgOptions(legend=False), note="Test: maxt")
    assert '<g id="legend">' not in plain and "Test: maxt" not in plain
