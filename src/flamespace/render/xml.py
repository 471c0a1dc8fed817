"""XML text that is always well-formed, whatever bytes a profile's frame names hold.

XML 1.0 forbids most control characters even as character references, and lone
surrogates (undecodable input bytes, kept by the readers) cannot be written as UTF-8. They
are shown as visible escapes (``\\x1b``) instead; ``& < > " '`` become entities.
"""

from __future__ import annotations

import re

_SPECIAL = re.compile("[&<>\"'\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}


def _replacement(match: re.Match[str]) -> str:
    char = match.group()
    entity = _ENTITIES.get(char)
    if entity is not None:
        return entity
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte kept by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape(text: str) -> str:
    """``text`` safe inside XML character data and quoted attribute values."""
    return _SPECIAL.sub(_replacement, text) if _SPECIAL.search(text) else text


def comment(text: str) -> str:
    """``text`` safe inside an XML comment (which cannot hold ``--``)."""
    text = escape(text).replace("-", "&#45;") if "--" in text or text.endswith("-") else escape(text)
    return text
