"""The list of formats and the one place that picks a format for an input or output.

Every format module has ``name``, ``extensions``, ``sniff(head)``, ``ReadOptions`` (with at
least ``skip_invalid``), ``parse(stream, options, source=, diagnostics=, stack_cache=)`` and, if it can
hold a profile, ``WriteOptions`` and ``dump(profile, stream, options)``. A format that can
keep time order (a :class:`~flamespace.core.chart.FlameChart`) says so with ``charts = True``;
other formats are given the chart's flame graph.
"""

from __future__ import annotations

import os
import sys

from ..core.chart import FlameChart
from ..core.differential import Differential
from ..errors import ArgumentError, InputError
from . import folded
from ._io import display_name, open_binary, open_output, text_reader

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import BinaryIO, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

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
        profile: Union[Profile, FlameChart] = _parse(fmt, stream, name, skip_invalid, diagnostics, None)
    if isinstance(profile, FlameChart):  # a format that keeps time order: its flame graph
        profile = profile.graph()
    if isinstance(profile, Differential):
        raise folded.DifferentialInput(name, profile)
    return folded.texts(profile), profile.metadata


def sum_texts(
    sources: Sequence[Source],
    format: Optional[str] = None,
    *,
    skip_invalid: bool = False,
    report: Optional[Callable[[Diagnostics], None]] = None,
    each: Optional[Callable[[Sequence[Source]], Iterable[Source]]] = None,
) -> Tuple[Dict[str, Number], Metadata]:
    """The sum of many profiles as stack texts: ``algebra.sum_values`` of :func:`read_texts` of each
    source, the same values, metadata and errors, with one dict update per line.

    Folded files of integer counts are added line by line straight into the sum (exact for
    ints, in any order). Once a count is no int (floats add up differently in another order),
    or an input may be differential, the sum starts again run by run, as ``sum_values`` adds.
    Standard input cannot be read twice, so with '-' the sum is made run by run throughout.
    ``report`` gets each input's diagnostics once, after it is read; ``each`` wraps the
    iteration over the sources (a progress bar).
    """
    from ..core.algebra import sum_values
    from ..core.metadata import Metadata
    from ..diagnostics import Diagnostics

    each = each or iter
    done = 0  # inputs whose diagnostics were reported
    if folded._core is not None and "-" not in sources and all(isinstance(s, (str, os.PathLike)) for s in sources):
        total: Dict[str, Number] = {}
        metadata: Optional[Metadata] = None
        try:
            for source in each(sources):
                diagnostics = Diagnostics()
                with open_binary(source) as (stream, name):
                    fmt = by_name(format) if format else detect(stream.peek(SNIFF_BYTES)[:SNIFF_BYTES], name)
                    if fmt is not folded:
                        raise folded.Inexact(name)
                    meta = folded.add_ints(stream, total, folded.ReadOptions(skip_invalid=skip_invalid), source=name, diagnostics=diagnostics)
                if report is not None:
                    report(diagnostics)
                done += 1
                metadata = meta if metadata is None else metadata.combine(meta)
        except folded.Inexact:
            pass
        else:
            if 0 in total.values():  # stacks whose every count was 0
                for text in [text for text, value in total.items() if not value]:
                    del total[text]
            return total, metadata or Metadata()

    def parts() -> Iterator[Tuple[Dict[str, Number], Metadata]]:
        for index, source in enumerate(each(sources)):
            diagnostics = Diagnostics()
            try:
                part = read_texts(source, format, skip_invalid=skip_invalid, diagnostics=diagnostics)
            except folded.DifferentialInput:
                if report is not None and index >= done:
                    report(diagnostics)
                raise
            if report is not None and index >= done:
                report(diagnostics)
            yield part
            del part  # not held while the next input is read

    return sum_values(parts())


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


__all__ = ["FORMATS", "by_name", "detect", "display_name", "names", "read", "read_texts", "recognises", "sum_texts", "write", "write_texts"]
