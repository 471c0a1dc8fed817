"""stats.guards.overlap: two sides that share few stacks are named, with the reason when it is their frames' locations."""

from __future__ import annotations


def test_two_checkouts_share_no_stack_and_it_is_said_why() -> None:
    from flamespace.stats.guards import overlap

    baseline = {"<module> (a/bench.py:9);work (a/bench.py:3)": 90.0, "<module> (a/bench.py:9)": 10.0}
    candidate = {"<module> (b/bench.py:9);work (b/bench.py:3)": 80.0, "<module> (b/bench.py:9)": 12.0}
    finding = overlap(baseline, candidate)
    assert finding is not None and finding.level == "warning"
    assert "only 0% of the baseline's total and 0% of the candidate's" in finding.message
    assert "file names or lines only (e.g. '<module> (a/bench.py:9)' and '<module> (b/bench.py:9)')" in finding.message
    assert "--map 'RE=REPL'" in finding.message


def test_sides_that_share_most_stacks_raise_nothing_and_different_code_gives_no_reason() -> None:
    from flamespace.stats.guards import overlap

    same = {"main;a": 60.0, "main;b": 40.0}
    assert overlap(same, {"main;a": 70.0, "main;c": 30.0}) is None
    finding = overlap(same, {"main;x": 70.0, "main;y": 30.0})
    assert finding is not None and "file names" not in finding.message
