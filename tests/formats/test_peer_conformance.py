"""Byte-for-byte conformance with the FlameGraph toolkit's collapsed output (../shared/peer-fixtures)."""

from __future__ import annotations

from pathlib import Path

import pytest

from flamespace.formats import folded, registry

from ..conftest import PEER_FIXTURES


def collapsed_files():
    if not PEER_FIXTURES.is_dir():
        return []
    return sorted(PEER_FIXTURES.glob("flamegraph-perf/expected/*.txt")) + sorted(
        PEER_FIXTURES.glob("flamegraph-examples/*-collapsed*.txt")
    )


@pytest.mark.parametrize("path", collapsed_files() or [None], ids=lambda p: p.name if p else "absent")
def test_reading_and_writing_reproduces_the_perl_output(path: Path, peer_fixtures):
    graph = registry.read(path)
    text = folded.dumps(graph, folded.WriteOptions(header=False))
    assert text.encode("utf-8", "surrogateescape") == path.read_bytes()


# -- perf: stackcollapse-perf.pl's output, byte for byte ---------------------------------------

PERF_OPTIONS = ("pid", "tid", "kernel", "jit", "all", "addrs")


def _perf_cases():
    """(input, expected, options, skip_invalid) for every perf input with a reference output."""
    if not PEER_FIXTURES.is_dir():
        return []
    cases = []
    for source in sorted(PEER_FIXTURES.glob("flamegraph-perf/input/*.txt")):
        for option in PERF_OPTIONS:
            expected = PEER_FIXTURES / "flamegraph-perf/expected" / f"{source.stem}-collapsed-{option}.txt"
            cases.append((source, expected, {option: True}, False))
    example = PEER_FIXTURES / "flamegraph-examples"
    cases.append((example / "example-perf-stacks.txt.gz", example / "example-perf-stacks-collapsed.txt", {}, False))
    cases.append(
        (example / "example-perf-stacks.txt.gz", example / "example-perf-stacks-collapsed-all.txt", {"all": True}, False)
    )
    # collapse/perf: weird-stack-line.txt has a line the script warns about and skips: we need --skip-invalid
    for expected in sorted(PEER_FIXTURES.glob("collapse/perf/expected/*.txt")):
        stem, all_ = (expected.stem[:-4], True) if expected.stem.endswith("-all") else (expected.stem, False)
        cases.append((PEER_FIXTURES / "collapse/perf/input" / f"{stem}.txt", expected, {"all": True} if all_ else {}, True))
    return cases


def _collapsed(source: Path, options: dict, skip_invalid: bool) -> bytes:
    graph = registry.read(source, skip_invalid=skip_invalid, options=options)  # detected: no --from
    return folded.dumps(graph, folded.WriteOptions(header=False)).encode("utf-8", "surrogateescape")


@pytest.mark.parametrize(
    "source, expected, options, skip_invalid",
    _perf_cases() or [(None, None, None, None)],
    ids=lambda v: v.name if isinstance(v, Path) else (",".join(v) or "default") if isinstance(v, dict) else "",
)
def test_perf_collapses_as_stackcollapse_perf_pl(source, expected, options, skip_invalid, peer_fixtures):
    assert _collapsed(source, options, skip_invalid) == expected.read_bytes()


def test_perf_one_line_samples_as_inferno_reads_them(peer_fixtures):
    """The Perl script prints nothing for this layout; inferno's expected output is the reference."""
    base = peer_fixtures / "collapse/perf"
    assert (
        _collapsed(base / "input/single-line-stacks.txt", {}, False)
        == (base / "expected-inferno/single-line-stacks.txt").read_bytes()
    )


def test_perf_where_we_follow_the_perl_script_rather_than_inferno(peer_fixtures, tmp_path):
    """Two inputs lack the blank line after their last sample: the Perl script (and we, with a
    warning) leave it out, inferno keeps it. Ended properly, they differ from inferno's output only
    by inferno's own rules: it fixes half-demangled Rust names and marks versioned vmlinux and .ko
    modules as kernel; stackcollapse-perf.pl does neither."""
    base = peer_fixtures / "collapse/perf"
    for name in ("single-event", "versioned-vmlinux"):
        assert _collapsed(base / f"input/{name}.txt", {"kernel": True}, False) == b""
    ended = tmp_path / "single-event.txt"
    ended.write_bytes((base / "input/single-event.txt").read_bytes() + b"\n")
    ours = _collapsed(ended, {}, False).decode()
    inferno = (base / "expected-inferno/single-event.txt").read_text()
    assert ours.replace("_$u7b$$u7b$closure$u7d$$u7d$::ha2ed0674a1c3dc9f", "_{{closure}}").replace("$LT$T$GT$", "<T>") == inferno
    ended = tmp_path / "versioned-vmlinux.txt"
    ended.write_bytes((base / "input/versioned-vmlinux.txt").read_bytes() + b"\n")
    inferno = (base / "expected-inferno/versioned-vmlinux-kernel.txt").read_text()
    assert _collapsed(ended, {"kernel": True}, False).decode() == inferno.replace("_[k]", "")
