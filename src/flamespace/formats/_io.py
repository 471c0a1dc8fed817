"""Opening inputs and outputs the same way for every format: paths, '-', gzip, BOM."""

from __future__ import annotations

import io
import os
import sys
from contextlib import contextmanager

from ..errors import InputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO, Iterator, Optional, TextIO, Tuple, Type, Union

    from .._types import Source

GZIP_MAGIC = b"\x1f\x8b"
#: Undecodable bytes are kept as surrogates and written back unchanged (lossless round trip).
ENCODING_ERRORS = "surrogateescape"


def display_name(source: Source) -> str:
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        return "<stdin>" if name == "-" else name
    return getattr(source, "name", None) or "<stream>"


@contextmanager
def open_binary(source: Source) -> Iterator[Tuple[io.BufferedReader[Any], str]]:
    """A peekable binary stream over ``source``, gunzipped if it starts with gzip's magic bytes."""
    name = display_name(source)
    close = False
    if isinstance(source, (str, os.PathLike)):
        if os.fspath(source) == "-":
            raw: BinaryIO = sys.stdin.buffer
        else:
            try:
                raw = open(source, "rb")
            except OSError as exc:
                raise InputError(f"cannot read: {exc.strerror or exc}", name) from None
            close = True
    else:
        raw = source
    unreadable: Tuple[Type[BaseException], ...] = (OSError, EOFError)
    try:
        # Any binary stream with readinto will do; typeshed asks BufferedReader for a raw one.
        stream = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[type-var]
        if stream.peek(2)[:2] == GZIP_MAGIC:
            import gzip  # only for gzipped input: start-up matters for small files
            import zlib

            stream = io.BufferedReader(gzip.GzipFile(fileobj=stream, mode="rb"))
            unreadable += (zlib.error,)  # damaged compressed data (found by tests/formats/test_fuzz.py)
        yield stream, name
    except unreadable as exc:
        raise InputError(f"cannot read: {exc}", name) from None
    finally:
        if close:
            raw.close()


def text_reader(stream: BinaryIO) -> io.TextIOWrapper:
    """UTF-8 text (a BOM is dropped), universal newlines, undecodable bytes kept."""
    return io.TextIOWrapper(stream, encoding="utf-8-sig", errors=ENCODING_ERRORS, newline=None)


@contextmanager
def open_output(
    destination: Union[str, "os.PathLike[str]", None], encoding: Optional[str] = None, errors: Optional[str] = None
) -> Iterator[TextIO]:
    """A text stream for ``destination``: a path, or stdout for None or '-'; what every writer opens.

    UTF-8 with undecodable input bytes written back as they were, unless ``encoding`` and
    ``errors`` say otherwise (an SVG in another encoding writes the characters it lacks as
    XML references: ``errors="xmlcharrefreplace"``). ``newline=""``: lines end in "\\n" on
    every platform, as with ``newline="\\n"``, but without the copy of every written string
    that asking to translate "\\n" to itself costs.
    """
    encoding = encoding or "utf-8"
    errors = errors or ENCODING_ERRORS
    if destination is None or os.fspath(destination) == "-":
        out = io.TextIOWrapper(sys.stdout.buffer, encoding=encoding, errors=errors, newline="", write_through=True)
        try:
            yield out
            out.flush()
        finally:
            out.detach()
        return
    with open(destination, "w", encoding=encoding, errors=errors, newline="") as out:
        yield out
