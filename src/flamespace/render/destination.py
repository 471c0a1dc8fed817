"""Every renderer's last step, written once: the picture to its destination, the layout's news to
the caller's diagnostics."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings (PEP 563)
if TYPE_CHECKING:
    from typing import Callable, TextIO

    from .._types import Destination
    from ..diagnostics import Diagnostics
    from .layout import Layout


def deliver(
    write: Callable[[TextIO], object], output: Destination, encoding: str | None = None, errors: str | None = None
) -> str | None:
    """``write`` the picture to ``output``: a path or '-' (opened by ``formats._io.open_output``:
    a temporary file renamed into place), a text stream, or None (returned as a string)."""
    if output is None:
        import io

        buffer = io.StringIO()
        write(buffer)
        return buffer.getvalue()
    if not isinstance(output, (str, os.PathLike)):  # a text stream
        write(output)
        return None
    from ..formats._io import open_output

    with open_output(output, encoding, errors) as stream:
        write(stream)
    return None


def deliver_text(text: str, output: Destination) -> str | None:
    """``text`` (a page, an image) to ``output``, as :func:`deliver` writes."""
    return text if output is None else deliver(lambda stream: stream.write(text), output)


def tell(drawn: Layout, diagnostics: Diagnostics | None) -> None:
    """Tell the caller's ``diagnostics`` what it should know of a layout: its warnings (e.g. a
    ``total`` below the profile's, ignored) and whether there was nothing to draw."""
    if diagnostics is None:
        return
    for warning in drawn.warnings:
        diagnostics.warn(warning)
    if drawn.empty:
        diagnostics.empty = True
