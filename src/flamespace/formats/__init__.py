"""Profile formats: one module per format and a registry that picks among them."""

from . import folded
from ._io import check_output, check_output_dir, open_output
from .registry import by_name, detect, formats, names, read, write


def __getattr__(name: str) -> object:
    if name == "FORMATS":  # importing every format module: only when asked for
        return formats()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FORMATS", "by_name", "detect", "folded", "formats", "names", "check_output", "check_output_dir", "open_output", "read", "write"]
