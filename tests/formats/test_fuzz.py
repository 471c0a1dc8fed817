"""Fuzzing every reader: mangled valid files give a profile or our InputError, never another exception.

Each reader starts from small valid files its own writer made, then hypothesis truncates
them, flips bytes (of the text, or of it gzipped), and puts numbers out of range (negative, huge, NaN, Infinity) where
numbers were. Derandomized, so CI runs the same cases every time.
"""

from __future__ import annotations

import gzip
import io
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import flamespace as fs
from flamespace.core.chart import FlameChart
from flamespace.core.metadata import Metadata
from flamespace.formats import registry

GRAPH = fs.FlameGraph(
    {("main (a.py:1)", "f (a.py:2)"): 30, ("main (a.py:1)",): 10, ("g",): 5, ("main (a.py:1)", "h; x"): 2.5},
    unit="ns",
    labels={"mode": "wall"},
)


def _chart() -> FlameChart:
    """Two threads, a gap and two samples sharing a tick: every branch of the evented writer."""
    chart = FlameChart(Metadata(unit="ns"))
    for timestamp, thread, stack, weight in [
        (1_000, "MainThread", ("main", "f"), 500),
        (2_000, "MainThread", ("main",), 600),
        (2_000, "worker", ("t", "u"), 700),
        (2_000, "MainThread", ("[idle]",), 400),
        (5_000, "MainThread", ("main", "g"), 900),
    ]:
        chart.append(timestamp, thread, stack, weight)
    return chart


CHART = _chart()
DIFFERENTIAL = fs.Differential(fs.FlameGraph({("a", "b"): 3, ("a",): 1}), fs.FlameGraph({("a", "b"): 5, ("c",): 2}))

FUZZ = settings(max_examples=200, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Numbers that must never get through: negative, huge, not finite, not a number.
BAD_NUMBERS = [
    "-1",
    "-0.5",
    "1e999",
    "9" * 400,
    "9" * 400 + ".5",
    "NaN",
    "Infinity",
    "-Infinity",
    "1e308",
    "",
    "x",
    "true",
    "null",
    "9" * 5000,
    "18446744073709551616",
    "1e16",
]  # past int()'s 4300 digits, past 64 bits, past a chart's ns


def _written(profile: object, format: str) -> bytes:
    out = io.StringIO()
    registry.by_name(format).dump(profile, out)
    return out.getvalue().encode()


def _seeds(format: str) -> list:
    if format == "folded-diff":  # holds before/after pairs only
        return [_written(DIFFERENTIAL, format)]
    seeds = [_written(GRAPH, format)]
    if format == "flamespace-json":
        seeds += [_written(DIFFERENTIAL, format), _written(CHART, format)]
    if format == "folded":
        seeds.append(_written(DIFFERENTIAL, format))
    if format == "speedscope":
        seeds.append(_written(CHART, format))
    return seeds


@st.composite
def mangled(draw: st.DrawFn, format: str, seeds: list[bytes] | None = None) -> bytes:
    """A valid file of ``format`` (one of ``seeds``, else one its writer made), then a few truncations, byte flips and out-of-range numbers."""
    data = bytearray(draw(st.sampled_from(seeds or _seeds(format))))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["truncate", "flip", "number", "insert"]))
        if kind == "truncate" and data:
            del data[draw(st.integers(0, len(data) - 1)) :]
        elif kind == "flip" and data:
            at = draw(st.integers(0, len(data) - 1))
            data[at] = draw(st.integers(0, 255))
        elif kind == "insert":
            at = draw(st.integers(0, len(data)))
            data[at:at] = draw(st.binary(min_size=1, max_size=4))
        else:
            numbers = list(re.finditer(rb"-?\d+(\.\d+)?", bytes(data)))
            if numbers:
                match = draw(st.sampled_from(numbers))
                data[match.start() : match.end()] = draw(st.sampled_from(BAD_NUMBERS)).encode()
    if draw(st.integers(0, 4)) == 0:  # sometimes gzipped (read undoes it), then damaged again
        data = bytearray(gzip.compress(bytes(data), mtime=0))
        at = draw(st.integers(0, len(data) - 1))
        if draw(st.booleans()):
            del data[at:]
        else:
            data[at] ^= draw(st.integers(1, 255))
    return bytes(data)


def _read_or_refuse(data: bytes, format: str) -> None:
    """Read ``data``; an InputError is a fine answer, any other exception fails the test."""
    try:
        profile = fs.read(io.BytesIO(data), format)
    except fs.InputError:
        return
    if isinstance(profile, FlameChart):
        profile = profile.graph()
    sides = [profile.before, profile.after] if isinstance(profile, fs.Differential) else [profile]
    for side in sides:
        for stack, value in side.items():  # what came back is a valid profile: finite, positive values
            assert isinstance(stack, tuple) and all(isinstance(f, str) for f in stack)
            assert 0 < value < float("inf"), (stack, value)


@FUZZ
@given(mangled("folded"))
def test_folded_reader_raises_only_input_errors(data: bytes) -> None:
    _read_or_refuse(data, "folded")


@FUZZ
@given(mangled("speedscope"))
def test_speedscope_reader_raises_only_input_errors(data: bytes) -> None:
    _read_or_refuse(data, "speedscope")


@FUZZ
@given(mangled("flamespace-json"))
def test_flamespace_json_reader_raises_only_input_errors(data: bytes) -> None:
    _read_or_refuse(data, "flamespace-json")


@FUZZ
@given(mangled("folded-diff"))
def test_folded_diff_reader_raises_only_input_errors(data: bytes) -> None:
    _read_or_refuse(data, "folded-diff")


def test_every_reader_is_fuzzed() -> None:
    """A new reader must get a fuzz test: ``test_<format>_reader_raises_only_input_errors`` in tests/formats/
    (the collapsers share one, parametrised over ``test_collapse_fuzz.FORMATS``)."""
    from pathlib import Path

    from .test_collapse_fuzz import FORMATS as COLLAPSERS

    tests = "".join(path.read_text(encoding="utf-8") for path in Path(__file__).parent.glob("test_*.py"))
    fuzzed = {name.replace("_", "-") for name in re.findall(r"def test_(\w+?)_reader_raises_only_input_errors", tests)} | set(
        COLLAPSERS
    )
    assert {"folded", "speedscope"} <= fuzzed
    assert set(registry.names()) <= fuzzed, set(registry.names()) - fuzzed


def test_damaged_gzip_data_is_an_input_error() -> None:
    """Found by the fuzz test: a bad deflate block raised zlib.error, which escaped."""
    damaged = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    for format in ("folded", "speedscope"):
        with pytest.raises(fs.InputError, match="cannot read: Error -3 while decompressing"):
            fs.read(io.BytesIO(damaged), format)
