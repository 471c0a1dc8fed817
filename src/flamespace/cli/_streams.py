"""Standard streams the shell closed (``flamespace convert x >&-``, ``flamespace info <&-``).

Python starts with ``sys.stdout`` (or stdin, stderr) set to None when its descriptor is closed,
and every command then failed with an internal error. Imported only in that case (start-up).

Each closed descriptor is reopened on /dev/null (inherited: a program that ``record`` runs
gets it too, as daemons get it), so that no file the command opens (an output's temporary
file, the tracer's event file) takes number 0, 1 or 2 and receives what a program writes there; and the Python stream becomes one that fails with a clear line on first use: a command
that writes its result to -o FILE and reads its input from files still works.
"""

from __future__ import annotations

import io
import os
import sys

from ..errors import InputError, OutputError
from ..formats._io import CLOSED_MARK, STDIN_CLOSED, STDOUT_CLOSED


#: (stream name, descriptor) of the three standard streams.
STANDARD = (("stdin", 0), ("stdout", 1), ("stderr", 2))


class _ClosedRaw(io.RawIOBase):
    """A raw stream over /dev/null that refuses the first read or write with ``error``.

    Only the first write fails: what a buffer above it still holds is then dropped, so that the
    interpreter's flush at exit does not fail a second time with "Exception ignored"."""

    def __init__(self, fd: int, error: InputError | OutputError, readable: bool) -> None:
        super().__init__()
        self._fd, self._error, self._readable, self._refused = fd, error, readable, False

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return False

    def readable(self) -> bool:
        return self._readable

    def writable(self) -> bool:
        return not self._readable

    def readinto(self, buffer: object) -> int:
        raise self._error

    def write(self, data: object) -> int:
        if self._refused:
            return len(data)  # type: ignore[arg-type]
        self._refused = True
        raise self._error


def _closed_error(name: str) -> InputError | OutputError:
    """What a command says when it needs the closed stream ``name``."""
    return InputError(STDIN_CLOSED, "<stdin>") if name == "stdin" else OutputError(STDOUT_CLOSED)


def reopen_closed() -> None:
    """Give each standard stream Python found closed a /dev/null descriptor and a stream that says so on use."""
    for name, fd in STANDARD:
        if getattr(sys, name) is not None:
            continue
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:  # the lowest free number: the closed one itself, unless a lower one is closed too
                os.dup2(null, fd)
                os.close(null)
            os.set_inheritable(fd, True)  # a program record runs gets /dev/null there too, as a standard stream
        if name == "stderr":  # nowhere to say anything: messages are dropped, exit codes still tell
            setattr(sys, name, io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), write_through=True))
            continue
        raw = _ClosedRaw(fd, _closed_error(name), readable=name == "stdin")
        buffered: io.BufferedReader | io.BufferedWriter = io.BufferedReader(raw) if name == "stdin" else io.BufferedWriter(raw)
        stream = io.TextIOWrapper(buffered, encoding="utf-8", write_through=True)
        setattr(stream, CLOSED_MARK, True)  # check_output('-') refuses it before any work
        setattr(sys, name, stream)
