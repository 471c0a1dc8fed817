"""Numbers for people: a value in a profile's unit shown in the unit a reader expects.

Times (``ns``, ``us``, ``ms``, ``s``) are shown in ns, µs, ms or s, whichever keeps the
number between 1 and 1,000; ``bytes`` in binary multiples (B, KiB, MiB, GiB, TiB: memory
is counted in powers of two, as the allocation interval of ``collect --mode alloc`` is);
``share`` as a percentage, and a difference of shares in percentage points (``pp``), so it
cannot be taken for a relative change; every other unit (``samples``, ``count``, unknown) as
a plain number with thousands separators. Each number keeps :data:`SIGNIFICANT` significant
digits (whole numbers keep every digit): readable, not exact. Exact values are in the
profile's unit, e.g. in ``compare --json``.
"""

from __future__ import annotations

import math


#: Significant digits of a number shown to people.
SIGNIFICANT = 3
#: Below this many decimals a number is written with an exponent (1.23e-09) instead.
MAX_DECIMALS = 6

#: Time units (as profiles name them) -> nanoseconds.
TIME_UNITS: dict[str, float] = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}
#: Shown scales: (suffix, size in nanoseconds or bytes), smallest first.
TIME_SCALES: tuple[tuple[str, float], ...] = (("ns", 1.0), ("µs", 1e3), ("ms", 1e6), ("s", 1e9))
BYTE_UNITS: dict[str, float] = {"bytes": 1.0, "B": 1.0}
BYTE_SCALES: tuple[tuple[str, float], ...] = (
    ("B", 1.0),
    ("KiB", 1024.0),
    ("MiB", 1024.0**2),
    ("GiB", 1024.0**3),
    ("TiB", 1024.0**4),
)
SHARE_UNIT = "share"
#: What plain counts are called when a profile's unit does not say (flamegraph.pl's word).
DEFAULT_COUNT_NAME = "samples"


def unit_of(profile: object) -> str | None:
    """The unit of a profile's values (``ns``, ``bytes``, ``samples``, ...), if it says: a flame
    graph's or chart's own, a differential pair's after or before side's."""
    for side in (profile, getattr(profile, "after", None), getattr(profile, "before", None)):
        metadata = getattr(side, "metadata", None)
        if metadata is not None and metadata.unit:
            return str(metadata.unit)
    return None


def count_name(unit: str | None) -> str:
    """What a profile's counts are called, in tooltips and text: its unit (``ns``, ``bytes``,
    ``cycles``), else "samples". The one rule for the CLI and the library's renderers alike."""
    return unit if unit else DEFAULT_COUNT_NAME


class Scale:
    """How to show values of one unit: multiply by ``factor`` and append ``suffix``."""

    __slots__ = ("factor", "suffix")

    def __init__(self, factor: float, suffix: str) -> None:
        self.factor = factor
        self.suffix = suffix

    def number(self, value: float, signed: bool = False) -> str:
        """The scaled number alone (an interval's bounds share the suffix of its Δ)."""
        return plain(value * self.factor, signed)

    def format(self, value: float, signed: bool = False) -> str:
        text = self.number(value, signed)
        if not self.suffix or not math.isfinite(value):
            return text
        return text + self.suffix if self.suffix == "%" else f"{text} {self.suffix}"

    def __repr__(self) -> str:
        return f"Scale({self.factor!r}, {self.suffix!r})"


def plain(value: float, signed: bool = False) -> str:
    """``value`` to :data:`SIGNIFICANT` significant digits, thousands separated; ``+`` with ``signed``."""
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return ("+∞" if signed else "∞") if value > 0 else "-∞"
    if value == 0:
        return "0"
    sign = "+" if signed else ""
    exponent = math.floor(math.log10(abs(value)))
    if round(abs(value), SIGNIFICANT - 1 - exponent) >= 10.0 ** (exponent + 1):
        exponent += 1  # 0.9997 rounds to 1.00, not 1.000
    decimals = max(0, SIGNIFICANT - 1 - exponent)
    if decimals > MAX_DECIMALS:
        return f"{value:{sign}.{SIGNIFICANT - 1}e}"
    return f"{value:{sign},.{decimals}f}"


def format_count(value: float) -> str:
    """A count as flamegraph.pl's tooltips write it: every digit, thousands separated (a
    fraction rounded to a whole number from 100 on, else kept to 3 significant digits)."""
    if isinstance(value, int):
        return f"{value:,}"
    if value.is_integer() or abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def _family(unit: str | None) -> tuple[tuple[tuple[str, float], ...] | None, float]:
    """The scales of ``unit``'s family and the size of one ``unit`` in the family's base (None: no scales)."""
    if unit in TIME_UNITS:
        return TIME_SCALES, TIME_UNITS[unit]
    if unit in BYTE_UNITS:
        return BYTE_SCALES, BYTE_UNITS[unit]
    return None, 1.0


def scale(unit: str | None, magnitude: float = 0.0, difference: bool = False) -> Scale:
    """The scale to show values of about ``magnitude`` (in ``unit``); ``difference``: a Δ (shares in pp)."""
    if unit == SHARE_UNIT:
        return Scale(100.0, "pp" if difference else "%")
    scales, size = _family(unit)
    if scales is None:
        return Scale(1.0, "")
    base = abs(magnitude) * size if math.isfinite(magnitude) else 0.0
    index = 0
    for i, (_, step) in enumerate(scales):
        if base >= step:
            index = i
    suffix, step = scales[index]
    # 999.7 µs rounds to "1,000 µs": show it as 1.00 ms instead
    if index + 1 < len(scales) and base and abs(float(plain(base / step).replace(",", ""))) >= scales[index + 1][1] / step:
        suffix, step = scales[index + 1]
    return Scale(size / step, suffix)


def human(value: float, unit: str | None, signed: bool = False, name_counts: bool = False) -> str:
    """``value`` (in ``unit``) for people: ``42.0 ms``, ``1.50 MiB``, ``12.5%``, ``1,234``.

    ``signed``: a difference (``+``/``-``; shares in percentage points). ``name_counts``:
    append the unit to plain counts too (``1,234 samples``), as a tooltip needs.
    """
    shown = scale(unit, value, signed).format(value, signed)
    if name_counts and unit and _family(unit)[0] is None and unit != SHARE_UNIT and math.isfinite(value):
        return f"{shown} {unit}"
    return shown


def interval(lower: float, upper: float, shown: Scale) -> str:
    """``(39.5 to 44.5)`` in ``shown``'s scale; one-sided ``(≥ 39.5)`` / ``(≤ 44.5)``; ``(unbounded)``."""
    low = math.isfinite(lower)
    high = math.isfinite(upper)
    if math.isnan(lower) or math.isnan(upper):
        return "(n/a)"
    if low and high:
        return f"({shown.number(lower)} to {shown.number(upper)})"
    if low:
        return f"(≥ {shown.number(lower)})"
    if high:
        return f"(≤ {shown.number(upper)})"
    return "(unbounded)"


def change(delta: float, lower: float, upper: float, unit: str | None) -> str:
    """A Δ and its interval in one scale (that of the largest of the three): ``+42.0 ms (39.5 to 44.5)``."""
    magnitude = max((abs(v) for v in (delta, lower, upper) if math.isfinite(v)), default=0.0)
    shown = scale(unit, magnitude, difference=True)
    return f"{shown.format(delta, signed=True)} {interval(lower, upper, shown)}"


def relative(delta: float, baseline: float) -> float | None:
    """Δ % as a fraction: (candidate − baseline) / baseline; None ("new") when the baseline is 0."""
    return delta / baseline if baseline else None


def percent(fraction: float | None) -> str:
    """A relative change for people: ``+12.3%``, or ``new`` for None (see :func:`relative`)."""
    if fraction is None:
        return "new"
    return f"{100 * fraction:+.1f}%"


def parse(text: str, unit: str | None) -> float:
    """The value (in ``unit``) of a number written by :func:`human`: ``"42.0 ms"`` -> 4.2e7 for ``ns``."""
    raw = text.strip()
    if unit == SHARE_UNIT:
        for suffix in ("pp", "%"):
            if raw.endswith(suffix):
                return float(raw[: -len(suffix)].replace(",", "")) / 100
        raise ValueError(f"not a share: {text!r}")
    scales, size = _family(unit)
    number, _, suffix = raw.partition(" ")
    if scales is None:
        if suffix and suffix != unit:
            raise ValueError(f"{text!r} is not in {unit!r}")
        return float(number.replace(",", ""))
    steps = dict(scales)
    if suffix not in steps:
        raise ValueError(f"{text!r} has no unit of {', '.join(steps)}")
    return float(number.replace(",", "")) * steps[suffix] / size
