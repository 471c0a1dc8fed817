"""The stack collapsers against their reference tools, byte for byte.

Peer fixtures (../shared/peer-fixtures/collapse and flamegraph-examples): inputs from
inferno's test data with FlameGraph's or inferno's outputs, and malformed inputs. Hand-made
inputs (tests/data/collapse/<format>/): their ``.expected`` files are what FlameGraph's
script printed for them (dtrace ``-includeoffset``: stackcollapse.pl with ``$includeoffset = 1``,
the script having no command-line switch for it). xctrace has no script; its small.expected
was checked by hand, and the reader gives inferno's expected output on inferno's own
xctrace test data (not copied here).

Scripts that print every stack as they meet it (sample, vsprof, bpftrace, instruments)
print some stacks twice and some with count 0; flamegraph.pl sums the first and draws
nothing for the second, so their outputs are compared summed, without zeros, sorted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from flamespace.diagnostics import Diagnostics
from flamespace.errors import InputError
from flamespace.formats import folded, recognition, registry

from ..conftest import DATA, PEER_FIXTURES

COLLAPSE = PEER_FIXTURES / "collapse"
HANDMADE = DATA / "collapse"


def folded_text(path: Path, format: str, **options: object) -> str:
    fmt = registry.by_name(format)
    with path.open(encoding="utf-8-sig", errors="surrogateescape") as stream:
        graph = fmt.parse(stream, fmt.ReadOptions(**options), source=str(path))
    return folded.dumps(graph, folded.WriteOptions(header=False))


def summed(text: str) -> str:
    """What flamegraph.pl draws from a script's output: repeated stacks summed, zeros left out, sorted."""
    counts: dict[str, int] = {}
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        counts[stack] = counts.get(stack, 0) + int(count)
    rows = sorted((stack.encode("utf-8", "surrogateescape"), count) for stack, count in counts.items() if count)
    return "".join(f"{stack.decode('utf-8', 'surrogateescape')} {count}\n" for stack, count in rows)


def expected(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "surrogateescape")


# (format, input, expected, options, compare summed)
Case = tuple[str, str, str, dict[str, object], bool]
PEER_CASES: list[Case] = [
    *[
        ("dtrace", f"dtrace/input/{n}.txt", f"dtrace/expected/{n}.txt", {}, False)
        for n in (
            "flamegraph-bug",
            "hex-addresses",
            "java",
            "only-header-lines",
            "rust-names",
            "scope_with_no_argument_list",
            "stack-ustack",
        )
    ],
    ("sample", "sample/input/sample.txt", "sample/expected/sample.txt", {}, True),
    ("vsprof", "vsprof/input/CallTreeSummary.csv", "vsprof/expected/CallTreeSummary.txt", {}, True),
    ("vtune", "vtune/input/vtune.csv", "vtune/expected-inferno/vtune-default.txt", {}, False),
    ("vtune", "vtune/input/vtune.csv", "vtune/expected-inferno/vtune-no-modules.txt", {"no_modules": True}, False),
    ("ghcprof", "ghcprof/input/percent.prof", "ghcprof/expected-inferno/percent.txt", {}, True),
    ("ghcprof", "ghcprof/input/ticks.prof", "ghcprof/expected-inferno/ticks.txt", {}, True),
    ("ghcprof", "ghcprof/input/ticks.prof", "ghcprof/expected-inferno/ticks_ticks.txt", {"source": "ticks"}, True),
    ("ghcprof", "ghcprof/input/ticks.prof", "ghcprof/expected-inferno/ticks_bytes.txt", {"source": "bytes"}, True),
    ("ghcprof", "ghcprof/input/utf8.prof", "ghcprof/expected-inferno/utf8.txt", {}, True),
    ("ghcprof", "ghcprof/input/utf8.prof", "ghcprof/expected-inferno/utf8_ticks.txt", {"source": "ticks"}, True),
    ("ghcprof", "ghcprof/input/utf8.prof", "ghcprof/expected-inferno/utf8_bytes.txt", {"source": "bytes"}, True),
]


def _case_id(case: Case) -> str:
    return f"{case[0]}-{Path(case[2]).stem}" + "".join(f"-{key}" for key in case[3])


@pytest.mark.parametrize("case", PEER_CASES, ids=_case_id)
def test_peer_fixture_output_is_reproduced(case: Case, peer_fixtures: Path) -> None:
    format, source, target, options, sum_expected = case
    out = folded_text(COLLAPSE / source, format, **options)
    want = expected(COLLAPSE / target)
    assert out == (summed(want) if sum_expected else want)


def test_the_dtrace_example_is_collapsed_as_stackcollapse_pl_does(peer_fixtures: Path) -> None:
    examples = peer_fixtures / "flamegraph-examples"
    assert folded_text(examples / "example-dtrace-stacks.txt", "dtrace") == expected(
        examples / "example-dtrace-stacks-collapsed.txt"
    )


def test_the_dtrace_example_is_detected(peer_fixtures: Path) -> None:
    graph = registry.read(peer_fixtures / "flamegraph-examples" / "example-dtrace-stacks.txt")
    assert folded.dumps(graph, folded.WriteOptions(header=False)) == expected(
        peer_fixtures / "flamegraph-examples" / "example-dtrace-stacks-collapsed.txt"
    )


def invalid_files() -> list[Path]:
    return sorted(COLLAPSE.glob("*/invalid/*")) if COLLAPSE.is_dir() else []


@pytest.mark.parametrize("path", invalid_files() or [None], ids=lambda p: f"{p.parent.parent.name}-{p.name}" if p else "absent")
def test_malformed_inputs_are_refused_with_file_and_line_or_skipped_and_counted(path: Path | None, peer_fixtures: Path) -> None:
    assert path is not None
    format = path.parent.parent.name
    with pytest.raises(InputError) as refused:
        registry.read(path, format)
    assert refused.value.source == str(path) and refused.value.line is not None, str(refused.value)
    assert f"{path}:{refused.value.line}: " in str(refused.value)
    diagnostics = Diagnostics()
    registry.read(path, format, skip_invalid=True, diagnostics=diagnostics)
    assert diagnostics.skipped >= 1
    assert diagnostics.examples[0][1] == refused.value.line


# -- hand-made inputs through FlameGraph's scripts ---------------------------------------------

HANDMADE_CASES: list[Case] = [
    ("dtrace", "dtrace/offsets.txt", "dtrace/offsets.expected", {}, False),
    ("dtrace", "dtrace/offsets.txt", "dtrace/offsets-includeoffset.expected", {"includeoffset": True}, False),
    ("bpftrace", "bpftrace/stacks.txt", "bpftrace/stacks.expected", {}, True),
    ("gdb", "gdb/backtraces.txt", "gdb/backtraces.expected", {}, False),
    ("elfutils", "elfutils/stacks.txt", "elfutils/stacks.expected", {}, False),
    ("elfutils", "elfutils/stacks.txt", "elfutils/stacks-pid.expected", {"pid": True}, False),
    ("elfutils", "elfutils/stacks.txt", "elfutils/stacks-tid.expected", {"tid": True}, False),
    ("elfutils", "elfutils/stacks.txt", "elfutils/stacks-pidtid.expected", {"pid": True, "tid": True}, False),
    ("jstack", "jstack/dump.txt", "jstack/dump.expected", {}, False),
    ("jstack", "jstack/dump.txt", "jstack/dump-includetid.expected", {"include_tid": True}, False),
    ("jstack", "jstack/dump.txt", "jstack/dump-noincludetname.expected", {"include_tname": False}, False),
    ("jstack", "jstack/dump.txt", "jstack/dump-shortenpkgs.expected", {"shorten_pkgs": True}, False),
    ("faulthandler", "faulthandler/dumps.txt", "faulthandler/dumps.expected", {}, False),
    ("pmc", "pmc/graph.txt", "pmc/graph.expected", {}, True),
    ("stap", "stap/stacks.txt", "stap/stacks.expected", {}, False),
    ("instruments", "instruments/tree.txt", "instruments/tree.expected", {}, True),
    ("xctrace", "xctrace/small.xml", "xctrace/small.expected", {}, False),
]


@pytest.mark.parametrize("case", HANDMADE_CASES, ids=_case_id)
def test_handmade_input_gives_the_scripts_output(case: Case) -> None:
    format, source, target, options, sum_expected = case
    out = folded_text(HANDMADE / source, format, **options)
    want = expected(HANDMADE / target)
    assert out == (summed(want) if sum_expected else want)


@pytest.mark.parametrize("case", HANDMADE_CASES, ids=_case_id)
def test_handmade_input_is_detected_as_its_format(case: Case) -> None:
    head = (HANDMADE / case[1]).read_bytes()[: recognition.SNIFF_BYTES]
    assert registry.detect(head).name == case[0]


def test_jstack_lines_it_does_not_know_are_counted_in_a_warning() -> None:
    diagnostics = Diagnostics()
    registry.read(HANDMADE / "jstack" / "dump.txt", "jstack", diagnostics=diagnostics)
    assert diagnostics.warnings == [
        f"{HANDMADE / 'jstack' / 'dump.txt'}: 1 line not recognised as part of a thread dump and passed over "
        "(first: line 35: '   Locked ownable synchronizers:')"
    ]
