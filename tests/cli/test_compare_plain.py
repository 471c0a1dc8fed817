"""compare's text report written without rich (cli/compare.py, cli/_table.py) is report.text's bytes, or left to it."""

from __future__ import annotations

import math

import pytest

from flamespace.cli.compare import _plain_report
from flamespace.stats import report

from ..stats.test_report import MS, change, comparison

NAMES = ["main", "f (a.py:3)", "Δ…µ", ":smile:", "tab\there", "中文", "x" * 150, "a:b", "e\u0301"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("include_all, limit, width", [(True, None, 200), (False, 30, 200), (True, 2, 80), (True, 1, 30)])
def test_plain_report_is_report_text(name, include_all, limit, width):
    result = comparison([
        change(f"main;{name};a;b;c", 0, 99.82 * MS, 98.86 * MS, math.inf, 0.0005, "appeared"),
        change(f"main;c;{name}", 200.69 * MS, 150.35 * MS, -51.75 * MS, -48.94 * MS, 0.0005, "shrunk"),
        change("main;c;b", 100.2 * MS, 100.9 * MS, -0.4 * MS, 1.8 * MS, 0.8),
        change(f"{name};gc", 850.0, 910.0, -math.inf, 2000.0, 0.9),
    ])
    expected = report.text(result, include_all, limit, width)
    ours = _plain_report(result, include_all, limit, width)
    assert ours is None or ours == expected
    if name in ("main", "f (a.py:3)", "Δ…µ") and width == 200:
        assert ours is not None  # the common case needs no rich


def test_no_significant_change_names_the_widest_stacks_without_rich():
    result = comparison([change("main;c;b", 100.2 * MS, 100.9 * MS, -0.4 * MS, 1.8 * MS, 0.8)])
    assert _plain_report(result, False, 30, 200) == report.text(result, False, 30, 200)
