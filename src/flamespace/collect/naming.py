"""Frame names for Python code: ``function (file:line)`` with paths that compare across machines.

The convention itself (and its path shortening) lives in :mod:`flamespace.core.python_frames`,
shared with the readers of other profilers' files.

Two checkouts of a project, two virtualenvs or two Python builds give the same names: paths
under ``site-packages`` (or ``dist-packages``) become ``site-packages/...``, the standard
library becomes ``<stdlib>/...``, and files under the profiled script's directory (the
launcher passes it to the child: :func:`~.launcher.program_dirs`), else under the working
directory, become relative to it.
"""

from __future__ import annotations

from ..core.python_frames import PACKAGE_DIRS, PathShortener, format_frame

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import CodeType


class FrameNamer:
    """Names frames ``qualname (file:line)``, or ``qualname (file)`` with ``lines=False``.

    Names are cached per (code object, instruction offset): the sampler asks for the same
    few hundred frames thousands of times, and working out a line number is not free.
    """

    def __init__(self, lines: bool = True, shorten: PathShortener | None = None) -> None:
        self.lines = lines
        self.shorten = shorten or PathShortener()
        self._by_offset: dict[tuple[CodeType, int], str] = {}
        self._by_code: dict[CodeType, str] = {}

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

    def location(self, code: CodeType, line: int | None) -> str:
        return format_frame(function_name(code), self.shorten(code.co_filename), line if self.lines else None)


def function_name(code: CodeType) -> str:
    """``Class.method`` where Python knows it (3.11+), else the plain function name."""
    return getattr(code, "co_qualname", code.co_name)


__all__ = ["PACKAGE_DIRS", "FrameNamer", "PathShortener", "format_frame", "function_name"]
