"""The comparison page's payload (render/compare_page.py): decoded back, it holds exactly the inputs."""

from __future__ import annotations

import math

import pytest

import flamespace as fs
from flamespace.cli import main
from flamespace.core.algebra import decompose
from flamespace.core.differential import Differential
from flamespace.errors import ArgumentError
from flamespace.render.compare_page import TEST_CODES, comparison_html, read_comparison
from flamespace.render.html import HtmlOptions
from flamespace.render.layout import layout
from flamespace.render.options import LayoutOptions
from flamespace.render.svg import change_scale

from ..conftest import DATA

ROOT = DATA.parents[1]

V1 = ROOT / "examples" / "webapp-v1.folded"
V2 = ROOT / "examples" / "webapp-v2.folded"
EVERY_FRAME = HtmlOptions(min_percent=0)


def paths(data: dict) -> list:
    """Each frame's path (its stack), from the decoded names and depths."""
    out, path = [], []
    for name, depth in zip(data["frames"]["name"], data["frames"]["depth"]):
        del path[max(depth - 1, 0):]
        if depth:
            path.append(data["names"][name])
        out.append(tuple(path))
    return out


def held(data: dict, table: dict) -> dict:
    """The profile a table of the page holds: each frame's self value at its path."""
    return {path: own for path, own in zip(paths(data), table["self"]) if own}


def inclusive(profile, path) -> float:
    return sum(v for s, v in profile.items() if s[:len(path)] == path)


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
                assert table["start"][i] == sum(v for s, v in profile.items() if s < path and s[:len(path)] != path)
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
    a = fs.FlameGraph({**wide, ("main", "gone"): 1})   # 0.01% of A: kept at 0.001%...
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
    tests = {("main", "a"): Change("grown", True, 0.001), ("main", "b"): Change(None, False, 0.4),
             ("main", "c"): Change(None, True, 0.01)}
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
    assert main(["html", "--series", str(V1), str(V2), str(three), "--label", "1", "--label", "2", "--label", "3",
                 "-o", str(out)]) == 0
    assert [p["label"] for p in read_comparison(out.read_text())["profiles"]] == ["1", "2", "3"]


def test_html_diff_of_one_differential_file(tmp_path) -> None:
    diff = tmp_path / "d.folded"
    diff.write_text("main;a 3 5\nmain;b 4 0\n")
    out = tmp_path / "d.html"
    assert main(["html", "--diff", str(diff), "-o", str(out)]) == 0
    data = read_comparison(out.read_text())
    assert held(data, data["profiles"][0]) == {("main", "a"): 3, ("main", "b"): 4}
    assert held(data, data["profiles"][1]) == {("main", "a"): 5}


@pytest.mark.parametrize("args, message", [
    (["--diff", str(V1)], "--diff takes two profiles"),
    (["--diff", str(V1), str(V2), str(V1)], "--diff takes two profiles"),
    (["--series", str(V1)], "--series takes two or more profiles"),
    (["--diff", "--series", str(V1), str(V2)], "choose one of --diff and --series"),
    (["--diff", str(V1), str(V2), "--label", "x"], "1 --label for 2 profiles"),
    ([str(V1), "--label", "x"], "--label names the inputs"),
    (["--diff", str(V1), str(V2), "--sort-by-value"], "--sort-by-value does not apply to --diff or --series"),
])
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
    assert {codes[sig["test"][at[("<startup>", "sitecustomize")]]], codes[sig["test"][at[("main", "c", "b", "a")]]]} \
        == {"appeared", "shrunk"}
    assert data["title"].startswith("Candidate vs baseline: 2 significant change(s)")
    assert held(data, data["views"]["appeared"]) == {("<startup>", "sitecustomize"): pytest.approx(data["profiles"][1]["self"][at[("<startup>", "sitecustomize")]])}
