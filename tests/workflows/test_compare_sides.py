"""The library's comparison of two samples of runs (flamespace.compare_sides) and its report
files (flamespace.render.write_comparison, comparison_page): what `compare --out-dir` and
`--html` write, from a library call, and nothing printed."""

from __future__ import annotations

import flamespace as fs
from flamespace.stats.comparison import CompareOptions

from ..cli.test_compare import runs, write_runs  # noqa: F401 (runs: a fixture)
from ..conftest import assert_golden


def sides(base, cand) -> dict:
    return {"baseline": sorted(map(str, base.iterdir())), "candidate": sorted(map(str, cand.iterdir()))}


def test_compare_sides_hands_findings_over_and_prints_nothing(capsys, runs):
    empty = runs[0] / "run00.folded"
    empty.write_text("")  # left out, and said so: through on_findings, not on stderr
    found: list = []
    compared = fs.compare_sides(sides(*runs), CompareOptions(alternative="two-sided", seed=7), on_findings=found.extend)
    assert capsys.readouterr() == ("", "")
    assert [(f.level, f.message) for f in found] == [
        ("warning", f"left out 1 empty run(s), with no samples (a failed recording?): {empty}")
    ]
    assert isinstance(compared, fs.ComparedSides) and compared.comparison.regressed
    assert {c.stack for c in compared.comparison.kept} == {("<startup>", "sitecustomize"), ("main", "c", "b", "a")}
    assert [len(compared.samples[side].names) for side in ("baseline", "candidate")] == [11, 12]
    assert not compared.options.paired  # files of no collection: nothing to pair


def test_write_comparison_writes_what_compare_out_dir_writes(capsys, runs, tmp_path):
    compared = fs.compare_sides(sides(*runs), CompareOptions(alternative="two-sided", seed=7))
    out_dir = tmp_path / "changes"
    fs.render.write_comparison(compared.comparison, str(out_dir), samples=compared.samples)
    assert capsys.readouterr() == ("", "")
    assert_golden((out_dir / "delta.svg").read_text(), "stats/delta.svg", tmp_path)  # compare --out-dir's golden file
    for name, part in zip(("appeared", "grown", "disappeared", "shrunk"), compared.comparison.parts):
        assert dict(fs.read(str(out_dir / f"{name}.folded"))) == dict(part)
    assert (out_dir / "delta-baseline.svg").exists() and (out_dir / "delta.folded").exists()
    fs.render.write_comparison(compared.comparison, str(tmp_path / "bare"), header=False)  # the tested stacks only
    assert not (tmp_path / "bare" / "delta.folded").read_text().startswith("#")


def test_comparison_page_names_the_verdict(runs, tmp_path):
    compared = fs.compare_sides(sides(*runs), CompareOptions(alternative="two-sided", seed=7))
    page = tmp_path / "compare.html"
    fs.render.comparison_page(compared.comparison, str(page), compared.samples)
    assert "Candidate vs baseline: 2 significant change(s)" in page.read_text()
