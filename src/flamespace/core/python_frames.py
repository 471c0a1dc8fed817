"""One name for a Python frame whichever profiler saw it: ``function (file:line)``.

Our recorder (``collect.naming``) names frames this way, with paths shortened so that two
machines agree: ``site-packages/...``, ``<stdlib>/...`` and paths relative to the working
directory. Readers of other tools' files (Austin, py-spy, pprof, speedscope, gecko, Chrome,
pstats) name Python frames through :class:`PythonFrames`, so a profile recorded by one tool
compares with, and adds to, a profile of the same code recorded by another. Only ``os`` is
imported here: the recorder uses this module inside the profiled program.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Sequence

PACKAGE_DIRS = ("site-packages", "dist-packages")
#: The leaf frame under which a wall-time recording with ``idle`` puts a thread's time off a CPU.
IDLE_FRAME = "[idle]"
#: The profiled program's own directories (its script's, as given and with links resolved), set in
#: its process before the recorder starts (collect/_bootstrap.py): every PathShortener made there
#: names the files under them relative to them, so two checkouts of one program name frames alike.
_program_dirs: list[str] = []


def set_program_dirs(directories: Sequence[str]) -> None:
    """Name files under ``directories`` relative to them in the PathShorteners made from now on."""
    _program_dirs[:] = directories


class PathShortener:
    """Maps absolute file names to stable short ones; caches every answer.

    In order: ``site-packages/...`` (or ``dist-packages``), ``<stdlib>/...``, relative to one of
    ``program_dirs`` (default: those :func:`set_program_dirs` set; the program's script's
    directory), relative to ``cwd``; else the absolute path."""

    def __init__(
        self, cwd: str | None = None, stdlib_dirs: list[str] | None = None, program_dirs: Sequence[str] | None = None
    ) -> None:
        self.cwd = os.path.normpath(cwd or os.getcwd())
        if stdlib_dirs is None:  # where os.py lives is the standard library (sysconfig costs imports)
            stdlib_dirs = [os.path.dirname(os.__file__)]
        # Longest first, so a nested directory wins over its parent.
        self.stdlib_dirs = sorted({os.path.normpath(d) for d in stdlib_dirs}, key=len, reverse=True)
        self.program_dirs = sorted(
            {os.path.normpath(d) for d in (_program_dirs if program_dirs is None else program_dirs)}, key=len, reverse=True
        )
        self._cache: dict[str, str] = {}

    def __call__(self, filename: str) -> str:
        short = self._cache.get(filename)
        if short is None:
            short = self._cache[filename] = self._shorten(filename)
        return short

    def _shorten(self, filename: str) -> str:
        if filename.startswith("<") or not os.path.isabs(filename):
            return filename  # "<frozen importlib._bootstrap>", "<string>", already relative
        path = os.path.normpath(filename)
        parts = path.split(os.sep)
        for index in range(len(parts) - 1, -1, -1):
            if parts[index] in PACKAGE_DIRS:
                return "site-packages/" + "/".join(parts[index + 1 :])
        for directory in self.stdlib_dirs:
            if path.startswith(directory + os.sep):
                return "<stdlib>/" + path[len(directory) + 1 :].replace(os.sep, "/")
        for directory in (*self.program_dirs, self.cwd):
            if path.startswith(directory + os.sep):
                return path[len(directory) + 1 :].replace(os.sep, "/")
        return path


def format_frame(function: str, file: str, line: int | None) -> str:
    return f"{function} ({file}:{line})" if line is not None else f"{function} ({file})"


#: The standard library of any CPython (not only the one reading): ``.../lib/python3.12/x.py``.
_OTHER_STDLIB = r"^(?:.*[/\\])?[Ll]ib[/\\]python\d+(?:\.\d+)?t?[/\\](.+)$"
_other_stdlib: re.Pattern[str] | None = None


def short_path(shorten: PathShortener, file: str) -> str:
    """``file`` as our recorder would name it, also when it is the standard library of another Python."""
    global _other_stdlib
    short = shorten(file)
    if short == file and os.path.isabs(file) and not any(d in file for d in PACKAGE_DIRS):
        if _other_stdlib is None:
            import re

            _other_stdlib = re.compile(_OTHER_STDLIB)
        match = _other_stdlib.match(file)
        if match:
            return "<stdlib>/" + match.group(1).replace("\\", "/")
    return short


class PythonFrames:
    """Names ``(function, file, line)`` triples, caching each; ``line`` None or 0 leaves the line out.

    A frame without a file (a native function) keeps its bare name.
    """

    def __init__(self, shorten: PathShortener | None = None) -> None:
        self.shorten = shorten or PathShortener()
        self._cache: dict[tuple[str, str, int | None], str] = {}

    def __call__(self, function: str, file: str, line: int | None = None) -> str:
        key = (function, file, line)
        name = self._cache.get(key)
        if name is None:
            if not file:
                name = function
            else:
                name = format_frame(function, short_path(self.shorten, file), line or None)
            self._cache[key] = name
        return name


#: The most digits a line number has (it fits a signed 64-bit int, as pprof writes it); longer
#: digit strings after a colon are part of the file's name, kept as they are (int() of thousands of
#: digits is refused by Python, and more than 64 bits were cut when written).
MAX_LINE_DIGITS = 18


def is_line_number(text: str) -> bool:
    """Whether ``text`` is a line number: ASCII digits, at most :data:`MAX_LINE_DIGITS` of them."""
    return text.isdigit() and text.isascii() and len(text) <= MAX_LINE_DIGITS


def split_frame(frame: str) -> tuple[str, str, int | None] | None:
    """``(function, file, line)`` of a name ``function (file:line)`` or ``function (file)``; None for other names."""
    if not frame.endswith(")") or " (" not in frame:
        return None
    function, _, where = frame[:-1].rpartition(" (")
    file, colon, line = where.rpartition(":")
    if colon and is_line_number(line):
        return function, file, int(line)
    return function, where, None


__all__ = [
    "IDLE_FRAME",
    "PACKAGE_DIRS",
    "PathShortener",
    "PythonFrames",
    "format_frame",
    "set_program_dirs",
    "short_path",
    "split_frame",
]
