"""Human units: each number read back within its rounding, the scale a reader expects, intervals that cannot be misread."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flamespace.core import units

UNITS = ["ns", "us", "ms", "s", "bytes", "share", "samples", None]
#: A number shown to SIGNIFICANT digits is within half a unit of its last digit: this share of its size
#: (and a hair more for a value that rounds up to the next power of ten, as 0.9996 to "1.00").
ROUNDING = 0.5 * 10 ** (1 - units.SIGNIFICANT) * 1.001

values = st.floats(min_value=-1e15, max_value=1e15, allow_nan=False, allow_infinity=False).filter(
    lambda v: v == 0 or abs(v) >= 1e-12
)


@given(value=values, unit=st.sampled_from(UNITS), signed=st.booleans())
def test_formatting_then_parsing_gives_the_value_within_rounding(value, unit, signed):
    text = units.human(value, unit, signed=signed)
    assert units.parse(text, unit) == pytest.approx(value, rel=ROUNDING, abs=0)
    if signed and value > 0:
        assert text.startswith("+")


@given(value=st.floats(min_value=1, max_value=1e12), unit=st.sampled_from(["ns", "bytes"]))
def test_the_scale_keeps_the_number_between_1_and_1000(value, unit):
    number = float(units.human(value, unit).split(" ")[0].replace(",", ""))
    big = unit == "ns" and value >= 999.5e9  # seconds have no larger scale (999.5 s rounds to 1,000 s)
    assert 1 <= number < (1024 if unit == "bytes" else 1000) or big


@pytest.mark.parametrize(
    "value, unit, text",
    [
        (42e6, "ns", "42.0 ms"),
        (999.7e3, "ns", "1.00 ms"),  # rounds up into the next scale
        (1.5e9, "ns", "1.50 s"),
        (1234e9, "ns", "1,234 s"),
        (250, "us", "250 µs"),
        (0.25, "s", "250 ms"),
        (1536, "bytes", "1.50 KiB"),
        (5 * 1024**3, "bytes", "5.00 GiB"),
        (0.1234, "share", "12.3%"),
        (1234567.0, "samples", "1,234,567"),
        (100.25, "samples", "100"),
        (0, "ns", "0 ns"),
        (math.nan, "ns", "n/a"),
    ],
)
def test_examples(value, unit, text):
    assert units.human(value, unit) == text


def test_a_difference_of_shares_is_in_percentage_points():
    assert units.human(0.0123, "share", signed=True) == "+1.23 pp"
    assert units.human(-0.5, "share", signed=True) == "-50.0 pp"


def test_counts_are_named_only_on_request():
    assert units.human(1234, "samples") == "1,234"
    assert units.human(1234, "samples", name_counts=True) == "1,234 samples"
    assert units.human(1234, None, name_counts=True) == "1,234"
    assert units.human(2e6, "ns", name_counts=True) == "2.00 ms"


@pytest.mark.parametrize(
    "delta, lower, upper, unit, text",
    [
        (42e6, 39.5e6, 44.5e6, "ns", "+42.0 ms (39.5 to 44.5)"),
        (42e6, 39.5e6, math.inf, "ns", "+42.0 ms (≥ 39.5)"),
        (-42e6, -math.inf, -39.5e6, "ns", "-42.0 ms (≤ -39.5)"),
        (0.0, -math.inf, math.inf, "ns", "0 ns (unbounded)"),
        (5e5, -2e6, 3e6, "ns", "+0.500 ms (-2.00 to 3.00)"),  # one scale, that of the largest
        (-50.5, -59.9, -41.1, None, "-50.5 (-59.9 to -41.1)"),
    ],
)
def test_changes_with_their_intervals(delta, lower, upper, unit, text):
    assert units.change(delta, lower, upper, unit) == text


def test_relative_change_is_new_without_a_baseline():
    assert units.relative(5.0, 0.0) is None and units.percent(None) == "new"
    assert units.percent(units.relative(-50.0, 200.0)) == "-25.0%"


def test_parse_refuses_a_foreign_unit():
    with pytest.raises(ValueError):
        units.parse("42.0 MiB", "ns")
