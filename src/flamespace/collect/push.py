"""Pushing the agent's windows to a profile server, in the protocols Pyroscope accepts.

``connect`` (the default): one ``POST /push.v1.PusherService/Push`` per window, a Connect
unary call with an ``application/proto`` body, grafana/pyroscope's ``api/push/v1/push.proto``::

    PushRequest { repeated RawProfileSeries series = 1; }
    RawProfileSeries { repeated types.v1.LabelPair labels = 1; repeated RawSample samples = 2; }
    RawSample { bytes raw_profile = 1; string ID = 2; }
    LabelPair { string name = 1; string value = 2; }

Each label set of the window is one series (labels ``__name__`` = the profile type,
``service_name`` and the user's) holding one pprof profile; the body is gzipped
(``Content-Encoding: gzip``). That is what ``pyroscope-io`` 1.4 sends (checked by capturing
its pushes: the same labels, sample and period types), one request carries every label set of
a window, and labels travel as fields, so no character of a value needs escaping.

``ingest``: the older ``POST /ingest?name=APP{k=v,...}&from=&until=&format=pprof&spyName=
flamespace&sampleRate=`` with the gzipped pprof as the raw body, one request per label set:
for servers that predate the push API (Pyroscope before 1.0).

The standard library does the HTTP (:mod:`urllib.request`): no dependency. A request that
fails is a :class:`PushError`; ``permanent`` when the server refused the profile itself
(a 4xx other than 408 and 429), so the agent drops it instead of retrying it forever.
"""

from __future__ import annotations

import gzip
import uuid

from ..formats import pprof
from ..formats._protobuf import encode_bytes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from .._types import LabelSet
    from ..core.vector import FlameGraph

PROTOCOLS = ("connect", "ingest")
PUSH_PATH = "/push.v1.PusherService/Push"
INGEST_PATH = "/ingest"
SPY_NAME = "flamespace"
#: The environment variable an agent takes its token from when none is given.
TOKEN_ENV = "FLAMESPACE_TOKEN"


class PushError(Exception):
    """A push that failed; ``permanent``: the server refused it (retrying will not help)."""

    def __init__(self, message: str, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent


class Series:
    """One profile of a window: its full label set (Pyroscope's names included) and graph."""

    __slots__ = ("labels", "graph")

    def __init__(self, labels: LabelSet, graph: FlameGraph) -> None:
        self.labels, self.graph = labels, graph


class Request:
    """An HTTP request ready to send: path and query, headers, body."""

    __slots__ = ("target", "headers", "body")

    def __init__(self, target: str, headers: Mapping[str, str], body: bytes) -> None:
        self.target, self.headers, self.body = target, dict(headers), body


def profile_bytes(graph: FlameGraph, start_ns: int, end_ns: int, rate: float) -> bytes:
    """The pprof of one series, with the window's time, length and sampling period."""
    period = round(1e9 / rate) if graph.metadata.unit == "ns" else 1
    return pprof.encode(graph, time_ns=start_ns, duration_ns=max(end_ns - start_ns, 0), period=period)


def _gzip(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=6, mtime=0)


def connect_request(series: Sequence[Series], start_ns: int, end_ns: int, rate: float) -> Request:
    """The one Connect ``Push`` call of a window."""
    body = bytearray()
    for one in series:
        message = bytearray()
        for name, value in one.labels:
            pair = bytearray()
            encode_bytes(1, name.encode("utf-8"), pair)
            encode_bytes(2, value.encode("utf-8"), pair)
            encode_bytes(1, bytes(pair), message)
        sample = bytearray()
        encode_bytes(1, profile_bytes(one.graph, start_ns, end_ns, rate), sample)
        encode_bytes(2, str(uuid.uuid4()).encode("ascii"), sample)
        encode_bytes(2, bytes(sample), message)
        encode_bytes(1, bytes(message), body)
    headers = {"Content-Type": "application/proto", "Connect-Protocol-Version": "1", "Content-Encoding": "gzip"}
    return Request(PUSH_PATH, headers, _gzip(bytes(body)))


def ingest_requests(series: Sequence[Series], start_ns: int, end_ns: int, rate: float) -> list[Request]:
    """The ``/ingest`` calls of a window, one per label set."""
    from urllib.parse import urlencode

    requests = []
    for one in series:
        labels = dict(one.labels)
        service = labels.pop("service_name", SPY_NAME)
        labels.pop("__name__", None)
        name = service + "{" + ",".join(f"{key}={value}" for key, value in sorted(labels.items())) + "}"
        query = urlencode(
            {
                "name": name,
                "from": start_ns // 1_000_000_000,
                "until": max(end_ns // 1_000_000_000, start_ns // 1_000_000_000 + 1),
                "format": "pprof",
                "spyName": SPY_NAME,
                "sampleRate": f"{rate:g}",
            }
        )
        body = _gzip(profile_bytes(one.graph, start_ns, end_ns, rate))
        requests.append(Request(f"{INGEST_PATH}?{query}", {"Content-Type": "application/octet-stream"}, body))
    return requests


def requests_of(protocol: str, series: Sequence[Series], start_ns: int, end_ns: int, rate: float) -> list[Request]:
    """What pushing one window takes in ``protocol`` (one of :data:`PROTOCOLS`)."""
    if protocol == "connect":
        return [connect_request(series, start_ns, end_ns, rate)] if series else []
    return ingest_requests(series, start_ns, end_ns, rate)


def prepare() -> None:
    """Import what a push needs now, in the caller's thread: done lazily by the first push, these
    imports (urllib's with http.client and email: tens of ms of CPU) landed in the program's
    first window (bench_agent.py: +6% CPU over a 1 s run with a push each second)."""
    import urllib.request  # noqa: F401


def check_server(url: str) -> str:
    """``url`` without a trailing slash; ValueError naming what is wrong with it."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"the server must be an http:// or https:// URL, such as http://127.0.0.1:4040, not {url!r}")
    return url.rstrip("/")


def token_from_env() -> str | None:
    """The token in ``$FLAMESPACE_TOKEN`` (surrounding blanks removed), or None when unset or empty."""
    import os

    return os.environ.get(TOKEN_ENV, "").strip() or None


def send(server: str, request: Request, timeout: float, token: str | None = None) -> None:
    """POST ``request`` to ``server``; :class:`PushError` unless it answers 2xx. Credentials
    in the URL (``http://user:password@host``) go as HTTP basic auth, ``token`` as a Bearer header."""
    import base64
    import urllib.error
    import urllib.request
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(server)
    headers = dict(request.headers)
    netloc = parts.netloc
    if "@" in netloc:
        credentials, netloc = netloc.rsplit("@", 1)
        user, _, password = credentials.partition(":")
        pair = f"{unquote(user)}:{unquote(password)}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    url = f"{parts.scheme}://{netloc}{parts.path.rstrip('/')}{request.target}"
    http_request = urllib.request.Request(url, data=request.body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(http_request, timeout=timeout) as response:
            response.read()
    except urllib.error.HTTPError as exc:
        detail = _detail(exc)
        permanent = 400 <= exc.code < 500 and exc.code not in (408, 429)
        raise PushError(f"{url}: HTTP {exc.code} {exc.reason}{detail}", permanent) from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise PushError(f"{url}: {reason}") from None


def _detail(exc: object) -> str:
    try:
        text = exc.read(300).decode("utf-8", "replace").strip()  # type: ignore[attr-defined]  # an HTTPError is a response
    except Exception:
        return ""
    return f" ({' '.join(text.split())})" if text else ""


__all__ = [
    "PROTOCOLS",
    "PushError",
    "Request",
    "Series",
    "TOKEN_ENV",
    "check_server",
    "connect_request",
    "ingest_requests",
    "requests_of",
    "send",
    "token_from_env",
]
