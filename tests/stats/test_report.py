"""The reports of a Comparison built by hand (no test statistics run: goldens stay fixed while methods change)."""

from __future__ import annotations

import json
import math

import pytest

from flamespace.core.algebra import decompose
from flamespace.core.metadata import Metadata
from flamespace.core.vector import FlameGraph
from flamespace.stats import report
from flamespace.stats.comparison import Comparison, Margin, StackChange
from flamespace.stats.matrix import FrequencyFilter

from ..conftest import assert_golden

MS = 1e6  # ns


def change(stack: str, baseline: float, candidate: float, lower: float, upper: float, p: float, kind=None) -> StackChange:
    return StackChange(
        tuple(stack.split(";")), baseline, candidate, candidate - baseline, lower, upper, p / 10, p, p <= 0.05, kind
    )


def comparison(
    changes,
    unit="ns",
    method="maxt",
    alpha=0.05,
    options=None,
    margin=Margin(),
    dropped=3,
    alternative="two-sided",
    control="family-wise error",
) -> Comparison:
    meta = Metadata(unit=unit)
    kept = [c for c in changes if c.kind]
    before = FlameGraph({c.stack: c.baseline for c in kept if c.baseline}, metadata=meta)
    after = FlameGraph({c.stack: c.candidate for c in kept if c.candidate}, metadata=meta)
    parts = decompose(before, after)
    return Comparison(
        method=method,
        requested_method=method,
        alpha=alpha,
        n_baseline=10,
        n_candidate=12,
        unit=unit,
        normalized=unit == "share",
        frequency=FrequencyFilter(),
        dropped=dropped,
        margin=margin,
        changes=tuple(changes),
        statistic_name="max |t|",
        statistic=12.345,
        p_value=0.001,
        reduced=parts.delta,
        parts=parts,
        options=options if options is not None else {"seed": 0, "permutations": 1000},
        notes=("a note",),
        alternative=alternative,
        control=control,
    )


@pytest.fixture
def paper() -> Comparison:
    """The paper's experiment in ns: a start-up stack appeared, a;b;c shrank, the rest did not change."""
    return comparison(
        [
            change("main;<startup>;sitecustomize", 0, 99.82 * MS, 98.86 * MS, math.inf, 0.0005, "appeared"),
            change("main;c;b;a", 200.69 * MS, 150.35 * MS, -51.75 * MS, -48.94 * MS, 0.0005, "shrunk"),
            change("main;c;b", 100.2 * MS, 100.9 * MS, -0.4 * MS, 1.8 * MS, 0.8),
            change("main;c", 50.0 * MS, 50.0004 * MS, -1.2 * MS, 1.2 * MS, 1.0),
            change("main;gc", 850.0, 910.0, -math.inf, 2000.0, 0.9),
        ]
    )


def test_text_report_golden(paper, tmp_path):
    assert_golden(report.text(paper, include_all=True, width=160), "stats/report.txt", tmp_path)


def test_markdown_report_golden(paper, tmp_path):
    assert_golden(report.markdown(paper, include_all=True), "stats/report.md", tmp_path)


def test_reports_show_human_units_and_readable_intervals(paper):
    out = report.text(paper, include_all=True, width=200)
    assert "+99.8 ms (≥ 98.9)" in out  # one-sided: infinite upper bound
    assert "-50.3 ms (-51.8 to -48.9)" in out
    assert "201 ms" in out and "150 ms" in out
    assert "[" not in out.split("\n", 3)[3]  # no bracketed intervals in the table
    assert "Intervals for Δ: 95% simultaneous" in out
    assert report.RELATIVE_DEFINITION in out
    assert "+0.700 ms (-0.400 to 1.80)" in out and "+0.000400 ms (-1.20 to 1.20)" in out  # the scale of the largest
    assert "has them exact, in ns" in out


def test_relative_change_has_one_definition(paper):
    rows = {";".join(s["stack"]): s for s in report.as_dict(paper)["stacks"]}
    a = rows["main;c;b;a"]
    assert a["relative"] == pytest.approx((a["candidate"] - a["baseline"]) / a["baseline"])
    assert rows["main;<startup>;sitecustomize"]["relative"] is None
    markdown = report.markdown(paper)
    assert f"{100 * a['relative']:+.1f}%" in markdown and "| new |" in markdown


def test_json_keeps_exact_numbers_and_says_their_unit(paper):
    data = json.loads(report.to_json(paper))
    assert data["unit"] == "ns" and "exact, in ns" in data["fields"]["values"]
    rows = {";".join(s["stack"]): s for s in data["stacks"]}
    assert rows["main;c;b;a"]["baseline"] == 200.69 * MS
    assert rows["main;<startup>;sitecustomize"]["upper"] is None
    assert data["interval"] == {"level": 0.95, "sides": "two-sided", "simultaneous": True}


def test_a_one_sided_test_states_its_two_sided_interval_level(paper):
    one_sided = comparison(list(paper.changes), alternative="greater")
    line = report.interval_line(one_sided)
    assert line.startswith("Intervals for Δ: 90% simultaneous") and "greater test at α = 0.05" in line
    assert report.as_dict(one_sided)["interval"]["level"] == pytest.approx(0.90)


def test_welch_states_its_false_coverage_rate_intervals(paper):
    welch = comparison(
        list(paper.changes), method="welch", options={"fdr": "bh", "interval_level": 0.99}, control="false-discovery rate (BH)"
    )
    line = report.interval_line(welch)
    assert "false-coverage-rate adjusted" in line and "each at 99%" in line
    assert "false-discovery rate (BH)" in report.text(welch)


@pytest.mark.parametrize(
    "unit, expected",
    [
        ("bytes", "+1.50 MiB (1.00 to 2.00)"),
        ("share", "+2.50 pp (1.00 to 4.00)"),
        ("samples", "+1,500 (1,000 to 2,000)"),
    ],
)
def test_units_of_other_profiles(unit, expected):
    scale = {"bytes": 1024**2, "share": 0.01, "samples": 1000}[unit]
    amount = 1.5 if unit != "share" else 2.5
    low, high = (1.0, 2.0) if unit != "share" else (1.0, 4.0)
    result = comparison(
        [change("main;f", 10 * scale, (10 + amount) * scale, low * scale, high * scale, 0.01, "grown")], unit=unit
    )
    assert expected in report.text(result)


def test_margin_is_in_human_units():
    result = comparison([change("main;f", 1 * MS, 2 * MS, 0.5 * MS, 1.5 * MS, 0.01, "grown")], margin=Margin(5 * MS, 0.02))
    assert "smaller than 5.00 ms or 2% of the baseline" in report.text(result)
