"""Sniffing and edge cases common to the stack collapsers: each claims its own input and no
folded, perf script or speedscope file; empty input is an empty profile with a warning."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import flamespace as fs
from flamespace.diagnostics import Diagnostics
from flamespace.formats import folded, recognition, registry

from ..conftest import PEER_FIXTURES
from .test_collapse_fuzz import FORMATS
from .test_fuzz import CHART, DIFFERENTIAL, GRAPH, _written


def _others() -> list[bytes]:
    """Inputs no collapser may claim: folded (with comments, backticks, hex, blank lines), perf script, speedscope."""
    heads = [
        _written(GRAPH, "folded"),
        _written(DIFFERENTIAL, "folded"),
        _written(CHART, "speedscope"),
        b"# unit: ns\nlibc.so.1`_write;a.out`main 12\n\na.out`main 3\n0x7f00;0x7f01 2\n",
        b"header\nheader2\n\nmain;f 10\n",
    ]
    if PEER_FIXTURES.is_dir():
        heads += [
            path.read_bytes()[: recognition.SNIFF_BYTES] for path in sorted(PEER_FIXTURES.glob("flamegraph-perf/input/*.txt"))
        ]
        heads += [
            path.read_bytes()[: recognition.SNIFF_BYTES] for path in sorted(PEER_FIXTURES.glob("collapse/perf/input/*.txt"))
        ]
        heads += [
            path.read_bytes()[: recognition.SNIFF_BYTES]
            for path in sorted(PEER_FIXTURES.glob("flamegraph-examples/*-collapsed*.txt"))
        ]
    return heads


@pytest.mark.parametrize("format", FORMATS)
def test_no_collapser_claims_folded_perf_or_speedscope_input(format: str) -> None:
    sniff = registry.by_name(format).sniff
    for head in _others():
        assert not sniff(head), head[:200]


def test_folded_and_perf_inputs_are_still_detected_as_before() -> None:
    """None goes to a collapser: each is folded, perf or speedscope, or (the two-line header of
    the hand-made case, which is no format) refused with the formats tried."""
    for head in _others():
        try:
            name = registry.detect(head).name
        except fs.InputError as error:
            assert "Tried:" in str(error) and head.startswith(b"header"), head[:200]
        else:
            assert name in ("folded", "speedscope", "perf", "perf-sched"), (name, head[:200])


@pytest.mark.parametrize("format", FORMATS)
@pytest.mark.parametrize("content", [b"", b"\n\n", b"   \n"], ids=["empty", "blank-lines", "spaces"])
def test_empty_input_is_an_empty_profile_with_a_warning(format: str, content: bytes) -> None:
    diagnostics = Diagnostics()
    graph = registry.read(io.BytesIO(content), format, diagnostics=diagnostics)
    assert graph.total() == 0 and diagnostics.skipped == 0
    assert len(diagnostics.warnings) == 1 and "no stacks found" in diagnostics.warnings[0]


def test_dtrace_stack_without_a_count_at_the_end_is_refused_with_its_line() -> None:
    data = b"CPU ID FUNCTION:NAME\n 0 1 :tick\n\n  a.out`f+0x1\n  a.out`main+0x2\n  7\n\n  a.out`g+0x1\n  a.out`main+0x2\n"
    with pytest.raises(fs.InputError, match=r"<stream>:8: the stack starting here has no count"):
        fs.read(io.BytesIO(data), "dtrace")
    diagnostics = Diagnostics()
    graph = fs.read(io.BytesIO(data), "dtrace", skip_invalid=True, diagnostics=diagnostics)
    assert dict(graph.items()) == {("a.out`main", "a.out`f"): 7} and diagnostics.skipped == 1


def test_dtrace_frames_are_named_as_stackcollapse_pl_names_them() -> None:
    data = (
        b"h\nh\nh\n"
        b"  a.out`ns::C<int>::m(int)+0x1\n"  # C++: argument list and template dropped after the last ( or <
        b"  Lcom/a/B;->c->\n"  # Java: one leading L, ';' -> ':', inlined frames, trailing empty part dropped
        b"  +0x10\n"  # nothing left: '-'
        b"  3\n"
    )
    graph = fs.read(io.BytesIO(data), "dtrace")
    assert list(graph) == [("-", "com/a/B:", "c_[i]", "a.out`ns::C<int>::m")]


def test_vtune_rows_that_repeat_a_stack_are_summed() -> None:
    data = b"Function Stack,CPU Time:Self,Module\nmain,0.0,app\n f,0.0015,app\n f,0.0025,app\n"
    assert dict(fs.read(io.BytesIO(data), "vtune").items()) == {("app`main", "app`f"): 5}
    assert fs.read(io.BytesIO(data), "vtune").metadata.unit == "ms"


def test_ghcprof_reads_the_column_source_names() -> None:
    from .test_collapse_fuzz import SMALL

    read = registry.by_name("ghcprof").parse
    options = registry.by_name("ghcprof").ReadOptions
    for source, values in [("time", (100, 605, 295)), ("ticks", (5, 12, 4)), ("bytes", (728, 1024, 2048))]:
        graph = read(io.StringIO(SMALL["ghcprof"]), options(source=source))
        assert dict(graph.items()) == dict(
            zip([("MAIN.MAIN",), ("MAIN.MAIN", "Main.main"), ("MAIN.MAIN", "Main.main", "Main.go")], values)
        )


def test_ghcprof_source_must_be_known_and_present() -> None:
    data = b"COST CENTRE MODULE SRC no. entries %time %alloc %time %alloc\n\nMAIN        MAIN   <b> 1 0   1.0 1.0 1.0 1.0\n"
    with pytest.raises(fs.ArgumentError, match="ghcprof source must be one of time, ticks, bytes"):
        registry.by_name("ghcprof").parse(
            io.TextIOWrapper(io.BytesIO(data)), registry.by_name("ghcprof").ReadOptions(source="alloc")
        )
    with pytest.raises(fs.InputError, match=r":1: this profile has no 'ticks' column"):
        registry.by_name("ghcprof").parse(
            io.TextIOWrapper(io.BytesIO(data)), registry.by_name("ghcprof").ReadOptions(source="ticks")
        )


def test_sample_children_counting_more_than_their_parent_is_refused() -> None:
    data = b"Call graph:\n    2 main  (in a) + 1  [0x1]\n    + 3 f  (in a) + 1  [0x2]\nTotal number in stack\n"
    with pytest.raises(
        fs.InputError, match=r":2: the counts of the frames this one calls add up to more than its own count \(1 more\)"
    ):
        fs.read(io.BytesIO(data), "sample")


def test_counts_beyond_the_range_of_a_flame_graph_are_refused() -> None:
    data = b"h\nh\nh\n  a.out`main\n  " + b"9" * 400 + b"\n"
    with pytest.raises(fs.InputError, match=r":5: count .* is out of range"):
        fs.read(io.BytesIO(data), "dtrace")


def test_collapsed_profiles_write_as_folded_that_reads_back(tmp_path: Path) -> None:
    data = b"h\nh\nh\n  a.out`f;x+0x1\n  a.out`main+0x2\n  7\n"
    graph = fs.read(io.BytesIO(data), "dtrace")
    assert folded.loads(folded.dumps(graph)) == graph


XCTRACE = (Path(__file__).parent.parent / "data" / "collapse" / "xctrace" / "small.xml").read_text()


@pytest.mark.parametrize(
    "change, message",
    [
        (('<backtrace ref="15"/>', '<backtrace ref="99"/>'), r":6: backtrace ref='99' points to no backtrace given before it"),
        (
            (
                '<frame ref="13"/></backtrace></row>\n<row><weight ref="1"/><backtrace ref="15"/>',
                '<frame ref="12"/></backtrace></row>\n<row><weight ref="1"/><backtrace ref="15"/>',
            ),
            r":5: frame ref='12' points to no frame given before it",
        ),
        (('<backtrace id="39">', '<backtrace id="20">'), r":9: backtrace id='20' is given twice"),
        (
            ("</node>\n</trace-query-result>\n", "</node>\n"),
            r":12: not a well-formed xctrace XML export: no element found \(column 0\)",
        ),
        (("<trace-query-result>", "<other>"), r":12: not a well-formed xctrace XML export: mismatched tag \(column 2\)"),
        (("<row>", "<row"), r":4: not a well-formed xctrace XML export: not well-formed \(invalid token\)"),
    ],
    ids=["backtrace-ref", "frame-ref", "repeated-id", "truncated", "mismatched", "malformed"],
)
def test_xctrace_errors_name_the_line(change: tuple, message: str) -> None:
    data = XCTRACE.replace(*change, 1).encode()
    with pytest.raises(fs.InputError, match=message):
        fs.read(io.BytesIO(data), "xctrace")


def test_an_xml_document_without_the_export_is_refused() -> None:
    with pytest.raises(fs.InputError, match=r":3: the input ends before </trace-query-result>: expected an xctrace XML export"):
        fs.read(io.BytesIO(b'<?xml version="1.0"?>\n<other><row/></other>\n'), "xctrace")


def test_rust_symbols_left_half_demangled_are_finished() -> None:
    from flamespace.formats.xctrace import finish_rust_symbol

    assert finish_rust_symbol("_$LT$std..fs..ReadDir$u20$as$u20$core..iter..Iterator$GT$::next::hc14f1750ca79129b") == (
        "<std::fs::ReadDir as core::iter::Iterator>::next"
    )
    assert finish_rust_symbol("rg::run::_$u7b$$u7b$closure$u7d$$u7d$::h6e849b55a66fcd85") == "rg::run::_{{closure}}"
    assert finish_rust_symbol("a::b$XX$c::h6e849b55a66fcd85") == "a::b$XX$c"  # an unknown escape: the rest as it is
    for unchanged in ("_ZN3std5panic12catch_unwind17h0562757d03ff60b3E", "<F as alloc::boxed::FnBox<A>>::call_box", "h1", ""):
        assert finish_rust_symbol(unchanged) == unchanged


def test_skipping_a_malformed_row_of_a_tree_skips_the_rows_under_it() -> None:
    data = b"Function Stack,CPU Time:Self,Module\nmain,0.0,app\n bad row\n  child,0.5,app\n   grandchild,0.5,app\n g,0.25,app\n"
    with pytest.raises(fs.InputError, match=r":3: expected 'function,CPU seconds,module', found 'bad row'"):
        fs.read(io.BytesIO(data), "vtune")
    diagnostics = Diagnostics()
    graph = fs.read(io.BytesIO(data), "vtune", skip_invalid=True, diagnostics=diagnostics)
    assert dict(graph.items()) == {("app`main", "app`g"): 250}
    assert [(line, reason) for _, line, reason in diagnostics.examples] == [
        (3, "expected 'function,CPU seconds,module', found 'bad row'"),
        (4, "this row is under the row of line 3, which was skipped"),
        (5, "this row is under the row of line 3, which was skipped"),
    ]


def test_every_command_reads_a_collapser_input_detected_or_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Through the command line: detected, or named with --from; a bad line is exit 1 with file:line."""
    from flamespace.cli import main

    handmade = Path(__file__).parent.parent / "data" / "collapse"
    source = handmade / "stap" / "stacks.txt"
    for args in (["filter", "--no-header", source], ["filter", "--no-header", "--from", "stap", source]):
        assert main([str(a) for a in args]) == 0
        assert capsys.readouterr().out == (handmade / "stap" / "stacks.expected").read_text()
    bad = tmp_path / "bad.csv"
    bad.write_text("Function Stack,CPU Time:Self,Module\nmain,x,app\n")
    assert main(["filter", str(bad)]) == 1
    assert f"{bad}:2: expected a number of seconds >= 0 in the CPU Time:Self column, found 'x'" in capsys.readouterr().err
