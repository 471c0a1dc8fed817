"""Sparklines of a history: block characters and the SVG's rows, dots and tooltips."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta

from flamespace.render.sparkline import svg
from flamespace.stats.history import ProfileRecord, analyse, blocks, change_text, history_of

NS = "{http://www.w3.org/2000/svg}"


def test_blocks_span_lowest_to_highest():
    assert blocks([0, 1, 2, 3, 4, 5, 6, 7]) == "▁▂▃▄▅▆▇█"
    assert blocks([5, 5, 5]) == "▄▄▄" and blocks([]) == ""


def report():
    start = datetime(2026, 11, 1)
    rows = []
    for c in range(12):
        level = 100 if c < 6 else 150
        for r in range(2):
            rows.append(
                ProfileRecord(
                    f"c{c}", start + timedelta(hours=c, minutes=r), {"main;<parse>": level + r, "main;io & net": 50 + (c % 2)}
                )
            )
    return analyse(history_of(rows, "commit", unit="ns"), alpha=0.1)


def test_svg_has_a_row_per_stack_and_a_dot_per_change():
    r = report()
    root = ET.fromstring(svg(r))
    rows = root.findall(f"{NS}g")
    assert [g.find(f"{NS}title").text for g in rows] == ["main;<parse>", "main;io & net"]  # escaped, read back
    dots = rows[0].findall(f"{NS}circle")
    assert len(dots) == 1 and "c6: 100 ns → 150 ns (+49.8%)" in dots[0].find(f"{NS}title").text
    assert rows[1].findall(f"{NS}circle") == []
    assert change_text(r, r.stacks[0]) == "c6: 100 ns → 150 ns (+49.8%)"


def test_svg_to_a_stream_is_the_returned_text():
    r = report()
    out = io.StringIO()
    assert svg(r, out) is None and out.getvalue() == svg(r)


def test_the_title_names_the_level_the_series_holds():
    """The series is each point's median over its profiles (History.levels), so the title says
    median; it said "mean value per profile" while drawing medians."""
    r = report()
    title = ET.fromstring(svg(r)).find(f"{NS}text").text
    assert title.startswith("median value per profile of 2 stacks over 12 commits")


def test_the_svg_is_wide_enough_for_its_longest_note_and_title():
    """A change's note (ISO window labels, as serve's history by window gives) was cut off at the
    SVG's right edge: the width allowed 260 px (about 35 characters) for notes of up to 80."""
    start = datetime(2026, 11, 1, 10)
    rows = [
        ProfileRecord(
            f"{start + timedelta(seconds=10 * k):%Y-%m-%dT%H:%M:%S}",
            start + timedelta(seconds=10 * k),
            {"a": 100 if k < 10 else 160},
        )
        for k in range(20)
    ]
    r = analyse(history_of(rows, "window", unit="ns"), alpha=0.1)
    root = ET.fromstring(svg(r))
    width = float(root.get("width"))
    note = root.findall(f"{NS}g")[0].findall(f"{NS}text")[-1]
    assert len(note.text) > 40
    # Verdana's digits and letters average more than 0.55 em, so the text needs at least this much room
    assert width >= float(note.get("x")) + 0.55 * 12 * len(note.text)
    title = root.find(f"{NS}text")
    assert width >= float(title.get("x")) + 0.55 * 12 * len(title.text)


def test_the_svg_title_names_the_series_tested():
    """Over the load, when it could be told; the values, when too few stacks were followed (analyse fell back)."""
    start = datetime(2026, 11, 1)
    rows = [
        ProfileRecord(f"c{c}", start + timedelta(hours=c), {f"main;s{k}": 100.0 * (k + 1) * (1 + c % 3) for k in range(6)})
        for c in range(8)
    ]
    normalised = analyse(history_of(rows, "commit", unit="ns"), "normalised")
    assert "median value over the load per profile of 6 stacks" in svg(normalised)
    few = analyse(history_of(rows, "commit", pattern="s0|s1", unit="ns"), "normalised")
    assert "median value per profile of 2 stacks" in svg(few)
