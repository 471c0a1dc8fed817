"""Profile formats: one module per format and a registry that picks among them.

Attributes are imported on first use (see :mod:`flamespace._lazy`): checking an output path
(``check_output``, before a recorded program starts) does not import the readers and writers,
which ``record`` and ``trace`` import while the program runs (docs/performance.md).
"""

from .._lazy import lazy_exports

_EXPORTS = {
    "folded": "folded",
    "registry": "registry",
    **dict.fromkeys(["check_output", "check_output_dir", "open_output", "outputs_together"], "_io"),
    **dict.fromkeys(["by_name", "detect", "formats", "names", "read", "write"], "registry"),
}
_exported, __dir__ = lazy_exports(__name__, _EXPORTS)

TYPE_CHECKING = False
if TYPE_CHECKING:  # what type checkers and editors see (without importing typing at run time)
    from . import folded, registry
    from ._io import check_output, check_output_dir, open_output, outputs_together
    from .registry import by_name, detect, formats, names, read, write


def __getattr__(name: str) -> object:
    if name == "FORMATS":  # importing every format module: only when asked for
        from .registry import formats

        return formats()
    return _exported(name)


__all__ = [
    "FORMATS",
    "by_name",
    "detect",
    "folded",
    "formats",
    "names",
    "check_output",
    "check_output_dir",
    "open_output",
    "outputs_together",
    "read",
    "write",
]
