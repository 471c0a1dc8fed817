"""stats.guards.run_time_change: the whole run's time change and its interval (gate's report.md says it)."""

from __future__ import annotations

import pytest
import scipy.stats

from flamespace.core.metadata import Metadata
from flamespace.stats.guards import RunInfo, run_time_change

BASELINE = [0.512, 0.498, 0.530, 0.505, 0.521, 0.517]
CANDIDATE = [0.561, 0.547, 0.590, 0.552, 0.566, 0.571]


def runs(side: str, seconds: list, rounds: list) -> list:
    return [
        RunInfo(f"{side}/{i}", side, Metadata(unit="ns", labels={"duration_s": f"{s}", "pair": str(r), "collection": "c1"}))
        for i, (s, r) in enumerate(zip(seconds, rounds))
    ]


def test_welch_interval_is_scipys() -> None:
    change = run_time_change(
        {"baseline": runs("baseline", BASELINE, range(6)), "candidate": runs("candidate", CANDIDATE[:5], range(5))}, 0.9
    )
    expected = scipy.stats.ttest_ind(CANDIDATE[:5], BASELINE, equal_var=False).confidence_interval(0.9)
    assert change is not None and not change.paired and change.runs == 5
    assert change.delta == pytest.approx(sum(CANDIDATE[:5]) / 5 - sum(BASELINE) / 6, rel=1e-12)
    assert (change.lower, change.upper) == pytest.approx((expected.low, expected.high), rel=1e-9)
    assert change.relative == pytest.approx(change.delta / change.baseline)


def test_paired_interval_matches_rounds_and_is_scipys() -> None:
    """Rounds in another order on each side: the pairs are made by round, not by position."""
    change = run_time_change(
        {
            "baseline": runs("baseline", BASELINE, [1, 2, 3, 4, 5, 6]),
            "candidate": runs("candidate", CANDIDATE[::-1], [6, 5, 4, 3, 2, 1]),
        },
        0.95,
        paired=True,
    )
    expected = scipy.stats.ttest_rel(CANDIDATE, BASELINE).confidence_interval(0.95)
    assert change is not None and change.paired and change.runs == 6 and change.level == 0.95
    assert (change.lower, change.upper) == pytest.approx((expected.low, expected.high), rel=1e-9)


def test_too_few_or_untimed_runs_give_nothing() -> None:
    assert (
        run_time_change(
            {"baseline": runs("baseline", BASELINE[:1], [1]), "candidate": runs("candidate", CANDIDATE, range(6))}, 0.9
        )
        is None
    )
    untimed = [RunInfo("b/x", "baseline", Metadata(unit="samples")), *runs("baseline", BASELINE, range(6))]
    assert run_time_change({"baseline": untimed, "candidate": runs("candidate", CANDIDATE, range(6))}, 0.9) is None


def test_the_line_says_the_change_its_interval_and_how() -> None:
    from flamespace.stats.guards import RunTimeChange
    from flamespace.stats.report import run_time_line

    assert run_time_line(RunTimeChange(0.5, 0.55, 0.05, 0.04, 0.06, 0.9, True, 6)) == (
        "Whole run: 500 ms → 550 ms, Δ +50.0 ms (40.0 to 60.0), +10.0% (90% interval, two-sided; paired t over 6 rounds)."
    )
    assert run_time_line(RunTimeChange(0.5, 0.45, -0.05, -0.07, -0.03, 0.95, False, 5)).endswith(
        "Δ -50.0 ms (-70.0 to -30.0), -10.0% (95% interval, two-sided; Welch's t)."
    )
