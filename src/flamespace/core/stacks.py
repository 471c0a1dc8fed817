"""Stack texts and their frames: how a profile read from text keeps its stacks until frames are asked for.

A stack text is a stack's frames joined with ';', as the folded format writes it (``a;b;c``;
the empty text is the empty stack). Profiles that only add, subtract, scale, test or write
never need the frames: a :class:`StackTable` splits a text into its frame tuple the first
time someone asks, once however many profiles share the table, and sorts texts in the order
of their frame tuples without splitting them. Nothing outside :mod:`.vector` and the sample
builders needs it: a profile hands out frame tuples whichever way it keeps its stacks.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable
    from collections.abc import Iterable

    from .._types import Stack


def split(text: str) -> Stack:
    """The frames of a stack text, interned (the many runs of one program share their frame strings)."""
    return tuple(map(sys.intern, text.split(";"))) if text else ()


class StackTable:
    """Stack text -> frame tuple, each text split at most once while the table keeps its splits.

    ``stacks``: a dict to keep the splits in (``registry.read``'s ``stack_cache``: share one
    across the runs of a program so a stack seen in many runs is split once and its tuple
    object reused). Without one the table keeps nothing: a profile's texts are freed once it
    is split (keeping them would hold the size of a folded file for nothing).
    """

    __slots__ = ("stacks",)

    def __init__(self, stacks: dict[str, Stack] | None = None) -> None:
        self.stacks = stacks

    def stack(self, text: str) -> Stack:
        """The frames of ``text`` (split on the first call)."""
        stacks = self.stacks
        if stacks is None:
            return split(text)
        stack = stacks.get(text)
        if stack is None:
            stack = stacks[text] = split(text)
        return stack

    def sorted(self, texts: Iterable[str]) -> list[str]:
        """``texts`` in the order of their frame tuples (the order of ``sorted(stacks)``), split
        only when a frame holds a '\\0' (every text's sort key is then its frames)."""
        texts = list(texts)
        return sorted(texts, key=order_key(texts, self))


def order_key(texts: list[str], table: StackTable | None = None) -> Callable[[str], Any]:
    """A sort key over ``texts`` that orders them as their frame tuples: ';' made '\\0', below
    every character a frame holds (tuples compare frame by frame, a frame before any longer one it
    begins); where some text holds a '\\0', the frames themselves for all (keys must be of one kind)."""
    if any("\0" in text for text in texts):
        return (table or StackTable()).stack
    return _text_key


def _text_key(text: str) -> str:
    return text.replace(";", "\0")
