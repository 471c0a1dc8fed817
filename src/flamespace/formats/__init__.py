"""Profile formats: one module per format and a registry that picks among them."""

from . import folded
from .registry import FORMATS, by_name, detect, names, read, write

__all__ = ["FORMATS", "by_name", "detect", "folded", "names", "read", "write"]
