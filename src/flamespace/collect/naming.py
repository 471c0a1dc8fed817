"""Frame names for Python code: ``function (file:line)`` with paths that compare across machines.

Two checkouts of a project, two virtualenvs or two Python builds give the same names: paths
under ``site-packages`` (or ``dist-packages``) become ``site-packages/...``, the standard
library becomes ``<stdlib>/...`` and files under the working directory become relative.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import CodeType
    from typing import Dict, List, Optional, Tuple

PACKAGE_DIRS = ("site-packages", "dist-packages")


class PathShortener:
    """Maps absolute file names to stable short ones; caches every answer."""

    def __init__(self, cwd: Optional[str] = None, stdlib_dirs: Optional[List[str]] = None) -> None:
        self.cwd = os.path.normpath(cwd or os.getcwd())
        if stdlib_dirs is None:  # where os.py lives is the standard library (sysconfig costs imports)
            stdlib_dirs = [os.path.dirname(os.__file__)]
        # Longest first, so a nested directory wins over its parent.
        self.stdlib_dirs = sorted({os.path.normpath(d) for d in stdlib_dirs}, key=len, reverse=True)
        self._cache: Dict[str, str] = {}

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
        if path.startswith(self.cwd + os.sep):
            return path[len(self.cwd) + 1 :].replace(os.sep, "/")
        return path


class FrameNamer:
    """Names frames ``qualname (file:line)``, or ``qualname (file)`` with ``lines=False``.

    Names are cached per (code object, instruction offset): the sampler asks for the same
    few hundred frames thousands of times, and working out a line number is not free.
    """

    def __init__(self, lines: bool = True, shorten: Optional[PathShortener] = None) -> None:
        self.lines = lines
        self.shorten = shorten or PathShortener()
        self._by_offset: Dict[Tuple[CodeType, int], str] = {}
        self._by_code: Dict[CodeType, str] = {}

    def name(self, frame) -> str:
        """The name of a live frame object."""
        code = frame.f_code
        if not self.lines:
            name = self._by_code.get(code)
            if name is None:
                name = self._by_code[code] = f"{function_name(code)} ({self.shorten(code.co_filename)})"
            return name
        key = (code, frame.f_lasti)
        name = self._by_offset.get(key)
        if name is None:
            name = self._by_offset[key] = self.location(code, frame.f_lineno)
        return name

    def location(self, code: CodeType, line: Optional[int]) -> str:
        return format_frame(function_name(code), self.shorten(code.co_filename), line if self.lines else None)


def function_name(code: CodeType) -> str:
    """``Class.method`` where Python knows it (3.11+), else the plain function name."""
    return getattr(code, "co_qualname", code.co_name)


def format_frame(function: str, file: str, line: Optional[int]) -> str:
    return f"{function} ({file}:{line})" if line is not None else f"{function} ({file})"


__all__ = ["FrameNamer", "PathShortener", "format_frame", "function_name"]
