"""Errors the library raises on purpose; the CLI turns them into one-line messages."""

from __future__ import annotations


class FlamespaceError(Exception):
    """Base class: a problem the user can fix (bad input, bad arguments)."""


class InputError(FlamespaceError, ValueError):
    """Input that cannot be read, with the place it was found (file and line)."""

    def __init__(self, message: str, source: str | None = None, line: int | None = None):
        self.message = message
        self.source = source
        self.line = line
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = self.source or ""
        if self.line is not None:
            where = f"{where}:{self.line}" if where else f"line {self.line}"
        return f"{where}: {self.message}" if where else self.message


class UnitMismatchError(FlamespaceError, ValueError):
    """Two profiles measured in different units were combined."""


class ArgumentError(FlamespaceError, ValueError):
    """An argument the caller can fix: a bad regular expression, a share above 1, a negative scale."""


class OutputError(FlamespaceError, OSError):
    """An output that cannot be written: the path and the system's reason (no space, no such directory)."""
