"""The moderated t (stats/moderation.py): power at few, unbalanced runs, exact level, the prior label-free."""

from __future__ import annotations

import numpy as np
import pytest

from flamespace.errors import ArgumentError
from flamespace.stats import compare, maxt, moderation
from flamespace.stats.report import design

from .conftest import as_sample, counts
from .test_maxt import aa_bound


def stored_against_new(seed: int = 3, p: int = 201, cv: float = 0.1):
    """3 stored runs against 10 new ones, in ns of 1 ms samples: stacks of every size (lognormal
    means), 10% run-to-run noise and a 3% slowdown shared by a run's stacks; stack 0 is up 40%
    in the new runs. Seed 3 is the issue's case: Welch's t of stack 0 is 6.7, its max-t p 0.05."""
    rng = np.random.default_rng(seed)
    means = 1e6 * np.round(rng.lognormal(np.log(50), 1.0, size=p))

    def runs(n: int, factor: np.ndarray) -> np.ndarray:
        noise = rng.lognormal(-(cv**2) / 2, cv, size=(n, p)) * rng.lognormal(0, 0.03, size=(n, 1))
        return np.round(means * factor * noise / 1e6) * 1e6

    grown = np.ones(p)
    grown[0] = 1.4
    return runs(3, np.ones(p)), runs(10, grown)


def test_three_stored_runs_against_ten_new_find_a_40_percent_change():
    """Welch's t of the changed stack is 6.7, but with 3 runs the t of 200 noise stacks has a heavy
    tail and its maximum over relabellings reaches that: p = 0.05. Moderated, p = 1/286, the
    smallest 3 + 10 runs can give. (Failed before: maxt had Welch's t only.)"""
    x1, x2 = stored_against_new()
    welch = maxt.test(x1, x2, 0.05, statistic="welch")
    assert welch.statistic[0] == pytest.approx(6.7, abs=0.05) and 0.01 < welch.p_adjusted[0] < 0.1  # the case itself
    moderated = maxt.test(x1, x2, 0.05, statistic="moderated")
    assert moderated.p_adjusted[0] < 0.01 and moderated.p_adjusted[0] == pytest.approx(1 / 286)
    assert moderated.significant.tolist() == [True] + [False] * 200
    assert moderated.details["prior_df"] == 2.0  # at most the 3 runs' own 2 degrees of freedom


def test_the_default_moderates_below_five_runs_a_side_only():
    """Issue 26: the 3-vs-10 case reads p < 0.01 by default (statistic auto: moderated with
    under 5 runs on the smaller side); from 5 runs on, auto is Welch's t. (Failed before: the
    default was Welch's, p = 0.05.)"""
    x1, x2 = stored_against_new()
    default = maxt.test(x1, x2, 0.05)
    assert default.details["statistic"] == "moderated" and default.p_adjusted[0] < 0.01
    rng = np.random.default_rng(5)
    five = rng.poisson(50.0, (5, 30)).astype(float)
    assert maxt.test(five, five + rng.poisson(1.0, (5, 30)), 0.05, 200, seed=1).details["statistic"] == "welch"
    assert maxt.test(five, five[:4], 0.05, 200, seed=1).details["statistic"] == "moderated"
    result = compare(as_sample(x1, "ns"), as_sample(x2, "ns"))
    assert result.options["statistic"] == "moderated" and "moderated t" in design(result)


def test_compare_takes_the_statistic_and_refuses_it_for_other_methods():
    x1, x2 = stored_against_new()
    result = compare(as_sample(x1, "ns"), as_sample(x2, "ns"), statistic="moderated")
    assert [c.stack for c in result.kept] == [("main", "f0")] and result.p_value < 0.01
    with pytest.raises(ArgumentError, match="unknown statistic"):
        compare(as_sample(x1), as_sample(x2), statistic="student")
    with pytest.raises(ArgumentError, match="maxt"):
        compare(as_sample(x1), as_sample(x2), method="welch", statistic="moderated")


@pytest.mark.parametrize("n1, n2, paired", [(3, 3, False), (5, 5, False), (3, 10, False), (5, 5, True)])
def test_aa_false_positive_rate_holds(n1, n2, paired):
    """The prior comes from the pooled runs without labels, the same in every relabelling: the
    test stays exact. Counts of every size, rare ones too (variance 0 in many groups)."""
    rng = np.random.default_rng(10 * n1 + n2 + paired)
    means = np.r_[np.full(10, 0.4), np.geomspace(2, 2000, 90)]
    reps, alpha = 1500, 0.05
    found = 0
    for r in range(reps):
        x1, x2 = counts(rng, n1, means), counts(rng, n2, means)
        found += bool(maxt.test(x1, x2, alpha, 300, seed=r, paired=paired, statistic="moderated").significant.any())
    assert found <= aa_bound(reps, alpha), f"{found} of {reps} A/A comparisons flagged a change"


def test_the_prior_does_not_depend_on_the_labels():
    rng = np.random.default_rng(4)
    pooled = counts(rng, 13, np.geomspace(1, 5000, 150))
    prior = moderation.unpaired(pooled, 3)
    shuffled = moderation.unpaired(pooled[rng.permutation(13)], 3)
    assert prior.df == pytest.approx(shuffled.df, rel=1e-12)
    assert np.allclose(prior.scale, shuffled.scale, rtol=1e-12)
    diff = counts(rng, 6, np.geomspace(1, 5000, 150)) - counts(rng, 6, np.geomspace(1, 5000, 150))
    level = np.geomspace(1, 5000, 150)
    flipped = diff * np.array([1, -1, 1, 1, -1, -1])[:, None]  # swapping the runs of pairs 2, 5 and 6
    assert np.allclose(moderation.paired(diff, level).scale, moderation.paired(flipped, level).scale, rtol=1e-12)


def test_the_prior_follows_the_trend_of_variance_with_mean():
    """Poisson counts: variance = mean, so s0² ≈ the stack's mean, and stacks fit the trend
    (d0 at its bound, the smaller group's degrees of freedom)."""
    rng = np.random.default_rng(8)
    means = np.geomspace(5, 5000, 300)
    pooled = rng.poisson(means, size=(20, 300)).astype(float)
    prior = moderation.unpaired(pooled, 10)
    assert prior.df == 9.0
    assert np.median(prior.scale / means) == pytest.approx(1.0, abs=0.1)


def test_too_few_stacks_or_runs_leave_the_variances_alone():
    rng = np.random.default_rng(9)
    assert moderation.unpaired(rng.poisson(30, size=(6, 10)).astype(float), 3).df == 0.0  # 10 stacks
    assert moderation.unpaired(rng.poisson(30, size=(3, 100)).astype(float), 1).df == 0.0  # a group of 1


def test_trigamma_and_its_inverse():
    from scipy import special

    x = np.array([0.05, 0.5, 1.0, 2.5, 7.0, 40.0, 1e4])
    assert np.allclose(moderation.trigamma(x), special.polygamma(1, x), rtol=1e-10)
    for value in (0.01, 0.3, 2.0, 50.0):
        assert float(special.polygamma(1, moderation.trigamma_inverse(value))) == pytest.approx(value, rel=1e-7)


def write_runs(directory, matrix: np.ndarray) -> None:
    directory.mkdir()
    for i, row in enumerate(matrix):
        lines = [f"main;f{j} {int(value)}" for j, value in enumerate(row) if value]
        (directory / f"run{i:02d}.folded").write_text("\n".join(lines) + "\n")


def test_compare_statistic_moderated_on_the_command_line(tmp_path, capsys):
    from flamespace.cli import main

    x1, x2 = stored_against_new()
    write_runs(tmp_path / "stored", x1 / 1e6)  # samples of 1 ms: the same t, the same p
    write_runs(tmp_path / "new", x2 / 1e6)
    args = ["compare", "-a", str(tmp_path / "stored"), "-b", str(tmp_path / "new"), "--pairing", "off"]
    assert main([*args, "--statistic", "welch"]) == 0  # Welch's t: p = 0.052 (exact, all 286 relabellings), not below α
    capsys.readouterr()
    for chosen in (["--statistic", "moderated"], []):  # the default moderates 3 runs a side
        assert main([*args, *chosen]) == 3  # a regression: stack f0
        out = capsys.readouterr().out
        assert "f0" in out and "f1 " not in out and "moderated t" in out
