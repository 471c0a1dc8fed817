"""Samples that keep their stacks as texts (TextStacks): the same comparison as samples of frame
tuples, with frames split only for the stacks a report shows."""

from __future__ import annotations

import copy
import pickle
import statistics

import numpy as np
import pytest

from flamespace.core.metadata import Metadata
from flamespace.core.stacks import StackTable
from flamespace.core.vector import FlameGraph
from flamespace.formats import folded
from flamespace.stats import _tails, report
from flamespace.stats.comparison import compare
from flamespace.stats.matrix import FrequencyFilter, RunRows, Sample, TextStacks, align

#: Frames that sort differently as texts and as tuples unless the order key is right (see test_run_rows.py).
FRAMES = ["a", "a b", "a!", "ab", "b", "é", "a:b", "z ", "0", "a\t"]


def runs(rng, count: int, shift: float = 0.0):
    """Runs over stacks of FRAMES: counts of 1-3 (many ties in means and p-values), a few
    stacks grown by ``shift`` so that some changes are significant."""
    universe = sorted({tuple(str(f) for f in rng.choice(FRAMES, size=rng.integers(1, 4))) for _ in range(90)})
    out = []
    for _ in range(count):
        run = {s: int(rng.integers(1, 4)) for s in universe if rng.random() < 0.7}
        for s in universe[:4]:
            run[s] = run.get(s, 0) + shift
        out.append(run)
    return out


def text_samples(base, cand, table=None):
    rows = RunRows()
    graphs = [FlameGraph(r, metadata=Metadata(unit="samples")) for r in base + cand]
    indices = [rows.add({folded.format_stack(s): v for s, v in g.items()}) for g in graphs]
    meta = [g.metadata for g in graphs]
    table = table or StackTable({})
    first = Sample.from_rows(rows, indices[: len(base)], table, metadata=meta[: len(base)])
    second = Sample.from_rows(rows, indices[len(base) :], table, metadata=meta[len(base) :])
    return first, second, graphs


@pytest.mark.parametrize("seed", range(4))
def test_texts_compare_as_tuples(seed):
    rng = np.random.default_rng(seed)
    base, cand = runs(rng, 6), runs(np.random.default_rng(seed + 100), 6, shift=9)
    first, second, graphs = text_samples(base, cand)
    assert isinstance(first.stacks, TextStacks)
    tuples = Sample.from_graphs(graphs[:6]), Sample.from_graphs(graphs[6:])
    assert first.stacks == tuples[0].stacks and list(second.stacks) == list(tuples[1].stacks)
    for frequency in (FrequencyFilter(), FrequencyFilter(4, 0.5)):
        got, want = align(first, second, frequency), align(*tuples, frequency)
        assert isinstance(got[0], TextStacks) and list(got[0]) == want[0]
        assert all(np.array_equal(g, w) for g, w in zip(got[1:3], want[1:3])) and got[3] == want[3]
    for options in ({}, {"method": "welch", "alternative": "two-sided"}, {"fdr": "bh", "permutations": 200}):
        a, b = compare(first, second, **options), compare(*tuples, **options)
        assert a.changes == b.changes and (a.kept or options)
        for include_all, limit in ((False, None), (True, None), (True, 7), (True, 1)):
            assert report.text(a, include_all, limit) == report.text(b, include_all, limit)
        assert report.to_json(a) == report.to_json(b)
        assert report.markdown(a, True, 5) == report.markdown(b, True, 5)


def test_only_shown_stacks_are_split():
    rng = np.random.default_rng(7)
    table = StackTable({})  # keeps every split: its size is the number of stacks split
    first, second, _ = text_samples(runs(rng, 8), runs(rng, 8, shift=9), table)
    result = compare(first, second)
    report.text(result)
    assert 0 < len(table.stacks) < result.tested / 2  # the reported rows and ties at a cut, not every stack


def test_a_change_kept_as_text_copies_and_pickles_with_its_frames():
    rng = np.random.default_rng(2)
    first, second, _ = text_samples(runs(rng, 5), runs(rng, 5, shift=9))
    change = compare(first, second).changes[3]
    for other in (pickle.loads(pickle.dumps(change)), copy.copy(change), copy.deepcopy(change)):
        assert other == change and other.stack == change.stack and type(change.stack) is tuple
    assert hash(change) == hash(copy.copy(change))
    with pytest.raises(AttributeError):
        change.missing  # noqa: B018


def test_first_by_key_breaks_ties_by_stack():
    rng = np.random.default_rng(5)
    first, second, _ = text_samples(runs(rng, 6), runs(rng, 6))
    changes = compare(first, second).changes
    key = lambda c: round(c.baseline)  # noqa: E731  (many ties)
    for count in (0, 1, 3, 10, len(changes), len(changes) + 2):
        assert report._first(changes, key, count) == sorted(changes, key=lambda c: (key(c), c.stack))[:count]


def test_normal_quantile_is_the_standard_librarys():
    rng = np.random.default_rng(0)
    for p in [0.8, 0.5, 1e-300, 1 - 1e-16, 0.975, *rng.random(200).tolist()]:
        assert _tails.normal_ppf(p) == statistics.NormalDist().inv_cdf(p)
    for p in (0.0, 1.0):
        with pytest.raises(statistics.StatisticsError):
            _tails.normal_ppf(p)
