"""Which frames are code the program did not write: the standard library and installed packages.

One rule for every view that folds them away: the terminal tree of ``record`` (and ``top``/``text
--fold-library``) folds them into the nearest frame the program wrote, and the HTML viewer's "Merge"
and "Hide" presets fill in the same patterns (``render.html`` puts :data:`LIBRARY_PRESETS` into the
page). Frame names are ours (``core.python_frames``): ``f (<stdlib>/json/decoder.py:337)``,
``f (site-packages/pygments/lexer.py:12)``, ``<frozen importlib._bootstrap>``.
"""

from __future__ import annotations

import re
from functools import lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .._types import Stack

#: The kinds of library code by what the viewer's preset list calls them, each a regex over frame
#: names (JavaScript's RegExp reads them alike); "both" is :data:`LIBRARY`.
LIBRARY_PRESETS: dict[str, str] = {
    "standard library": r"\(<stdlib>/|\(<frozen |^<frozen ",
    "site-packages": r"\(site-packages/",
}
#: Any library code: the rule the tree folds by.
LIBRARY = "|".join(LIBRARY_PRESETS.values())

_LIBRARY = re.compile(LIBRARY)
#: The package of a library frame: the first path part after <stdlib>/ or site-packages/ (a
#: module file's name without ``.py``), or the frozen module's top package.
_PACKAGE = re.compile(r"\((?:<stdlib>|site-packages)/([^/:)]+?)(?:\.py)?(?:[/:)]|$)|<frozen ([^.> ]+)")


def is_library(frame: str) -> bool:
    """Whether ``frame`` is standard-library or installed-package code (:data:`LIBRARY`)."""
    return _LIBRARY.search(frame) is not None


def package_of(frame: str) -> str:
    """What a library frame is part of, for a label: ``json``, ``pygments``, ``importlib``."""
    match = _PACKAGE.search(frame)
    if match is None:
        return "library"
    return match.group(1) or match.group(2)


def entry_of(frame: str) -> str:
    """A library frame as the way into its package, for a label: ``json.loads``, ``pygments.highlight``."""
    function = frame.split(" (", 1)[0] if " (" in frame else ""
    package = package_of(frame)
    return f"{package}.{function}" if function and not function.startswith("<") else package


class Folded:
    """One stack with its library frames folded: ``stack`` keeps the frames the program wrote (the
    first frame when it wrote none); ``into``: the library function the leaf's time was spent under
    (:func:`entry_of` of the first folded frame: ``json.loads``; None: the leaf's own); ``via``: per kept frame, the packages of the folded frames between it
    and its kept caller (empty tuple: none)."""

    __slots__ = ("into", "stack", "via")

    def __init__(self, stack: Stack, into: str | None, via: tuple[tuple[str, ...], ...]) -> None:
        self.stack, self.into, self.via = stack, into, via


#: Frames asked about by :func:`fold_stack`, remembered (a profile repeats a few thousand frames
#: across its stacks); bounded, so a long-lived process that folds many profiles stays small.
_CACHED = 1 << 16
_library_cached = lru_cache(maxsize=_CACHED)(is_library)
_package_cached = lru_cache(maxsize=_CACHED)(package_of)


def fold_stack(stack: Stack) -> Folded:
    """``stack`` with its library frames folded into the nearest frame the program wrote."""
    is_library, package_of = _library_cached, _package_cached
    kept: list[str] = []
    via: list[tuple[str, ...]] = []
    passed: list[str] = []  # packages of the library frames since the last kept frame
    entry = None  # the first of them
    for frame in stack:
        if is_library(frame):
            package = package_of(frame)
            if package not in passed:
                passed.append(package)
            entry = entry or frame
            continue
        kept.append(frame)
        via.append(tuple(passed) if kept[:-1] else ())  # a root reached through library code: nothing above to say
        passed, entry = [], None
    if not kept:  # library code only (a pool's worker thread, interpreter start-up): its first frame stands for it
        if not stack:
            return Folded(stack, None, ())
        return Folded(stack[:1], entry_of(stack[1]) if len(stack) > 1 else None, ((),))
    return Folded(tuple(kept), entry_of(entry) if entry else None, tuple(via))


def own_stack(stack: Stack) -> Stack:
    """Only the frames of ``stack`` that the program wrote (:func:`fold_stack`'s ``stack``)."""
    return fold_stack(stack).stack


__all__ = ["LIBRARY", "LIBRARY_PRESETS", "Folded", "entry_of", "fold_stack", "own_stack", "is_library", "package_of"]
