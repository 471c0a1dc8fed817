"""Messages on stderr, the command line's errors, and the one-line message and exit code of every exception."""

from __future__ import annotations

import os
import sys

from ..errors import FlamespaceError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..diagnostics import Diagnostics

EXIT_OK, EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 130
#: The exit code when the reader of stdout went away (`| head`): 0, as the output asked for was delivered.
EXIT_CLOSED_PIPE = EXIT_OK


class ClosedPipe(Exception):
    """stdout was closed by its reader (`| head`): stop quietly with :data:`EXIT_CLOSED_PIPE`."""


class UsageError(Exception):
    """A command line that cannot run (an unknown option, a missing argument, options that
    contradict each other): ``flamespace CMD: error: MESSAGE (see 'PROG --help')``, exit 1.
    ``prog`` (set by the parser) is the command whose help the message points to."""

    def __init__(self, message: str, prog: str | None = None) -> None:
        super().__init__(message)
        self.prog = prog


class BadParameter(UsageError):
    """A value an option or argument cannot take: ``Invalid value for '--width': ...``.
    ``param_hint`` names it (``'--width'``, ``'-o' / '--output'``, ``'FACTOR'``); the parser
    fills it in when a callback leaves it out."""

    def __init__(self, message: str, param_hint: str | None = None) -> None:
        super().__init__(message)
        self.message, self.param_hint = message, param_hint

    def __str__(self) -> str:
        if self.param_hint is None:
            return f"Invalid value: {self.message}"
        return f"Invalid value for {self.param_hint}: {self.message}"


def write_out(text: str) -> None:
    """``text`` on stdout as it is (no newline added), flushed (a closed pipe shows here, not at exit)."""
    sys.stdout.write(text)
    sys.stdout.flush()


def warn(message: str) -> None:
    """One line on stderr."""
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def report(diagnostics: Diagnostics) -> None:
    """What a reader skipped or warned of, a line each on stderr."""
    for line in diagnostics.messages():
        warn(f"flamespace: {line}")


def _error(context: str, message: str) -> None:
    warn(f"{context}: error: {message}")


def exit_code(exc: BaseException, context: str) -> int | None:
    """Report ``exc`` as ``context: error: ...`` and return the exit code; None: re-raise it (FLAMESPACE_DEBUG)."""
    if isinstance(exc, UsageError):
        _error(context, f"{exc} (see '{exc.prog or context} --help')")
        return EXIT_INPUT
    if isinstance(exc, FlamespaceError):
        _error(context, str(exc))
        return EXIT_INPUT
    if isinstance(exc, KeyboardInterrupt):
        _error(context, "interrupted")
        return EXIT_INTERRUPTED
    if isinstance(exc, (BrokenPipeError, ClosedPipe)):
        # The reader went away (e.g. `| head`): stop quietly, whichever command wrote (docs/troubleshooting.md).
        # Later writes to stdout (at exit) go to /dev/null instead of failing again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_CLOSED_PIPE
    if isinstance(exc, OSError) and exc.errno is not None:
        # The system refused (no space, no such file, no permission): the user's to fix, not a bug.
        where = f"{exc.filename}: " if exc.filename is not None else ""
        _error(context, f"{where}{exc.strerror or exc}")
        return EXIT_INPUT
    if os.environ.get("FLAMESPACE_DEBUG"):
        return None
    _error(
        context,
        f"internal error: {type(exc).__name__}: {exc} (please report it; set FLAMESPACE_DEBUG=1 to see the traceback)",
    )
    return EXIT_INTERNAL
