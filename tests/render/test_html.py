"""The HTML viewer's emitter: the payload holds exactly the layout's data, its columns decode back,
its golden files, the page is self-contained and safe, and ``flamespace html`` writes it."""

from __future__ import annotations

import json
import re

import pytest

import flamespace as fs
from flamespace.cli import main
from flamespace.core import units
from flamespace.core.ranking import function_costs
from flamespace.diagnostics import Diagnostics
from flamespace.errors import ArgumentError
from flamespace.render.html import HtmlOptions, column, decode_column, html, read_payload
from flamespace.render.layout import layout, strip_annotation
from flamespace.render.colouring import change_bar, change_scale, frame_colours

from ..conftest import DATA, assert_golden

SMALL = DATA / "render" / "small.folded"
DIFF = DATA / "render" / "diff.folded"


@pytest.mark.parametrize(
    "values, signed, kind",
    [
        ([0, 1, 255], False, "u1"),
        ([0, 256], False, "u2"),
        ([0, 70000], False, "u4"),
        ([0, 2**32], False, "f8"),  # beyond u4: a float, exact to 2**53
        ([-1, 1], False, "i1"),
        ([0, 5], True, "i1"),
        ([-129, 0], True, "i2"),
        ([-40000, 40000], True, "i4"),
        ([0.5, 1], False, "f8"),
        ([1.0, 2.0], False, "f8"),  # floats stay floats (scaled profiles)
        ([], False, "u1"),
    ],
)
def test_columns_take_the_narrowest_type_and_decode_back(values, signed, kind) -> None:
    encoded = column(values, signed=signed)
    assert encoded["type"] == kind
    assert decode_column(encoded) == values


def _page(profile, options=None, **kwargs) -> str:
    page = html(profile, options or HtmlOptions(), **kwargs)
    assert page is not None
    return page


def test_payload_holds_exactly_the_layout() -> None:
    graph = fs.read(SMALL)
    options = HtmlOptions(colors="java", min_percent=2)
    data = read_payload(_page(graph, options))
    laid = layout(graph, options.layout_options())
    c = laid.columns
    frames = data["frames"]
    assert frames["count"] == len(c.names) > 5
    assert [data["names"][i] for i in frames["name"]] == [strip_annotation(name) for name in c.names]
    assert frames["depth"] == c.depths and frames["start"] == c.starts and frames["value"] == c.values
    assert frames["self"] == c.selfs and "delta" not in frames
    assert [data["colours"][i] for i in frames["colour"]] == frame_colours(laid, options.svg_options())
    assert data["total"] == laid.total == 122 and data["max_depth"] == laid.max_depth
    assert data["differential"] is False
    assert [meaning for meaning, _ in data["legend"]["items"]] == ["Java (and JIT)", "inlined", "C++", "native code", "kernel"]


def test_function_table_is_the_whole_profiles_not_the_layouts() -> None:
    graph = fs.read(SMALL)
    data = read_payload(_page(graph, HtmlOptions(min_percent=20)))  # most frames not laid out
    assert list(data["functions"]) == ["line", "function"]  # json.dumps (encoder.py:12) has a line number
    table = data["functions"]["line"]
    rows = {data["names"][i]: (s, t) for i, s, t in zip(table["name"], table["self"], table["inclusive"])}
    expected = {strip_annotation(cost.name): (cost.self_value, cost.inclusive_value) for cost in function_costs(graph)}
    assert rows == expected and table["count"] == len(expected)
    assert table["inclusive"] == sorted(table["inclusive"], reverse=True)


def test_function_table_by_function_groups_the_lines_of_one_function() -> None:
    graph = fs.FlameGraph(
        {
            ("main (app.py:1)", "work (app.py:12)"): 4,
            ("main (app.py:1)", "work (app.py:30)"): 6,
            ("main (app.py:1)", "file.c:7"): 5,
        }
    )
    data = read_payload(_page(graph))
    for group in ("line", "function"):
        table = data["functions"][group]
        rows = {data["names"][i]: (s, t) for i, s, t in zip(table["name"], table["self"], table["inclusive"])}
        assert rows == {c.name: (c.self_value, c.inclusive_value) for c in function_costs(graph, group)}
    assert data["functions"]["function"]["count"] == 3  # main (app.py), work (app.py), file.c


def test_differential_payload_has_changes_colours_and_the_svgs_legend() -> None:
    diff = fs.read(DIFF)
    options = HtmlOptions()
    data = read_payload(_page(diff, options))
    laid = layout(diff, options.layout_options())
    assert data["differential"] is True
    assert data["frames"]["delta"] == laid.columns.deltas
    largest = change_scale(laid)
    assert [data["colours"][i] for i in data["frames"]["colour"]] == frame_colours(laid, options.svg_options(), None, largest)
    bar = change_bar(largest, options.svg_options(), None)
    assert (data["legend"]["low"], data["legend"]["high"], data["legend"]["meaning"]) == (bar.low, bar.high, bar.meaning)
    assert any(data["inks"]), "a saturated blue or red frame gets a white label"
    assert list(data["functions"]) == ["line"], "no frame has a line number: one table"
    table = data["functions"]["line"]
    before = {c.name: c.inclusive_value for c in function_costs(diff.before)}
    after = {c.name: c.inclusive_value for c in function_costs(diff.after)}
    for i, change in zip(table["name"], table["delta_inclusive"]):
        name = data["names"][i]
        assert change == after.get(name, 0) - before.get(name, 0)


def _described(page: str) -> str:
    """The payload as a golden file: settings as JSON, each column as its type and values on one line."""
    data = read_payload(page)
    for table in (data["frames"], *data["functions"].values()):
        table.update({k: " ".join(map(str, v)) for k, v in table.items() if isinstance(v, list)})
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


@pytest.mark.parametrize(
    "source, options, golden",
    [
        (SMALL, HtmlOptions(), "render/html-payload-small.json"),
        (DIFF, HtmlOptions(negate=True, delta="self", title="Diff"), "render/html-payload-diff.json"),
    ],
)
def test_payload_golden(source, options, golden, tmp_path) -> None:
    assert_golden(_described(_page(fs.read(source), options)), golden, tmp_path)


def test_units_come_from_the_profile() -> None:
    timed = fs.FlameGraph({("main", "work"): 1_500_000}, unit="ns")
    spec = read_payload(_page(timed))["units"]
    assert spec["kind"] == "scaled" and spec["size"] == units.TIME_UNITS["ns"]
    assert [tuple(s) for s in spec["scales"]] == list(units.TIME_SCALES)
    sized = read_payload(_page(fs.FlameGraph({("a",): 10}, unit="bytes")))["units"]
    assert [tuple(s) for s in sized["scales"]] == list(units.BYTE_SCALES)
    counted = read_payload(_page(fs.FlameGraph({("a",): 10}), HtmlOptions(countname="calls")))["units"]
    assert counted == {"kind": "count", "name": "calls", "significant": units.SIGNIFICANT, "max_decimals": units.MAX_DECIMALS}


def test_page_is_self_contained_and_names_cannot_break_out_of_the_script() -> None:
    hostile = "</script><script>alert(1)</script><!-- & é"
    page = _page(fs.FlameGraph({("main", hostile): 3, ("main", "ok"): 1}), HtmlOptions(title="<b>T</b>"))
    assert page.count("</script>") == 2  # the payload's and the page script's: nothing from the data
    assert "<!--" not in page and "<b>T</b>" not in page
    assert hostile in read_payload(page)["names"]
    assert not re.search(r"""(src|href)\s*=|https?://|@import|url\(""", page), "the page loads nothing"


def test_empty_profile_is_reported_and_drawn_as_empty() -> None:
    diagnostics = Diagnostics()
    data = read_payload(_page(fs.FlameGraph({}), diagnostics=diagnostics))
    assert diagnostics.empty and data["frames"]["count"] == 0 and data["functions"]["line"]["count"] == 0


def test_options_are_checked() -> None:
    with pytest.raises(ArgumentError, match="colors"):
        HtmlOptions(colors="plaid")
    with pytest.raises(ArgumentError, match="min_percent"):
        HtmlOptions(min_percent=-1)
    assert HtmlOptions(base="main").base == ("main",)


def test_cli_writes_the_page(tmp_path, capsys) -> None:
    out = tmp_path / "small.html"
    assert main(["html", str(SMALL), "-o", str(out), "--title", "Small", "--colors", "python", "--minwidth", "5%"]) == 0
    data = read_payload(out.read_text(encoding="utf-8"))
    assert data["title"] == "Small" and data["total"] == 122 and data["units"]["name"] == "samples"
    assert data["min_percent"] == 5 and min(data["frames"]["value"]) >= 122 * 0.05
    assert main(["html", str(SMALL), "-o", str(out), "--minwidth", "much"]) == 1
    assert "0.001%" in capsys.readouterr().err


def test_cli_bad_input_is_a_clear_error(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.folded"
    bad.write_text("main;work notanumber\n")
    assert main(["html", str(bad), "-o", str(tmp_path / "x.html")]) == 1
    err = capsys.readouterr().err
    assert "bad.folded" in err and "Traceback" not in err
    assert not (tmp_path / "x.html").exists()


def test_cli_defaults_are_the_librarys() -> None:
    from flamespace._record import defaults
    from flamespace.cli.html import SPEC

    library = defaults(HtmlOptions)
    shown = {"hash_": "hash"}
    checked = 0
    for dest, value in SPEC.parse([]).items():  # what the command passes on when no option is given
        field = shown.get(dest, dest)
        if field == "roots":  # written as "process,thread"; none by default
            assert value is None and library[field] == ()
        elif field in library and field != "countname":  # countname: the profile's unit first
            assert value == library[field], field
        else:
            continue
        checked += 1
    assert checked >= 12


def test_cli_roots_give_the_page_its_picker(tmp_path) -> None:
    folded = tmp_path / "threads.folded"
    folded.write_text("app (1);MainThread;main 3\napp (1);worker;work 2\n")
    out = tmp_path / "t.html"
    assert main(["html", str(folded), "-o", str(out), "--roots", "process,thread"]) == 0
    assert read_payload(out.read_text())["roots"] == ["process", "thread"]
    with pytest.raises(ArgumentError, match="roots"):
        HtmlOptions(roots=("fibre",))


def test_calls_give_the_table_a_calls_column() -> None:
    graph = fs.FlameGraph({("main (a.py:1)", "f (a.py:2)"): 10, ("main (a.py:1)", "f (a.py:3)"): 5, ("main (a.py:1)",): 1})
    calls = fs.FlameGraph({("main (a.py:1)", "f (a.py:2)"): 4, ("main (a.py:1)", "f (a.py:3)"): 2, ("main (a.py:1)",): 1})
    data = read_payload(html(graph, HtmlOptions(), calls=calls))
    for group, expected in (
        ("line", {"f (a.py:2)": 4, "f (a.py:3)": 2, "main (a.py:1)": 1}),
        ("function", {"f (a.py)": 6, "main (a.py)": 1}),
    ):
        table = data["functions"][group]
        assert {data["names"][n]: c for n, c in zip(table["name"], table["calls"])} == expected
    assert "calls" not in read_payload(html(graph, HtmlOptions()))["functions"]["line"]


@pytest.mark.parametrize(
    "colors, items",
    [
        ("python", ["your code", "standard library", "native code", "kernel"]),
        ("hot", []),
    ],
)
def test_a_single_profile_page_says_what_its_colours_mean(colors, items) -> None:
    """Pages had no colour key: red read as "hot" though the python palette's red is native code,
    and the hot palette's colours only tell names apart."""
    data = read_payload(_page(fs.read(SMALL), HtmlOptions(colors=colors)))
    legend = data["legend"]
    assert [meaning for meaning, _ in legend["items"]] == items
    if items:
        assert legend["items"][0][1].startswith("rgb(") and "kind of code" in legend["note"]
    else:
        assert "does not measure anything" in legend["note"]


@pytest.mark.parametrize("sort_by_value", [False, True])
def test_the_frames_left_out_are_kept_for_the_search_and_the_drawn_ones_are_the_layouts(sort_by_value: bool) -> None:
    """The page draws exactly what the layout at --minwidth lays out (same places, left heavy too),
    and its ``narrow`` block holds every other frame under its nearest drawn ancestor, so the
    search's matched share can count them (issue 25)."""
    import random

    rng = random.Random(25)
    for _ in range(60):
        stacks: dict = {}
        for _ in range(rng.randint(1, 60)):
            stack = tuple(f"f{rng.randint(0, 5)}" for _ in range(rng.randint(0, 6)))
            stacks[stack] = stacks.get(stack, 0) + rng.choice([1, 1, 2, 5, 100, 1000])
        graph = fs.FlameGraph(stacks)
        options = HtmlOptions(min_percent=rng.choice([0.5, 1, 5, 20]), sort_by_value=sort_by_value)
        data = read_payload(html(graph, options) or "")
        frames, names = data["frames"], data["names"]
        laid = layout(graph, options.layout_options()).columns
        assert [names[i] for i in frames["name"]] == laid.names
        assert (frames["depth"], frames["start"], frames["value"]) == (laid.depths, laid.starts, laid.values)
        every = layout(graph, options.layout_options().replace(min_percent=0)).columns
        narrow = data.get("narrow")
        assert (narrow is None) == (len(every.names) == len(laid.names))
        if narrow is None:
            continue
        assert sum(narrow["count"]) == len(narrow["name"]) == len(every.names) - len(laid.names)
        whole, path = [], []
        for name, depth, value in zip(every.names, every.depths, every.values):
            del path[depth:]
            path.append(name)
            whole.append((tuple(path), value))
        assert sorted(_drawn_and_narrow_paths(data)) == sorted(whole)


def _drawn_and_narrow_paths(data: dict) -> list:
    """(path, value) of every frame of a page's payload: each drawn frame, then the frames it owns."""
    frames, names, narrow = data["frames"], data["names"], data["narrow"]
    out, path, r = [], [], 0
    for i in range(frames["count"]):
        del path[frames["depth"][i] :]
        path.append(names[frames["name"][i]])
        out.append((tuple(path), frames["value"][i]))
        owned: list = []
        for _ in range(narrow["count"][i]):
            del owned[narrow["depth"][r] - 1 :]
            owned.append(names[narrow["name"][r]])
            out.append((tuple(path + owned), narrow["value"][r]))
            r += 1
    return out


def test_past_the_budget_the_page_keeps_the_widest_whole_subtrees_of_the_frames_left_out(monkeypatch) -> None:
    """More left-out frames than SEARCH_FRAMES: the page holds whole subtrees of them (a frame, then
    every frame under it), the widest first, and says it does not hold them all."""
    import random

    import flamespace.render.html as html_module

    rng = random.Random(7)
    stacks = {tuple(f"f{rng.randint(0, 9)}" for _ in range(rng.randint(1, 5))): rng.randint(1, 50) for _ in range(400)}
    graph = fs.FlameGraph(stacks)
    options = HtmlOptions(min_percent=2)
    whole = _drawn_and_narrow_paths(read_payload(html(graph, options) or ""))
    monkeypatch.setattr(html_module, "SEARCH_FRAMES", 57)
    data = read_payload(html(graph, options) or "")
    assert not data["narrow"]["complete"] and 0 < len(data["narrow"]["name"]) <= 57
    held = dict(_drawn_and_narrow_paths(data))
    values = dict(whole)
    assert set(held) <= set(values) and all(held[path] == values[path] for path in held)
    drawn, path = set(), []
    for name, depth in zip(data["frames"]["name"], data["frames"]["depth"]):
        del path[depth:]
        path.append(data["names"][name])
        drawn.add(tuple(path))
    narrow_held = set(held) - drawn
    assert narrow_held
    for missing in set(values) - set(held):  # not under a left-out frame the page holds: whole subtrees
        assert not any(missing[:k] in narrow_held for k in range(1, len(missing))), missing
