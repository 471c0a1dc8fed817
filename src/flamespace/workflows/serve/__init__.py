"""``flamespace serve``: a continuous-profiling server over the profile store.

Agents push (Pyroscope's push API and ``/ingest``: :mod:`.ingest`), the server stores each pushed
profile as a window with its labels (:mod:`.writer`: acknowledged once durable), and a JSON query
API answers with the store's own operations (:mod:`.query`; described at ``/openapi.json``:
:mod:`.openapi`). Needs the extra ``flamespace[serve]`` (Starlette, uvicorn, and the store's
DuckDB and pyarrow); nothing here imports them until the server is made.

    from flamespace.workflows.serve import create_app, serve
    serve(store=".flamespace/store", host="127.0.0.1", port=4040)   # until Ctrl-C or SIGTERM
"""

from __future__ import annotations

import time

from ...errors import FlamespaceError
from .ratelimit import INGEST_LIMIT, QUERY_LIMIT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable
    from collections.abc import Sequence

    from .ratelimit import Limit

#: What to install for the server.
EXTRA = "flamespace[serve]"
#: Where it listens unless told.
HOST, PORT = "127.0.0.1", 4040
#: Where the push API is (Connect's path for the unary method Push of push.v1.PusherService).
PUSH_PATH = "/push.v1.PusherService/Push"
#: The query API's prefix: its URLs are stable, the UI and scripts build on them.
API = "/api/v1"
#: The largest request body taken, as sent (compressed or not): a 10 s profile of a big service
#: is a few hundred kB of gzipped pprof.
MAX_BODY = 16 << 20
#: The most a gzipped body may decompress to.
MAX_DECOMPRESSED = 256 << 20
#: How often the watched selectors are checked for alerts, in seconds.
ALERT_EVERY = 60.0
#: The series alerts look for changes in (``history --metric``): each window's values over its load,
#: so that more requests (every stack up alike) are not an alert, nor the shares one grown stack moves.
ALERT_METRIC = "normalised"
#: How long a stop waits for requests under way (their pushes are stored) before it ends them.
GRACE_SECONDS = 30
#: The most connections open at once (the one asking counted): beyond, a request gets 503 at once.
#: A flood of idle connections must not exhaust the process's file descriptors (often 1,024),
#: which the store needs too; agents connect only to push (every 10 s, for tens of ms).
MAX_CONNECTIONS = 512


class ServeError(FlamespaceError):
    """The server cannot start: a missing extra."""


def check_installed() -> None:
    """:class:`ServeError` naming the extra when Starlette, uvicorn or the store's modules are missing."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise ServeError(f"flamespace serve needs {exc.name}: pip install '{EXTRA}'") from None
    from ...store._deps import modules

    modules()


def create_app(
    store: str | None = None,
    max_body: int | None = None,
    watch: Sequence[str] = (),
    alert_webhook: str | None = None,
    alert_every: float | None = None,
    token_file: str | None = None,
    ingest_limit: Limit | None = INGEST_LIMIT,
    query_limit: Limit | None = QUERY_LIMIT,
    clock: Callable[[], float] | None = None,
    alert_metric: str = ALERT_METRIC,
) -> Any:
    """The ASGI application (Starlette) serving the store at ``store`` (default: $FLAMESPACE_STORE,
    else .flamespace/store). With ``watch`` (selectors) and ``alert_webhook`` (a URL), a change point
    of a watched stack is posted there (:mod:`.alerts`), checked every ``alert_every`` seconds in
    ``alert_metric``'s series (``history --metric``).
    ``token_file``: who may push and read (:mod:`.tokens`; read again when it changes; None: anyone
    who reaches the port);
    ``ingest_limit``, ``query_limit``: each client's rate limits (:mod:`.ratelimit`; None: none);
    ``clock``: the limits' seconds (tests)."""
    from ...errors import ArgumentError
    from ...store import open_store, resolve
    from .app import create_app as make
    from .guard import Guard
    from .tokens import TokenFile

    check_installed()
    watcher = None
    if bool(watch) != bool(alert_webhook):
        raise ArgumentError("--watch and --alert-webhook go together: which selectors to watch, and where to post")
    if watch and alert_webhook:
        from .alerts import Watcher

        watcher = Watcher(open_store(resolve(store)), watch, alert_webhook, alert_every or ALERT_EVERY, metric=alert_metric)
    clock = clock or time.monotonic
    tokens = TokenFile(token_file, clock) if token_file is not None else None
    guard = Guard(tokens, ingest_limit, query_limit, clock)
    return make(resolve(store), max_body or MAX_BODY, watcher, guard)


def serve(
    store: str | None = None,
    host: str = HOST,
    port: int = PORT,
    max_body: int | None = None,
    watch: Sequence[str] = (),
    alert_webhook: str | None = None,
    alert_every: float | None = None,
    token_file: str | None = None,
    ingest_limit: Limit | None = INGEST_LIMIT,
    query_limit: Limit | None = QUERY_LIMIT,
    max_connections: int = MAX_CONNECTIONS,
    alert_metric: str = ALERT_METRIC,
) -> int | None:
    """Serve until Ctrl-C or SIGTERM: then stop taking connections, let the requests under way
    finish (up to :data:`GRACE_SECONDS`), store every push already accepted, and return the
    signal that stopped it (None if it stopped otherwise). A second Ctrl-C ends the requests under way.
    ``watch``, ``alert_webhook``, ``alert_every``, ``alert_metric``: alerts; ``token_file``, ``ingest_limit``,
    ``query_limit``: who may push and read, and how often; as :func:`create_app` takes them.
    ``max_connections``: the most connections open at once; a request beyond gets 503."""
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, but a stop signal it has handled is not raised again once it has
        stopped (uvicorn does, so that the process dies by it): the stop was asked for and done."""

        stopped_by: int | None = None

        def handle_exit(self, sig: int, frame: Any) -> None:
            super().handle_exit(sig, frame)
            self.stopped_by = self.stopped_by or sig
            captured = getattr(self, "_captured_signals", None)
            if isinstance(captured, list):
                captured.clear()

    app = create_app(
        store, max_body, watch, alert_webhook, alert_every, token_file, ingest_limit, query_limit, alert_metric=alert_metric
    )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=GRACE_SECONDS,
        access_log=False,
        limit_concurrency=max_connections,
    )
    server = Server(config)
    try:
        server.run()
    except SystemExit:  # uvicorn exits when it cannot listen (it logged why)
        server.started = False
    if not server.started:
        raise ServeError(f"could not listen on {host}:{port} (taken by another process, or not an address of this machine)")
    return server.stopped_by
