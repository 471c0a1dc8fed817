"""History series built from profiles in memory, and their change points."""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
import pytest

from flamespace.errors import ArgumentError
import json

from flamespace.stats.history import ProfileRecord, analyse, choose_stacks, history_of, markdown, rows, to_json

START = datetime(2026, 11, 1, 9, 0)


def records(commits: int = 40, runs: int = 3, step_at: int = 25, seed: int = 4) -> list:
    """Profiles of ``commits`` commits (``runs`` each, one commit every 8 hours): ``main;parse``
    doubles from commit ``step_at`` on, ``main;io`` stays flat, ``main;rare`` shows up at times."""
    rng = np.random.default_rng(seed)
    out = []
    for c in range(commits):
        for r in range(runs):
            values = {
                "main;parse": int(rng.poisson(200 if c >= step_at else 100)),
                "main;io": int(rng.poisson(300)),
                "main": int(rng.poisson(20)),
            }
            if rng.random() < 0.3:
                values["main;rare"] = 1
            out.append(ProfileRecord(f"c{c:02d}", START + timedelta(hours=8 * c, minutes=r), values))
    return out


def test_sums_per_point_and_stack():
    rows = [
        ProfileRecord("b", START + timedelta(hours=1), {"a": 3, "a;b": 1}),
        ProfileRecord("a", START, {"a": 1, "a;b": 5}),
        ProfileRecord("a", START + timedelta(hours=2), {"a": 2}),
    ]
    h = history_of(rows, "commit", unit="samples")
    assert h.points == ("a", "b")  # by first time, not by name or input order
    assert h.stacks == ("a", "a;b")  # totals 6 and 6: ties by text
    assert h.runs.tolist() == [2, 1] and h.totals.tolist() == [8, 4]
    assert h.sums.tolist() == [[3, 3], [5, 1]] and h.squares.tolist() == [[5, 9], [25, 1]]
    assert h.values().tolist() == [[1.5, 3], [2.5, 1]]
    assert h.shares().tolist() == [[3 / 8, 3 / 4], [5 / 8, 1 / 4]]
    # medians over each point's profiles, a missing stack a 0 (a;b is absent from a's second profile)
    assert h.medians.tolist() == [[1.5, 3], [2.5, 1]] and h.levels("value").tolist() == h.medians.tolist()
    assert h.median_shares.tolist() == [[(1 / 6 + 1) / 2, 3 / 4], [5 / 12, 1 / 4]]
    sds = h.sds()
    assert sds[0, 0] == pytest.approx(np.std([1, 2], ddof=1)) and np.isnan(sds[0, 1])


def test_by_day_groups_profiles_of_one_utc_day():
    h = history_of(records(commits=6, runs=1), "day")
    assert h.points == ("2026-11-01", "2026-11-02", "2026-11-03")  # 9:00, 17:00 | 01:00, 9:00, 17:00 | 01:00
    assert h.runs.tolist() == [2, 3, 1]


def test_choose_stacks_by_pattern_and_top():
    totals = {"main;parse": 10.0, "main;io": 30.0, "main;parse;lex": 20.0}
    assert choose_stacks(totals, top=2) == ["main;io", "main;parse;lex"]
    assert choose_stacks(totals, pattern="parse", top=None) == ["main;parse;lex", "main;parse"]
    assert choose_stacks(totals, pattern="^main;parse$") == ["main;parse"]
    with pytest.raises(ArgumentError, match="no stack of the selected profiles matches 'gc'"):
        choose_stacks(totals, pattern="gc")
    with pytest.raises(ArgumentError, match="bad regular expression"):
        choose_stacks(totals, pattern="(")


def test_profiles_without_a_commit_are_named_not_dropped():
    rows = [ProfileRecord(None, START, {"a": 1}), ProfileRecord("c", START, {"a": 1})]
    with pytest.raises(ArgumentError, match="1 of 2 profiles have no commit label"):
        history_of(rows, "commit")
    assert history_of(rows, "day").runs.tolist() == [2]


def test_the_commit_where_a_stack_grew_is_named():
    report = analyse(history_of(records(), "commit"))
    changes = {s.stack: [c.label for c in s.changes.points] for s in report.stacks}
    assert changes["main;parse"] == ["c25"]
    (c,) = next(s for s in report.stacks if s.stack == "main;parse").changes.points
    # parse doubles: the medians of 25 and 15 point means (sd 100/3 ≈ 5.8 each; a median's s.e.
    # about 1.25 σ/√n) give a relative change within 6 standard errors (about 0.15) of 1
    assert c.relative == pytest.approx(1.0, abs=0.15)
    # 4 stacks at α/4 each: with a 5% family-wise rate, the flat ones are expected to be quiet
    assert changes["main;io"] == [] and changes["main"] == []
    assert report.stack_alpha == pytest.approx(0.05 / 4)


def test_share_metric_sees_the_other_stacks_shrink():
    """Shares are compositional: when parse doubles, io's share falls at the same commit."""
    report = analyse(history_of(records(), "commit"), metric="share")
    io = next(s for s in report.stacks if s.stack == "main;io")
    assert [c.label for c in io.changes.points] == ["c25"] and io.changes.points[0].relative < 0


def test_too_few_points_are_noted():
    report = analyse(history_of(records(commits=4, runs=1), "commit"))
    assert report.notes and "cannot show a change" in report.notes[0]
    assert all(not s.changes.points for s in report.stacks)


def test_unknown_metric_and_by_are_named():
    with pytest.raises(ArgumentError, match="value, share, normalised"):
        analyse(history_of(records(commits=4), "commit"), metric="mean")
    with pytest.raises(ArgumentError, match="commit, day"):
        history_of(records(commits=4), "week")


def test_rows_markdown_and_json_name_the_change():
    report = analyse(history_of(records(), "commit", unit="samples"))
    table = {row[0]: row for row in rows(report)}
    assert table["main;parse"][5].startswith("c25: ") and "p = 0.0" in table["main;parse"][5]
    assert table["main;io"][5] == "none" and len(table["main;io"][1]) == 40  # a block per commit
    text = markdown(report)
    assert "| `main;parse` |" in text and "family-wise α = 0.05" in text
    data = json.loads(json.dumps(to_json(report)))  # plain JSON: no inf, no numpy types
    parse = next(s for s in data["stacks"] if s["stack"] == "main;parse")
    assert [c["point"] for c in parse["changes"]] == ["c25"] and len(data["points"]) == 40
    assert data["points"][0] == {"name": "c00", "profiles": 3, "total": report.history.totals[0]}


def test_points_by_hour_and_by_window():
    from flamespace.stats.history import assign_points

    times = [
        datetime(2026, 11, 1, 10, 0, 0),
        datetime(2026, 11, 1, 10, 0, 0, 400),
        datetime(2026, 11, 1, 10, 0, 10),
        datetime(2026, 11, 1, 11, 5),
    ]
    assert assign_points([None] * 4, times, "hour") == (("2026-11-01T10", "2026-11-01T11"), [0, 0, 0, 1])
    assert assign_points([None] * 4, times, "window") == (
        ("2026-11-01T10:00:00", "2026-11-01T10:00:10", "2026-11-01T11:05:00"),
        [0, 0, 1, 2],
    )


def service(windows: int = 40, load_step_at: int | None = 15, grown_at: int | None = 25, seed: int = 7) -> list:
    """A service's windows (one profile each): eight stacks whose counts all follow the load, which
    rises 60% from window ``load_step_at`` (more requests), and ``s0`` costing 1.5 times as much
    from ``grown_at`` on (its code got slower)."""
    rng = np.random.default_rng(seed)
    means = np.geomspace(800, 100, 8)
    out = []
    for w in range(windows):
        load = 1.6 if load_step_at is not None and w >= load_step_at else 1.0
        cost = np.where((np.arange(8) == 0) & (grown_at is not None and w >= grown_at), 1.5, 1.0)
        counts = rng.poisson(means * cost * load)
        out.append(
            ProfileRecord(f"w{w:02d}", START + timedelta(seconds=10 * w), {f"main;s{i}": int(counts[i]) for i in range(8)})
        )
    return out


def changed(report) -> dict[str, list[str]]:
    return {s.stack: [c.label for c in s.changes.points] for s in report.stacks if s.changes.points}


def test_normalised_metric_names_the_stack_that_grew_not_the_load_nor_the_others():
    """More requests at w15 move every stack's value (not a change of the code); s0 growing at w25
    moves every other stack's share. Only the values over each window's load show s0 alone."""
    recs = service()
    assert len(changed(analyse(history_of(recs, "commit"), "value"))) == 8  # the load step, everywhere
    assert len(changed(analyse(history_of(recs, "commit"), "share"))) > 1  # s0's growth, in every share
    report = analyse(history_of(recs, "commit"), "normalised")
    assert changed(report) == {"main;s0": ["w25"]} and not report.notes
    (c,) = report.stacks[0].changes.points
    assert c.relative == pytest.approx(0.5, abs=0.1)  # counts ~800: each window's ratio within 4% (Poisson), medians of 15-25
    assert "value over the load" in markdown(report)


def test_loads_are_each_points_common_factor():
    """Stacks that follow a load f exactly read flat over it; one that grew 1.5× reads exactly that step, its own
    growth outvoted in the median of ratios (noise-free, so every equality is arithmetic)."""
    f = [1.0, 1.3, 0.7, 2.0, 1.0, 1.6, 0.9, 1.2, 1.4]
    recs = [
        ProfileRecord(
            f"w{w}",
            START + timedelta(seconds=10 * w),
            {f"s{i}": 100.0 * (i + 1) * load * (1.5 if i == 0 and w >= 5 else 1) for i in range(6)},
        )
        for w, load in enumerate(f)
    ]
    h = history_of(recs, "commit")
    np.testing.assert_allclose(h.loads(), np.array(f) / np.median(f))
    levels = dict(zip(h.stacks, h.levels("normalised")))
    np.testing.assert_allclose(levels["s3"], 400.0 * np.median(f))
    np.testing.assert_allclose(levels["s0"][5:] / levels["s0"][:5].mean(), 1.5)


def test_too_few_stacks_to_normalise_are_noted_and_left_as_values():
    recs = [r.replace(values={s: v for s, v in r.values.items() if s in ("main;s0", "main;s1")}) for r in service(windows=12)]
    h = history_of(recs, "commit")
    assert not h.normalisable()
    report = analyse(h, "normalised")
    assert "values are not normalised" in report.notes[0] and report.metric == "value"
    np.testing.assert_allclose(h.levels("normalised"), h.levels("value"))
