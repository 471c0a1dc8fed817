"""The folded reader on stack texts: the C core (_folded.c) against the Python loop, and the profile it
builds from its texts (split only when asked) against the one built from their frames."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flamespace import FlameGraph
from flamespace.core.vector import stack_texts
from flamespace.diagnostics import Diagnostics
from flamespace.errors import InputError
from flamespace.formats import folded, registry
from flamespace.formats._io import text_reader

from ..strategies import graphs

core = pytest.importorskip("flamespace.formats._folded")

# Pieces of lines that reach every branch of both loops: counts of every kind, whitespace the
# reader strips or keeps, every line break, headers, a BOM, undecodable and non-ASCII bytes.
PIECES = [
    b"a",
    b"b;c",
    b";",
    b" ",
    b"  ",
    b"\t",
    b"\r",
    b"\n",
    b"\r\n",
    b"\n",
    b"\n",
    b"#",
    b"# unit: ns",
    b"# host: x",
    b"1",
    b"0",
    b"12",
    b"007",
    b"1.5",
    b"3.",
    b".5",
    b".",
    b"-",
    b"-3",
    b"1e5",
    b"nan",
    b"inf",
    b"9" * 19,
    b"9" * 301,
    b"1" + b"0" * 300 + b".0",
    b"\xef\xbb\xbf",
    b"\xff",
    b"\xc3\xa9",
    b"\x0b",
    b"\x0c",
    b"\x1c",
    b"\xc2\xa0",
    b"\xc2\x85",
    b"\xe3\x80\x80",
    b"\x00",
    b"x y",
]
LINE = st.lists(st.sampled_from(PIECES), max_size=8).map(b"".join)
# mostly well-formed lines, so that the C core takes many and hands over some
GOOD = st.tuples(
    st.sampled_from([b"a;b", b"", b"x y;z", b"\xc3\xa9;\xff", b"main"]), st.sampled_from([b"1", b"25", b"0", b"2.5", b"3."])
).map(lambda pair: pair[0] + b" " + pair[1])
ENDS = st.sampled_from([b"\n", b"\n", b"\r\n", b"\r", b""])
INPUT = st.lists(st.tuples(st.one_of(GOOD, LINE), ENDS).map(b"".join), max_size=30).map(b"".join)


def _typed(counts: dict) -> list:
    """Items in dict order with the type and exact value of each (1 == 1.0 must not pass)."""
    return [(text, type(value).__name__, repr(value)) for text, value in counts.items()]


def _outcome(read, data: bytes, skip_invalid: bool) -> tuple:
    """What one reader makes of ``data``: sums, labels, diagnostics, or the error (message and line)."""
    counts: dict = {}
    labels: dict = {}
    diagnostics = Diagnostics()
    options = folded.ReadOptions(skip_invalid=skip_invalid)
    try:
        read(io.BytesIO(data), counts, labels, options, diagnostics)
    except InputError as error:
        return ("error", str(error), error.line)
    return (_typed(counts), labels, diagnostics.skipped, diagnostics.examples)


def _python(stream, counts, labels, options, diagnostics) -> None:
    text = text_reader(stream)
    folded._sum_lines(text, 1, counts, labels, options, "in.folded", diagnostics)


def _c(chunk: int):
    def read(stream, counts, labels, options, diagnostics) -> None:
        folded._sum_binary(stream, core.sum_lines, counts, labels, options, "in.folded", diagnostics, chunk)

    return read


@settings(max_examples=400, deadline=None)
@given(INPUT, st.sampled_from([1, 2, 3, 5, 16, 1 << 20]), st.booleans())
def test_c_core_and_python_loop_agree_on_sums_headers_diagnostics_and_errors(data, chunk, skip_invalid):
    assert _outcome(_c(chunk), data, skip_invalid) == _outcome(_python, data, skip_invalid)


@settings(max_examples=200, deadline=None)
@given(INPUT.map(lambda data: b"\xef\xbb\xbf" + data if data[:1] == b"a" else data))
def test_read_keeps_the_texts_it_read_and_is_the_profile_of_their_frames(data):
    options = folded.ReadOptions(skip_invalid=True)
    try:
        counts, metadata = folded._read_counts(io.BytesIO(data), options, "in", None)
    except InputError:
        return
    profile = registry.read(io.BytesIO(data), "folded", skip_invalid=True)
    if isinstance(profile, folded.Differential):
        with pytest.raises(folded.DifferentialInput) as raised:
            registry.read_graph(io.BytesIO(data), "folded", skip_invalid=True)
        assert raised.value.profile == profile
        return
    kept = {text: value for text, value in counts.items() if value}
    assert stack_texts(profile) == kept and _typed(stack_texts(profile)) == _typed(kept)  # nothing split yet
    eager = FlameGraph(((tuple(text.split(";")) if text else (), value) for text, value in kept.items()), metadata=metadata)
    assert profile == eager and profile.metadata == eager.metadata and stack_texts(profile) is None  # split when asked
    assert [(stack, repr(value)) for stack, value in profile.items()] == [(stack, repr(value)) for stack, value in eager.items()]


def test_the_c_core_hands_over_every_line_it_does_not_take_whole():
    counts: dict = {}
    data = b"first 1\na;b 2\n# unit: ns\nc\r3\nd 1e5\ne 4"
    # the first line always goes to Python (a BOM); then "a;b 2" is taken; the header stops it
    assert core.sum_lines(data, 0, counts, 1, False) == (0, 1, 1, 0, 0)
    assert core.sum_lines(data, 8, counts, 2, False) == (14, 3, 1, 1, 1) and counts == {"a;b": 2}
    assert core.sum_lines(data, 25, counts, 4, False) == (25, 4, 1, 0, 0)  # a lone '\r' breaks the line in two
    assert core.sum_lines(data, 29, counts, 6, False) == (29, 6, 1, 0, 0)  # a count Python must judge
    assert core.sum_lines(data, 35, counts, 7, False) == (35, 7, 0, 0, 0)  # no line break: more input may follow
    assert core.sum_lines(data, 35, counts, 7, True) == (38, 8, 0, 1, 1) and counts == {"a;b": 2, "e": 4}


def test_the_c_core_counts_the_stacks_that_cannot_end_in_a_count():
    # (stack, whether it is plain: no count can end it)
    cases = [("a;b", True), ("", True), ("a 1", False), ("a\t2.", False), ("x;y 12", False), ("a1", True), ("a 1 ", True)]
    for stack, plain in cases:
        counts: dict = {}
        result = core.sum_lines(f"first 1\n{stack} 5\n".encode(), 8, counts, 2, True)
        assert result == (len(stack) + 11, 3, 0, 1, int(plain)), stack


def test_ints_only_leaves_decimal_counts_to_python():
    counts: dict = {}
    assert core.sum_lines(b"x\na 2\nb 2.5\n", 2, counts, 2, True, True) == (6, 3, 1, 1, 1) and counts == {"a": 2}
    assert core.sum_lines(b"x\na 2\nb 2.5\n", 2, counts, 2, True) == (12, 4, 0, 2, 2) and counts == {"a": 4, "b": 2.5}


def test_lines_split_by_chunks_and_lone_carriage_returns_are_numbered_as_text_is():
    data = b"a 1\rb x\r\nc 2\n"
    for chunk in (1, 2, 4, 1 << 20):
        with pytest.raises(InputError) as raised:
            folded._sum_binary(io.BytesIO(data), core.sum_lines, {}, {}, folded.ReadOptions(), "f", None, chunk)
        assert (raised.value.line, raised.value.message) == (2, folded._invalid_reason("b x", 1, "x"))


def test_read_keeps_headers_bom_crlf_and_drops_zeros(tmp_path):
    path = tmp_path / "in.folded"
    path.write_bytes(b"\xef\xbb\xbf# unit: ns\r\n# host: h\r\na;b 1\r\nc 0\r\na;b 2.5\r\n 4\r\n")
    profile = registry.read(path)
    assert _typed(stack_texts(profile)) == [("a;b", "float", "3.5"), ("", "int", "4")]
    assert (profile.unit, dict(profile.labels)) == ("ns", {"host": "h"})


def test_read_names_the_file_and_line_of_a_bad_count(tmp_path):
    path = tmp_path / "in.folded"
    path.write_bytes(b"a 1\nb 2\nc -3\n")
    with pytest.raises(InputError, match=r"in\.folded:3: count -3 is negative"):
        registry.read(path)
    diagnostics = Diagnostics()
    assert stack_texts(registry.read(path, skip_invalid=True, diagnostics=diagnostics)) == {"a": 1, "b": 2}
    assert diagnostics.skipped == 1 and diagnostics.examples[0][1] == 3


def test_texts_of_other_formats_join_frames_as_the_folded_writer(tmp_path):
    path = tmp_path / "p.speedscope.json"
    registry.write(folded.loads("a;b 2\nc 1\n"), path, "speedscope")
    graph = registry.read_graph(path)
    assert stack_texts(graph) is None and folded.texts(graph) == {"a;b": 2, "c": 1}


@settings(max_examples=200, deadline=None)
@given(INPUT, st.booleans())
def test_parse_reads_bytes_as_it_reads_text(data, skip_invalid):
    def outcome(stream) -> tuple:
        try:
            profile = folded.parse(stream, folded.ReadOptions(skip_invalid=skip_invalid))
        except InputError as error:
            return ("error", str(error))
        return (type(profile).__name__, folded.dumps(profile))

    assert outcome(io.BytesIO(data)) == outcome(text_reader(io.BytesIO(data)))


@settings(max_examples=200, deadline=None)
@given(st.lists(INPUT, min_size=1, max_size=4), st.booleans())
def test_read_sum_is_the_sum_of_read_graph(tmp_path_factory, inputs, skip_invalid):
    """One dict update per line (add_ints) or run by run after a restart: the same values, metadata, errors and reports."""
    from flamespace.core.algebra import sum_graphs

    directory = tmp_path_factory.mktemp("runs")
    paths = []
    for index, data in enumerate(inputs):
        path = directory / f"run{index}.folded"
        path.write_bytes(data)
        paths.append(str(path))

    def outcome(function) -> tuple:
        reports: list = []
        try:
            graph = function(reports.append)
        except ValueError as error:  # InputError, DifferentialInput, UnitMismatchError
            return ("error", type(error).__name__, str(error), [d.examples for d in reports])
        return (sorted(_typed(folded.texts(graph))), graph.metadata, [(d.skipped, d.examples) for d in reports])

    def by_runs(report) -> FlameGraph:
        def graphs():
            for path in paths:
                diagnostics = Diagnostics()
                try:
                    graph = registry.read_graph(path, skip_invalid=skip_invalid, diagnostics=diagnostics)
                except folded.DifferentialInput:
                    report(diagnostics)
                    raise
                report(diagnostics)
                yield graph

        return sum_graphs(graphs())

    fast = outcome(lambda report: registry.read_sum(paths, skip_invalid=skip_invalid, report=report))
    assert fast == outcome(by_runs)


def _sample_rows(runs: list, skip_invalid: bool, columns: bool) -> tuple:
    """What a sample makes of ``runs``: RunRows from the texts of parse (``columns`` False) or from
    ColumnReader falling back to parse on Inexact; each run's outcome and the rows."""
    from flamespace.stats.matrix import RunRows

    rows = RunRows()
    reader = folded.ColumnReader(rows.index) if columns else None
    outcomes = []
    for data in runs:
        diagnostics = Diagnostics()
        options = folded.ReadOptions(skip_invalid=skip_invalid)
        try:
            try:
                if reader is None:
                    raise folded.Inexact("in.folded")
                found, numbers, metadata = reader.read(io.BytesIO(data), options, source="in.folded", diagnostics=diagnostics)
                rows.add_columns(found, numbers, "side")
                typed = [(type(value).__name__, repr(value)) for value in numbers]
            except folded.Inexact:
                diagnostics = Diagnostics()
                profile = folded.parse(io.BytesIO(data), options, source="in.folded", diagnostics=diagnostics)
                if isinstance(profile, folded.Differential):
                    raise folded.DifferentialInput("in.folded", profile)
                values, metadata = stack_texts(profile), profile.metadata
                rows.add(values, "side")
                typed = [(type(value).__name__, repr(value)) for value in values.values()]
        except InputError as error:
            outcomes.append(("error", type(error).__name__, str(error), error.line))
            continue
        outcomes.append((typed, metadata, diagnostics.skipped, diagnostics.examples))
    matrix = [(list(found), list(row)) for found, row in rows._rows]
    return outcomes, list(rows.index.items()), matrix, rows.surely_varying(0)


# runs that share stacks, with ints past 2**63 and sums that overflow, so the C table's
# reuse across runs and every fallback are reached
BIG = st.sampled_from([b"a;b 9223372036854775807\n", b"a;b 999999999999999999\n", b"main 1\n", b"a;b 2 3\n"])
RUN = st.lists(st.one_of(INPUT, BIG), max_size=4).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(RUN, min_size=1, max_size=4), st.booleans())
def test_column_reader_gives_the_rows_values_metadata_and_errors_of_parse(runs, skip_invalid):
    assert _sample_rows(runs, skip_invalid, True) == _sample_rows(runs, skip_invalid, False)


def test_column_reader_keeps_one_column_per_stack_across_runs_and_sums_within_a_run():
    from flamespace.stats.matrix import RunRows

    rows = RunRows()
    reader = folded.ColumnReader(rows.index)
    reader.read(io.BytesIO(b"# unit: ns\nx;y 1\nx;y 2\n"))
    found, numbers, _ = reader.read(io.BytesIO(b"\n" + b"x;y 4\n" * 3))
    import numpy as np

    assert rows.index == {"x;y": 0} and list(np.frombuffer(found, dtype=np.intp)) == [0] and numbers == [12]


@given(graphs(), graphs())
def test_a_profile_kept_as_texts_writes_as_the_profile_of_its_frames(before, after):
    def kept(graph: FlameGraph) -> FlameGraph:
        return FlameGraph.from_texts({";".join(stack): value for stack, value in graph.items()}, metadata=graph.metadata)

    assert folded.dumps(kept(after)) == folded.dumps(after)
    difference = folded.Differential(kept(before), kept(after))
    assert folded.dumps(difference) == folded.dumps(folded.Differential(before, after))
    assert folded.dumps(difference.normalized()) == folded.dumps(folded.Differential(before, after).normalized())


def test_a_text_with_a_line_break_is_written_as_its_frames_are():
    text = FlameGraph.from_texts({"a\nb;c": 1, "d\r": 2})
    assert folded.dumps(text) == folded.dumps(FlameGraph({("a\nb", "c"): 1, ("d\r",): 2})) == "a b;c 1\nd  2\n"


def test_a_carriage_return_inside_a_line_of_text_input_is_written_as_frames_are():
    """A text stream split at '\\n' only (StringIO) can leave a '\\r' inside a stack: such texts are checked, not trusted."""
    assert folded.dumps(folded.loads("a\rb;c 1\n")) == folded.dumps(FlameGraph({("a\rb", "c"): 1})) == "a b;c 1\n"
