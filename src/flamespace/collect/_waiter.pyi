# Types of the C extension _waiter.c (the sampler's punctual sleep).

from typing import Callable

class Waiter:
    def __init__(self) -> None: ...
    def wait(self, delay_ns: int, grab_us: int, /) -> bool:
        """Sleep ``delay_ns``; True when stop() ended the wait."""
    def stop(self) -> None: ...
    def reset(self) -> None: ...
    def woke_ns(self) -> int:
        """When the last wait's sleep ended (``time.monotonic_ns``), before it took the GIL."""

def watch_sigterm() -> bool:
    """Watch SIGTERM's Python handler (see _waiter.c); False when it has none to watch."""

def sigterm_handled() -> None:
    """Tell the SIGTERM watchdog that the Python handler runs."""

def die_with_parent(parent_pid: int, /) -> bool:
    """Be killed when the parent ends (Linux's PR_SET_PDEATHSIG); exits now if it already has."""

def save_on_crash(function: Callable[[], object], /) -> bool:
    """Call ``function`` (best effort) when the process crashes, then die of the signal; False when
    every crash signal has a handler already (faulthandler's, the program's)."""
