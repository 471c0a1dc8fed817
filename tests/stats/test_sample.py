"""Sample: the runs × stacks matrix, the pooled frequency filter, units, shares."""

from __future__ import annotations

import numpy as np
import pytest

import flamespace as fs
from flamespace.errors import UnitMismatchError
from flamespace.stats.matrix import NO_FILTER, FrequencyFilter, Sample, align


def test_rows_over_the_union_of_supports():
    runs = [fs.FlameGraph({("a",): 2, ("a", "b"): 3}), fs.FlameGraph({("a", "c"): 5}, unit="samples")]
    sample = Sample.from_graphs(runs)
    assert sample.stacks == (("a",), ("a", "b"), ("a", "c"))
    assert sample.matrix.tolist() == [[2, 3, 0], [0, 0, 5]]
    assert sample.unit == "samples"
    assert sample.graph(0) == runs[0]


def test_mixed_units_name_the_run():
    runs = [fs.FlameGraph({("a",): 1}, unit="ns"), fs.FlameGraph({("a",): 1}, unit="bytes")]
    with pytest.raises(UnitMismatchError, match="b.folded is in 'bytes'"):
        Sample.from_graphs(runs, names=["a.folded", "b.folded"])


def test_normalized_rows_are_shares():
    sample = Sample.from_graphs([fs.FlameGraph({("a",): 1, ("b",): 3}), fs.FlameGraph({("a",): 5})])
    shares = sample.normalized()
    assert shares.matrix.tolist() == [[0.25, 0.75], [1.0, 0.0]]
    assert shares.unit == "share"


def test_filter_counts_runs_of_both_groups_pooled():
    # 'rare' is in 2 candidate runs only: kept with min_runs=2 although absent from the baseline.
    base = Sample.from_graphs([fs.FlameGraph({("x",): 1})] * 4)
    cand = Sample.from_graphs([fs.FlameGraph({("x",): 1, ("rare",): 1})] * 2 + [fs.FlameGraph({("x",): 1, ("once",): 1})])
    stacks, x1, x2, dropped = align(base, cand, FrequencyFilter(min_runs=2, min_fraction=0))
    assert stacks == [("rare",), ("x",)] and dropped == 1
    assert x1.shape == (4, 2) and x2[:, 0].tolist() == [1, 1, 0]
    assert align(base, cand, FrequencyFilter(min_runs=0, min_fraction=0.5))[0] == [("x",)]
    assert len(align(base, cand, NO_FILTER)[0]) == 3


def test_threshold_is_the_stricter_rule():
    assert FrequencyFilter(2, 0.05).threshold(100) == 5
    assert FrequencyFilter(2, 0.05).threshold(10) == 2


def test_matrix_shape_is_checked():
    with pytest.raises(fs.ArgumentError, match="runs × 2 stacks"):
        Sample([("a",), ("b",)], np.zeros((3, 3)))
