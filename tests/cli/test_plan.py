"""flamespace plan, run through main([...]) as a user would."""

from __future__ import annotations

import json

import pytest


from .test_compare import run, write_runs


@pytest.fixture
def pilot(tmp_path):
    return write_runs(tmp_path / "pilot", 1, True, n=8, unit="ms")


def test_table_and_one_line_answer(capsys, pilot):
    code, out, _ = run(capsys, "plan", pilot, "--detect", "5%", "--top", "3")
    assert code == 0
    assert "Pilot: 8 runs, 4 stacks tested (ms); paired design" in out and "pairs" in out
    assert "main;c;b;a" in out and "main;c " not in out  # the 3 widest only
    answer, rest = out.strip().splitlines()[-2:]
    assert "s of program time, both sides) detect a 5% change in the 3 stacks holding ≥ 1% of the total" in answer
    assert answer.endswith(
        "the exact permutation test needs at least 6 pairs to reach α = 0.05 (the smallest p of n pairs is 2/2^n)."
    )  # two-sided, as compare; 2/32 > 0.05
    assert rest.startswith("The other 1 stack (< 1% of the total each, or beyond --top) would need ")


def test_unpaired_design(capsys, pilot):
    code, out, _ = run(capsys, "plan", pilot, "--detect", "5%", "--unpaired")
    assert code == 0 and "unpaired design" in out and "at least 4 runs a side to reach α = 0.05." in out


def test_json_and_absolute_changes(capsys, pilot):
    code, out, _ = run(capsys, "plan", pilot, "--detect", "10ms", "--json")
    data = json.loads(out)
    assert code == 0 and data["detect"] == {"value": 10.0, "relative": False}
    assert all(s["change"] == 10.0 for s in data["stacks"]) and data["tested"] == 4
    assert data["runs"] == max(s["runs"] for s in data["stacks"])
    stricter = json.loads(run(capsys, "plan", pilot, "--detect", "10ms", "--json", "--alpha", "0.001")[1])
    assert stricter["runs"] > data["runs"] and stricter["minimum_runs"] == 11  # 2/2^11 ≤ 0.001 < 2/2^10
    assert data["paired"] is True and data["seconds"] > 0


def test_two_sided_needs_more_runs(capsys, pilot):
    one = json.loads(run(capsys, "plan", pilot, "--detect", "5%", "--json", "--alternative", "greater")[1])
    two = json.loads(run(capsys, "plan", pilot, "--detect", "5%", "--json")[1])  # compare's default
    assert two["runs"] > one["runs"] and two["minimum_runs"] == 6 and one["minimum_runs"] == 5  # 2/2^n, 1/2^n


@pytest.mark.parametrize(
    "args, message",
    [
        (["--detect", "10ms"], None),
        (["--detect", "often"], "is not a change such as 5%, 120 or 10ms"),
    ],
)
def test_bad_input_exits_1(capsys, tmp_path, args, message):
    counts = write_runs(tmp_path / "counts", 1, False, n=4)  # no unit: a time cannot be converted
    code, _, err = run(capsys, "plan", counts, *args)
    assert code == 1 and (message or "is a time but the profiles are in") in err


def test_one_run_is_not_a_pilot(capsys, tmp_path):
    one = write_runs(tmp_path / "one", 1, False, n=1)
    code, _, err = run(capsys, "plan", one, "--detect", "5%")
    assert code == 1 and "at least 2 runs" in err


def test_the_plan_says_the_power_measured_at_its_n(capsys, pilot):
    """Rows checked by resampling show the power maxt.test reached there; --resamples 0 is the formula alone."""
    code, out, _ = run(capsys, "plan", pilot, "--detect", "5%", "--resamples", "200")
    assert code == 0 and any(line.rstrip().endswith("power") for line in out.splitlines())  # the column
    assert "power: the share of 200 comparisons drawn from the pilot's runs" in out and "± 2.8 points" in out
    data = json.loads(run(capsys, "plan", pilot, "--detect", "5%", "--resamples", "200", "--json")[1])
    checked = [s for s in data["stacks"] if s["power"] is not None]
    assert data["resamples"] == 200 and checked and all(0 <= s["power"] <= 1 and s["first_guess"] for s in checked)
    formula = json.loads(run(capsys, "plan", pilot, "--detect", "5%", "--resamples", "0", "--json")[1])
    assert all(s["power"] is None for s in formula["stacks"])
    assert "power: the share" not in run(capsys, "plan", pilot, "--detect", "5%", "--resamples", "0")[1]
