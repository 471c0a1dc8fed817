"""flamespace serve: a continuous-profiling server over the store (Pyroscope's ingest, a JSON query API)."""

from __future__ import annotations

from collections.abc import Sequence

from ..stats.history import METRICS
from ..workflows.serve import ALERT_EVERY, ALERT_METRIC, HOST, MAX_BODY, MAX_CONNECTIONS, MAX_DECOMPRESSED, PORT
from ..workflows.serve.ratelimit import INGEST_LIMIT, QUERY_LIMIT
from ._options import Command, Option
from .store import STORE_OPTION

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..workflows.serve.ratelimit import Limit


def run(
    store: str | None,
    host: str,
    port: int,
    max_body: int,
    watch: Sequence[str],
    alert_webhook: str | None,
    alert_every: float,
    alert_metric: str,
    token_file: str | None,
    ingest_limit: str,
    query_limit: str,
    max_connections: int,
) -> None:
    """Serve the profile store over HTTP: agents push profiles into it, and a JSON API queries it.

    Takes Pyroscope's push API (POST /push.v1.PusherService/Push: what the pyroscope-io
    client sends) and its older POST /ingest (pprof, folded); each pushed profile is stored as
    a window (its time range) with its labels, and acknowledged once it is on disk. The query
    API (GET /api/v1/labels, /windows, /merge, /compare, /history; described at /openapi.json)
    answers with the store's selectors and the same statistics as compare and history.
    Ctrl-C or SIGTERM stops it: requests under way finish and every accepted push is kept.
    With --token-file, pushing needs an ingest token and reading a read token (as
    'Authorization: Bearer TOKEN' or basic auth's password); each client is rate-limited.
    With --watch and --alert-webhook, a change point in a watched selector's windows (history's
    test, at family-wise α) is posted to the webhook as JSON: the stack, its size and when.
    Needs the extra: pip install 'flamespace[serve]'.

    \b
    Examples:
        flamespace serve --store /var/lib/flamespace --port 4040
        # a Python service: pyroscope.configure(application_name="api", server_address="http://127.0.0.1:4040")
        curl 'http://127.0.0.1:4040/api/v1/merge?selector=service_name=api&from=now-1h&format=folded'
        flamespace serve --watch service_name=api --alert-webhook https://hooks.example/T0/B0
        flamespace serve --host 0.0.0.0 --token-file /etc/flamespace/tokens   # lines: ingest TOKEN, read TOKEN
    """
    from ..workflows.serve import check_installed, serve
    from ..workflows.serve.tokens import read_token_file
    from ..store import resolve
    from ._report import UsageError, warn

    check_installed()
    if bool(watch) != bool(alert_webhook):
        raise UsageError("--watch and --alert-webhook go together: which selectors to watch, and where to post")
    limits = _limit("--ingest-limit", ingest_limit), _limit("--query-limit", query_limit)
    if token_file is not None:
        read_token_file(token_file)  # its errors before anything starts (the server reads it again)
    elif not is_loopback(host):
        warn(f"flamespace serve: warning: anyone who reaches {host}:{port} can push and read profiles; give --token-file")
    warn(f"flamespace serve: the store {resolve(store)} on http://{host}:{port} (Ctrl-C stops)")
    import signal

    stopped_by = serve(
        store,
        host,
        port,
        max_body << 20,
        watch,
        alert_webhook,
        alert_every,
        token_file,
        *limits,
        max_connections=max_connections,
        alert_metric=alert_metric,
    )
    why = f" by {signal.Signals(stopped_by).name}" if stopped_by else ""
    warn(f"flamespace serve: stopped{why}; every accepted push is stored")


def _limit(option: str, text: str) -> Limit | None:
    from ..workflows.serve.ratelimit import parse_limit
    from ._report import UsageError

    try:
        return parse_limit(text)
    except ValueError as exc:
        raise UsageError(f"{option}: {exc}") from None


def is_loopback(host: str) -> bool:
    """Whether ``host`` is an address only this machine reaches (localhost, 127.x, ::1)."""
    import ipaddress

    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


SPEC = Command(
    "serve",
    run,
    [],
    [
        STORE_OPTION,
        Option(("--host",), "host", "str", HOST, show_default=True, help="The address to listen on (0.0.0.0: every interface)."),
        Option(("--port",), "port", "int", PORT, minimum=0, maximum=65535, show_default=True, help="The port to listen on."),
        Option(
            ("--max-body",),
            "max_body",
            "int",
            MAX_BODY >> 20,
            minimum=1,
            metavar="MB",
            show_default=True,
            help=f"The largest request body taken, in MiB as sent (a gzipped body may decompress to {MAX_DECOMPRESSED >> 20} MiB at most).",
        ),
        Option(
            ("--max-connections",),
            "max_connections",
            "int",
            MAX_CONNECTIONS,
            minimum=2,
            metavar="N",
            show_default=True,
            help="The most connections open at once (the one asking counted); a request beyond gets 503 Service Unavailable.",
        ),
        Option(
            ("--watch",),
            "watch",
            "multiple",
            metavar="SELECTOR",
            help="Watch these windows (a selector, e.g. service_name=api) for change points; repeat for more. "
            "Needs --alert-webhook.",
        ),
        Option(
            ("--alert-webhook",),
            "alert_webhook",
            metavar="URL",
            help="Where a change point of a watched selector is posted (JSON).",
        ),
        Option(
            ("--alert-every",),
            "alert_every",
            "float",
            ALERT_EVERY,
            minimum=1,
            metavar="SECONDS",
            show_default=True,
            help="How often the watched selectors are checked (history over their latest hour of windows).",
        ),
        Option(
            ("--alert-metric",),
            "alert_metric",
            "choice",
            ALERT_METRIC,
            choices=METRICS,
            show_default=True,
            help="The series a change is looked for in (as history --metric): normalised, each window's values over "
            "its load (more requests, every stack up alike, are no alert; one stack grown barely moves the others); value "
            "(every change of load is one); share (one stack grown moves every other's share).",
        ),
        Option(
            ("--token-file",),
            "token_file",
            "path",
            None,
            exists=True,
            metavar="FILE",
            help="Who may push and read: lines 'ingest TOKEN' and 'read TOKEN' (several of each; # comments). "
            "The file must be readable by its owner only.",
        ),
        Option(
            ("--ingest-limit",),
            "ingest_limit",
            "str",
            INGEST_LIMIT.text(),
            metavar="RATE:BURST",
            show_default=True,
            help="Pushes a client (an address, with its token) may send: RATE a second, in bursts of BURST; off: no limit.",
        ),
        Option(
            ("--query-limit",),
            "query_limit",
            "str",
            QUERY_LIMIT.text(),
            metavar="RATE:BURST",
            show_default=True,
            help="Queries (API and UI) a client may send: RATE a second, in bursts of BURST; off: no limit.",
        ),
    ],
)
