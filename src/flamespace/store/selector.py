"""Store selectors: ``store:branch=main,last=30`` names a set of stored profiles.

Parsed here and nowhere else: a selector is ``store:`` followed by ``key=value`` pairs joined
by commas. Label keys filter (``commit`` matches a prefix of the commit, every other label
must equal the value); ``last=N`` keeps the N latest of what the filters match; ``since`` and
``until`` bound the profiles' time (an ISO date or date and time, UTC). Values cannot hold a
comma or an equals sign. A selector that matches nothing is an error where it is resolved
(never an empty sample).
"""

from __future__ import annotations

from datetime import datetime, timezone

from .._record import Record, factory, record
from ..errors import ArgumentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

#: What starts a selector wherever a profile path goes.
PREFIX = "store:"
#: Labels that have a column of their own in the profiles table (see store-schema notes).
COLUMNS = ("commit", "branch", "host", "mode", "python", "bench", "unit", "metric")
#: Keys that are not labels: how many profiles and from when.
LIMITS = ("last", "since", "until", "id")


class SelectorError(ArgumentError):
    """A selector that cannot be parsed: says which part and why."""


@record
class Selector(Record):
    """What a selector asks for: label filters, the latest ``last``, a time window, or one profile ``id``."""

    labels: Mapping[str, str] = factory(dict)
    last: int | None = None
    since: datetime | None = None
    until: datetime | None = None
    id: int | None = None

    def text(self) -> str:
        """The selector as it would be written (``store:branch=main,last=30``): parses back to itself."""
        parts = [f"{k}={v}" for k, v in self.labels.items()]
        if self.id is not None:
            parts.append(f"id={self.id}")
        if self.since is not None:
            parts.append(f"since={_format_time(self.since)}")
        if self.until is not None:
            parts.append(f"until={_format_time(self.until)}")
        if self.last is not None:
            parts.append(f"last={self.last}")
        return PREFIX + ",".join(parts)


def is_selector(text: object) -> bool:
    """Whether a path argument is a store selector rather than a file."""
    return isinstance(text, str) and text.startswith(PREFIX)


def is_key(name: str) -> bool:
    """Whether a selector can name the label ``name``: letters, digits, '_', '-', '.'."""
    return bool(name) and all(c.isalnum() or c in "_-." for c in name)


def parse_selector(text: str) -> Selector:
    """``store:key=value,...`` -> :class:`Selector`; :class:`SelectorError` naming the bad part."""
    if not is_selector(text):
        raise SelectorError(f"{text!r} is not a store selector (they start with {PREFIX!r}, e.g. store:branch=main,last=30)")
    body = text[len(PREFIX) :]
    if not body.strip():
        raise SelectorError(f"{text!r}: empty selector; say which profiles, e.g. store:branch=main,last=30")
    labels: dict[str, str] = {}
    limits: dict[str, str] = {}
    for part in body.split(","):
        key, equals, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not equals or not key or not value or "=" in value:
            raise SelectorError(f"{text!r}: {part!r} is not key=value")
        if not is_key(key):
            raise SelectorError(f"{text!r}: {key!r} is no key (letters, digits, '_', '-', '.')")
        if key in labels or key in limits:
            raise SelectorError(f"{text!r}: {key} is given twice")
        (limits if key in LIMITS else labels)[key] = value
    last = _positive(text, "last", limits.get("last"))
    ident = _positive(text, "id", limits.get("id"), minimum=0)
    since, until = (_time(text, key, limits.get(key)) for key in ("since", "until"))
    if since is not None and until is not None and since > until:
        raise SelectorError(f"{text!r}: since is after until")
    return Selector(labels=labels, last=last, since=since, until=until, id=ident)


def _positive(text: str, key: str, value: str | None, minimum: int = 1) -> int | None:
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        number = minimum - 1
    if number < minimum:
        raise SelectorError(f"{text!r}: {key} must be a whole number ≥ {minimum}, not {value!r}")
    return number


def _time(text: str, key: str, value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return parse_time(value)
    except ValueError:
        raise SelectorError(f"{text!r}: {key}={value} is not a date (2026-11-01) or date and time (2026-11-01T12:00)") from None


def parse_time(value: str) -> datetime:
    """An ISO date or date and time as a naive UTC datetime (a zone, if given, is converted)."""
    when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    if when.tzinfo is not None:
        when = when.astimezone(timezone.utc).replace(tzinfo=None)
    return when


def _format_time(when: datetime) -> str:
    return when.date().isoformat() if when == datetime(when.year, when.month, when.day) else when.isoformat()
