"""The stop signals a command that runs a program notes from its first moment (``record``, ``trace``).

Imported by the CLI before anything else of the command: it uses only the built-in ``_signal``
(``signal`` imports ``enum``, and the launcher ``subprocess``: together tens of milliseconds on
a busy machine, during which a SIGTERM or SIGHUP would kill us with -15 or -1 instead of
stopping us with 128 + the signal). :func:`.launcher._run_child` takes the noted signals over.
"""

from __future__ import annotations

import _signal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The signals that stop a recording (SIGINT, SIGTERM, SIGHUP): see ``launcher.STOP_SIGNALS``.
STOP_SIGNALS = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP)

#: What :func:`catch` set up: the handlers it replaced, the signals it noted.
_state: dict[str, Any] = {"previous": {}, "received": []}


def catch() -> None:
    """Note the stop signals that come from now on (main thread only; once). One that is
    ignored (SIGHUP under ``nohup``) stays ignored."""
    if _state["previous"]:
        return
    previous = {}
    try:
        for signum in STOP_SIGNALS:
            if _signal.getsignal(signum) != _signal.SIG_IGN:
                previous[signum] = _signal.signal(signum, _note)
    except ValueError:  # not the main thread: nothing to note with
        for signum, handler in previous.items():
            _signal.signal(signum, handler)
        return
    _state["previous"] = previous


def _note(signum: int, frame: object) -> None:
    _state["received"].append(signum)


def take() -> tuple[list[int], dict[int, Any]]:
    """The signals noted so far (forgotten here), and the handlers :func:`catch` replaced ({}: none)."""
    received, previous = list(_state["received"]), dict(_state["previous"])
    _state["received"].clear()
    return received, previous


def forget() -> None:
    """The launcher has put the replaced handlers back itself."""
    _state["previous"] = {}


def release() -> None:
    """Undo :func:`catch` if the program was never started (a usage error, say): the handlers it
    replaced come back, and a signal it noted is raised again for them to act on."""
    received, previous = take()
    forget()
    for signum, handler in previous.items():
        _signal.signal(signum, handler)
    if received and previous:
        _signal.raise_signal(received[0])
