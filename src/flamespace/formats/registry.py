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
from ..errors import ArgumentError, InputError
from . import folded
from ._io import display_name, open_binary, open_output, text_reader

TYPE_CHECKING = False
if TYPE_CHECKING:
    import os
    from types import ModuleType
    from typing import BinaryIO, Callable, Dict, List, Optional, Tuple, Union

    from .._types import Number, Profile, Source, Stack
    from ..core.metadata import Metadata
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

#: Every format's module name (its ``name``), in sniffing order. Modules are imported when
#: first needed, so reading a folded file does not import speedscope (and json).
ORDER = (
    "speedscope", "gecko", "chrome", "cpuprofile", "pprof", "pstats", "austin",
    "xctrace", "vtune", "vsprof", "ghcprof", "sample", "instruments", "jstack", "faulthandler",
    "gdb", "elfutils", "bpftrace", "pmc", "stap", "dtrace", "pyspy", "folded",
)
#: What an input's head must look like for a format to be worth importing to sniff it.
_COULD_BE: Dict[str, Callable[[bytes], bool]] = {
    "speedscope": lambda head: head.lstrip()[:1] in (b"", b"{"),
    "gecko": lambda head: head.lstrip()[:1] == b"{",
    "chrome": lambda head: head.lstrip()[:1] in (b"{", b"["),
    "cpuprofile": lambda head: head.lstrip()[:1] == b"{",
    "pprof": lambda head: head[:1] in (b"\x0a", b"\x12"),
    "pstats": lambda head: head[:1] in (b"{", b"\xfb"),
    "austin": lambda head: head[:3] == b"MOJ" or head.lstrip()[:1] in (b"#", b"P"),
    "xctrace": lambda head: b"<trace-query-result" in head,
    "vtune": lambda head: b"Function Stack," in head,
    "vsprof": lambda head: b"Level,Function Name," in head[:64],
    "ghcprof": lambda head: b"COST CENTRE" in head,
    "sample": lambda head: b"Call graph:" in head,
    "instruments": lambda head: b"\t \t" in head,
    "jstack": lambda head: b"java.lang.Thread.State" in head or b"Full thread dump" in head,
    "faulthandler": lambda head: b'  File "' in head,
    "gdb": lambda head: b"\n#" in head,
    "elfutils": lambda head: b"TID " in head,
    "bpftrace": lambda head: b"@[" in head,
    "pmc": lambda head: b"%  [" in head,
    "stap": lambda head: b" : " in head,
    "dtrace": lambda head: b"`" in head or b"0x" in head,
    "pyspy": lambda head: False,  # folded text: only when asked for (--from pyspy)
}
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
    text = text_reader(stream)
    try:
        profile: Profile = fmt.parse(text, options, source=name, diagnostics=diagnostics, stack_cache=stack_cache)
        return profile
    finally:
        text.detach()


class _WholeTexts(dict):  # type: ignore[type-arg]  # a stack cache that never splits
    """A folded ``stack_cache`` that hands back each stack text unsplit, as a 1-tuple: the
    profile it gives is keyed by (text,), which :func:`read_texts` unwraps."""

    def get(self, text: str, default: object = None) -> Tuple[str]:
        return (text,)

    def __setitem__(self, text: str, stack: object) -> None:
        pass


def read_texts(
    source: Source,
    format: Optional[str] = None,
    *,
    skip_invalid: bool = False,
    diagnostics: Optional[Diagnostics] = None,
) -> Tuple[Dict[str, Number], Metadata]:
    """Read a profile as stack texts ('a;b;c', as the folded format writes them) -> value, and its metadata.

    For commands that never need frames (compare builds its runs × stacks matrix from them).
    Stacks with value 0 are left out; two-count (differential) input is an :class:`InputError`.
    This version parses folded input with a stack cache that never splits a stack, and joins
    the frames of other formats again.
    """
    from ..core.differential import Differential

    with open_binary(source) as (stream, name):
        fmt = by_name(format) if format else detect(stream.peek(SNIFF_BYTES)[:SNIFF_BYTES], name)
        whole = fmt is folded
        profile = _parse(fmt, stream, name, skip_invalid, diagnostics, _WholeTexts() if whole else None)
    if isinstance(profile, Differential):
        raise InputError("is differential input (two counts per line); a profile with one count per line is needed", name)
    if whole:
        return {stack[0]: value for stack, value in profile.items()}, profile.metadata
    values: Dict[str, Number] = {}
    for stack, value in profile.items():
        if value:
            values[folded.format_stack(stack)] = value
    return values, profile.metadata


def write(profile: Union[Profile, FlameChart], destination: Union[str, "os.PathLike[str]", None] = None, format: str = "folded", **options: object) -> None:
    """Write ``profile`` to a path or stdout (None or '-')."""
    fmt = by_name(format)
    if not hasattr(fmt, "dump"):
        raise ArgumentError(f"cannot write the {format} format; writable formats: {', '.join(writable_names())}")
    if isinstance(profile, FlameChart) and not getattr(fmt, "charts", False):
        profile = profile.graph()
    with open_output(destination) as out:
        fmt.dump(profile, out, fmt.WriteOptions(**options))


__all__ = ["FORMATS", "by_name", "detect", "display_name", "names", "read", "read_texts", "recognises", "write"]
