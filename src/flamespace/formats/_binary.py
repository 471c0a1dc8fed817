"""What binary readers share: getting the bytes of an input, and errors at a byte offset."""

from __future__ import annotations

from ..errors import InputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO


def read_bytes(stream: TextIO) -> bytes | None:
    """The bytes under a text stream the registry opened (already gunzipped); None for a plain text stream."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        return None
    data: bytes = buffer.read()
    return data


def read_all_bytes(stream: TextIO) -> bytes:
    """The whole input as bytes: those under the stream, else (a plain text stream, e.g. in tests)
    its text encoded back as it was decoded (UTF-8, undecodable bytes kept as surrogates)."""
    data = read_bytes(stream)
    return stream.read().encode("utf-8", "surrogateescape") if data is None else data


def peek(stream: TextIO, size: int) -> bytes:
    """The first ``size`` bytes under a text stream, without consuming them (b"" when they cannot be seen)."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None or not hasattr(buffer, "peek"):
        return b""
    head: bytes = buffer.peek(size)[:size]
    return head


def error_at(message: str, offset: int, source: str) -> InputError:
    """An InputError naming the byte offset where the input went wrong."""
    return InputError(f"at byte {offset}: {message}", source)


__all__ = ["error_at", "peek", "read_bytes"]
