"""What agents push, read into profiles with their labels and windows: nothing here knows HTTP.

Two protocols, both Pyroscope's, so that unmodified agents push into ``flamespace serve``:

- the push API, ``push.v1.PusherService/Push`` (Connect, unary): a ``PushRequest`` as protobuf
  (``application/proto``) or proto3 JSON (``application/json``); each series has labels and
  samples, each sample's ``raw_profile`` a pprof profile, gzipped or plain. What the
  ``pyroscope-io`` Python package (1.x) sends. Decoded by hand with the pprof reader's wire decoder
  (grafana/pyroscope ``api/push/v1/push.proto`` and ``api/types/v1/types.proto``:
  PushRequest.series = 1; RawProfileSeries.labels = 1, .samples = 2; LabelPair.name = 1, .value = 2;
  RawSample.raw_profile = 1, .ID = 2).
- the older ``/ingest?name=APP{k=v,...}&from=&until=&format=&spyName=&sampleRate=``: one profile
  in the body (pprof raw or as the multipart field ``profile``; folded text; ``lines``, one stack a
  line).

Every profile is read by the project's readers before anything is stored: a bad one is an
:class:`IngestError` (the request's 400) naming what was wrong, and the push stores nothing.
"""

from __future__ import annotations

import base64
import io
import json
from datetime import datetime, timedelta, timezone

from ..._record import Record, record
from ...errors import InputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ...core.vector import FlameGraph

#: The label a profile's service is kept under (Pyroscope's name for it).
SERVICE = "service_name"
#: The formats ``/ingest`` takes, and the reader each is read with.
INGEST_FORMATS = {"pprof": "pprof", "folded": "folded", "lines": "folded"}
#: Formats Pyroscope's ``/ingest`` knows that are refused here (415), by name.
REFUSED_FORMATS = ("trie", "tree", "jfr", "speedscope")
#: The push API's content types: protobuf and proto3 JSON.
PROTO, JSON = "application/proto", "application/json"
#: How long a window is when neither the request nor the profile says (Pyroscope agents push every 10 s).
DEFAULT_WINDOW = timedelta(seconds=10)


class IngestError(InputError):
    """A push that cannot be stored; ``status`` is the HTTP status that says why (400, 413, 415)."""

    def __init__(self, message: str, status: int = 400, parameter: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.parameter = parameter


@record
class Pushed(Record):
    """One profile of a push: the flame graph, its labels (its window as ``time`` and ``time_end``
    among them) and a name for messages."""

    graph: FlameGraph
    labels: Mapping[str, str]
    source: str


# -- the push API


def push_request(body: bytes, content_type: str, now: datetime) -> list[Pushed]:
    """The profiles of a ``PushRequest`` (``body`` already un-gzipped), each series' labels on
    each of its samples; :class:`IngestError` naming the series and sample that is bad."""
    kind = content_type.split(";")[0].strip().lower()
    if kind == PROTO:
        series = _proto_series(body)
    elif kind == JSON:
        series = _json_series(body)
    else:
        raise IngestError(f"content type {content_type or 'none'!r}: the push API takes {PROTO} or {JSON}", 415)
    pushed = []
    for s, (labels, samples) in enumerate(series):
        for k, raw in enumerate(samples):
            pushed += read_pprof(raw, labels, f"series {s} sample {k}", now)
    if not pushed:
        raise IngestError("the push holds no profile (no series with samples)")
    return pushed


def _proto_series(body: bytes) -> list[tuple[dict[str, str], list[bytes]]]:
    from ...formats._protobuf import BYTES, WireError, fields

    series: list[tuple[dict[str, str], list[bytes]]] = []
    try:
        for number, wire, start, end in fields(body, 0, len(body)):
            if number != 1 or wire != BYTES:
                continue
            labels: dict[str, str] = {}
            samples: list[bytes] = []
            for field, kind, value, stop in fields(body, start, end):
                if field == 1 and kind == BYTES:
                    pair = _strings(body, value, stop)
                    _label(labels, pair.get(1, ""), pair.get(2, ""), len(series))
                elif field == 2 and kind == BYTES:
                    for inner, inner_kind, at, until in fields(body, value, stop):
                        if inner == 1 and inner_kind == BYTES:
                            samples.append(body[at:until])
            series.append((labels, samples))
    except WireError as exc:
        raise IngestError(f"not a PushRequest: {exc} at byte {exc.offset}") from None
    return series


def _strings(body: bytes, start: int, end: int) -> dict[int, str]:
    """The string fields of a small message (a LabelPair) by number."""
    from ...formats._protobuf import BYTES, fields

    found = {}
    for number, wire, at, stop in fields(body, start, end):
        if wire == BYTES:
            try:
                found[number] = body[at:stop].decode("utf-8")
            except UnicodeDecodeError:
                raise IngestError(f"a label is not UTF-8 text (byte {at})") from None
    return found


def _json_series(body: bytes) -> list[tuple[dict[str, str], list[bytes]]]:
    """proto3 JSON: ``{"series": [{"labels": [{"name", "value"}], "samples": [{"rawProfile": base64}]}]}``
    (the field's proto name ``raw_profile`` is taken too, as proto3 JSON readers must)."""
    try:
        document = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise IngestError(f"not JSON: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("series", []), list):
        raise IngestError('not a PushRequest: expected {"series": [...]}')
    series = []
    for s, entry in enumerate(document.get("series", [])):
        if not isinstance(entry, dict):
            raise IngestError(f"series {s} is not an object")
        labels: dict[str, str] = {}
        for pair in entry.get("labels") or []:
            if not isinstance(pair, dict):
                raise IngestError(f"series {s}: a label is not an object with name and value")
            _label(labels, pair.get("name", ""), pair.get("value", ""), s)
        samples = []
        for k, sample in enumerate(entry.get("samples") or []):
            raw = sample.get("rawProfile", sample.get("raw_profile")) if isinstance(sample, dict) else None
            try:
                samples.append(base64.b64decode(raw or "", validate=True))
            except (ValueError, TypeError):
                raise IngestError(f"series {s} sample {k}: rawProfile is not base64") from None
        series.append((labels, samples))
    return series


def _label(labels: dict[str, str], name: object, value: object, series: int) -> None:
    if not isinstance(name, str) or not isinstance(value, str):
        raise IngestError(f"series {series}: a label's name and value must be strings")
    check_label(name, value)
    labels[name] = value


# -- /ingest


def parse_name(name: str) -> dict[str, str]:
    """``APP{k=v,...}`` (Pyroscope's ``name`` parameter) as labels: ``service_name`` APP and each pair."""
    app, brace, rest = name.partition("{")
    app = app.strip()
    if not app:
        raise IngestError(f"name {name!r}: give the application's name, e.g. name=myapp{{region=eu}}", parameter="name")
    labels = {SERVICE: app}
    if brace:
        if not rest.endswith("}"):
            raise IngestError(f"name {name!r}: the labels must end with '}}'", parameter="name")
        for pair in filter(None, (p.strip() for p in rest[:-1].split(","))):
            key, equals, value = pair.partition("=")
            if not equals:
                raise IngestError(f"name {name!r}: {pair!r} is not key=value", parameter="name")
            check_label(key.strip(), value.strip(), "name")
            labels[key.strip()] = value.strip()
    return labels


def ingest_request(
    body: bytes, params: Mapping[str, str], profile_field: bytes | None, now: datetime, multipart: bool = False
) -> list[Pushed]:
    """The profiles of an ``/ingest`` request (one, or a pprof profile's samples split by their
    sample labels): ``params`` its query, ``body`` the raw body, or ``profile_field`` the multipart
    field ``profile``. The window is ``from``/``until`` (Unix seconds), else the profile's own,
    else the :data:`DEFAULT_WINDOW` up to ``now``."""
    labels = parse_name(params.get("name", ""))
    fmt = params.get("format") or ("pprof" if multipart else "folded")
    if fmt in REFUSED_FORMATS or fmt not in INGEST_FORMATS:
        accepted = ", ".join(INGEST_FORMATS)
        raise IngestError(f"format={fmt}: not taken here; send one of {accepted} (pprof: raw or multipart field 'profile')", 415)
    data = profile_field if profile_field is not None else body
    if multipart and profile_field is None:
        raise IngestError("the multipart body has no field 'profile'", parameter="profile")
    if fmt == "lines":
        data = _lines_as_folded(data)
    for param, label in (("spyName", "pyroscope.spy"), ("sampleRate", "pyroscope.sample_rate"), ("units", "pyroscope.units")):
        if params.get(param):
            check_label(label, params[param], param)
            labels[label] = params[param]
    window = _given_window(_unix(params, "from"), _unix(params, "until"))
    if fmt == "pprof":
        return [
            Pushed(one.graph, {**one.labels, **window} if window else one.labels, labels[SERVICE])
            for one in read_pprof(data, labels, "the profile", now)
        ]
    graph = read_profile(data, INGEST_FORMATS[fmt], "the profile")
    return [Pushed(graph, {**labels, **(window or _window(0, 0, now))}, labels[SERVICE])]


def _given_window(start: datetime | None, end: datetime | None) -> dict[str, str] | None:
    """The window ``from`` and ``until`` give (one of them: a :data:`DEFAULT_WINDOW` from or to it), or None."""
    if start is not None and end is not None:
        if end < start:
            raise IngestError("until is before from", parameter="until")
        return {"time": _iso(start), "time_end": _iso(end)}
    if start is not None:
        return {"time": _iso(start), "time_end": _iso(start + DEFAULT_WINDOW)}
    if end is not None:
        return {"time": _iso(end - DEFAULT_WINDOW), "time_end": _iso(end)}
    return None


def _lines_as_folded(data: bytes) -> bytes:
    """Pyroscope's ``lines`` format (a stack a line, each line one sample) as folded text."""
    from collections import Counter

    counts = Counter(line for line in data.splitlines() if line.strip())
    return b"".join(b"%s %d\n" % (line, n) for line, n in counts.items())


def _unix(params: Mapping[str, str], key: str) -> datetime | None:
    text = params.get(key)
    if not text:
        return None
    try:
        seconds = float(text)
        return datetime(1970, 1, 1) + timedelta(seconds=seconds)
    except (ValueError, OverflowError):
        raise IngestError(f"{key}={text!r} is not a Unix time in seconds", parameter=key) from None


# -- shared


def check_label(name: str, value: str, parameter: str | None = None) -> None:
    """A label a store selector can name: a key of letters, digits, '_', '-', '.', and a value
    without ',' or '=' (a selector's separators)."""
    from ...store.selector import is_key

    if not is_key(name):
        raise IngestError(f"label {name!r}: a label's name is letters, digits, '_', '-' and '.'", parameter=parameter)
    if "," in value or "=" in value:
        raise IngestError(
            f"label {name}={value!r}: a value cannot hold ',' or '=' (selectors could not name it)", parameter=parameter
        )


def read_profile(data: bytes, fmt: str, where: str) -> FlameGraph:
    """A profile read by its reader (gzip undone, within the readers' limits); :class:`IngestError`
    with the reader's message."""
    from ...errors import FlamespaceError
    from ...formats import folded, registry

    stream = io.BytesIO(data)
    stream.name = where  # the readers name their source by it
    try:
        return registry.read_graph(stream, fmt)
    except folded.DifferentialInput:
        raise IngestError(f"{where}: a differential profile (two counts a line) is no window of a running program") from None
    except FlamespaceError as exc:
        raise IngestError(str(exc)) from None


def read_pprof(raw: bytes, labels: Mapping[str, str], where: str, now: datetime) -> list[Pushed]:
    """The windows of one pushed pprof profile (gzipped or plain, within the readers' limits): one
    for its samples without sample labels, and one for each distinct set of sample labels, with
    ``labels`` (the series' or the request's) and those (a sample's label wins over the series' of
    that name; ``time`` and ``time_end`` are the window's, not a sample's). Its window is pprof's
    ``time_nanos`` and ``duration_nanos``, else the :data:`DEFAULT_WINDOW` up to ``now``."""
    from ...errors import FlamespaceError
    from ...formats import pprof
    from ...formats._io import open_binary

    stream = io.BytesIO(raw)
    stream.name = where  # the readers name their source by it
    try:
        with open_binary(stream) as (plain, name):
            read = pprof.read_labelled(plain.read(), source=name)
    except FlamespaceError as exc:
        raise IngestError(str(exc)) from None
    window = _window(read.time_ns, read.duration_ns, now)
    pushed = []
    for sample_labels, graph in read.parts:
        for key, value in sample_labels.items():
            if key in window:
                raise IngestError(f"{where}: the sample label {key!r} is the window's own label; name it otherwise")
            try:
                check_label(key, value)
            except IngestError as exc:
                raise IngestError(f"{where}: sample {exc}") from None
        pushed.append(Pushed(graph, {**labels, **sample_labels, **window}, where))
    return pushed


def _window(start_ns: int, length_ns: int, now: datetime) -> dict[str, str]:
    """``time`` and ``time_end`` of a window that starts at ``start_ns`` (Unix nanoseconds) and lasts
    ``length_ns``; the :data:`DEFAULT_WINDOW` when the length is not positive, and one that ends
    ``now`` when the start is not."""
    length = timedelta(microseconds=length_ns // 1000) if length_ns > 0 else DEFAULT_WINDOW
    start = datetime(1970, 1, 1) + timedelta(microseconds=start_ns // 1000) if start_ns > 0 else now - length
    return {"time": _iso(start), "time_end": _iso(start + length)}


def _iso(when: datetime) -> str:
    """A naive UTC time as the store's time labels hold it."""
    return when.isoformat(timespec="microseconds")


def utc_now() -> datetime:
    """Now, as a naive UTC datetime (the store's times)."""
    return datetime.now(timezone.utc).replace(tzinfo=None)
