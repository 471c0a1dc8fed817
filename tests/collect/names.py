"""Frame names as the running Python gives them: qualified names (``Class.method``) from 3.11,
plain function names before (code objects had no ``co_qualname``)."""

import sys

QUALIFIED = sys.version_info >= (3, 11)


def qualified(name: str) -> str:
    """``name`` (a qualified name) as flamespace names the frame on this Python."""
    return name if QUALIFIED else name.rpartition(".")[2]
