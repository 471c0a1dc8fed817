"""Loading JSON profiles with errors that say where: line and column, or the JSON path of a bad value."""

from __future__ import annotations

from ..core.chart import LATEST_NS
from ..core.vector import MAX_VALUE
from ..errors import InputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from .._types import Number
    from ..diagnostics import Diagnostics


def load(stream: TextIO, source: str, what: str, diagnostics: Diagnostics | None = None) -> Any:
    """The document in ``stream``; InputError naming the line and column of bad JSON (``what``: the format's name).

    An empty input is None, with a warning: the reader returns an empty profile.
    """
    import json  # here, not at start-up

    text = stream.read()
    if not text.strip():
        if diagnostics is not None:
            diagnostics.warn(f"{source}: empty input; the profile is empty")
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        end = text.rstrip()
        truncated = " (truncated file?)" if exc.pos >= len(end) or end[-1:] not in ("}", "]") else ""
        raise InputError(f"not valid JSON for {what}: {exc.msg} (column {exc.colno}){truncated}", source, exc.lineno) from None
    except RecursionError:
        raise InputError(f"not valid JSON for {what}: nested too deeply", source) from None
    except ValueError:  # json's int() of a number of more than sys.get_int_max_str_digits() digits
        raise long_number(text, what, source) from None


def long_number(text: str, what: str, source: str) -> InputError:
    """The error for a JSON number too long for Python to convert, at its line and column."""
    import re
    import sys

    limit = sys.get_int_max_str_digits()
    found = re.search(r"\d{%d,}" % (limit + 1), text)
    at = found.start() if found else 0
    line = text.count("\n", 0, at) + 1
    column = at - text.rfind("\n", 0, at)
    return InputError(
        f"a number of more than {limit} digits (column {column}); numbers in {what} must be below {MAX_VALUE:g}", source, line
    )


def number(value: object, path: str, source: str, minimum: float = -MAX_VALUE) -> float:
    """``value`` if it is a finite JSON number in [minimum, MAX_VALUE); InputError naming ``path`` otherwise."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and minimum <= value < MAX_VALUE:
        return value
    raise InputError(f"{path} is {value!r:.60}, not a number between {minimum:g} and {MAX_VALUE:g}", source)


def nanoseconds(value: float, per_unit: float, path: str, source: str, unit: str) -> int:
    """``value`` (a time in ``unit``, ``per_unit`` ns each) as a chart's ns; InputError naming ``path``
    beyond what a chart holds, which would otherwise overflow its 64-bit times or be lost."""
    scaled = value * per_unit
    if -LATEST_NS < scaled < LATEST_NS:
        return round(scaled)
    raise InputError(
        f"{path} is {value:g} {unit}, beyond the {LATEST_NS / per_unit:.3g} {unit} (2**62 ns) a chart's times hold", source
    )


def integer(value: object, path: str, source: str, minimum: int = 0) -> int:
    if type(value) is int and minimum <= value < MAX_VALUE:
        return value
    raise InputError(f"{path} is {value!r:.60}, not an integer >= {minimum}", source)


def unscaled(value: float) -> Number:
    """A weight read back in its own unit: whole when it was whole (up to the rounding of the scaling)."""
    whole = round(value)
    return whole if abs(value - whole) <= 1e-9 * max(1.0, abs(value)) else value


def field(document: Any, key: str, kind: type, path: str, source: str) -> Any:
    """``document[key]``, which must be a ``kind`` (list, dict, str)."""
    value = document.get(key) if isinstance(document, dict) else None
    if not isinstance(value, kind):
        raise InputError(f"{path + '.' if path else ''}{key} is missing or not a {kind.__name__}", source)
    return value


__all__ = ["field", "integer", "load", "number", "unscaled"]
