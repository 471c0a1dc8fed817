"""Samples built from stack texts (RunRows, Sample.from_rows) against samples built from flame graphs."""

from __future__ import annotations

import numpy as np
import pytest

from flamespace.core.metadata import Metadata
from flamespace.core.stacks import StackTable
from flamespace.core.vector import FlameGraph, stack_texts
from flamespace.errors import InputError, UnitMismatchError
from flamespace.formats import folded, registry
from flamespace.stats.hotelling import test as hotelling
from flamespace.stats.matrix import FrequencyFilter, RunRows, Sample, TextStacks, align

#: Frames with characters below and above ';' and frames that begin one another: the cases
#: where sorting texts and sorting frame tuples could disagree (folded frames hold no ';').
FRAMES = ["a", "a b", "a!", "ab", "b", "é", "a:b", "z ", "0", "a\t"]


def random_runs(rng, runs: int, stacks: int = 30):
    universe = sorted({tuple(str(f) for f in rng.choice(FRAMES, size=rng.integers(1, 4))) for _ in range(stacks * 3)})
    out = []
    for _ in range(runs):
        chosen = rng.choice(len(universe), size=min(stacks, len(universe)), replace=False)
        out.append({universe[k]: int(rng.integers(1, 9)) for k in chosen})
    return out


@pytest.mark.parametrize("seed", range(5))
def test_from_rows_is_from_graphs(seed):
    rng = np.random.default_rng(seed)
    graphs = [FlameGraph(run, metadata=Metadata(unit="samples")) for run in random_runs(rng, 7)]
    rows = RunRows()
    indices = [rows.add({folded.format_stack(s): v for s, v in g.items()}) for g in graphs]
    for chosen in (indices, indices[2:5], indices[::-1]):
        want = Sample.from_graphs([graphs[i] for i in chosen])
        got = Sample.from_rows(rows, chosen, metadata=[graphs[i].metadata for i in chosen])
        assert got.stacks == want.stacks
        assert np.array_equal(got.matrix, want.matrix)
        assert got.unit == want.unit == "samples"


def test_text_order_is_frame_order():
    rng = np.random.default_rng(1)
    stacks = {tuple(str(f) for f in rng.choice(FRAMES, size=rng.integers(0, 4))) for _ in range(500)}
    texts = [";".join(s) for s in stacks]
    assert StackTable().sorted(texts) == [";".join(s) for s in sorted(stacks)]
    assert [StackTable().stack(t) for t in texts] == [s for s in stacks]


@pytest.mark.parametrize("seed", range(3))
def test_a_sample_of_graphs_kept_as_texts_is_the_sample_of_their_frames(seed):
    rng = np.random.default_rng(seed)
    runs = random_runs(rng, 6)
    graphs = [FlameGraph(run, metadata=Metadata(unit="samples")) for run in runs]
    stacks: dict = {}
    kept = [FlameGraph.from_texts(folded.texts(g), metadata=g.metadata, stacks=stacks) for g in graphs]
    got, want = Sample.from_graphs(kept, names=list("abcdef")), Sample.from_graphs(graphs, names=list("abcdef"))
    assert isinstance(got.stacks, TextStacks) and stacks == {}  # aligned by text: nothing split
    assert got.stacks == want.stacks and np.array_equal(got.matrix, want.matrix) and got.names == want.names
    assert got.unit == "samples" and stack_texts(got.graph(2)) is not None and got.graph(2) == want.graph(2)


def test_from_rows_refuses_mixed_units():
    rows = RunRows()
    first, second = rows.add({"a": 1}), rows.add({"a": 2})
    with pytest.raises(UnitMismatchError, match="r2 is in 'ms'"):
        Sample.from_rows(rows, [first, second], names=["r1", "r2"], metadata=[Metadata(unit="ns"), Metadata(unit="ms")])


def test_surely_varying_is_a_lower_bound_that_grows():
    rng = np.random.default_rng(3)
    base = [{f"s{j}": int(v) for j, v in enumerate(rng.poisson(5, 40)) if v} for _ in range(8)]
    cand = [{f"s{j}": int(v) for j, v in enumerate(rng.poisson(5, 40)) if v} for _ in range(8)]
    rows = RunRows()
    seen = []
    for a, b in zip(base, cand):
        rows.add(a, "baseline")
        rows.add(b, "candidate")
        seen.append(rows.surely_varying(0))
    assert seen == sorted(seen) and seen[0] <= seen[-1]
    keys, matrix = rows.matrix(list(range(16)))
    x1, x2 = matrix[0::2], matrix[1::2]
    pooled = (x1.var(axis=0, ddof=1) + x2.var(axis=0, ddof=1)) / 2
    assert seen[-1] == int((pooled > 0).sum())  # every run read: exact
    constant = RunRows()
    for _ in range(3):
        constant.add({"same": 4, "also": 1}, "baseline")
    assert constant.surely_varying(0) == 0
    assert rows.surely_varying(len(base) * 2 + 1) == 0  # no stack is in more runs than there are


def test_hotelling_and_the_early_check_give_one_message():
    with pytest.raises(Exception, match="there are 3;") as exact:
        hotelling(np.arange(6.0).reshape(2, 3) ** 2, np.arange(6.0).reshape(2, 3), 0.05)
    from flamespace.stats.hotelling import check_stacks

    with pytest.raises(Exception, match="there are at least 3;") as early:
        check_stacks(3, 4, at_least=True)
    assert str(exact.value).replace("at least ", "") == str(early.value).replace("at least ", "")


def test_texts_of_a_folded_run_are_its_stacks_joined(tmp_path):
    path = tmp_path / "run.folded"
    path.write_text("# unit: ns\na;b 3\na 2\na;b 1\n 5\nz;y 0\nc:d;e 7\n")
    read = registry.read_graph(str(path))
    values = folded.texts(read)
    graph = registry.read(str(path))
    assert values == {folded.format_stack(s): v for s, v in graph.items() if v}
    assert values == {"a;b": 4, "a": 2, "": 5, "c:d;e": 7}
    assert read.metadata == graph.metadata and read.unit == "ns"
    two = tmp_path / "two.folded"
    two.write_text("a;b 1 2\n")
    with pytest.raises(InputError, match="is differential input"):
        registry.read_graph(str(two))


def test_texts_of_other_formats_join_frames(tmp_path):
    path = tmp_path / "p.speedscope.json"
    path.write_text(
        '{"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": '
        '[{"name": "main"}, {"name": "work"}]}, "profiles": [{"type": "sampled", "name": "p", "unit": "none", '
        '"startValue": 0, "endValue": 3, "samples": [[0, 1], [0, 1], [0]], "weights": [1, 1, 1]}]}'
    )
    assert folded.texts(registry.read_graph(str(path))) == {"main;work": 2, "main": 1}


def test_align_of_row_samples_matches_graph_samples():
    rng = np.random.default_rng(9)
    runs = random_runs(rng, 10)
    graphs = [FlameGraph(r) for r in runs]
    rows = RunRows()
    for g in graphs:
        rows.add({folded.format_stack(s): v for s, v in g.items()})
    table = StackTable({})
    sides = [Sample.from_rows(rows, list(ix), table) for ix in (range(5), range(5, 10))]
    want = [Sample.from_graphs(graphs[:5]), Sample.from_graphs(graphs[5:])]
    got, expected = align(*sides, FrequencyFilter(2, 0)), align(*want, FrequencyFilter(2, 0))
    assert got[0] == expected[0] and all(np.array_equal(a, b) for a, b in zip(got[1:3], expected[1:3]))
