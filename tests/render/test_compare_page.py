"""The comparison page's payload (render/compare_page.py): decoded back, it holds exactly the inputs."""

from __future__ import annotations

import math

import pytest

import flamespace as fs
from flamespace.cli import main
from flamespace.core.algebra import decompose
from flamespace.core.differential import Differential
from flamespace.errors import ArgumentError
from flamespace.render.compare_page import PARTS, TEST_CODES, VIEWS, comparison_html, comparison_payload, read_comparison
from flamespace.render.html import HtmlOptions
from flamespace.render.layout import layout, strip_annotation
from flamespace.render.options import LayoutOptions
from flamespace.render.colouring import change_scale

from ..conftest import DATA

ROOT = DATA.parents[1]

V1 = ROOT / "examples" / "webapp-v1.folded"
V2 = ROOT / "examples" / "webapp-v2.folded"
EVERY_FRAME = HtmlOptions(min_percent=0)


def paths(data: dict) -> list:
    """Each frame's path (its stack), from the decoded names and depths."""
    out, path = [], []
    for name, depth in zip(data["frames"]["name"], data["frames"]["depth"]):
        del path[max(depth - 1, 0) :]
        if depth:
            path.append(data["names"][name])
        out.append(tuple(path))
    return out


def held(data: dict, table: dict) -> dict:
    """The profile a table of the page holds: each frame's self value at its path."""
    return {path: own for path, own in zip(paths(data), table["self"]) if own}


def inclusive(profile, path) -> float:
    return sum(v for s, v in profile.items() if s[: len(path)] == path)


def test_the_page_holds_exactly_each_input_and_its_values_per_frame() -> None:
    profiles = [fs.read(V1), fs.read(V2), fs.FlameGraph({("main", "new"): 7, ("main",): 3})]
    data = read_comparison(comparison_html(profiles, ["v1", "v2", "v3"], EVERY_FRAME))
    frames = paths(data)
    assert len(set(frames)) == len(frames), "one frame a path"
    for profile, table in zip(profiles, data["profiles"]):
        assert held(data, table) == dict(profile.items())
        assert table["total"] == profile.total()
        for i, path in enumerate(frames):
            assert table["value"][i] == inclusive(profile, path)
            # a frame starts after everything its profile holds in stacks that sort before its path
            if table["value"][i]:
                assert table["start"][i] == sum(v for s, v in profile.items() if s < path and s[: len(path)] != path)
    assert [p["label"] for p in data["profiles"]] == ["v1", "v2", "v3"] and data["pair"] == [0, 2]


def test_views_of_the_pair_are_whiteblack_the_four_parts_and_the_size_of_the_change() -> None:
    a, b = fs.read(V1), fs.read(V2)
    data = read_comparison(comparison_html([a, b], ["a", "b"], EVERY_FRAME))
    views = data["views"]
    union = a.support() | b.support()
    assert held(data, views["whiteblack"]) == {s: b.value(s) or a.value(s) for s in union}
    assert held(data, views["delta"]) == {s: abs(b.value(s) - a.value(s)) for s in union if b.value(s) != a.value(s)}
    for name, part in zip(("appeared", "grown", "disappeared", "shrunk"), decompose(a, b)):
        assert held(data, views[name]) == dict(part.items())
    only_a = {s for s in a.support() if not b.value(s)}
    assert only_a and views["whiteblack"]["total"] == b.total() + sum(a.value(s) for s in only_a)


@pytest.mark.parametrize("mode", ["inclusive", "self"])
def test_the_colour_scale_is_the_svgs(mode) -> None:
    a, b = fs.read(V1), fs.read(V2)
    data = read_comparison(comparison_html([a, b], ["a", "b"], EVERY_FRAME))
    assert data["largest"][mode] == change_scale(layout(Differential(a, b), LayoutOptions(delta=mode, min_percent=0)))
    assert data["bars"][mode]["high"] == f"+{data['largest'][mode]:,} samples"


def test_narrow_frames_are_left_out_by_their_share_of_either_profile() -> None:
    wide = {("main", f"f{i}"): 1_000 for i in range(10)}
    a = fs.FlameGraph({**wide, ("main", "gone"): 1})  # 0.01% of A: kept at 0.001%...
    b = fs.FlameGraph({**wide, ("main", "tiny"): 1})
    data = read_comparison(comparison_html([a, b], ["a", "b"], HtmlOptions(min_percent=0.02)))
    assert ("main", "gone") not in paths(data) and ("main", "tiny") not in paths(data)
    data = read_comparison(comparison_html([a, b], ["a", "b"], HtmlOptions(min_percent=0.001)))
    assert {("main", "gone"), ("main", "tiny")} <= set(paths(data))
    # a frame left out still counts in its parent
    assert data["profiles"][0]["value"][paths(data).index(("main",))] == a.total()


def test_base_and_reverse_apply_to_every_profile() -> None:
    a = fs.FlameGraph({("main", "work", "x"): 2, ("other",): 5})
    b = fs.FlameGraph({("main", "work", "y"): 3})
    data = read_comparison(comparison_html([a, b], ["a", "b"], HtmlOptions(base=("work",), reverse=True, min_percent=0)))
    assert held(data, data["profiles"][0]) == {("x", "work"): 2}
    assert held(data, data["profiles"][1]) == {("y", "work"): 3}


def test_significance_holds_each_tested_stack_and_colours_only_significant_ones() -> None:
    class Change:
        def __init__(self, kind, significant, p):
            self.kind, self.significant, self.p, self.p_adjusted, self.lower, self.upper = kind, significant, p, 2 * p, -1.0, 9.5

    a = fs.FlameGraph({("main", "a"): 10, ("main", "b"): 10, ("main", "c"): 4})
    b = fs.FlameGraph({("main", "a"): 20, ("main", "b"): 11, ("main", "c"): 4})
    tests = {
        ("main", "a"): Change("grown", True, 0.001),
        ("main", "b"): Change(None, False, 0.4),
        ("main", "c"): Change(None, True, 0.01),
    }
    data = read_comparison(comparison_html([a, b], ["baseline", "candidate"], EVERY_FRAME, tests=tests, note="Test: maxt"))
    sig, frames = data["significance"], paths(data)
    at = {path: i for i, path in enumerate(frames)}
    assert sig["test"][at[("main", "a")]] == TEST_CODES["grown"]
    assert sig["test"][at[("main", "b")]] == TEST_CODES["not significant"]
    assert sig["test"][at[("main", "c")]] == TEST_CODES["within margin"]
    assert sig["test"][at[("main",)]] == TEST_CODES["untested"] and math.isnan(sig["p"][at[("main",)]])
    assert (sig["p"][at[("main", "a")]], sig["p_adjusted"][at[("main", "a")]]) == (0.001, 0.002)
    assert (sig["lower"][at[("main", "a")]], sig["upper"][at[("main", "a")]]) == (-1.0, 9.5)
    assert sig["inside"][at[("main",)]] == 1 and sig["inside"][at[("main", "b")]] == 0
    colour = {path: sig["colours"][sig["colour"][i]] for path, i in at.items()}
    assert colour[("main", "a")] == "rgb(255,80,80)"  # the deepest red: the largest significant change
    grey = {colour[("main", "b")], colour[("main", "c")]}
    assert all(c.startswith("rgb(") and len(set(c[4:-1].split(","))) == 1 for c in grey), "not significant: grey"
    assert data["note"] == "Test: maxt"


def test_a_comparison_needs_two_profiles_and_a_label_each() -> None:
    graph = fs.FlameGraph({("a",): 1})
    with pytest.raises(ArgumentError, match="at least two"):
        comparison_html([graph], ["a"])
    with pytest.raises(ArgumentError, match="labels"):
        comparison_html([graph, graph], ["a"])


# -- the command line ------------------------------------------------------------------------------
def test_html_diff_and_series_from_the_command_line(tmp_path, capsys) -> None:
    out = tmp_path / "diff.html"
    assert main(["html", "--diff", str(V1), str(V2), "-o", str(out)]) == 0
    data = read_comparison(out.read_text())
    assert [p["label"] for p in data["profiles"]] == ["webapp-v1.folded", "webapp-v2.folded"]
    assert data["title"] == "webapp-v1.folded \u2192 webapp-v2.folded"
    three = tmp_path / "v3.folded"
    three.write_text("main;x 5\n")
    out = tmp_path / "series.html"
    assert (
        main(["html", "--series", str(V1), str(V2), str(three), "--label", "1", "--label", "2", "--label", "3", "-o", str(out)])
        == 0
    )
    assert [p["label"] for p in read_comparison(out.read_text())["profiles"]] == ["1", "2", "3"]


def test_html_diff_of_one_differential_file(tmp_path) -> None:
    diff = tmp_path / "d.folded"
    diff.write_text("main;a 3 5\nmain;b 4 0\n")
    out = tmp_path / "d.html"
    assert main(["html", "--diff", str(diff), "-o", str(out)]) == 0
    data = read_comparison(out.read_text())
    assert held(data, data["profiles"][0]) == {("main", "a"): 3, ("main", "b"): 4}
    assert held(data, data["profiles"][1]) == {("main", "a"): 5}


@pytest.mark.parametrize(
    "args, message",
    [
        (["--diff", str(V1)], "--diff takes two profiles"),
        (["--diff", str(V1), str(V2), str(V1)], "--diff takes two profiles"),
        (["--series", str(V1)], "--series takes two or more profiles"),
        (["--diff", "--series", str(V1), str(V2)], "choose one of --diff and --series"),
        (["--diff", str(V1), str(V2), "--label", "x"], "1 --label for 2 profiles"),
        ([str(V1), "--label", "x"], "--label names the inputs"),
        (["--diff", str(V1), str(V2), "--sort-by-value"], "--sort-by-value does not apply to --diff or --series"),
    ],
)
def test_html_comparison_usage_errors(tmp_path, capsys, args, message) -> None:
    assert main(["html", *args, "-o", str(tmp_path / "x.html")]) != 0
    assert message in capsys.readouterr().err


def test_compare_html_marks_each_tested_stack_with_its_test(tmp_path, capsys) -> None:
    from ..cli.test_compare import write_runs

    base, cand = write_runs(tmp_path / "base", 1, False), write_runs(tmp_path / "cand", 2, True)
    out = tmp_path / "compare.html"
    code = main(["compare", "-a", str(base), "-b", str(cand), "--alternative", "two-sided", "--json", "--html", str(out)])
    assert code == 3
    import json

    report = json.loads(capsys.readouterr().out)
    data = read_comparison(out.read_text())
    at = {path: i for i, path in enumerate(paths(data))}
    sig = data["significance"]
    codes = {code: name for name, code in TEST_CODES.items()}
    for stack in report["stacks"]:
        i = at[tuple(stack["stack"])]
        assert codes[sig["test"][i]] == (stack["kind"] or ("within margin" if stack["significant"] else "not significant"))
        assert (sig["p"][i], sig["p_adjusted"][i]) == (stack["p"], stack["p_adjusted"])
        assert data["profiles"][0]["self"][i] == pytest.approx(stack["baseline"])
        assert data["profiles"][1]["self"][i] == pytest.approx(stack["candidate"])
    assert {codes[sig["test"][at[("<startup>", "sitecustomize")]]], codes[sig["test"][at[("main", "c", "b", "a")]]]} == {
        "appeared",
        "shrunk",
    }
    assert data["title"].startswith("Candidate vs baseline: 2 significant change(s)")
    assert held(data, data["views"]["appeared"]) == {
        ("<startup>", "sitecustomize"): pytest.approx(data["profiles"][1]["self"][at[("<startup>", "sitecustomize")]])
    }


# -- rows left out of the layout, and what the page derives from the rows ------------------------------
class Change:
    """A tested stack as ``stats.comparison.StackChange`` has it (the fields the page reads)."""

    def __init__(self, kind, significant, p, lower=-1.0, upper=9.5):
        self.kind, self.significant, self.p, self.p_adjusted, self.lower, self.upper = kind, significant, p, 2 * p, lower, upper


def narrow_pair():
    """A pair whose narrow stacks (``tiny``, ``gone``) are left out at ``min_percent=0.1`` while
    their callers stay, one frame name with an annotation, and tests of three stacks."""
    a = fs.FlameGraph(
        {
            ("main", "wide"): 10_000,
            ("main", "b", "tiny"): 1,
            ("main", "b", "big"): 5_000,
            ("main", "c_[k]"): 3_000,
            ("main", "b", "gone"): 2,
            ("main", "d"): 40,
        }
    )
    b = fs.FlameGraph(
        {
            ("main", "wide"): 10_000,
            ("main", "b", "tiny"): 3,
            ("main", "b", "big"): 5_000,
            ("main", "c_[k]"): 3_000,
            ("main", "d"): 20,
        }
    )
    tests = {
        ("main", "b", "tiny"): Change("grown", True, 0.001),
        ("main", "d"): Change("shrunk", True, 0.01),
        ("main", "wide"): Change(None, False, 0.5),
        ("main", "b", "gone"): Change("disappeared", True, 0.02),
    }
    return a, b, tests


def test_rows_left_out_still_count_in_the_frame_they_sit_in() -> None:
    a, b, _ = narrow_pair()
    for source, percent in (((fs.read(V1), fs.read(V2)), 3.0), ((a, b), 0.1)):
        page = comparison_html(list(source), ["a", "b"], HtmlOptions(min_percent=percent))
        data = read_comparison(page)
        frames = paths(data)
        assert data["rows"]["others"]["count"], "some rows sit in a frame that is not their own"
        before, after = source
        union = before.support() | after.support()
        expected = {
            "whiteblack": {s: after.value(s) or before.value(s) for s in union},
            "delta": {s: abs(after.value(s) - before.value(s)) for s in union},
        }
        expected.update({name: dict(part.items()) for name, part in zip(PARTS, decompose(before, after))})
        tables = [(dict(before.items()), data["profiles"][0]), (dict(after.items()), data["profiles"][1])]
        tables += [(expected[name], data["views"][name]) for name in VIEWS]
        for profile, table in tables:
            profile = {tuple(map(strip_annotation, s)): v for s, v in profile.items()}  # the page shows names without
            assert table["total"] == sum(profile.values())
            for i, path in enumerate(frames):
                under = [v for s, v in profile.items() if s[: len(path)] == path]
                assert table["value"][i] == sum(under)
                assert table["self"][i] == profile.get(path, 0)
                if under:
                    assert table["start"][i] == sum(v for s, v in profile.items() if s < path and s[: len(path)] != path)


def test_significance_colours_are_colourings_even_of_stacks_left_out() -> None:
    from flamespace.render.significance import Colouring

    a, b, tests = narrow_pair()
    data = read_comparison(comparison_html([a, b], ["a", "b"], HtmlOptions(min_percent=0.1), tests=tests))
    frames, sig = paths(data), data["significance"]
    assert ("main", "b", "tiny") not in frames and ("main", "b") in frames
    raw = {}  # each frame's name as the input has it (the page shows it without its annotation)
    for stack in a.support() | b.support():
        for depth in range(1, len(stack) + 1):
            raw[tuple(n.replace("_[k]", "") for n in stack[:depth])] = stack[depth - 1]
    colouring = Colouring(a, b, {s: c.kind or "" for s, c in tests.items() if c.significant})
    expected = [
        colouring.colour(tuple(raw.get(p[:d], p[d - 1]) for d in range(1, len(p) + 1)), raw.get(p, ""), len(p)) for p in frames
    ]
    assert [sig["colours"][i] for i in sig["colour"]] == expected
    at = {path: i for i, path in enumerate(frames)}
    assert (
        sig["inside"][at[("main", "b")]] == 1 and sig["inside"][at[("main",)]] == 1 and sig["inside"][at[("main", "wide")]] == 0
    )
    assert sig["test"][at[("main", "d")]] == TEST_CODES["shrunk"] and sig["p"][at[("main", "d")]] == 0.01
    assert sig["test"][at[("main", "wide")]] == TEST_CODES["not significant"]
    from flamespace.render.significance import grey

    assert grey("c_[k]") != grey("c") and expected[at[("main", "c")]] == grey("c_[k]"), "grey by the name as recorded"


def test_the_payload_holds_no_view_per_frame() -> None:
    """The file's size: base data per row, nothing per frame but its name and depth."""
    a, b = fs.read(V1), fs.read(V2)
    data = comparison_payload([a, b], ["a", "b"], EVERY_FRAME)
    per_frame = [
        key
        for table in (data["frames"], *data["profiles"])
        for key, value in table.items()
        if isinstance(value, dict) and "type" in value
    ]
    assert per_frame == ["name", "depth"] and "views" not in data and data["parts"] is None
