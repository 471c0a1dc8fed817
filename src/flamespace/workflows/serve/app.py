"""The HTTP application of ``flamespace serve``: Pyroscope's ingest endpoints and the query API, over one store.

Starlette (an ASGI application; uvicorn runs it: :func:`.run`). The handlers only move bytes:
what a push holds is read by :mod:`.ingest`, stored by the :class:`.writer.Writer` (acknowledged
once durable), and every query is answered by :mod:`.query` on a snapshot of the store. The
server keeps no state of its own beyond the writer's queue, so several servers can share a store
(the store's lock orders their writes).
"""

from __future__ import annotations

import asyncio
import json
import threading
import zlib

from . import API, MAX_BODY, MAX_DECOMPRESSED, PUSH_PATH
from .ingest import IngestError, ingest_request, push_request, utc_now
from .query import QueryError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import AsyncIterator, Awaitable, Callable

    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

    from ...store import Snapshot, Store
    from .alerts import Watcher
    from .guard import Guard


class Server:
    """What the handlers share: the store (one :class:`Store` for queries, one for the writer, so
    their caches do not meet), the writer, and the limits."""

    def __init__(self, store_path: str, max_body: int = MAX_BODY, watcher: Watcher | None = None) -> None:
        from ...store import open_store

        self.path = store_path
        self.store: Store = open_store(store_path)
        self.max_body = max_body
        self.watcher = watcher
        self.writer: Any = None
        self._snapshot: tuple[int, Snapshot] | None = None
        self._query_lock = threading.Lock()  # a snapshot's DuckDB connection serves one query at a time

    def start(self) -> None:
        from ...store import open_store
        from .writer import Writer

        self.writer = Writer(open_store(self.path))
        if self.watcher is not None:
            self.watcher.start()

    def stop(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
        if self.writer is not None:
            self.writer.close()

    def snapshot(self) -> Snapshot:
        """The store as it is now: the previous snapshot while the manifest is the same generation
        (parts are immutable, so its checks still hold), a new one when a push or gc changed it."""
        from ...store.store import read_manifest

        generation = int(read_manifest(self.path).get("generation", 0))
        if self._snapshot is None or self._snapshot[0] != generation:
            self._snapshot = (generation, self.store.snapshot())
        return self._snapshot[1]

    def query(self, answer: Callable[[Snapshot], Any]) -> Any:
        """``answer`` on the current snapshot, one query at a time."""
        with self._query_lock:
            return answer(self.snapshot())


def create_app(
    store_path: str, max_body: int = MAX_BODY, watcher: Watcher | None = None, guard: Guard | None = None
) -> Starlette:
    """The ASGI application serving the store at ``store_path`` (``watcher``: alerts, started and
    stopped with it; ``guard``: tokens and rate limits, asked before any route)."""
    import contextlib

    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.routing import Route

    from .guard import GuardMiddleware

    server = Server(store_path, max_body, watcher)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        server.start()
        try:
            yield
        finally:
            await asyncio.to_thread(server.stop)  # every accepted push stored before the process ends

    def route(path: str, handler: Callable[[Server, Request], Awaitable[Response]], methods: list[str]) -> Route:
        async def endpoint(request: Request) -> Response:
            return await handler(server, request)

        return Route(path, endpoint, methods=methods)

    routes = [
        route(PUSH_PATH, push, ["POST"]),
        route("/ingest", ingest, ["POST"]),
        route(f"{API}/labels", labels, ["GET"]),
        route(f"{API}/labels/{{name}}/values", label_values, ["GET"]),
        route(f"{API}/windows", windows, ["GET"]),
        route(f"{API}/merge", merge, ["GET"]),
        route(f"{API}/compare", compare, ["GET"]),
        route(f"{API}/history", history, ["GET"]),
        route("/openapi.json", openapi, ["GET"]),
        route("/healthz", health, ["GET"]),
        route("/", index, ["GET"]),
    ]
    middleware = [Middleware(GuardMiddleware, guard=guard)] if guard is not None else []
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware)
    app.state.server = server
    return app


# -- helpers


def _json(data: Any, status: int = 200) -> Response:
    from starlette.responses import Response

    try:
        text = json.dumps(data, ensure_ascii=False, allow_nan=False)
    except ValueError:  # an infinite or undefined number: null, as JSON has none
        text = json.dumps(_finite(data), ensure_ascii=False, allow_nan=False)
    return Response(text, status, media_type="application/json")


def _finite(data: Any) -> Any:
    """``data`` with every non-finite float as None."""
    import math

    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: _finite(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_finite(v) for v in data]
    return data


def _error(status: int, message: str, parameter: str | None = None) -> Response:
    """The API's error: ``{"error": message, "parameter": name}`` (parameter only when one is to blame)."""
    return _json({"error": message, **({"parameter": parameter} if parameter else {})}, status)


async def _body(server: Server, request: Request) -> bytes:
    """The request's body, bounded as sent and as decompressed (``Content-Encoding: gzip``)."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > server.max_body:
        raise IngestError(f"the body has {int(declared):,} bytes; this server takes at most {server.max_body:,}", 413)
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > server.max_body:
            raise IngestError(f"the body has more than {server.max_body:,} bytes, the most this server takes", 413)
        chunks.append(chunk)
    body = b"".join(chunks)
    encoding = request.headers.get("content-encoding", "identity").strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding != "gzip":
        raise IngestError(f"Content-Encoding {encoding}: send gzip or none", 415)
    return gunzip(body, MAX_DECOMPRESSED)


def gunzip(body: bytes, limit: int) -> bytes:
    """A gzip body un-gzipped, :class:`IngestError` if damaged or larger than ``limit``."""
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflate.decompress(body, limit + 1)
    except zlib.error as exc:
        raise IngestError(f"the body is not valid gzip: {exc}") from None
    if len(out) > limit or inflate.unconsumed_tail:
        raise IngestError(f"the body decompresses to more than {limit:,} bytes, the most this server takes", 413)
    if not inflate.eof:
        raise IngestError("the body is not valid gzip: it ends early (truncated?)")
    return out


class NotStored(Exception):
    """A push the writer could not store (the server is stopping, a full disk): nothing of it is stored."""


async def _store(server: Server, pushed: list[Any]) -> list[int]:
    """Hand the profiles to the writer and wait until they are durably stored; their ids."""
    from ...errors import FlamespaceError

    try:
        return await asyncio.wrap_future(server.writer.submit(pushed))
    except (OSError, RuntimeError, FlamespaceError) as exc:
        raise NotStored(f"the push was not stored: {exc}") from None


def _multipart_field(body: bytes, content_type: str, field: str) -> bytes | None:
    """The bytes of one field of a multipart/form-data body (the standard library's MIME parser)."""
    from email.parser import BytesParser
    from email.policy import HTTP

    message = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body)
    if not message.is_multipart():
        raise IngestError("the multipart body cannot be read (no boundary?)")
    for part in message.iter_parts():
        if part.get_param("name", header="content-disposition") == field:
            payload = part.get_payload(decode=True)
            return payload if isinstance(payload, bytes) else b""
    return None


# -- ingest


async def push(server: Server, request: Request) -> Response:
    """Pyroscope's push API (Connect, unary): errors as Connect's JSON ``{"code", "message"}``."""
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import Response

    content_type = request.headers.get("content-type", "")
    try:
        body = await _body(server, request)
        pushed = await run_in_threadpool(push_request, body, content_type, utc_now())
        await _store(server, pushed)
    except IngestError as exc:
        code = {413: "resource_exhausted", 415: "invalid_argument"}.get(exc.status, "invalid_argument")
        return _json({"code": code, "message": str(exc)}, exc.status)
    except NotStored as exc:
        return _json({"code": "unavailable", "message": str(exc)}, 503)
    if content_type.split(";")[0].strip().lower() == "application/json":
        return Response(b"{}", media_type="application/json")
    return Response(b"", media_type="application/proto")  # an empty PushResponse


async def ingest(server: Server, request: Request) -> Response:
    """Pyroscope's ``/ingest``: one profile, its name and window in the query."""
    from starlette.concurrency import run_in_threadpool

    params = dict(request.query_params)
    content_type = request.headers.get("content-type", "")
    try:
        body = await _body(server, request)
        multipart = content_type.lower().startswith("multipart/form-data")
        field = _multipart_field(body, content_type, "profile") if multipart else None
        pushed = await run_in_threadpool(ingest_request, body, params, field, utc_now(), multipart)
        ids = await _store(server, pushed)
    except IngestError as exc:
        return _error(exc.status, str(exc), exc.parameter)
    except NotStored as exc:
        return _error(503, str(exc))
    return _json({"stored": ids})


# -- queries


async def _answer(server: Server, request: Request, answer: Callable[..., Any]) -> Any:
    """``answer(snapshot, params, now)`` in a worker thread; a :class:`QueryError` as the API's 400/404."""
    from starlette.concurrency import run_in_threadpool

    params = dict(request.query_params)
    now = utc_now()
    return await run_in_threadpool(server.query, lambda snapshot: answer(snapshot, params, now))


def _document(result: Any, media: str) -> Response:
    """A query's answer: JSON, or a page (a string: ``media``) where the request asked for one."""
    from starlette.responses import Response

    return Response(result, media_type=media) if isinstance(result, str) else _json(result)


def _query_handler(
    answer: Callable[..., Any], media: str = "application/json"
) -> Callable[[Server, Request], Awaitable[Response]]:
    async def handler(server: Server, request: Request) -> Response:
        try:
            return _document(await _answer(server, request, answer), media)
        except QueryError as exc:
            return _error(exc.status, str(exc), exc.parameter)

    return handler


def _labels(snapshot: Snapshot, params: Any, now: Any) -> Any:
    from . import query

    return query.labels(snapshot, params, now)


def _windows(snapshot: Snapshot, params: Any, now: Any) -> Any:
    from . import query

    return query.windows(snapshot, params, now)


def _history(snapshot: Snapshot, params: Any, now: Any) -> Any:
    from . import query

    return query.history(snapshot, params, now)


labels = _query_handler(_labels)
windows = _query_handler(_windows)
history = _query_handler(_history, "image/svg+xml; charset=utf-8")


async def label_values(server: Server, request: Request) -> Response:
    from . import query

    name = request.path_params["name"]
    try:
        return _json(await _answer(server, request, lambda s, p, n: query.label_values(s, name, p, n)))
    except QueryError as exc:
        return _error(exc.status, str(exc), exc.parameter)


async def merge(server: Server, request: Request) -> Response:
    from starlette.responses import Response

    from . import query

    try:
        media, text = await _answer(server, request, query.merge)
    except QueryError as exc:
        return _error(exc.status, str(exc), exc.parameter)
    return Response(text, media_type=media)


async def compare(server: Server, request: Request) -> Response:
    """A comparison reads both sides itself (its own snapshot); it runs in a worker thread."""
    from starlette.concurrency import run_in_threadpool

    from . import query

    params = dict(request.query_params)
    try:
        result = await run_in_threadpool(query.compare, server.store, params, utc_now())
    except QueryError as exc:
        return _error(exc.status, str(exc), exc.parameter)
    return _document(result, "text/html; charset=utf-8")


async def openapi(server: Server, request: Request) -> Response:
    from .openapi import document

    return _json(document())


async def health(server: Server, request: Request) -> Response:
    """Open to anyone (load balancers): it names nothing of the store (``/`` does, to readers)."""
    return _json({"status": "ok"})


async def index(server: Server, request: Request) -> Response:
    """The web UI (:mod:`.ui`); ``Accept: application/json`` gets what the server is, as before."""
    from starlette.responses import HTMLResponse

    from .ui import page

    if "application/json" in request.headers.get("accept", "") and "text/html" not in request.headers.get("accept", ""):
        return _json({"service": "flamespace serve", "store": server.path, "api": API, "openapi": "/openapi.json"})
    return HTMLResponse(page(), headers={"Cache-Control": "no-cache"})
