"""What a request must pass before ``flamespace serve`` handles it: a token of the right role and
the rate limit of its client (an ASGI middleware around the whole application, so a route added
later is guarded too).

Each path is one of three kinds: **ingest** (the push API and ``/ingest``: an ``ingest`` token),
**open** (``/healthz``: nothing asked) and **read** (everything else: the query API, the OpenAPI
document, the UI, and paths that do not exist, so a missing token does not learn which do: a
``read`` token). Without tokens every request is let through, as before; the rate limits apply
either way. A refusal never reaches the application (nothing is read from the body):

- no token, or a wrong one: 401, ``WWW-Authenticate: Bearer`` and ``Basic`` (a browser asks for
  a user and password: the read token as password);
- a right token without the role (an ingest token reading): 403;
- an empty bucket: 429 with ``Retry-After`` (seconds). Requests without a valid token share
  their address's bucket, so guessing tokens is throttled too.

Errors are the API's JSON (``{"error": ...}``), Connect's (``{"code", "message"}``) on the push path.
"""

from __future__ import annotations

import json
import math
import time

from . import PUSH_PATH
from .ratelimit import Limiter
from .tokens import credential

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable
    from collections.abc import Awaitable, MutableMapping

    from .ratelimit import Limit
    from .tokens import TokenFile, Tokens

    Scope = MutableMapping[str, Any]
    Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
    Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
    ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The paths of each kind that is not ``read``.
INGEST_PATHS = frozenset({PUSH_PATH, "/ingest"})
OPEN_PATHS = frozenset({"/healthz"})
#: The realm named in ``WWW-Authenticate``.
REALM = "flamespace"
_CHALLENGES = [
    (b"www-authenticate", f'Bearer realm="{REALM}"'.encode()),
    (b"www-authenticate", f'Basic realm="{REALM}"'.encode()),
]
_CONNECT_CODES = {401: "unauthenticated", 403: "permission_denied", 429: "resource_exhausted"}


def kind_of(path: str) -> str:
    """``ingest``, ``open`` or ``read`` (the role a request of ``path`` needs, or none)."""
    if path in INGEST_PATHS:
        return "ingest"
    return "open" if path in OPEN_PATHS else "read"


class Refusal:
    """Why a request is refused: its status, message and extra headers."""

    __slots__ = ("status", "message", "headers")

    def __init__(self, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None) -> None:
        self.status, self.message, self.headers = status, message, headers or []


class Guard:
    """The tokens (None: no authentication; a :class:`.tokens.TokenFile` is read again when it
    changes) and a limiter per kind (None: unlimited)."""

    def __init__(
        self,
        tokens: Tokens | TokenFile | None = None,
        ingest_limit: Limit | None = None,
        query_limit: Limit | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.tokens = tokens
        self.limiters = {
            "ingest": Limiter(ingest_limit, clock) if ingest_limit is not None else None,
            "read": Limiter(query_limit, clock) if query_limit is not None else None,
        }

    def check(self, path: str, authorization: str | None, client: str) -> Refusal | None:
        """Why a request of ``path`` from ``client`` (an address) with that ``Authorization`` header
        is refused, or None to let it through."""
        kind = kind_of(path)
        if kind == "open":
            return None
        tokens = self.tokens.current() if self.tokens is not None else None
        token = credential(authorization) if tokens is not None else None  # without tokens, any token is none
        allowed = tokens is None or tokens.allows(token, kind)
        limiter = self.limiters[kind]
        if limiter is not None:
            wait = limiter.take((client, token if allowed else None))  # a made-up token shares its address's bucket
            if wait:
                seconds = max(1, math.ceil(wait))
                return Refusal(
                    429,
                    f"too many requests from {client}: at most {limiter.limit.rate:g} a second "
                    f"(bursts of {limiter.limit.burst}); try again in {seconds} s",
                    [(b"retry-after", str(seconds).encode())],
                )
        if allowed or tokens is None:
            return None
        return self._unauthorised(tokens, kind, token)

    @staticmethod
    def _unauthorised(tokens: Tokens, kind: str, token: str | None) -> Refusal:
        if token is None:
            return Refusal(
                401,
                "this server needs a token: send 'Authorization: Bearer TOKEN' (or the token as basic auth's password)",
                _CHALLENGES,
            )
        other = "read" if kind == "ingest" else "ingest"
        if tokens.allows(token, other):
            what = "push profiles" if kind == "ingest" else "read"
            return Refusal(403, f"this token may not {what}: it is an {other} token; give a {kind} token")
        return Refusal(401, "the token is not one of this server's", _CHALLENGES)


class GuardMiddleware:
    """The ASGI middleware that asks the :class:`Guard` before the application sees a request."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        authorization = None
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                authorization = value.decode("latin-1")
                break
        client = scope.get("client")
        path, root = scope.get("path", ""), scope.get("root_path", "")
        if root and path.startswith(root):  # mounted under a prefix: the path the routes see
            path = path[len(root) :]
        refusal = self.guard.check(path, authorization, client[0] if client else "unknown")
        if refusal is None:
            await self.app(scope, receive, send)
            return
        await _answer(send, refusal, path == PUSH_PATH)


async def _answer(send: Send, refusal: Refusal, connect: bool) -> None:
    status = refusal.status
    body = {"code": _CONNECT_CODES[status], "message": refusal.message} if connect else {"error": refusal.message}
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), *refusal.headers]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


__all__ = ["INGEST_PATHS", "OPEN_PATHS", "Guard", "GuardMiddleware", "Refusal", "kind_of"]
