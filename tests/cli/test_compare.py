"""flamespace compare and similarity --sample, run through main([...]) as a user would."""

from __future__ import annotations

import json
import re
import xml.dom.minidom
from pathlib import Path

import numpy as np
import pytest

from flamespace.cli import main
from flamespace.formats import folded

from ..conftest import assert_golden


def write_runs(directory: Path, seed: int, regression: bool, n: int = 12, unit: str = "") -> Path:
    """Runs of the paper's example: c;b;a shrinks and a start-up stack appears with REGRESSION."""
    rng = np.random.default_rng(seed)
    directory.mkdir()
    for i in range(n):
        lines = [f"# unit: {unit}"] if unit else []
        lines += [
            f"main;c;b;a {rng.poisson(150 if regression else 200)}",
            f"main;c;b {rng.poisson(100)}",
            f"main;c {rng.poisson(50)}",
        ]
        if regression:
            lines.append(f"<startup>;sitecustomize {rng.poisson(100)}")
        (directory / f"run{i:02d}.folded").write_text("\n".join(lines) + "\n")
    return directory


@pytest.fixture
def runs(tmp_path):
    return write_runs(tmp_path / "base", 1, False), write_runs(tmp_path / "cand", 2, True)


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_regression_exits_3_and_the_table_names_both_changes(capsys, runs):
    code, out, _ = run(capsys, "compare", "--baseline", runs[0], "--candidate", runs[1], "--alternative", "two-sided")
    assert code == 3
    assert "<startup>;sitecustomize" in out and "main;c;b;a" in out
    assert "+ new" in out and "▼ shrank" in out
    assert "main;c;b " not in out


def test_no_regression_exits_0(capsys, runs, tmp_path):
    same = write_runs(tmp_path / "same", 3, False)
    code, out, _ = run(capsys, "compare", "-a", runs[0], "-b", same, "--method", "maxt")
    assert code == 0 and "No stack changed significantly." in out


def test_an_improvement_alone_exits_0(capsys, runs, tmp_path):
    faster = write_runs(tmp_path / "faster", 3, False)
    for run_file in faster.iterdir():
        run_file.write_text(run_file.read_text() + "main;c;old 80\n")
    code, out, _ = run(capsys, "compare", "-a", faster, "-b", runs[0], "--method", "welch", "--alternative", "two-sided")
    assert code == 0 and "- gone" in out and "main;c;old" in out


def test_the_default_tests_both_directions_and_says_so(capsys, runs):
    code, out, _ = run(capsys, "compare", "-a", runs[0], "-b", runs[1])
    assert code == 3 and "+ new" in out and "▼ shrank" in out and "main;c;b;a" in out
    assert "Tested two-sided (regressions and improvements): family-wise error ≤ 5%" in out
    assert "random, 2001 relabellings" in out and "1 regression(s) (appeared or grew), 1 improvement(s)" in out


def test_alternative_greater_is_the_gates_question_and_says_so(capsys, runs):
    code, out, _ = run(capsys, "compare", "-a", runs[0], "-b", runs[1], "--alternative", "greater")
    assert code == 3 and "+ new" in out and "main;c;b;a" not in out  # a shrinking stack is not a regression
    assert "Tested one-sided (regressions only: candidate > baseline): family-wise error ≤ 5%" in out


def test_by_default_what_got_faster_fills_shrunk_and_exits_0(capsys, runs, tmp_path):
    """The candidate is the baseline's runs with main;c;b;a 20% cheaper: reported as shrunk, in
    shrunk.folded and the page's shrunk view, and an improvement alone is no failure (exit 0)."""
    faster = tmp_path / "faster"
    faster.mkdir()
    for run_file in sorted(runs[0].iterdir()):
        lines = run_file.read_text().splitlines()
        stack, count = lines[0].rsplit(" ", 1)
        (faster / run_file.name).write_text("\n".join([f"{stack} {round(0.8 * int(count))}", *lines[1:]]) + "\n")
    out_dir = tmp_path / "changes"
    code, out, _ = run(
        capsys, "compare", "-a", runs[0], "-b", faster, "--out-dir", out_dir, "--no-header", "--html", tmp_path / "page.html"
    )
    assert code == 0 and "▼ shrank" in out and "main;c;b;a" in out
    assert "0 regression(s) (appeared or grew), 1 improvement(s)" in out
    assert list(folded.loads((out_dir / "shrunk.folded").read_text())) == [("main", "c", "b", "a")]
    assert (out_dir / "grown.folded").read_text() == "" and (out_dir / "appeared.folded").read_text() == ""
    assert "maxt (both directions)" in (tmp_path / "page.html").read_text()
    code, out, _ = run(capsys, "compare", "-a", runs[0], "-b", faster, "--markdown")
    assert code == 0 and out.startswith("### flamespace compare: ✅ no significant regression, 1 improvement(s)")


def test_json_gives_the_design_and_the_detectable_change(capsys, runs):
    code, out, _ = run(capsys, "compare", "-a", runs[0], "-b", runs[1], "--json")
    data = json.loads(out)
    assert (data["alternative"], data["control"], data["method"]) == ("two-sided", "family-wise error", "maxt")
    assert data["smallest_p"] == pytest.approx(1 / 2001)
    assert all(s["detectable"] > 0 for s in data["stacks"])


def test_three_runs_a_side_is_enumerated_and_two_is_too_few(capsys, runs, tmp_path):
    few = [write_runs(tmp_path / name, seed, regression, n=3) for name, seed, regression in (("a3", 4, False), ("b3", 5, True))]
    code, out, _ = run(capsys, "compare", "-a", few[0], "-b", few[1], "--alternative", "greater")
    assert code == 3 and "exact, all 20 relabellings" in out and "smallest p-value this design can reach is 0.05" in out
    code, out, _ = run(capsys, "compare", "-a", few[0], "-b", few[1])  # two-sided: a split and its mirror tie, p ≥ 2/20
    assert code == 0 and "no stack can be significant; 4 runs a side can reach α" in out
    two = [write_runs(tmp_path / name, seed, regression, n=2) for name, seed, regression in (("a2", 4, False), ("b2", 5, True))]
    code, out, _ = run(capsys, "compare", "-a", two[0], "-b", two[1], "--min-runs", "1", "--alternative", "greater")
    assert code == 0 and "no stack can be significant; 3 runs a side can reach α" in out
    assert "The smallest change this comparison could have detected" in out


def test_fdr_option(capsys, runs):
    code, out, _ = run(capsys, "compare", "-a", runs[0], "-b", runs[1], "--fdr", "by", "--method", "welch")
    assert code == 3 and "false-discovery rate (BY) ≤ 5%" in out


def test_margin_can_hide_a_regression(capsys, runs):
    code, _, _ = run(capsys, "compare", "-a", runs[0], "-b", runs[1], "--min-delta", "150")
    assert code == 0


def test_json_has_every_tested_stack(capsys, runs):
    code, out, _ = run(
        capsys, "compare", "-a", runs[0], "-b", runs[1], "--json", "--method", "welch", "--alternative", "two-sided"
    )
    data = json.loads(out)
    assert code == 3 and data["regressed"] and data["method"] == "welch"
    assert len(data["stacks"]) == 4
    kinds = {";".join(s["stack"]): s["kind"] for s in data["stacks"]}
    assert kinds == {"<startup>;sitecustomize": "appeared", "main;c;b;a": "shrunk", "main;c;b": None, "main;c": None}


def test_markdown_golden(capsys, runs, tmp_path):
    code, out, _ = run(capsys, "compare", "-a", runs[0], "-b", runs[1], "--markdown", "--alternative", "two-sided", "--seed", "7")
    assert code == 3
    assert_golden(out, "stats/compare.md", tmp_path)


def test_out_dir_writes_the_parts_of_the_reduced_difference(capsys, runs, tmp_path):
    out_dir = tmp_path / "changes"
    run(
        capsys,
        "compare",
        "-a",
        str(runs[0] / "*.folded"),
        "-b",
        runs[1],
        "--out-dir",
        out_dir,
        "--no-header",
        "--alternative",
        "two-sided",
    )
    appeared = folded.loads((out_dir / "appeared.folded").read_text())
    assert list(appeared) == [("<startup>", "sitecustomize")]
    assert list(folded.loads((out_dir / "shrunk.folded").read_text())) == [("main", "c", "b", "a")]
    assert (out_dir / "grown.folded").read_text() == "" and (out_dir / "disappeared.folded").read_text() == ""
    rows = (out_dir / "delta.folded").read_text().splitlines()
    assert [r.split()[0] for r in rows] == ["<startup>;sitecustomize", "main;c;b;a"]
    assert rows[0].split()[1] == "0"


def frame_fills(svg: str) -> dict:
    """Frame name -> fill colour of a flamespace SVG."""
    return dict(re.findall(r"<title>([^(<]*?) \(.*?</title><rect [^>]*fill=\"([^\"]+)\"", svg))


def test_out_dir_draws_the_mean_profiles_coloured_by_significance(capsys, runs, tmp_path):
    out_dir = tmp_path / "changes"
    run(capsys, "compare", "-a", runs[0], "-b", runs[1], "--out-dir", out_dir, "--alternative", "two-sided", "--seed", "7")
    candidate_widths = (out_dir / "delta.svg").read_text()
    assert_golden(candidate_widths, "stats/delta.svg", tmp_path)
    fills = frame_fills(candidate_widths)
    red, blue = fills["sitecustomize"], fills["a"]
    assert red.startswith("rgb(255,") and blue.endswith(",255)")  # appeared: red; shrunk: blue
    assert set(fills) == {"all", "main", "c", "b", "a", "&lt;startup&gt;", "sitecustomize"}  # every tested stack
    assert fills["b"] == "rgb(218,218,255)"  # b;a shrank below b: b is tinted blue
    assert '<g id="legend">' in candidate_widths and "2 significant change(s)" in candidate_widths
    baseline_widths = frame_fills((out_dir / "delta-baseline.svg").read_text())
    assert "sitecustomize" not in baseline_widths  # it has no width in the baseline
    assert baseline_widths["a"].endswith(",255)")  # still blue: red always means slower in the candidate


def test_out_dir_svgs_draw_rare_stacks_grey_as_not_tested(capsys, runs, tmp_path):
    first = sorted(runs[0].iterdir())[0]
    first.write_text(first.read_text() + "main;rare 60\n")  # in 1 run of 24: left out by --min-runs 2
    out_dir = tmp_path / "changes"
    run(capsys, "compare", "-a", runs[0], "-b", runs[1], "--out-dir", out_dir, "--method", "maxt")
    document = (out_dir / "delta-baseline.svg").read_text()
    assert "rare (5.00, " in document and "not tested: seen in too few runs" in document  # mean 60 / 12 runs
    assert len(set(re.findall(r"\d+", frame_fills(document)["rare"]))) == 1  # grey
    assert "1 rare one(s) not tested" in document


def test_out_dir_svg_says_when_nothing_changed(capsys, runs, tmp_path):
    same = write_runs(tmp_path / "same", 3, False)
    out_dir = tmp_path / "changes"
    code, _, _ = run(capsys, "compare", "-a", runs[0], "-b", same, "--out-dir", out_dir, "--method", "maxt")
    assert code == 0
    for name in ("delta.svg", "delta-baseline.svg"):
        document = (out_dir / name).read_text()
        assert "No significant change" in document and xml.dom.minidom.parseString(document)


def test_mixed_units_are_an_input_error(capsys, tmp_path):
    a = write_runs(tmp_path / "a", 1, False, unit="ns")
    b = write_runs(tmp_path / "b", 2, False, unit="samples")
    code, _, err = run(capsys, "compare", "-a", a, "-b", b)
    assert code == 1
    assert "runs differ in unit" in err and "'samples' in 12 candidate run(s)" in err


@pytest.mark.parametrize(
    "args, message",
    [
        (["-a", "nothing-*.folded", "-b", "x"], "no file matches this pattern"),
        (["-a", "-", "-b", "x"], "not from stdin"),
        (["--min-rel", "lots"], "is not a share"),
        (["--json", "--markdown"], "choose one of --json and --markdown"),
    ],
)
def test_usage_errors_exit_1(capsys, runs, args, message):
    base = ["compare", "-a", runs[0], "-b", runs[1]]
    code, _, err = run(capsys, *(["compare"] + args if args[0] == "-a" else base + args))
    assert code == 1 and message in err


def test_hotelling_refusal_is_a_clear_error(capsys, tmp_path):
    wide = tmp_path / "wide"
    wide.mkdir()
    rng = np.random.default_rng(0)
    for i in range(3):
        (wide / f"r{i}.folded").write_text("".join(f"s;f{j} {rng.poisson(50) + 1}\n" for j in range(10)))
    code, _, err = run(
        capsys, "compare", "-a", wide, "-b", wide, "--method", "hotelling", "--min-runs", "0", "--alternative", "two-sided"
    )
    assert code == 1 and "use --method welch or maxt" in err


def test_similarity_sample(capsys, runs):
    code, out, _ = run(capsys, "similarity", "--sample", runs[0], runs[1], "--json")
    data = json.loads(out)
    assert code == 0
    assert data["summary"]["within first"]["pairs"] == 66 and data["summary"]["between"]["pairs"] == 144
    assert data["summary"]["between"]["median"] < data["summary"]["within first"]["median"]
    code, out, _ = run(capsys, "similarity", "--sample", runs[0], runs[1])
    assert "within second" in out and "between" in out


def loaded_runs(directory: Path, seed: int, load: float, grown: float, n: int = 12) -> Path:
    """Runs of six stacks whose counts all follow ``load``; ``main;parse`` costs ``grown`` times more on top."""
    rng = np.random.default_rng(seed)
    directory.mkdir()
    for i in range(n):
        lines = [f"main;parse {rng.poisson(400 * load * grown)}"]
        lines += [f"main;step{k} {rng.poisson(100 * (k + 1) * load)}" for k in range(5)]
        (directory / f"run{i:02d}.folded").write_text("\n".join(lines) + "\n")
    return directory


def test_normalize_load_tells_a_grown_stack_from_more_load(capsys, tmp_path):
    base, cand = loaded_runs(tmp_path / "base", 1, 1.0, 1.0), loaded_runs(tmp_path / "cand", 2, 1.5, 1.4)
    code, out, _ = run(capsys, "compare", "-a", base, "-b", cand, "--json")
    assert code == 3 and len([s for s in json.loads(out)["stacks"] if s["significant"]]) == 6  # the load: all
    code, out, _ = run(capsys, "compare", "-a", base, "-b", cand, "--json", "--normalize-load")
    data = json.loads(out)
    assert code == 3 and [s["stack"] for s in data["stacks"] if s["significant"]] == [["main", "parse"]]
    assert data["normalized_load"] and "at the runs' typical load" in data["fields"]["values"]
    code, out, err = run(capsys, "compare", "-a", base, "-b", cand, "--normalize", "--normalize-load")
    assert code == 1 and "choose one" in err
