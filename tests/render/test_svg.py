"""The SVG emitter: golden files per option family, well-formed XML whatever the names, the CLI."""

from __future__ import annotations

import ast
import builtins
import html
import io
import re
import xml.dom.minidom
from pathlib import Path

import pytest

import flamespace as fs
from flamespace.cli import main
from flamespace.errors import ArgumentError
from flamespace.render import SvgOptions, draw, layout, svg
from flamespace.render.options import XPAD
from flamespace.render.palettes import read_palette, write_palette
from flamespace.render.svg import fit_label

from ..conftest import DATA, assert_golden

SMALL = DATA / "render" / "small.folded"
DIFF = DATA / "render" / "diff.folded"
NAMEATTR = DATA / "render" / "nameattr.txt"

FAMILIES = {
    "default": {},
    "text": {
        "title": "A & B <test>",
        "subtitle": 'sub "quoted"',
        "fonttype": "Courier",
        "fontsize": 10,
        "fontwidth": 0.7,
        "countname": "ms",
        "nametype": "Frame:",
        "notes": "made -- in a test",
    },
    "geometry": {"width": 600, "height": 20, "minwidth": "5%", "inverted": True},
    "palette-java-hash": {"colors": "java", "hash": True, "bgcolors": "#ffffff"},
    "palette-chain": {"colors": "chain"},
    "palette-mem": {"colors": "mem", "bgcolors": "grey"},
    "shape-reverse-sorted": {"reverse": True, "sort_by_value": True, "base": ("main",)},
    "flamechart": {"flamechart": True},
    "values": {"factor": 1000, "total": 400},
    "inferno": {"fluid": True, "search_color": "#00ff00", "stroke_color": "rgb(1,2,3)", "truncate": "left"},
}


def render(path: Path, **options: object) -> str:
    return svg(fs.read(path), SvgOptions(**options))  # type: ignore[arg-type, return-value]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_golden_option_families(family: str, tmp_path: Path) -> None:
    assert_golden(render(SMALL, **FAMILIES[family]), f"render/{family}.svg", tmp_path)


@pytest.mark.parametrize("delta,negate", [("inclusive", False), ("self", False), ("inclusive", True)])
def test_golden_differential(delta: str, negate: bool, tmp_path: Path) -> None:
    name = f"render/diff-{delta}{'-negate' if negate else ''}.svg"
    assert_golden(render(DIFF, delta=delta, negate=negate), name, tmp_path)


def test_golden_nameattr(tmp_path: Path) -> None:
    table = fs.render.read_nameattr(str(NAMEATTR))
    assert_golden(render(SMALL, nameattr=table), "render/nameattr.svg", tmp_path)


def test_same_input_gives_the_same_bytes() -> None:
    assert render(SMALL) == render(SMALL)
    assert render(SMALL, random=True, seed=3) == render(SMALL, random=True, seed=3)
    assert render(SMALL, random=True, seed=3) != render(SMALL, random=True, seed=4)


def fills(document: str) -> dict[str, str]:
    return dict(re.findall(r"<title>([^(<]*?) \(.*?</title><rect [^>]*fill=\"([^\"]+)\"", document))


def test_differential_inclusive_colours_parents_by_their_change() -> None:
    inclusive, leaf_only = fills(render(DIFF)), fills(render(DIFF, delta="self"))
    # eval grew from 28 to 35 only through its children: coloured (red) only with inclusive deltas
    assert inclusive["eval"].startswith("rgb(255,") and inclusive["eval"] != "rgb(255,255,255)"
    assert leaf_only["eval"] == "rgb(255,255,255)"
    assert inclusive["lex"].endswith(",255)")  # shrank: blue
    assert "gone" not in inclusive  # no width after, so not drawn


def test_hostile_names_give_well_formed_xml() -> None:
    names = [
        "<script>alert(1)</script>",
        "a & b",
        'say "hi"',
        "it's",
        "esc\x1b[31mred",
        "nul\x00byte",
        "bell\x07",
        "]]>",
        "--",
        "bad\udcff byte",
        "tab\there",
        "emoji 🔥",
        "\ufffe",
    ]
    graph = fs.FlameGraph({("main", name): 10 for name in names} | {("main", "x" * 500): 1000})
    document = svg(graph, SvgOptions(title="<t> & \x1b", notes="--> <!-- x", nameattr={names[0]: {"title": "<&>\x00"}}))
    assert document is not None
    parsed = xml.dom.minidom.parseString(document.encode("utf-8"))
    titles = [t.firstChild.nodeValue for t in parsed.getElementsByTagName("title")]
    assert any(t.startswith("a & b (") for t in titles)
    assert any(t.startswith("esc\\x1b[31mred (") for t in titles)
    assert any(t.startswith("bad\\xff byte (") for t in titles)
    scripts = parsed.getElementsByTagName("script")
    assert "flamespaceConfig" in scripts[0].firstChild.nodeValue


def test_empty_input_says_so() -> None:
    document = svg(fs.FlameGraph({}))
    assert "No valid input" in document and xml.dom.minidom.parseString(document)


def test_encoding_is_declared_and_used(tmp_path: Path) -> None:
    out = tmp_path / "latin.svg"
    svg(fs.FlameGraph({("café", "ünïcode ✓"): 5}), SvgOptions(encoding="ISO-8859-1"), out)
    data = out.read_bytes()
    assert data.startswith(b'<?xml version="1.0" encoding="ISO-8859-1"')
    assert "café".encode("latin-1") in data and b"&#10003;" in data
    xml.dom.minidom.parseString(data)


def test_a_palette_map_keeps_colours_across_graphs(tmp_path: Path) -> None:
    palette: dict = {}
    first = svg(fs.read(SMALL), SvgOptions(random=True), palette=palette)
    assert palette["lex"].startswith("rgb(")  # every colour given is added, for the caller to save
    write_palette(str(tmp_path / "palette.map"), palette)
    again = read_palette(str(tmp_path / "palette.map"))
    assert again == palette
    second = svg(fs.read(SMALL), SvgOptions(random=True), palette=again)
    assert fills(first) == fills(second)
    assert svg(fs.read(SMALL), SvgOptions(random=True), palette={"lex": "rgb(1,2,3)"}).count('fill="rgb(1,2,3)"') == 1


def test_rendering_does_no_palette_file_io(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the script beside the emitter is opened while drawing, with or without a palette map."""
    opened = []
    real_open = builtins.open

    def spy(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    profile = fs.read(SMALL)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(builtins, "open", spy)
    svg(profile, SvgOptions(random=True), palette={})
    svg(profile, SvgOptions(colors="java", hash=True))
    assert {Path(name).name for name in opened} == {"flamegraph.js"} and not list(tmp_path.iterdir())


RENDER = Path(fs.render.__file__).parent


@pytest.mark.parametrize("module", sorted(p.name for p in RENDER.glob("*.py")))
def test_no_render_module_but_palettes_reads_or_writes_palette_files(module: str) -> None:
    """Palette maps are loaded and saved at the program's edge (the CLI), with palettes.py's
    functions; no other module under render/ calls them or takes a palette file name."""
    tree = ast.parse((RENDER / module).read_text(encoding="utf-8"))
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    names |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    names |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
    if module == "palettes.py":
        assert "palette_file" not in names
        return
    assert not names & {"read_palette", "write_palette", "palette_file"}


def test_diagnostics_receive_the_warnings_and_emptiness() -> None:
    diagnostics = fs.Diagnostics()
    svg(fs.read(SMALL), SvgOptions(total=10), diagnostics=diagnostics)
    assert diagnostics.warnings == ["--total 10 is less than the actual total 122, so it is ignored"]
    assert not diagnostics.empty
    nothing = fs.Diagnostics()
    assert "No valid input" in svg(fs.FlameGraph({}), diagnostics=nothing)
    assert nothing.empty and not nothing.warnings


def test_pixels_follow_from_the_layout_s_values() -> None:
    graph = fs.FlameGraph({("a", "b"): 30, ("a",): 10, ("a", "c"): 60, ("z",): 100})

    def places(options: SvgOptions) -> dict:
        picture = draw(layout(graph, options.layout_options()), options)
        return dict(zip(picture.layout.columns.names, zip(picture.xs, picture.widths)))

    # 1000 px for 200 samples: 5 px each
    assert places(SvgOptions(width=1020)) == {
        "all": (XPAD, 1000),
        "a": (XPAD, 500),
        "b": (XPAD + 50, 150),
        "c": (XPAD + 200, 300),
        "z": (XPAD + 500, 500),
    }
    assert places(SvgOptions(width=1020, total=400))["a"] == (XPAD, 250)


def test_minwidth_in_pixels_and_percent() -> None:
    graph = fs.FlameGraph({("a", "b"): 30, ("a",): 10, ("a", "c"): 60, ("z",): 100})
    assert "<title>b (" not in svg(graph, SvgOptions(width=1020, minwidth=151))
    assert "<title>b (" in svg(graph, SvgOptions(width=1020, minwidth=150))  # exactly 150 px: drawn
    assert "<title>b (" not in svg(graph, SvgOptions(minwidth="20%"))


def test_labels_are_cut_with_dots_and_annotations_stripped() -> None:
    options = SvgOptions(fontsize=10, fontwidth=1)  # 10 px per character
    assert fit_label("function_[k]", 200, options) == "function"
    assert fit_label("function", 50, options) == "fun.."
    assert fit_label("function", 29, options) == ""
    assert fit_label("function", 50, SvgOptions(fontsize=10, fontwidth=1, truncate="left")) == "..ion"


def test_differential_colours_saturate_at_the_largest_change() -> None:
    pair = fs.Differential(fs.FlameGraph({("a", "b"): 10, ("a", "c"): 5}), fs.FlameGraph({("a", "b"): 4, ("a",): 8}))
    leaf = fills(svg(pair, SvgOptions(delta="self")))
    assert leaf["a"] == "rgb(255,0,0)"  # the largest change (+8) is fully saturated
    assert leaf["b"] == f"rgb({int(210 * 2 / 8)},{int(210 * 2 / 8)},255)"
    assert fills(svg(pair, SvgOptions(delta="self", negate=True)))["a"] == "rgb(0,0,255)"


def test_chain_marks_wakers_and_separators_are_grey() -> None:
    document = svg(fs.FlameGraph({("off", "--", "waker"): 5, ("x", "-", "y"): 5}), SvgOptions(colors="chain"))
    colours = fills(document)
    assert ">waker</text>" in document and "waker_[w]" not in document  # the mark only picks a colour
    assert colours["--"] == "rgb(160,160,160)" and colours["-"] == "rgb(200,200,200)"
    assert colours["waker"] != colours["off"]


@pytest.mark.parametrize(
    "options",
    [
        {"width": 0},
        {"width": 20},
        {"minwidth": "abc"},
        {"total": 0},
        {"colors": "pink"},
        {"bgcolors": "#12"},
        {"delta": "both"},
        {"hash": True, "random": True},
        {"encoding": "nope"},
    ],
)
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(ArgumentError):
        SvgOptions(**options)


def test_stream_and_path_outputs_match(tmp_path: Path) -> None:
    stream = io.StringIO()
    svg(fs.read(SMALL), None, stream)
    svg(fs.read(SMALL), None, tmp_path / "x.svg")
    assert stream.getvalue() == (tmp_path / "x.svg").read_text() == render(SMALL)


# -- CLI ------------------------------------------------------------------------------------
def test_cli_svg_matches_the_api(tmp_path: Path) -> None:
    out = tmp_path / "out.svg"
    assert main(["svg", str(SMALL), "--colors", "java", "--hash", "--minwidth", "5%", "-o", str(out)]) == 0
    assert out.read_text() == render(SMALL, colors="java", hash=True, minwidth="5%")


def test_cli_svg_sums_several_inputs(tmp_path: Path) -> None:
    out = tmp_path / "out.svg"
    assert main(["svg", str(SMALL), str(SMALL), "-o", str(out)]) == 0
    assert "all (244 samples, 100%)" in out.read_text()


def test_cli_svg_nameattr_and_cp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["svg", str(SMALL), "--nameattr", str(NAMEATTR), "--cp", "-o", "out.svg"]) == 0
    assert 'xlink:href="https://example.org/parse?a=1&amp;b=2"' in (tmp_path / "out.svg").read_text()
    assert (tmp_path / "palette.map").exists()


def test_cli_svg_empty_input_fails_with_an_svg(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    empty = tmp_path / "empty.folded"
    empty.write_text("")
    out = tmp_path / "out.svg"
    assert main(["svg", str(empty), "-o", str(out)]) == 1
    assert "no stack counts found" in capsys.readouterr().err
    assert "No valid input" in out.read_text()


def test_cli_svg_bad_option_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["svg", str(SMALL), "--minwidth", "wide", "-o", str(tmp_path / "o.svg")]) == 1
    assert "minwidth must be" in capsys.readouterr().err


def test_cli_svg_total_below_sum_warns(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["svg", str(SMALL), "--total", "10", "-o", str(tmp_path / "o.svg")]) == 0
    assert "is less than the actual total" in capsys.readouterr().err


MS = 10**6


def timed_pair() -> fs.Differential:
    """a's own time grows 12.3 ms, b's shrinks 10 ms: the scale is 12.3 ms (main and the root change by 2.3 ms)."""
    from flamespace.core.metadata import Metadata

    meta = Metadata(unit="ns")
    before = fs.FlameGraph({("main", "a"): 100 * MS, ("main", "b"): 50 * MS}, metadata=meta)
    after = fs.FlameGraph({("main", "a"): 112.3 * MS, ("main", "b"): 40 * MS}, metadata=meta)
    return fs.Differential(before, after)


def legend_of(document: str) -> str:
    return document[document.index('<g id="legend">') : document.index("</g>", document.index('<g id="legend">'))]


def test_differential_legend_gives_the_scale_and_what_the_colours_mean() -> None:
    document = svg(timed_pair())
    xml.dom.minidom.parseString(document)
    legend = legend_of(document)
    texts = re.findall(r"<text [^>]*>([^<]*)</text>", legend)
    assert texts[:3] == [
        "\u221212.3 ms",
        "+12.3 ms",
        "red: more in the second profile (slower), blue: less (faster), white: no change",
    ]
    assert "full from \u00b112.3 ms (8.08% of the total)" in " ".join(texts[3:])  # 12.3 of 152.3 ms
    stops = re.findall(r'<stop offset="([\d.]+)%" stop-color="([^"]+)"/>', legend)
    assert stops[0] == ("0", "rgb(0,0,255)") and stops[-1] == ("100", "rgb(255,0,0)") and ("50", "rgb(255,255,255)") in stops
    negated = re.findall(r"<text [^>]*>([^<]*)</text>", legend_of(svg(timed_pair(), SvgOptions(negate=True))))
    assert negated[2].startswith("red: more in the first profile")
    # the legend sits between the title and the frames
    legend_bottom = max(float(y) for y in re.findall(r'<text x="[\d.]+" y="([\d.]+)"', legend))
    frame_top = min(float(y) for y in re.findall(r'<rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" fill=', document))
    assert legend_bottom < frame_top
    assert '<g id="legend">' not in svg(timed_pair(), SvgOptions(legend=False)) and '<g id="legend">' not in render(SMALL)


def test_legend_counts_samples_when_the_unit_is_no_time() -> None:
    texts = re.findall(r"<text [^>]*>([^<]*)</text>", legend_of(render(DIFF)))
    assert texts[:2] == ["\u221215 samples", "+15 samples"]  # call's own change, 20 -> 35


def test_the_root_s_change_does_not_set_the_colour_scale() -> None:
    """Ten functions grow by 1 each: the root (and main, above them all) grow by 10, and the functions are still full red."""
    before = fs.FlameGraph({("main", f"f{i}"): 10 for i in range(10)})
    after = fs.FlameGraph({("main", f"f{i}"): 11 for i in range(10)})
    for delta in ("inclusive", "self"):
        colours = fills(svg(fs.Differential(before, after), SvgOptions(delta=delta)))
        assert all(colours[f"f{i}"] == "rgb(255,0,0)" for i in range(10)), colours
    inclusive = fills(svg(fs.Differential(before, after)))
    assert inclusive["main"] == inclusive["all"] == "rgb(255,0,0)"  # more than the scale: full, not beyond


def test_own_changes_and_the_scale_follow_from_inclusive_deltas() -> None:
    from flamespace.render.colouring import change_scale, own_changes

    drawn = layout(fs.read(DIFF))  # main;parse;lex 30->20, main;parse 10, main;eval;call 20->35, eval;gone 8->0, new 0->6
    own = dict(zip(drawn.columns.names, own_changes(drawn)))
    assert own == {"all": 0, "main": 0, "eval": -8, "call": 15, "new": 6, "parse": 0, "lex": -10, "render": 0}
    assert change_scale(drawn) == 15


def test_labels_on_dark_frames_are_white() -> None:
    document = svg(timed_pair())
    assert "#frames text.light { fill:rgb(255,255,255); }" in document
    labels = dict(re.findall(r'<title>(\w+) \(.*?<text (class="light" )?x=', document))
    assert labels["b"] == 'class="light" ' and labels["a"] == labels["main"] == ""  # b: deep blue; a: full red
    assert 'class="light"' not in render(SMALL) and "text.light" not in render(SMALL)  # palettes keep black labels


def test_a_label_drops_its_location_before_it_is_cut() -> None:
    options = SvgOptions(fontsize=10, fontwidth=1)  # 10 px per character
    assert fit_label("work (app.py:12)", 160, options) == "work (app.py:12)"
    assert fit_label("work (app.py:12)", 150, options) == "work"
    assert fit_label("work (app.py:12)", 30, options) == "w.."
    assert fit_label("work (app.py:12)", 40, SvgOptions(fontsize=10, fontwidth=1, truncate="left")) == "work"
    assert fit_label("f (<frozen importlib._bootstrap>:1176)", 50, options) == "f"
    assert fit_label("json.loads (<stdlib>/json/__init__.py)", 100, options) == "json.loads"
    for name in ("foo (inlined)", "python app.py (1234)", "operator()(int)", "work(app.py:12)"):  # not a location: cut as before
        assert fit_label(name, 60, options) == name[:4] + ".."
    assert fit_label("work (app.py:12)", 130, SvgOptions(fontsize=10, fontwidth=1, drop_locations=False)) == "work (app.p.."
    config = re.search(r"var flamespaceConfig = (\{.*\});", render(SMALL)).group(1)  # the page script fits labels alike
    assert '"location": " \\\\((?:' in config
    assert '"location": null' in svg(fs.read(SMALL), SvgOptions(drop_locations=False))


def test_cli_svg_legend_and_locations_options(tmp_path: Path) -> None:
    out = tmp_path / "d.svg"
    assert main(["svg", str(DIFF), "--no-legend", "--keep-locations", "-o", str(out)]) == 0
    document = out.read_text()
    assert '<g id="legend">' not in document and '"location": null' in document
    assert main(["svg", str(DIFF), "-o", str(out)]) == 0
    assert '<g id="legend">' in out.read_text()


def test_label_ink_follows_wcag_contrast() -> None:
    from flamespace.render.palettes import contrast_ratio, needs_light_ink, relative_luminance

    assert relative_luminance("rgb(255,255,255)") == pytest.approx(1) and relative_luminance("#000000") == 0
    assert contrast_ratio(1, 0) == pytest.approx(21)
    assert contrast_ratio(relative_luminance("rgb(0,0,255)"), 0) == pytest.approx(2.44, abs=0.01)  # black on blue
    assert needs_light_ink("rgb(0,0,255)") and needs_light_ink("#202020")
    assert (
        not needs_light_ink("rgb(255,0,0)")
        and not needs_light_ink("rgb(255,255,255)")
        and not needs_light_ink("rgb(160,160,255)")
    )
    assert not needs_light_ink("url(#x)")  # not a colour it can read: black, as before


@pytest.mark.parametrize("width", [400, 600, 1200])
def test_legend_text_stays_inside_the_image(width: int) -> None:
    options = SvgOptions(width=width)
    legend = legend_of(svg(timed_pair(), options))
    texts = re.findall(r'<text x="([\d.]+)" y="[\d.]+">([^<]*)</text>', legend)
    assert len(texts) >= 4  # the bar's two ends, what red and blue mean, the note (wrapped at narrow widths)
    for x, text in texts:
        assert float(x) + len(html.unescape(text)) * options.fontsize * options.fontwidth <= width - XPAD, text


@pytest.mark.parametrize(
    "name, family",
    [
        ("main (app.py:3)", "green"),
        ("<module> (app.py:1)", "green"),
        ("loads (<stdlib>/json/__init__.py:346)", "aqua"),
        ("_find_and_load (<frozen importlib._bootstrap>:1165)", "aqua"),
        ("<frozen importlib._bootstrap>", "aqua"),
        ("PyObject_Call", "red"),
        ("do_syscall_64_[k]", "orange"),
    ],
)
def test_the_python_palette_puts_frozen_modules_with_the_standard_library(name, family):
    """Frozen modules (importlib's bootstrap) were painted red, as native code, which reads as 'hot'."""
    from flamespace.render.palettes import CHOOSERS

    assert CHOOSERS["python"](name) == family


def test_the_library_svg_names_counts_by_the_profiles_unit():
    """fs.render.svg(g) said 'samples' in every tooltip of a profile in ns."""
    import re

    import flamespace as fs
    from flamespace.render.svg import svg

    titles = re.findall(r"<title>([^<]*)</title>", svg(fs.FlameGraph({("main", "work"): 658_589_088}, unit="ns")))
    assert "work (658,589,088 ns, 100.00%)" in titles and not any("samples" in t for t in titles)
    assert any("samples" in t for t in re.findall(r"<title>([^<]*)</title>", svg(fs.FlameGraph({("main",): 5}))))
