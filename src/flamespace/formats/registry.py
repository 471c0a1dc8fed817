"""The list of formats and the one place that picks a format for an input or output.

Every format module has ``name``, ``extensions``, ``sniff(head)``, ``ReadOptions`` (with at
least ``skip_invalid``), ``parse(stream, options, source=, diagnostics=, stack_cache=)`` and, if it can
hold a profile, ``WriteOptions`` and ``dump(profile, stream, options)``. A format that can
keep time order (a :class:`~flamespace.core.chart.FlameChart`) says so with ``charts = True``;
other formats are given the chart's flame graph.
"""

from __future__ import annotations

import sys

from ..core.chart import FlameChart
from ..core.differential import Differential
from ..errors import ArgumentError, InputError
from . import folded
from ._io import display_name, open_binary, open_output, text_reader

TYPE_CHECKING = False
if TYPE_CHECKING:
    import os
    from types import ModuleType
    from typing import BinaryIO, Dict, List, Mapping, Optional, Tuple, Union

    from .._types import Number, Profile, Source, Stack
    from ..core.metadata import Metadata
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

#: Every format's module name (its ``name``), in sniffing order. Modules are imported when
#: first needed, so reading a folded file does not import speedscope (and json).
ORDER = ("speedscope", "folded")
#: What an input's head must look like for a format to be worth importing to sniff it.
_COULD_BE = {"speedscope": lambda head: head.lstrip()[:1] in (b"", b"{")}
SNIFF_BYTES = 64 * 1024


def _module(name: str) -> ModuleType:
    qualified = f"{__package__}.{name}"
    if qualified not in sys.modules:
        __import__(qualified)
    return sys.modules[qualified]


def formats() -> List[ModuleType]:
    """Every format module, in sniffing order (importing them all)."""
    return [_module(name) for name in ORDER]


def __getattr__(name: str) -> object:
    if name == "FORMATS":  # every format module, in sniffing order; imported on first use
        return formats()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def names() -> List[str]:
    return list(ORDER)


def writable_names() -> List[str]:
    return [fmt.name for fmt in formats() if hasattr(fmt, "dump")]


def by_name(name: str) -> ModuleType:
    if name not in ORDER:
        raise ArgumentError(f"unknown format {name!r}; known formats: {', '.join(ORDER)}")
    return _module(name)


def by_extension(path: str) -> Optional[ModuleType]:
    lower = path.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    for fmt in formats():
        if lower.endswith(tuple(fmt.extensions)):
            return fmt
    return None


def detect(head: bytes, path: str = "") -> ModuleType:
    """The format of an input: the first that recognises its head, else by file extension, else folded."""
    for name in ORDER:
        could_be = _COULD_BE.get(name)
        if (could_be is None or could_be(head)) and _module(name).sniff(head):
            return _module(name)
    return by_extension(path) or folded


def recognises(path: str) -> bool:
    """True if a format claims ``path`` by its extension or its first bytes (used to pick files from a directory)."""
    if by_extension(path):
        return True
    try:
        with open_binary(path) as (stream, _):
            head = stream.peek(SNIFF_BYTES)[:SNIFF_BYTES]
            return detect(head) is not folded or bool(folded.sniff(head))
    except InputError:
        return False


def read(
    source: Source,
    format: Optional[str] = None,
    *,
    skip_invalid: bool = False,
    diagnostics: Optional[Diagnostics] = None,
    stack_cache: Optional[Dict[str, Stack]] = None,
) -> Profile:
    """Read a profile from a path, '-' (stdin) or a binary stream; gzip is undone automatically.

    Pass the same ``stack_cache`` dict when reading many runs of one program: stacks seen
    before are not split again and share one tuple (faster reads and sums).
    """
    with open_binary(source) as (stream, name):
        fmt = by_name(format) if format else detect(stream.peek(SNIFF_BYTES)[:SNIFF_BYTES], name)
        return _parse(fmt, stream, name, skip_invalid, diagnostics, stack_cache)


def _parse(
    fmt: ModuleType, stream: BinaryIO, name: str, skip_invalid: bool,
    diagnostics: Optional[Diagnostics], stack_cache: Optional[Dict[str, Stack]],
) -> Profile:
    options = fmt.ReadOptions(skip_invalid=skip_invalid)
    if fmt is folded:  # reads bytes: its C core splits lines and sums counts (several times faster)
        folded_profile: Profile = folded.parse(stream, options, source=name, diagnostics=diagnostics, stack_cache=stack_cache)
        return folded_profile
    text = text_reader(stream)
    try:
        profile: Profile = fmt.parse(text, options, source=name, diagnostics=diagnostics, stack_cache=stack_cache)
        return profile
    finally:
        text.detach()


def read_texts(
    source: Source,
    format: Optional[str] = None,
    *,
    skip_invalid: bool = False,
    diagnostics: Optional[Diagnostics] = None,
) -> Tuple[Dict[str, Number], Metadata]:
    """Read a profile as stack texts ('a;b;c', as the folded format writes them) -> summed value, and its metadata.

    For commands that add, subtract or scale profiles and never need frames: a folded input
    is read by the C core without splitting stacks (several times faster than :func:`read`);
    other formats are read with :func:`read` and their stacks joined. Stacks with value 0 are
    left out. Raises :class:`folded.DifferentialInput` for two-count input.
    """
    with open_binary(source) as (stream, name):
        fmt = by_name(format) if format else detect(stream.peek(SNIFF_BYTES)[:SNIFF_BYTES], name)
        if fmt is folded:
            return folded.parse_texts(stream, folded.ReadOptions(skip_invalid=skip_invalid), source=name, diagnostics=diagnostics)
        profile = _parse(fmt, stream, name, skip_invalid, diagnostics, None)
    if isinstance(profile, Differential):
        raise folded.DifferentialInput(name, profile)
    return folded.texts(profile), profile.metadata


def write_texts(
    values: Mapping[str, Number],
    metadata: Metadata,
    destination: Union[str, "os.PathLike[str]", None] = None,
    *,
    before: Optional[Mapping[str, Number]] = None,
    header: bool = True,
) -> None:
    """Write what :func:`read_texts` reads as folded stacks (two counts per line with ``before``), as :func:`write` would."""
    with open_output(destination) as out:
        folded.dump_texts(values, metadata, out, folded.WriteOptions(header=header), before=before)


def write(profile: Union[Profile, FlameChart], destination: Union[str, "os.PathLike[str]", None] = None, format: str = "folded", **options: object) -> None:
    """Write ``profile`` to a path or stdout (None or '-')."""
    fmt = by_name(format)
    if not hasattr(fmt, "dump"):
        raise ArgumentError(f"cannot write the {format} format; writable formats: {', '.join(writable_names())}")
    if isinstance(profile, FlameChart) and not getattr(fmt, "charts", False):
        profile = profile.graph()
    with open_output(destination) as out:
        fmt.dump(profile, out, fmt.WriteOptions(**options))


__all__ = ["FORMATS", "by_name", "detect", "display_name", "names", "read", "read_texts", "recognises", "write", "write_texts"]
