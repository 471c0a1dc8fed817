"""The query API's answers, from a request's parameters to JSON-ready values: nothing here knows HTTP.

Every answer is the store's own: a selector (``service_name=api,region=eu``, the store's syntax
with or without ``store:``) and a time range (``from``, ``until``: ISO date-times, Unix seconds or
``now-1h``) name stored windows as ``store:...,since=FROM,until=UNTIL`` would (windows that start in
the range); ``merge`` is ``flamespace store get``'s sum, ``compare`` is ``flamespace compare``'s
comparison of two selectors (each window a run), ``history`` is ``flamespace history``'s series and
change points. A bad parameter is a :class:`QueryError` that names it.
"""

from __future__ import annotations

import io
import re
from datetime import datetime, timedelta

from ...errors import ArgumentError, FlamespaceError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Mapping

    from ...store import Selector, Snapshot, Store

#: What ``merge`` answers in: its content type, and the writer.
MERGE_FORMATS = {
    "flamespace-json": "application/json",
    "folded": "text/plain; charset=utf-8",
    "html": "text/html; charset=utf-8",
}
#: What ``compare`` answers in: ``compare --json``'s document or ``compare --html``'s page.
COMPARE_FORMATS = ("json", "html", "json-with-html")
#: What ``history`` answers in: ``history --format json``'s document or ``history --svg``'s sparklines.
HISTORY_FORMATS = ("json", "svg")
#: The labels that hold a window's range (selected by ``from`` and ``until``, not listed as labels).
WINDOW_LABELS = ("time", "time_end")
#: The most windows a ``windows`` answer lists (``limit``).
WINDOWS_LIMIT = 10_000
_RELATIVE = re.compile(r"^now(?:-(\d+(?:\.\d+)?)([smhdw]))?$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


class QueryError(ArgumentError):
    """A parameter that cannot be used: ``parameter`` names it; ``status`` is 400, or 404 when a
    selector matches no stored window."""

    def __init__(self, parameter: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.parameter = parameter
        self.status = status


# -- parameters


def parse_when(text: str, parameter: str, now: datetime) -> datetime:
    """An ISO date or date-time (UTC unless it says), Unix seconds, ``now`` or ``now-30m`` (s, m, h, d, w)."""
    from ...store.selector import parse_time

    value = text.strip()
    relative = _RELATIVE.match(value)
    if relative:
        amount, unit = relative.groups()
        return now - timedelta(**{_UNITS[unit]: float(amount)}) if amount else now
    try:
        return datetime(1970, 1, 1) + timedelta(seconds=float(value))
    except (ValueError, OverflowError):
        pass
    try:
        return parse_time(value)
    except ValueError:
        raise QueryError(
            parameter, f"{parameter}={text!r} is not a time (2026-11-01T12:00, Unix seconds, now or now-1h)"
        ) from None


def selector(params: Mapping[str, str], now: datetime, prefix: str = "") -> Selector:
    """The selector of ``{prefix}selector`` and the range ``{prefix}from``/``{prefix}until``."""
    from ...store import PREFIX, Selector, SelectorError, parse_selector

    name = f"{prefix}selector"
    text = params.get(name, "").strip()
    if text.startswith(PREFIX):
        text = text[len(PREFIX) :]
    try:
        chosen = parse_selector(PREFIX + text) if text else Selector()
    except SelectorError as exc:
        raise QueryError(name, str(exc)) from None
    bounds = {}
    for key, field in (("from", "since"), ("until", "until")):
        given = params.get(prefix + key, "").strip()
        if given:
            if getattr(chosen, field) is not None:
                raise QueryError(prefix + key, f"{prefix + key} and the selector's {field}= both bound the range: give one")
            bounds[field] = parse_when(given, prefix + key, now)
    if "since" in bounds and "until" in bounds and bounds["since"] > bounds["until"]:
        raise QueryError(prefix + "until", f"{prefix}until is before {prefix}from")
    return chosen.replace(**bounds) if bounds else chosen


def number(
    params: Mapping[str, str], name: str, default: Any, kind: type = int, low: float | None = None, high: float | None = None
) -> Any:
    """A numeric parameter (``kind``) within [low, high], or ``default`` when absent."""
    text = params.get(name)
    if text is None or text == "":
        return default
    try:
        value = kind(text)
    except ValueError:
        raise QueryError(name, f"{name}={text!r} is not a {'whole ' if kind is int else ''}number") from None
    if (low is not None and value < low) or (high is not None and value > high):
        raise QueryError(name, f"{name}={text} is out of range [{low}, {high}]")
    return value


def choice(params: Mapping[str, str], name: str, choices: tuple[str, ...] | list[str], default: str) -> str:
    value = params.get(name) or default
    if value not in choices:
        raise QueryError(name, f"{name}={value!r}: choose one of {', '.join(choices)}")
    return value


def flag(params: Mapping[str, str], name: str) -> bool:
    value = params.get(name, "").lower()
    if value not in ("", "0", "1", "true", "false"):
        raise QueryError(name, f"{name}={value!r}: give true or false")
    return value in ("1", "true")


def _ids(snapshot: Snapshot, chosen: Selector, parameter: str, empty_ok: bool = False) -> list[int]:
    """The ids a selector names; an empty match is a 404 (or [] where a list is asked for)."""
    from ...store import StoreError

    if not snapshot.count():
        if empty_ok:
            return []
        raise QueryError(parameter, f"the store {snapshot.root} holds no profile yet", 404)
    try:
        return snapshot.select(chosen)
    except StoreError as exc:
        if empty_ok and "matches no profile" in str(exc):
            return []
        raise QueryError(parameter, str(exc), 404) from None


# -- answers


def labels(snapshot: Snapshot, params: Mapping[str, str], now: datetime) -> dict[str, Any]:
    """The label names of the windows a selector names (all windows without one)."""
    ids = _ids(snapshot, selector(params, now), "selector", empty_ok=True)
    names = snapshot.label_names(ids) if ids else []
    return {"labels": [n for n in names if n not in WINDOW_LABELS]}


def label_values(snapshot: Snapshot, name: str, params: Mapping[str, str], now: datetime) -> dict[str, Any]:
    """The values of one label among the windows a selector names (a name no selector can
    name is a 400: the store binds it into a JSON path, where a trailing backslash is an error)."""
    from ...store.selector import is_key

    if not is_key(name):
        raise QueryError("name", f"label {name!r}: a label's name is letters, digits, '_', '-' and '.'")
    ids = _ids(snapshot, selector(params, now), "selector", empty_ok=True)
    return {"label": name, "values": snapshot.label_values(ids, name) if ids else []}


def windows(snapshot: Snapshot, params: Mapping[str, str], now: datetime) -> dict[str, Any]:
    """The windows a selector names, oldest first: id, time, time_end, unit, total, stacks, labels
    (the runs a comparison of this selector would test, and a timeline's points)."""
    limit = number(params, "limit", WINDOWS_LIMIT, int, 1, WINDOWS_LIMIT)
    ids = _ids(snapshot, selector(params, now), "selector", empty_ok=True)
    rows = snapshot.profiles(ids[-limit:]) if ids else []
    listed = [
        {
            "id": row["id"],
            "time": row["time"].isoformat(),
            "time_end": row["time_end"].isoformat(),
            "unit": row["unit"],
            "metric": row["metric"],
            "total": row["total"],
            "stacks": row["stacks"],
            "labels": row["labels"],
        }
        for row in rows
    ]
    return {"count": len(ids), "windows": listed}


def merge(snapshot: Snapshot, params: Mapping[str, str], now: datetime) -> tuple[str, str]:
    """(content type, body): the sum (``mean=true``: the mean) of the windows a selector names, as
    flamespace-json (every value and label exact), folded text, or ``html``'s interactive viewer
    (the page ``flamespace html`` writes, for the web UI)."""
    from ...formats import registry

    fmt = choice(params, "format", tuple(MERGE_FORMATS), "flamespace-json")
    mean = flag(params, "mean")
    ids = _ids(snapshot, selector(params, now), "selector")
    try:
        graph = snapshot.graph(ids, mean=mean)
    except FlamespaceError as exc:
        raise QueryError("selector", str(exc)) from None
    if fmt == "html":
        from ...render.html import HtmlOptions, html

        return MERGE_FORMATS[fmt], html(graph, HtmlOptions(title=_range_title(params, "Flame graph of", now)), None) or ""
    writer = registry.writer(fmt)
    out = io.StringIO()
    writer.dump(graph, out, writer.WriteOptions())
    return MERGE_FORMATS[fmt], out.getvalue()


def _range_title(params: Mapping[str, str], what: str, now: datetime) -> str:
    """A page's title: what, the selector and the range (UTC, to the second)."""
    chosen = params.get("selector", "").strip() or "every window"
    span = ""
    for key in ("from", "until"):
        given = params.get(key, "").strip()
        if given:
            span += f" {key} {parse_when(given, key, now).isoformat(sep=' ', timespec='seconds')}"
    return f"{what} {chosen}{span}{' UTC' if span else ''}"


def compare(store: Store, params: Mapping[str, str], now: datetime) -> dict[str, Any] | str:
    """``flamespace compare`` of two selectors and ranges (``baseline_*`` and ``candidate_*``),
    each window a run: the comparison as ``compare --json`` writes it, and the guard rails' findings;
    with ``format=html``, ``compare --html``'s page of it (a string); ``json-with-html``: both, from one
    comparison (``{"comparison": ..., "html": ...}``: the UI shows the table and the page of one test)."""
    from ...stats.report import as_dict

    fmt = choice(params, "format", COMPARE_FORMATS, "json")
    compared, findings = _compared(store, params, now)
    document = {**as_dict(compared.comparison), "findings": findings}
    if fmt == "json":
        return document
    from ...render.comparison_files import comparison_page

    page = comparison_page(compared.comparison, None, compared.samples) or ""
    return page if fmt == "html" else {"comparison": document, "html": page}


def _compared(store: Store, params: Mapping[str, str], now: datetime) -> tuple[Any, list[dict[str, str]]]:
    """The two sides compared (``workflows.samples.ComparedSides``) and the guard rails' findings."""
    from ...stats.comparison import ALTERNATIVES, METHODS, CompareOptions
    from ...workflows.samples import compare_sides

    sides = {}
    snapshot = store.snapshot()
    for side in ("baseline", "candidate"):
        chosen = selector(params, now, side + "_")
        _ids(snapshot, chosen, f"{side}_selector")  # a 404 naming the side, before the comparison reads
        sides[side] = [chosen.text() if chosen.text() != "store:" else "store:since=0001-01-01"]
    defaults = CompareOptions()
    normalize, normalize_load = flag(params, "normalize"), flag(params, "normalize_load")
    try:
        options = CompareOptions(
            method=choice(params, "method", METHODS, defaults.method),
            alpha=number(params, "alpha", defaults.alpha, float, 1e-9, 0.5),
            alternative=choice(params, "alternative", ALTERNATIVES, defaults.alternative),
            normalize=normalize,
            normalize_load=normalize_load,
        )
    except ArgumentError as exc:
        if isinstance(exc, QueryError):
            raise
        raise QueryError("normalize_load" if normalize and normalize_load else "method", str(exc)) from None
    findings: list[dict[str, str]] = []
    try:
        compared = compare_sides(
            sides,
            options,
            on_findings=lambda found: findings.extend({"level": f.level, "message": f.message} for f in found),
            store=store.path,
        )
    except FlamespaceError as exc:
        raise QueryError("baseline_selector", str(exc)) from None
    return compared, findings


def history(snapshot: Snapshot, params: Mapping[str, str], now: datetime) -> dict[str, Any] | str:
    """``flamespace history`` of the windows a selector names: each stack's series by ``by``
    (window, hour, day, commit) and its change points, as ``history --format json`` writes it
    (``format=svg``: ``history --svg``'s sparklines, a string)."""
    from ...stats import changepoint as cp
    from ...stats.history import BY, METRICS, TOP, analyse, load_reference, to_json

    fmt = choice(params, "format", HISTORY_FORMATS, "json")
    from ...store.history import history as series_of

    by = choice(params, "by", BY, "window")
    metric = choice(params, "metric", METRICS, "value")
    top = number(params, "top", TOP, int, 1, 1000)
    alpha = number(params, "alpha", cp.ALPHA, float, 1e-9, 0.5)
    pattern = params.get("stack") or None
    ids = _ids(snapshot, selector(params, now), "selector")
    try:
        series = series_of(snapshot, ids, by, pattern, top, load_stacks=load_reference(metric))
    except FlamespaceError as exc:
        raise QueryError("stack" if pattern and "matches" in str(exc) else "by", str(exc)) from None
    report = analyse(series, metric, alpha)
    if fmt == "svg":
        from ...render.sparkline import svg

        return svg(report) or ""
    return to_json(report)
