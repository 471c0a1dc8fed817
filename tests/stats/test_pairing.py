"""Pairing runs by the round of an interleaved collection (the ``collection`` and ``pair`` headers).

Only the two runs of one round of one collection ran one right after the other in a
coin-flipped order; anything else (a stored baseline against new runs) is tested unpaired,
and the reason says why.
"""

from __future__ import annotations

import pytest

from flamespace.core.metadata import Metadata
from flamespace.errors import ArgumentError, InputError
from flamespace.stats.guards import RunInfo, pair_runs

ONE = "c0ffee0000000001"
OTHER = "beef000000000002"


def runs(side, rounds, collection=ONE):
    """Runs of ``side`` in the given rounds (None: no round) of ``collection`` (None: no id)."""

    def labels(r):
        return {**({} if r is None else {"pair": str(r)}), **({} if collection is None else {"collection": collection})}

    return [RunInfo(f"{side}/{collection}/{i}", side, Metadata(labels=labels(r))) for i, r in enumerate(rounds)]


def test_runs_of_the_same_round_are_paired_in_round_order():
    pairing = pair_runs(runs("baseline", [2, 1, 3]), runs("candidate", [1, 3, 2]))
    assert pairing.paired and pairing.rows == ((1, 0), (0, 2), (2, 1)) and pairing.reason == ""


def test_a_round_with_one_side_only_is_left_out_and_named():
    pairing = pair_runs(runs("baseline", [1, 2, 3]), runs("candidate", [1, 3]))
    assert pairing.rows == ((0, 0), (2, 1))
    assert (
        "1 run(s) without a partner in the same round left out of the paired test: baseline/c0ffee0000000001/1" in pairing.reason
    )


def test_runs_without_rounds_are_not_paired_unless_asked_and_then_it_fails():
    unpaired = pair_runs(runs("baseline", [None, None]), runs("candidate", [1, 2]))
    assert not unpaired.paired and "2 of 2 baseline run(s) carry no round of an interleaved collection" in unpaired.reason
    with pytest.raises(InputError, match="cannot pair"):
        pair_runs(runs("baseline", [None, None]), runs("candidate", [1, 2]), "on")


def test_auto_does_not_pair_when_the_pairs_cannot_reach_alpha_but_on_does():
    base, cand = runs("baseline", [1, 2, 3]), runs("candidate", [1, 2, 3])
    asked = []
    assert not pair_runs(base, cand, "auto", reaches_alpha=lambda n: bool(asked.append(n))).paired and asked == [3]
    assert pair_runs(base, cand, "on", reaches_alpha=lambda n: False).paired
    assert not pair_runs(base, cand, "off").paired
    with pytest.raises(ArgumentError):
        pair_runs(base, cand, "sometimes")


def test_a_stored_baseline_and_new_runs_are_not_pairs_though_their_round_numbers_match():
    """Issue 26: `compare --baseline store:branch=main,last=30 --candidate NEW` paired the stored
    runs with the new ones round by round (and left 10 out in silence). Failed before: paired."""
    baseline = runs("baseline", list(range(1, 31)), OTHER)
    candidate = runs("candidate", list(range(1, 41)))
    pairing = pair_runs(baseline, candidate)
    assert not pairing.paired
    assert pairing.reason == (
        "the baseline's runs and the candidate's come from different collections (baseline "
        "beef0000; candidate c0ffee00): only the two runs of one round of one collection are a pair"
    )
    with pytest.raises(InputError, match="different collections"):
        pair_runs(baseline, candidate, "on")


def test_rounds_of_several_collections_pair_within_each():
    baseline = runs("baseline", [1, 2], ONE) + runs("baseline", [1, 2], OTHER)
    candidate = runs("candidate", [2, 1], OTHER) + runs("candidate", [1, 2], ONE)
    pairing = pair_runs(baseline, candidate)
    assert pairing.rows == ((2, 1), (3, 0), (0, 2), (1, 3)) and pairing.reason == ""


def test_a_side_with_runs_of_a_collection_the_other_side_lacks_is_unpaired_and_named():
    baseline = runs("baseline", [1, 2, 3]) + runs("baseline", [1], OTHER)
    pairing = pair_runs(baseline, runs("candidate", [1, 2, 3]))
    assert not pairing.paired
    assert pairing.reason == (
        "1 baseline run(s) come from collection(s) the other side has no run of (beef0000): baseline/beef000000000002/0"
    )


def test_runs_with_rounds_but_no_collection_id_pair_only_when_asked():
    """Runs recorded before collections had ids: a round number alone cannot tell collections apart."""
    base, cand = runs("baseline", [1, 2, 3], None), runs("candidate", [1, 2, 3], None)
    auto = pair_runs(base, cand)
    assert not auto.paired and "6 run(s) carry a round but no collection id" in auto.reason
    assert "--pairing on pairs them by round number alone" in auto.reason
    on = pair_runs(base, cand, "on")
    assert on.rows == ((0, 0), (1, 1), (2, 2)) and "paired by round number alone" in on.reason
    mixed = pair_runs(base, runs("candidate", [1, 2, 3]), "auto")
    assert not mixed.paired and "3 run(s) carry a round but no collection id" in mixed.reason
    with pytest.raises(InputError, match="no collection id"):
        pair_runs(base, runs("candidate", [1, 2, 3]), "on")


def test_the_same_round_twice_on_one_side_is_not_a_pair():
    pairing = pair_runs(runs("baseline", [1, 1, 2]), runs("candidate", [1, 2, 3]))
    assert not pairing.paired and "are both round 1 of collection c0ffee00 (the same run given twice?)" in pairing.reason
