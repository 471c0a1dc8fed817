"""Colour by a second metric (Gregg's CPI flame graph): known answers from a hand-made two-event
perf script and the same profiles as a pair of folded files, a golden SVG, real perf data, the
CLI's errors, and the layout's sums on random pairs."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings

import flamespace as fs
from flamespace.cli import main
from flamespace.errors import ArgumentError
from flamespace.formats import perf
from flamespace.render import SvgOptions, layout, svg
from flamespace.render.html import HtmlOptions, html, read_payload
from flamespace.render.colouring import ratio_scale

from ..conftest import DATA, assert_golden
from ..strategies import graphs

# Widths: cycles of app;main;f 600, g 200, k 100 and main's own 100 (1,000 in all). Colour:
# instructions of f 300, g 400 and h 100, a stack with no cycles (drawn nowhere, counted in main).
# The first sample is an instructions sample: perf does not promise the first event asked for.
PERF = """\
app 7 100.000001: 100 instructions:
\t1f f (app)
\t2f main (app)

app 7 100.000002: 400 cycles:
\t1f f (app)
\t2f main (app)

app 7 100.000003: 200 cycles:
\t1f f (app)
\t2f main (app)

app 7 100.000004: 200 instructions:
\t1f f (app)
\t2f main (app)

app 7 100.000005: 200 cycles:
\t3a g (app)
\t2f main (app)

app 7 100.000006: 400 instructions:
\t3a g (app)
\t2f main (app)

app 7 100.000007: 100 cycles:
\t4b k (app)
\t2f main (app)

app 7 100.000008: 100 cycles:
\t2f main (app)

app 7 100.000009: 100 instructions:
\t5c h (app)
\t2f main (app)

"""
CYCLES = fs.FlameGraph(
    {("app", "main", "f"): 600, ("app", "main", "g"): 200, ("app", "main", "k"): 100, ("app", "main"): 100}, metric="cycles"
)
INSTRUCTIONS = fs.FlameGraph(
    {("app", "main", "f"): 300, ("app", "main", "g"): 400, ("app", "main", "h"): 100}, metric="instructions"
)
#: instructions/cycles per frame: the whole profile's 800/1,000; f 300/600, g 400/200, k none.
RATIOS = {"all": 0.8, "app": 0.8, "main": 0.8, "f": 0.5, "g": 2.0, "k": 0.0}
#: The scale is full at g's 2.5x the whole's (the farthest of frames of at least 1%); a frame's
#: colour is diff_colour of its log ratio: f at ln(0.625)/ln(2.5) of full blue, int(210 * (1 -
#: ln 1.6 / ln 2.5)) = 102 in the other channels; k (no instructions) full blue; g full red.
COLOURS = {
    "all": "rgb(255,255,255)",
    "app": "rgb(255,255,255)",
    "main": "rgb(255,255,255)",
    "f": "rgb(102,102,255)",
    "g": "rgb(255,0,0)",
    "k": "rgb(0,0,255)",
}
REAL = DATA / "perf" / "two-events.perf"


def frame_map(laid, values) -> dict:
    return dict(zip(laid.columns.names, values))


def folded_pair(tmp_path: Path) -> tuple:
    cycles, instructions = tmp_path / "cycles.folded", tmp_path / "instructions.folded"
    fs.write(CYCLES, str(cycles))
    fs.write(INSTRUCTIONS, str(instructions))
    return cycles, instructions


def test_perf_events_read_apart_are_the_hand_made_profiles() -> None:
    assert perf.loads(PERF, perf.ReadOptions(event_filter="cycles")) == CYCLES
    assert perf.loads(PERF, perf.ReadOptions(event_filter="instructions")) == INSTRUCTIONS


def test_layout_sums_the_second_metric_per_frame_and_gives_exact_ratios() -> None:
    laid = layout(CYCLES, colour_by=INSTRUCTIONS)
    assert frame_map(laid, laid.columns.values) == {"all": 1000, "app": 1000, "main": 1000, "f": 600, "g": 200, "k": 100}
    assert frame_map(laid, laid.columns.seconds) == {"all": 800, "app": 800, "main": 800, "f": 300, "g": 400, "k": 0}
    assert frame_map(laid, laid.ratios()) == RATIOS
    scale = ratio_scale(laid)
    assert scale.overall == 0.8 and scale.spread == pytest.approx(2.5)


def test_a_larger_total_does_not_change_the_root_ratio() -> None:
    laid = layout(CYCLES, fs.render.LayoutOptions(total=4000), colour_by=INSTRUCTIONS)
    assert laid.columns.values[0] == 4000 and laid.ratios()[0] == 0.8


def test_svg_colours_labels_and_tooltips(tmp_path: Path) -> None:
    picture = fs.render.draw(layout(CYCLES, colour_by=INSTRUCTIONS), SvgOptions(), metrics=("cycles", "instructions"))
    assert frame_map(picture.layout, picture.colours) == COLOURS
    assert frame_map(picture.layout, picture.inks) == {name: name == "k" for name in COLOURS}  # white on full blue only
    text = svg(CYCLES, colour_by=INSTRUCTIONS)
    assert "<title>f (cycles 600, 60.00%; instructions 300; instructions/cycles 0.500, 0.625\u00d7 the whole's)</title>" in text
    assert "<title>k (cycles 100, 10.00%; instructions 0; instructions/cycles 0, 0\u00d7 the whole's)</title>" in text
    assert ">0.320</text>" in text and ">2.00</text>" in text  # the bar's ends: 0.8 / 2.5 and 0.8 * 2.5
    assert "instructions/cycles: red above the whole profile&#39;s 0.800, blue below, white equal" in text
    assert 'class="light" x' in text


def test_golden_colour_by(tmp_path: Path) -> None:
    assert_golden(svg(CYCLES, SvgOptions(title="CPI"), colour_by=INSTRUCTIONS), "render/colour-by.svg", tmp_path)


def test_width_per_colour_writes_the_inverse_with_the_same_colours() -> None:
    plain = svg(CYCLES, colour_by=INSTRUCTIONS)
    inverse = svg(CYCLES, SvgOptions(colour_ratio="width/colour"), colour_by=INSTRUCTIONS)
    assert "cycles/instructions 2.00, 1.60\u00d7 the whole's" in inverse  # f: 600/300 against 1,000/800
    assert ">3.12</text>" in inverse and ">0.500</text>" in inverse
    assert "cycles/instructions: blue above the whole profile&#39;s 1.25, red below" in inverse
    fills = [part.split('"')[0] for part in plain.split('fill="')[2:]]
    assert fills == [part.split('"')[0] for part in inverse.split('fill="')[2:]]


def test_negate_swaps_red_and_blue() -> None:
    picture = fs.render.draw(layout(CYCLES, colour_by=INSTRUCTIONS), SvgOptions(negate=True))
    assert frame_map(picture.layout, picture.colours)["g"] == "rgb(0,0,255)"


def test_library_refuses_what_it_cannot_colour() -> None:
    with pytest.raises(ArgumentError, match="two flame graphs"):
        layout(fs.Differential(CYCLES, CYCLES), colour_by=INSTRUCTIONS)
    with pytest.raises(ArgumentError, match="is 0 over the drawn frames"):
        svg(CYCLES, colour_by=fs.FlameGraph({}))
    with pytest.raises(ArgumentError, match="not a flame chart"):
        svg(CYCLES, SvgOptions(flamechart=True), colour_by=INSTRUCTIONS)
    with pytest.raises(ArgumentError, match="no second metric"):
        layout(CYCLES).ratios()
    with pytest.raises(ArgumentError, match="colour_ratio"):
        SvgOptions(colour_ratio="per")


@settings(max_examples=60, deadline=None)
@given(graphs(min_frames=1), graphs(min_frames=1))
def test_each_frame_holds_the_second_metric_of_the_stacks_under_it(width, colour) -> None:
    """Stacks the widths lack count in their drawn callers (the root at least), as a frame's width
    counts the narrow frames not drawn."""
    laid = layout(width, colour_by=colour)
    if laid.empty:
        assert laid.columns.seconds is None
        return
    c = laid.columns
    path: list = []
    for name, depth, second in zip(c.names, c.depths, c.seconds):
        del path[max(depth - 1, 0) :]
        if depth:
            path.append(name)
        expected = sum(v for s, v in colour.items() if s[: len(path)] == tuple(path))
        assert second == expected
    assert c.seconds[0] == colour.total()


# -- the CLI ---------------------------------------------------------------------------------------
def test_cli_perf_events_and_folded_pair_draw_the_same_svg(tmp_path: Path) -> None:
    script = tmp_path / "app.perf"
    script.write_text(PERF)
    cycles, instructions = folded_pair(tmp_path)
    from_perf, from_folded = tmp_path / "perf.svg", tmp_path / "folded.svg"
    assert main(["svg", str(script), "--event", "cycles", "--colour-by", "event:instructions", "-o", str(from_perf)]) == 0
    assert main(["svg", str(cycles), "--colour-by", str(instructions), "-o", str(from_folded)]) == 0
    assert from_perf.read_text() == from_folded.read_text() == svg(CYCLES, colour_by=INSTRUCTIONS)


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--colour-by", "event:instructions"], "the first event in the input is instructions"),
        (
            ["--event", "cycles", "--colour-by", "event:branches"],
            "no samples of event branches; the input has: cycles (5), instructions (4)",
        ),
        (["--event", "branches"], "no samples of event branches"),
        (["--event", "cycles", "--colour-by", "event:"], "names no event"),
        (["--event", "cycles", "--colour-by", "event:cycles"], "is the widths' event too"),
        (["-", "--event", "cycles", "--colour-by", "event:instructions"], "give a file, not stdin"),
    ],
)
def test_cli_event_errors_name_the_file(tmp_path: Path, capsys: pytest.CaptureFixture, arguments, message) -> None:
    script = tmp_path / "app.perf"
    script.write_text(PERF)
    inputs = [] if arguments[0] == "-" else [str(script)]
    assert main(["svg", *inputs, *arguments, "-o", str(tmp_path / "o.svg")]) == 1
    error = capsys.readouterr().err
    assert message in error and "Traceback" not in error
    if arguments[0] != "-" and "names no event" not in error and "widths' event too" not in error:
        assert str(script) in error


def test_cli_mismatched_inputs(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    cycles, instructions = folded_pair(tmp_path)
    other = tmp_path / "other.folded"
    other.write_text("elsewhere;x 10\n")
    out = str(tmp_path / "o.svg")
    assert main(["svg", str(cycles), "--colour-by", str(other), "-o", out]) == 1
    assert f"{other}: shares no stack with {cycles}" in capsys.readouterr().err
    mostly = tmp_path / "mostly.folded"
    mostly.write_text("app;main;f 1\nelsewhere;x 10\n")
    assert main(["svg", str(cycles), "--colour-by", str(mostly), "-o", out]) == 0
    assert f"91% of mostly in {mostly} is on stacks that {cycles} does not have" in capsys.readouterr().err
    differential = tmp_path / "diff.folded"
    differential.write_text("app;main;f 1 2\n")
    assert main(["svg", str(cycles), "--colour-by", str(differential), "-o", out]) == 1
    assert f"{differential}: is differential input" in capsys.readouterr().err
    assert main(["svg", str(cycles), "--event", "cycles", "-o", out]) == 1
    error = capsys.readouterr().err
    assert f"{cycles}: has no events to choose" in error and "Traceback" not in error
    assert main(["svg", str(cycles), "--colour-by", str(tmp_path / "missing.folded"), "-o", out]) == 1
    assert "missing.folded" in capsys.readouterr().err


def test_cli_html_carries_the_second_metric(tmp_path: Path) -> None:
    cycles, instructions = folded_pair(tmp_path)
    out = tmp_path / "cpi.html"
    assert main(["html", str(cycles), "--colour-by", str(instructions), "--colour-ratio", "width/colour", "-o", str(out)]) == 0
    data = read_payload(out.read_text())
    names = [data["names"][i] for i in data["frames"]["name"]]
    assert dict(zip(names, data["frames"]["second"])) == {"all": 800, "app": 800, "main": 800, "f": 300, "g": 400, "k": 0}
    assert dict(zip(names, (data["colours"][i] for i in data["frames"]["colour"]))) == COLOURS
    ratio = data["ratio"]
    assert (ratio["overall"], ratio["label"], ratio["inverse"], len(ratio["ramp"])) == (0.8, "cycles/instructions", True, 421)
    assert data["legend"]["low"] == "3.12" and "blue above" in data["legend"]["meaning"]
    assert data["units"]["name"] == "cycles"  # "600 cycles" in the tooltip, beside "300 instructions"


def test_real_two_event_perf_record(tmp_path: Path) -> None:
    """perf record -e task-clock -e page-faults of tests/data/perf/two-events.c (software events:
    this VM has no hardware counters): the function that touches fresh pages is red, the one
    that only computes is full blue (no page faults), and each event reads as stackcollapse-perf.pl
    --event-filter collapses it."""
    for event in ("task-clock", "page-faults"):
        expected = fs.read(DATA / "perf" / f"two-events-{event}.collapsed")
        assert fs.read(REAL, options={"event_filter": event}) == expected
    out = tmp_path / "real.svg"
    assert main(["svg", str(REAL), "--event", "task-clock", "--colour-by", "event:page-faults", "-o", str(out)]) == 0
    laid = layout(
        fs.read(REAL, options={"event_filter": "task-clock"}), colour_by=fs.read(REAL, options={"event_filter": "page-faults"})
    )
    picture = fs.render.draw(laid, SvgOptions())
    by_path: dict = {}
    path: list = []
    for name, depth, colour in zip(laid.columns.names, laid.columns.depths, picture.colours):
        del path[depth:]
        path.append(name)
        by_path[";".join(path[1:])] = colour
    touch = by_path["work;__libc_start_call_main;main;touch"]
    assert touch.startswith("rgb(255,") and touch != "rgb(255,255,255)"  # red: faults above the whole's rate
    assert by_path["work;__libc_start_call_main;main;compute"] == "rgb(0,0,255)"
    text = out.read_text()
    assert "page-faults per 1,000,000 task-clock: red above the whole profile&#39;s 273, blue below" in text
    html_out = tmp_path / "real.html"
    assert main(["html", str(REAL), "--event", "task-clock", "--colour-by", "event:page-faults", "-o", str(html_out)]) == 0


def test_metric_names_fall_back_to_file_names(tmp_path: Path) -> None:
    cycles, instructions = folded_pair(tmp_path)
    plain = tmp_path / "b.txt.gz"
    import gzip

    plain.write_bytes(gzip.compress(b"app;main;f 500\n"))
    out = tmp_path / "o.svg"
    assert main(["svg", str(cycles), "--colour-by", str(plain), "-o", str(out)]) == 0
    assert "b/cycles: red above" in out.read_text()


def test_html_library_call(tmp_path: Path) -> None:
    page = html(CYCLES, HtmlOptions(), colour_by=INSTRUCTIONS)
    data = read_payload(page)
    assert data["frames"]["second"][0] == 800 and not math.isnan(data["ratio"]["spread"])


@settings(max_examples=30, deadline=None)
@given(graphs(), graphs())
def test_cli_pairs_draw_or_fail_with_a_message(width, colour) -> None:
    """Any pair of profiles: an SVG, or exit 1 with a message naming a file (never a traceback)."""
    import contextlib
    import io
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        first, second, out = Path(folder, "w.folded"), Path(folder, "c.folded"), Path(folder, "o.svg")
        fs.write(width, str(first))
        fs.write(colour, str(second))
        errors = io.StringIO()
        with contextlib.redirect_stderr(errors):
            code = main(["svg", str(first), "--colour-by", str(second), "-o", str(out)])
        assert "Traceback" not in errors.getvalue()
        shared = any(stack in width for stack in colour)
        assert code == (0 if shared else 1), errors.getvalue()
        if code:
            assert str(first) in errors.getvalue() or str(second) in errors.getvalue()


def test_cli_colours_a_flame_chart_input_as_its_flame_graph(tmp_path: Path) -> None:
    """An input that keeps time order (a .cpuprofile: a FlameChart) is coloured and drawn as its flame
    graph, as a folded copy of it is (it was an internal error: a chart has no metric)."""
    chart = DATA / "chrome" / "node.cpuprofile"
    as_folded = tmp_path / "node.folded"
    assert main(["convert", str(chart), "-o", str(as_folded)]) == 0
    from_chart, from_folded = tmp_path / "chart.svg", tmp_path / "folded.svg"
    assert main(["svg", str(chart), "--colour-by", str(chart), "-o", str(from_chart)]) == 0
    assert main(["svg", str(as_folded), "--colour-by", str(as_folded), "-o", str(from_folded)]) == 0
    assert from_chart.read_text() == from_folded.read_text()
