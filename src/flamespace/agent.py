"""Continuous profiling from inside a service: push a profile every window to a Pyroscope-compatible
server (``flamespace serve``, Grafana Pyroscope). docs/agent.md.

    import flamespace.agent

    flamespace.agent.start(server="http://127.0.0.1:4040", labels={"service_name": "shop", "region": "eu"})
    with flamespace.agent.labels(endpoint="/checkout"):   # these samples carry endpoint=/checkout
        checkout()
    flamespace.agent.stop()                                 # pushes the last window

``labels`` works whether an agent runs or not (it costs about a microsecond a block).
"""

from __future__ import annotations

import threading

from .collect.agent import DEFAULT_MODE, Agent, AgentOptions, AgentStats
from .collect.labels import labels

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable
    from collections.abc import Mapping

_lock = threading.Lock()
_running: list[Agent] = []


def start(
    server: str,
    labels: Mapping[str, str] | None = None,
    window: float | None = None,
    *,
    on_event: Callable[[str], None] | None = None,
    **options: Any,
) -> Agent:
    """Start the agent of this process (one at a time): samples every thread and pushes a profile
    per label set every ``window`` seconds (default 10). ``options``: those of :class:`AgentOptions` (``rate``,
    ``mode``, ``protocol``, ``queue``, ``flush_timeout``, ``token``, ...; without ``token``, the one in
    ``$FLAMESPACE_TOKEN`` if set). It is stopped (the last window pushed) at interpreter exit if
    :func:`stop` was not called."""
    import atexit

    from .collect.push import token_from_env

    if window is not None:
        options["window"] = window
    if options.get("token") is None:
        options["token"] = token_from_env()
    agent = Agent(AgentOptions(server=server, labels=dict(labels or {}), **options), on_event=on_event)
    with _lock:
        if _running:
            raise RuntimeError("an agent already runs in this process: call flamespace.agent.stop() first")
        agent.start()
        _running.append(agent)
    atexit.register(_stop_at_exit, agent)
    return agent


def stop(timeout: float | None = None) -> AgentStats | None:
    """Stop the running agent, pushing the last window and what waits (within ``timeout``
    seconds; default ``flush_timeout``); what it did, or None when none ran."""
    with _lock:
        if not _running:
            return None
        agent = _running.pop()
    import atexit

    atexit.unregister(_stop_at_exit)  # (one agent at a time: that was its registration)
    return agent.stop(timeout)


def stats() -> AgentStats | None:
    """The running agent's counters (windows, pushed, dropped, ...), or None."""
    with _lock:
        return _running[0].stats() if _running else None


def _stop_at_exit(agent: Agent) -> None:
    with _lock:
        if agent in _running:
            _running.remove(agent)
        else:
            return
    agent.stop()


__all__ = ["DEFAULT_MODE", "Agent", "AgentOptions", "AgentStats", "labels", "start", "stats", "stop"]
