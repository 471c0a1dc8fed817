"""The fixtures the page scripts' unit tests (tests/js/, Node) check against: what the library says.

    python -m tests.render.test_js_fixtures     # writes tests/js/fixtures/*.json again

The JavaScript formats numbers as ``flamespace.core.units`` does; tests/js/units.test.mjs holds it
to ``units.json``, made here from the library, and this test fails when the file is not what the
library says now (so the two cannot drift apart unseen).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from flamespace.core import units
from flamespace.render.html import unit_spec

FIXTURES = Path(__file__).resolve().parents[1] / "js" / "fixtures"
#: Units of every kind the pages show: time, bytes, shares and plain counts (named or not).
UNITS = ["ns", "us", "ms", "s", "bytes", "share", "samples", None]
#: Magnitudes across the scales, with roundings that carry (999.7 -> 1.00 k) and tiny/huge ones.
VALUES = [
    0.0,
    1.0,
    7.0,
    12.5,
    99.96,
    999.7,
    1000.0,
    1234.0,
    99_999.0,
    1_234_567.0,
    3.5e9,
    7.2e12,
    0.5,
    0.0123,
    0.99,
    1e-7,
    1e-5,
    0.00012345,
    123_456_789_012.0,
    math.inf,
]


def _expected(value: float, unit: str | None, signed: bool, spec: dict[str, Any]) -> str:
    """The library's text for ``value``: ``units.human``, or for plain counts the SVG tooltips' count and name."""
    if spec["kind"] != "count":
        return units.human(value, unit, signed)
    text = units.format_count(abs(value)) if math.isfinite(value) else "inf"
    sign = "-" if value < 0 else "+" if signed and value > 0 else ""
    return sign + text + (" " + spec["name"] if spec["name"] else "")


def units_cases() -> dict[str, Any]:
    """{"specs": {unit: a payload's unit spec}, "cases": [[unit, value, signed, the library's text]]}
    (the unit None as "", an infinite value as "inf" or "-inf")."""
    specs, cases = {}, []
    for unit in UNITS:
        spec = specs[unit or ""] = unit_spec(unit, "")
        for value in VALUES + [-v for v in VALUES if v]:
            if spec["kind"] == "count" and not math.isfinite(value):
                continue  # counts are finite
            for signed in (False, True):
                cases.append(
                    [unit or "", value if math.isfinite(value) else str(value), signed, _expected(value, unit, signed, spec)]
                )
    return {"specs": specs, "cases": cases}


def fixtures() -> dict[str, str]:
    """Each fixture file's name and text (a case a line)."""
    data = units_cases()
    lines = ",\n".join(json.dumps(case, ensure_ascii=False) for case in data["cases"])
    return {"units.json": f'{{"specs": {json.dumps(data["specs"], ensure_ascii=False)},\n"cases": [\n{lines}\n]}}\n'}


def test_the_javascript_fixtures_are_what_the_library_says() -> None:
    for name, text in fixtures().items():
        path = FIXTURES / name
        assert path.exists() and path.read_text(encoding="utf-8") == text, (
            f"{path} is stale: run python -m tests.render.test_js_fixtures"
        )


if __name__ == "__main__":
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, text in fixtures().items():
        (FIXTURES / name).write_text(text, encoding="utf-8")
        print(f"wrote {FIXTURES / name}")
