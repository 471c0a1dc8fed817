"""ChartSample (a named tuple written out: collections costs start-up time) is what namedtuple made."""

from __future__ import annotations

import collections
import copy
import pickle

import pytest

from flamespace.core.chart import ChartSample, FlameChart

Reference = collections.namedtuple("ChartSample", ["timestamp", "thread", "stack", "weight"])


def test_behaves_as_the_named_tuple():
    ours, theirs = ChartSample(5, "main", ("a", "b"), 2.5), Reference(5, "main", ("a", "b"), 2.5)
    assert ours == theirs and hash(ours) == hash(theirs) and tuple(ours) == tuple(theirs)
    assert repr(ours) == repr(theirs) and ours._fields == theirs._fields and ours._asdict() == theirs._asdict()
    assert [ours.timestamp, ours.thread, ours.stack, ours.weight] == list(theirs)
    assert ours._replace(weight=1) == theirs._replace(weight=1) and type(ours._replace(weight=1)) is ChartSample
    with pytest.raises(ValueError):
        ours._replace(colour=1)
    for clone in (pickle.loads(pickle.dumps(ours)), copy.copy(ours), copy.deepcopy(ours)):
        assert clone == ours and type(clone) is ChartSample
    assert ChartSample(timestamp=1, thread="t", stack=(), weight=0) == (1, "t", (), 0)
    with pytest.raises(AttributeError):
        ours.timestamp = 3  # type: ignore[misc]


def test_a_chart_yields_them():
    chart = FlameChart()
    chart.append(3, "main", ("a",), 2)
    chart.append(7, "worker", ("a", "b"), 1)
    samples = list(chart.samples())
    assert samples == [(3, "main", ("a",), 2), (7, "worker", ("a", "b"), 1)]
    assert all(type(s) is ChartSample for s in samples) and samples[1].thread == "worker"
    assert chart.merged(chart.relabelled(shift=1)).graph() == chart.graph() * 2
