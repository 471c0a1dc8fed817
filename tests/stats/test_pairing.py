"""Pairing runs by the round of an interleaved collection (the ``pair`` header)."""

from __future__ import annotations

import pytest

from flamespace.core.metadata import Metadata
from flamespace.errors import ArgumentError, InputError
from flamespace.stats.guards import RunInfo, pair_runs


def runs(side, rounds):
    return [RunInfo(f"{side}/{i}", side, Metadata(labels={} if r is None else {"pair": str(r)})) for i, r in enumerate(rounds)]


def test_runs_of_the_same_round_are_paired_in_round_order():
    pairing = pair_runs(runs("baseline", [2, 1, 3]), runs("candidate", [1, 3, 2]))
    assert pairing.paired and pairing.rows == ((1, 0), (0, 2), (2, 1)) and pairing.reason == ""


def test_a_round_with_one_side_only_is_left_out_and_said():
    pairing = pair_runs(runs("baseline", [1, 2, 3]), runs("candidate", [1, 3]))
    assert pairing.rows == ((0, 0), (2, 1)) and "1 run(s) without a partner" in pairing.reason


def test_runs_without_rounds_are_not_paired_unless_asked_and_then_it_fails():
    unpaired = pair_runs(runs("baseline", [None, None]), runs("candidate", [1, 2]))
    assert not unpaired.paired and "round of an interleaved collection" in unpaired.reason
    with pytest.raises(InputError, match="cannot pair"):
        pair_runs(runs("baseline", [None, None]), runs("candidate", [1, 2]), "on")


def test_auto_does_not_pair_when_the_pairs_cannot_reach_alpha_but_on_does():
    base, cand = runs("baseline", [1, 2, 3]), runs("candidate", [1, 2, 3])
    assert not pair_runs(base, cand, "auto", reaches_alpha=False).paired
    assert pair_runs(base, cand, "on", reaches_alpha=False).paired
    assert not pair_runs(base, cand, "off").paired
    with pytest.raises(ArgumentError):
        pair_runs(base, cand, "sometimes")
