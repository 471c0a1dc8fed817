"""pprof's C decoder (_pprof.c) against its pure-Python twin (_pprof_wire.py): on any bytes the same
tables and samples, or the same WireError (message and offset); and the reader's C loop over samples
gives the profile, or the error, the pure-Python loop gives. Derandomized hypothesis runs."""

from __future__ import annotations

import gzip

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flamespace.core.metadata import Metadata
from flamespace.core.vector import FlameGraph
from flamespace.diagnostics import Diagnostics
from flamespace.errors import FlamespaceError
from flamespace.formats import _pprof_wire, folded, pprof
from flamespace.formats._protobuf import WireError, encode_bytes, encode_int, encode_packed

_pprof = pytest.importorskip("flamespace.formats._pprof")

FUZZ = settings(max_examples=400, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _labelled() -> bytes:
    """A profile whose samples carry string and numeric labels (with a unit), two sample types, and a
    frame with ';' (which stack texts cannot hold)."""
    strings = [
        "",
        "cpu",
        "nanoseconds",
        "samples",
        "count",
        "main",
        "a.py",
        "work",
        "endpoint",
        "/checkout",
        "size",
        "bytes",
        "h; x",
    ]
    out = bytearray()
    for kind, unit in ((3, 4), (1, 2)):
        pair = bytearray()
        encode_int(1, kind, pair)
        encode_int(2, unit, pair)
        encode_bytes(1, bytes(pair), out)
    samples = [
        ([2, 1], [1, 10], [(8, 9, 0, 0)]),
        ([2, 1], [2, 20], []),
        ([3, 1], [1, 5], [(10, 0, 1024, 11), (8, 9, 0, 0)]),
        ([1], [0, 0], []),
    ]
    for ids, values, labels in samples:
        sample = bytearray()
        encode_packed(1, ids, sample)
        encode_packed(2, values, sample)
        for key, text, number, unit in labels:
            label = bytearray()
            encode_int(1, key, label)
            encode_int(2, text, label)
            encode_int(3, number, label)
            encode_int(4, unit, label)
            encode_bytes(3, bytes(label), sample)
        encode_bytes(2, bytes(sample), out)
    for location_id, function_id in ((1, 1), (2, 2), (3, 3)):
        line = bytearray()
        encode_int(1, function_id, line)
        encode_int(2, 7 * location_id, line)
        location = bytearray()
        encode_int(1, location_id, location)
        encode_bytes(4, bytes(line), location)
        encode_bytes(4, bytes(location), out)
    for function_id, name in ((1, 5), (2, 7), (3, 12)):
        function = bytearray()
        encode_int(1, function_id, function)
        encode_int(2, name, function)
        encode_int(4, 6, function)
        encode_bytes(5, bytes(function), out)
    for text in strings:
        encode_bytes(6, text.encode(), out)
    encode_int(9, 1_793_527_200 * 10**9, out)
    encode_int(10, 10 * 10**9, out)
    return bytes(out)


GRAPH = FlameGraph.from_texts(
    {"main (a.py:1);work (a.py:2)": 30, "main (a.py:1)": 10, "main (a.py:1);f (b.py:3);g (b.py:9)": 5},
    metadata=Metadata(unit="ns", metric="cpu"),
)
SEEDS = [pprof.encode(GRAPH, time_ns=1, duration_ns=10), _labelled()]


@st.composite
def mangled(draw: st.DrawFn) -> bytes:
    """A seed truncated, with bytes flipped or inserted, or random bytes."""
    kind = draw(st.sampled_from(["flip", "cut", "insert", "random"]))
    if kind == "random":
        return draw(st.binary(max_size=200))
    data = bytearray(draw(st.sampled_from(SEEDS)))
    if kind == "cut":
        return bytes(data[: draw(st.integers(0, len(data)))])
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data) - 1))
        if kind == "flip":
            data[at] = draw(st.integers(0, 255))
        else:
            data[at:at] = draw(st.binary(min_size=1, max_size=11))
    return bytes(data)


def _outcome(function, *args):
    try:
        return "ok", function(*args)
    except WireError as exc:
        return "error", str(exc), exc.offset


def _rows(outcome):
    """Samples' rows as plain lists (C gives tuples where Python builds lists)."""
    if outcome[0] != "ok":
        return outcome
    rows, failure = outcome[1]
    return "ok", [(tuple(ids), list(values), [tuple(label) for label in labels]) for ids, values, labels in rows], failure


@FUZZ
@given(mangled())
def test_the_c_decoder_gives_what_the_python_decoder_gives(data):
    python, c = _outcome(_pprof_wire.decode, data), _outcome(_pprof.decode, data)
    assert c == python
    if python[0] == "ok":
        where = python[1][1]
        assert _rows(_outcome(_pprof.samples, data, where)) == _rows(_outcome(_pprof_wire.samples, data, where))


def _read(data: bytes, split: bool) -> tuple:
    """What the reader makes of ``data``: each part's labels and folded text, the notes; or the error."""
    notes = Diagnostics()
    try:
        read = pprof.read_labelled(data, pprof.ReadOptions(skip_invalid=True), source="x", diagnostics=notes, split=split)
    except FlamespaceError as exc:
        return ("error", str(exc))
    parts = sorted((sorted(labels.items()), sorted(folded.texts(graph).items()), graph.metadata) for labels, graph in read.parts)
    return ("ok", parts, read.time_ns, read.duration_ns, notes.examples, notes.warnings)


@FUZZ
@given(data=mangled(), split=st.booleans())
def test_the_readers_c_loop_reads_what_the_python_loop_reads(data, split):
    with pytest.MonkeyPatch.context() as patch:
        fast = _read(data, split)
        patch.setattr(pprof, "fast_decode", _pprof_wire.decode)
        patch.setattr(pprof, "fast_samples", _pprof_wire.samples)
        patch.setattr(pprof, "fast_sum", None)
        slow = _read(data, split)
    assert fast == slow


def test_the_seeds_read_alike_and_hold_labels():
    """The fuzz seeds themselves: the labelled one splits into its three label sets (a string label,
    none, a numeric one with its unit and the string one), the ';' frame kept whole."""
    status, parts, time_ns, duration_ns, _, _ = _read(_labelled(), split=True)
    assert status == "ok" and (time_ns, duration_ns) == (1_793_527_200 * 10**9, 10 * 10**9)
    assert [(labels, stacks) for labels, stacks, _ in parts] == [
        ([], [("main (a.py:7);work (a.py:14)", 20)]),
        ([("endpoint", "/checkout")], [("main (a.py:7);work (a.py:14)", 10)]),
        ([("endpoint", "/checkout"), ("size", "1024 bytes")], [("main (a.py:7);h: x (a.py:21)", 5)]),
    ]
    assert pprof.read_labelled(_labelled()).parts[2][1] == FlameGraph({("main (a.py:7)", "h; x (a.py:21)"): 5})


def test_gzip_of_a_seed_is_no_profile_to_the_wire_decoder():
    """The wire decoder takes ungzipped bytes: gzip's magic is a wire error, the same from both."""
    data = gzip.compress(SEEDS[0])
    assert _outcome(_pprof.decode, data) == _outcome(_pprof_wire.decode, data)
    assert _outcome(_pprof.decode, data)[0] == "error"
