"""flamespace agent: run a Python program and push its profile to a server every window."""

from __future__ import annotations

from .._record import defaults
from ..collect.options import MODES
from ..collect.push import PROTOCOLS
from ._options import Argument, Command, Option
from ._report import warn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..collect.agent import AgentStats


def _defaults() -> dict[str, object]:
    """AgentOptions' defaults: the options' own (one place for each)."""
    from ..collect.agent import AgentOptions

    return defaults(AgentOptions)


def run(
    server: str,
    label: tuple[str, ...],
    window: float,
    rate: float,
    mode: str,
    protocol: str,
    queue: int,
    token_file: str | None,
    module: str | None,
    code: str | None,
    quiet: bool,
    command: tuple[str, ...],
) -> int:
    """Run a Python program and push its profile to a server every window.

    The program (a script, -m MODULE or -c CODE, with its arguments) runs in this interpreter
    as under python; a sampler records it continuously and every --window seconds the samples
    of that window become one profile per label set (`flamespace.agent.labels` in the program
    adds labels to a block), pushed to a Pyroscope-compatible server: `flamespace serve` or
    Grafana Pyroscope. While the server is down, the last --queue windows are kept (older ones
    are dropped and counted); Ctrl-C and SIGTERM push the last window before the program ends.

    \b
    Examples:
        flamespace agent --server http://127.0.0.1:4040 -- app.py --port 8000
        flamespace agent --server http://127.0.0.1:4040 --label service_name=shop --label region=eu -m shop.web
        flamespace agent --server http://pyroscope:4040 --protocol ingest --window 15 -- worker.py
    """
    from ..collect.agent import AgentOptions, run_program
    from ..collect.push import token_from_env
    from ..store.labels import parse_labels

    from ._recording import target_of

    target = target_of(command, module, code)
    options = AgentOptions(
        server=server,
        labels=parse_labels(label),
        window=window,
        rate=rate,
        mode=mode,
        protocol=protocol,
        queue=queue,
        token=_read_token(token_file) if token_file is not None else token_from_env(),
    )
    exit_code, stats = run_program(target, options, on_event=lambda message: warn(f"flamespace agent: {message}"))
    if not quiet or stats.dropped or stats.rejected or stats.unsent:
        warn(f"flamespace agent: {_summary(stats, options.server)}")
    return exit_code


def _read_token(path: str | None) -> str | None:
    if path is None:
        return None
    from ..errors import ArgumentError

    try:
        with open(path, encoding="utf-8") as file:
            token = file.read().strip()
    except OSError as exc:
        raise ArgumentError(f"--token-file {path}: {exc.strerror or exc}") from None
    if not token:
        raise ArgumentError(f"--token-file {path}: the file is empty")
    return token


def _summary(stats: AgentStats, server: str) -> str:
    def count(n: int, noun: str) -> str:
        return f"{n:,} {noun}{'s' * (n != 1)}"

    parts = [f"pushed {count(stats.pushed, 'profile')} to {server}"]
    if stats.dropped:
        parts.append(f"dropped {count(stats.dropped, 'profile')} while the server was down")
    if stats.rejected:
        parts.append(f"{count(stats.rejected, 'profile')} refused by the server")
    if stats.unsent:
        parts.append(f"{count(stats.unsent, 'profile')} not sent (the server did not answer in time)")
    if (stats.dropped or stats.rejected or stats.unsent) and stats.last_error:
        parts.append(f"last error: {stats.last_error}")
    return "; ".join(parts)


def _options() -> list[Option]:
    d = _defaults()
    return [
        Option(
            ("--server",),
            "server",
            "str",
            None,
            required=True,
            metavar="URL",
            help="The server's base URL, e.g. http://127.0.0.1:4040 (user:password@ in it: basic auth).",
        ),
        Option(
            ("--label",),
            "label",
            "multiple",
            metavar="K=V",
            help="A label on every profile (repeatable); service_name=NAME names the service (default: the program's name).",
        ),
        Option(
            ("--window",),
            "window",
            "float",
            d["window"],
            show_default=True,
            minimum=0.0,
            open=True,
            metavar="SECONDS",
            help="Seconds per profile.",
        ),
        Option(("--rate",), "rate", "float", d["rate"], show_default=True, metavar="HZ", help="Samples per second."),
        Option(
            ("--mode",),
            "mode",
            "choice",
            d["mode"],
            choices=MODES,
            show_default=True,
            help="cpu: time on a CPU (Pyroscope's process_cpu); wall: every thread, running or waiting.",
        ),
        Option(
            ("--protocol",),
            "protocol",
            "choice",
            d["protocol"],
            choices=PROTOCOLS,
            show_default=True,
            help="connect: Pyroscope's push API (/push.v1.PusherService/Push); ingest: the older /ingest.",
        ),
        Option(
            ("--queue",),
            "queue",
            "int",
            d["queue"],
            show_default=True,
            minimum=1,
            metavar="N",
            help="Windows kept while the server is down (the oldest are dropped, counted).",
        ),
        Option(
            ("--token-file",),
            "token_file",
            "path",
            None,
            exists=True,
            metavar="FILE",
            help="A file holding the token sent as 'Authorization: Bearer TOKEN' (default: $FLAMESPACE_TOKEN, if set).",
        ),
        Option(("-m",), "module", metavar="MODULE", help="Run a module, as python -m does."),
        Option(("-c",), "code", metavar="CODE", help="Run a code string, as python -c does."),
        Option(("-q", "--quiet"), "quiet", "flag", help="No summary at the end (problems are still reported)."),
    ]


SPEC = Command(
    "agent",
    run,
    [Argument("command", "raw", nargs=-1)],
    _options(),
    interspersed=False,
    program_flags=("-m", "-c"),
)

__all__ = ["SPEC", "run"]
