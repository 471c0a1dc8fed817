"""The nytprof reader: nytprofcalls' folded call paths in clock ticks become nanoseconds."""

from __future__ import annotations

import io

import pytest
from hypothesis import given

import flamespace as fs
from flamespace.diagnostics import Diagnostics
from flamespace.formats import registry

from .test_fuzz import FUZZ, _read_or_refuse, mangled

#: As nytprofcalls prints it: unsorted, a path may come twice, names with '?' for ';' and ' '.
CALLS = b"main::run;Foo::bar 1200\nmain::run 35\nmain::run;Foo::bar;Foo::baz 7\nmain::run;Foo::bar 300\nmain::BEGIN@3?x 2\n"


def read(data: bytes, **options: object) -> fs.FlameGraph:
    graph = registry.read(io.BytesIO(data), "nytprof", options=options)
    assert isinstance(graph, fs.FlameGraph)
    return graph


def test_ticks_become_integer_nanoseconds_and_paths_add_up() -> None:
    graph = read(CALLS)
    assert dict(graph.items()) == {
        ("main::run", "Foo::bar"): 150_000,
        ("main::run",): 3_500,
        ("main::run", "Foo::bar", "Foo::baz"): 700,
        ("main::BEGIN@3?x",): 200,
    }
    assert all(type(value) is int for _, value in graph.items())
    assert graph.unit == "ns" and graph.labels["profiler"] == "nytprof"


def test_another_clock_and_call_counts() -> None:
    assert read(CALLS, ticks_per_second=1_000_000)[("main::run",)] == 35_000
    assert read(CALLS, ticks_per_second=3)[("main::run",)] == pytest.approx(35 * 1e9 / 3)
    calls = read(CALLS, calls=True)
    assert calls[("main::run", "Foo::bar")] == 1500 and calls.unit == "calls"


def test_it_is_read_only_when_named() -> None:
    assert registry.detect(CALLS).name == "folded"


def test_a_bad_line_is_named_and_a_bad_clock_refused() -> None:
    with pytest.raises(fs.InputError, match=r"<stream>:2"):
        read(b"main 3\nmain;sub\n")
    with pytest.raises(fs.ArgumentError, match="ticks per second"):
        read(CALLS, ticks_per_second=0)


def test_an_empty_file_is_an_empty_profile_with_a_warning() -> None:
    diagnostics = Diagnostics()
    graph = registry.read(io.BytesIO(b""), "nytprof", diagnostics=diagnostics)
    assert graph.total() == 0 and any("no call paths" in warning for warning in diagnostics.warnings)


@FUZZ
@given(mangled("nytprof", [CALLS]))
def test_nytprof_reader_raises_only_input_errors(data: bytes) -> None:
    _read_or_refuse(data, "nytprof")
