"""Rate limits of ``flamespace serve``: a token bucket per client and kind of request.

A client is its IP address, and its token when it shows one (two tenants behind one proxy get a
bucket each; the agents of a fleet, on their own hosts, get one each even when they share a
token). A bucket holds ``burst`` requests and refills at ``rate`` a second; a request that finds
it empty is refused (429) with the seconds until the next one is allowed. Ingest and queries
have buckets of their own, so a dashboard's queries never delay pushes.

The defaults are set so that agents never meet them: an agent pushes once a window (10 s), so
even a thousand agents behind one address (a cluster's NAT) push 100 a second, more than one
server stores (docs/serve.md, Performance); after an outage each sends its queue at once, and a
429 is a push the agent tries again later (nothing is lost). Queries are bounded for people in a
UI (a page makes a handful of requests), against a script that floods the server with comparisons.
"""

from __future__ import annotations

import math
import threading
import time

from ..._record import Record, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable
    from collections.abc import Hashable


@record
class Limit(Record):
    """``rate`` requests a second, in bursts of at most ``burst``."""

    rate: float
    burst: int

    def __post_init__(self) -> None:
        if not (self.rate > 0 and math.isfinite(self.rate)) or self.burst < 1:
            raise ValueError(f"a rate limit is a positive rate and a burst of at least 1, not {self.rate:g}:{self.burst}")

    def text(self) -> str:
        return f"{self.rate:g}:{self.burst}"


#: The defaults (the one place they are set; the CLI shows them).
INGEST_LIMIT = Limit(rate=100.0, burst=1000)
QUERY_LIMIT = Limit(rate=10.0, burst=100)
#: How many clients' buckets are kept; past it, the one unused the longest is forgotten (it starts full again).
MAX_CLIENTS = 10_000


def parse_limit(text: str) -> Limit | None:
    """``RATE:BURST`` (``20:600``), ``RATE`` (a burst of one second's worth, at least 1) or ``off``
    (None); ValueError naming what is wrong."""
    value = text.strip().lower()
    if value == "off":
        return None
    rate_text, _, burst_text = value.partition(":")
    try:
        rate = float(rate_text)
        burst = int(burst_text) if burst_text else max(1, math.ceil(rate))
    except ValueError:
        raise ValueError(f"{text!r} is not RATE:BURST (e.g. 20:600: 20 requests a second, bursts of 600) or off") from None
    return Limit(rate, burst)


class Limiter:
    """Token buckets of one :class:`Limit`, one per client key; ``clock``: seconds (monotonic)."""

    def __init__(self, limit: Limit, clock: Callable[[], float] = time.monotonic, max_clients: int = MAX_CLIENTS) -> None:
        self.limit = limit
        self.clock = clock
        self.max_clients = max_clients
        self._buckets: dict[Hashable, tuple[float, float]] = {}  # key -> (tokens, when)
        self._lock = threading.Lock()

    def take(self, key: Hashable) -> float:
        """Take one request from ``key``'s bucket: 0.0 if allowed, else the seconds until one will be."""
        now = self.clock()
        rate, burst = self.limit.rate, self.limit.burst
        with self._lock:
            tokens, when = self._buckets.pop(key, (burst, now))  # re-inserted: the dict's order is last use
            tokens = min(burst, tokens + (now - when) * rate)
            allowed = tokens >= 1
            self._buckets[key] = (tokens - 1 if allowed else tokens, now)
            if len(self._buckets) > self.max_clients:
                del self._buckets[next(iter(self._buckets))]  # the client unseen the longest: it starts afresh
            return 0.0 if allowed else (1 - tokens) / rate


__all__ = ["INGEST_LIMIT", "MAX_CLIENTS", "QUERY_LIMIT", "Limit", "Limiter", "parse_limit"]
