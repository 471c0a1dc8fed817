"""The list of formats, what each can do, and reading and writing through them.

Every format module has ``name``, ``extensions``, ``sniff(head)``, ``ReadOptions`` (with at
least ``skip_invalid``), ``parse(stream, options, source=, diagnostics=, stack_cache=)`` and, if it can
hold a profile, ``WriteOptions`` and ``dump(profile, stream, options)``. A format that can
keep time order (a :class:`~flamespace.core.chart.FlameChart`) says so with ``charts = True``;
other formats are given the chart's flame graph. Optional: ``description`` and ``reference``
(the tool whose behaviour it follows), shown by ``flamespace formats``. :mod:`.protocol`
writes this down for mypy (``FormatModule``, ``FormatWriter``, ``ChartWriter``),
:mod:`._conformance` checks every format against it, and the registry hands formats out typed
by it (:data:`~.protocol.Format`, :data:`~.protocol.Writer`).

Which format an input is (by name, extension or content) is :mod:`.recognition`'s job; its
:func:`detect`, :func:`by_name`, :func:`by_extension` and :func:`recognises` are re-exported here.
"""

from __future__ import annotations

import os

from ..core.chart import FlameChart
from ..core.differential import Differential
from ..errors import ArgumentError
from . import folded
from ._io import display_name, open_binary, open_output, text_reader
from .recognition import ORDER, SNIFF_BYTES, by_name, detect, load, recognises

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO, Callable
    from collections.abc import Iterable, Iterator, Mapping, Sequence

    from typing_extensions import TypeGuard

    from .._types import Drawable, Number, Profile, Source, Stack
    from ..core.metadata import Metadata
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics
    from .protocol import ChartWriter, Format, Writer


def formats() -> list[Format]:
    """Every format module, in sniffing order (importing them all)."""
    return [load(name) for name in ORDER]


def __getattr__(name: str) -> object:
    if name == "FORMATS":  # every format module, in sniffing order; imported on first use
        return formats()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def names() -> list[str]:
    return list(ORDER)


def writable_names() -> list[str]:
    return [fmt.name for fmt in formats() if writes(fmt)]


def writes(fmt: Format) -> TypeGuard[Writer]:
    """Whether ``fmt`` can hold a profile (has ``dump`` and ``WriteOptions``)."""
    return hasattr(fmt, "dump")


def _keeps_time(fmt: Writer) -> TypeGuard[ChartWriter[Any, Any]]:
    """Whether ``fmt`` writes a flame chart in time order (``charts = True``) rather than its flame graph."""
    return bool(getattr(fmt, "charts", False))


def keeps_time(name: str) -> bool:
    """Whether the format named ``name`` writes a flame chart in time order (a recorder keeps its timeline for it)."""
    fmt = by_name(name)
    return writes(fmt) and _keeps_time(fmt)


def writer(name: str) -> Writer:
    """The writable format named ``name``; ArgumentError naming the writable ones if it is not."""
    fmt = by_name(name)
    if not writes(fmt):
        raise ArgumentError(f"cannot write the {name} format; writable formats: {', '.join(writable_names())}")
    return fmt


def write_options(name: str) -> list[str]:
    """The fields of a writable format's ``WriteOptions``."""
    cls = writer(name).WriteOptions
    if hasattr(cls, "__record_fields__"):
        return list(cls.__record_fields__)
    import dataclasses

    return [f.name for f in dataclasses.fields(cls)]


def read(
    source: Source,
    format: str | None = None,
    *,
    skip_invalid: bool = False,
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
    options: Mapping[str, object] | None = None,
) -> Drawable:
    """Read a profile from a path, '-' (stdin) or a binary stream; gzip is undone automatically.
    A format that keeps time order (``charts``) gives a :class:`FlameChart` (its ``graph()`` is
    the flame graph).

    Pass the same ``stack_cache`` dict when reading many runs of one program: stacks seen
    before are not split again and share one tuple (faster reads and sums). ``options`` are
    fields of the format's ``ReadOptions`` (``{"pid": True}`` for perf); one the format does
    not have is an :class:`ArgumentError`.
    """
    with open_binary(source) as (stream, name):
        fmt = (
            by_name(format)
            if format
            else detect(stream.peek(SNIFF_BYTES)[:SNIFF_BYTES], name, fallback="folded" if skip_invalid else None)
        )
        settings = fmt.ReadOptions(skip_invalid=skip_invalid, **check_options(fmt, options or {}))
        return _parse(fmt, stream, name, settings, diagnostics, stack_cache)


def _parse(
    fmt: Format,
    stream: BinaryIO,
    name: str,
    settings: Any,  # the format's own ReadOptions
    diagnostics: Diagnostics | None,
    stack_cache: dict[str, Stack] | None,
) -> Drawable:
    if fmt is folded:  # reads bytes: its C core splits lines and sums counts (several times faster)
        return folded.parse(stream, settings, source=name, diagnostics=diagnostics, stack_cache=stack_cache)
    text = text_reader(stream)
    try:
        return fmt.parse(text, settings, source=name, diagnostics=diagnostics, stack_cache=stack_cache)
    finally:
        text.detach()


def read_graph(
    source: Source,
    format: str | None = None,
    *,
    skip_invalid: bool = False,
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """:func:`read` for a caller that needs one flame graph: a flame chart gives its flame graph,
    two-count input raises :class:`folded.DifferentialInput` (which holds the Differential)."""
    profile = read(source, format, skip_invalid=skip_invalid, diagnostics=diagnostics, stack_cache=stack_cache)
    if isinstance(profile, FlameChart):  # a format that keeps time order: its flame graph
        profile = profile.graph()
    if isinstance(profile, Differential):
        raise folded.DifferentialInput(display_name(source), profile)
    return profile


def read_sum(
    sources: Sequence[Source],
    format: str | None = None,
    *,
    skip_invalid: bool = False,
    report: Callable[[Diagnostics], None] | None = None,
    each: Callable[[Sequence[Source]], Iterable[Source]] | None = None,
) -> FlameGraph:
    """The sum of many profiles: ``algebra.sum_graphs`` of :func:`read` of each source (the same
    values, metadata and errors), one input in memory at once besides the sum. A flame chart
    counts as its flame graph; two-count input raises :class:`folded.DifferentialInput`.

    Folded files of integer counts are added line by line straight into the sum (exact for
    ints, in any order; no profile per file, no stack split). Once a count is no int (floats
    add up differently in another order), or an input may be differential, the sum starts again
    run by run, as ``sum_graphs`` adds. Standard input cannot be read twice, so with '-' the sum
    is made run by run throughout. ``report`` gets each input's diagnostics once, after it is
    read; ``each`` wraps the iteration over the sources (a progress bar).
    """
    from ..core.algebra import sum_graphs
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

    each = each or iter
    done = 0  # inputs whose diagnostics were reported
    if folded._core is not None and "-" not in sources and all(isinstance(s, (str, os.PathLike)) for s in sources):
        total: dict[str, Number] = {}
        metadata: Metadata | None = None
        try:
            for source in each(sources):
                diagnostics = Diagnostics()
                with open_binary(source) as (stream, name):
                    fmt = by_name(format) if format else detect(stream.peek(SNIFF_BYTES)[:SNIFF_BYTES], name)
                    if fmt is not folded:
                        raise folded.Inexact(name)
                    meta = folded.add_ints(
                        stream, total, folded.ReadOptions(skip_invalid=skip_invalid), source=name, diagnostics=diagnostics
                    )
                if report is not None:
                    report(diagnostics)
                done += 1
                metadata = meta if metadata is None else metadata.combine(meta)
        except folded.Inexact:
            pass
        else:
            return FlameGraph.from_texts(total, metadata=metadata, checked=False)  # counts of lines read; zeros left out

    def graphs() -> Iterator[FlameGraph]:
        for index, source in enumerate(each(sources)):
            diagnostics = Diagnostics()
            try:
                graph = read_graph(source, format, skip_invalid=skip_invalid, diagnostics=diagnostics)
            except folded.DifferentialInput:
                if report is not None and index >= done:
                    report(diagnostics)
                raise
            if report is not None and index >= done:
                report(diagnostics)
            yield graph
            del graph  # not held while the next input is read

    return sum_graphs(graphs())


def read_options(fmt: Format) -> list[tuple[str, object, str]]:
    """(field, default, help) of each reader option of ``fmt`` but ``skip_invalid``, in the record's order.

    The help is the field's paragraph of the ``ReadOptions`` docstring (``name``: text), so the
    CLI's option help and the API's documentation are written once.
    """
    cls = fmt.ReadOptions
    if hasattr(cls, "__record_fields__"):
        from .._record import defaults, fields

        made = defaults(cls)
        names = [(n, made.get(n)) for n in fields(cls)]
    else:  # a dataclass
        import dataclasses

        names = [(f.name, f.default) for f in dataclasses.fields(cls)]
    helps = _field_help(cls.__doc__ or "")
    return [(n, default, helps.get(n, "")) for n, default in names if n != "skip_invalid"]


def _field_help(doc: str) -> dict[str, str]:
    """``name``: text paragraphs of a docstring, by name (a paragraph runs to the next blank line or field)."""
    helps: dict[str, str] = {}
    current: str | None = None
    for line in doc.splitlines():
        text = line.strip()
        if text.startswith("``") and "``:" in text:
            current, _, rest = text[2:].partition("``:")
            helps[current] = rest.strip().replace("``", "")
        elif current is not None and text:
            helps[current] += " " + text.replace("``", "")
        else:
            current = None
    return helps


def check_options(fmt: Format, options: Mapping[str, object]) -> Mapping[str, object]:
    """``options`` if every one is a reader option of ``fmt``; else ArgumentError naming the ones it has."""
    known = {n for n, _, _ in read_options(fmt)}
    unknown = [n for n in options if n not in known]
    if unknown:
        have = ", ".join(sorted(known)) or "none"
        raise ArgumentError(
            f"option{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} "
            f"do{'' if len(unknown) > 1 else 'es'} not apply to the {fmt.name} format (its options: {have})"
        )
    return options


def write(
    profile: Profile | FlameChart, destination: str | os.PathLike[str] | None = None, format: str = "folded", **options: object
) -> None:
    """Write ``profile`` to a path or stdout (None or '-'); a flame chart is written in time order
    by a format that keeps it (``charts``), as its flame graph by the others."""
    fmt = writer(format)
    settings = fmt.WriteOptions(**options)
    with open_output(destination) as out:
        if _keeps_time(fmt):
            fmt.dump(profile, out, settings)
        else:
            fmt.dump(profile.graph() if isinstance(profile, FlameChart) else profile, out, settings)


__all__ = [
    "FORMATS",  # noqa: F822 (module __getattr__: imports every format when asked)
    "by_name",
    "check_options",
    "detect",
    "display_name",
    "keeps_time",
    "names",
    "read",
    "read_graph",
    "read_options",
    "read_sum",
    "recognises",
    "write",
    "writer",
    "writes",
]
