"""The list of formats and the one place that picks a format for an input or output.

Every format module has ``name``, ``extensions``, ``sniff(head)``, ``ReadOptions`` (with at
least ``skip_invalid``), ``parse(stream, options, source=, diagnostics=, stack_cache=)`` and, if it can
hold a profile, ``WriteOptions`` and ``dump(profile, stream, options)``. A format that can
keep time order (a :class:`~flamespace.core.chart.FlameChart`) says so with ``charts = True``;
other formats are given the chart's flame graph. Optional: ``description`` and ``reference``
(the tool whose behaviour it follows), shown by ``flamespace formats``. :mod:`.protocol`
writes this down for mypy (``FormatModule``, ``FormatWriter``, ``ChartWriter``),
:mod:`._conformance` checks every format against it, and the registry hands formats out typed
by it (:data:`~.protocol.Format`, :data:`~.protocol.Writer`).

``sniff(head)`` says whether the first bytes of an input are of its format: True; None when
``head`` is too short to tell; False or a string saying why not (a format may instead define
``why_not(head)``, asked only when no format accepts the input, to name the reason).
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
    from typing import Any, BinaryIO, Callable
    from collections.abc import Iterable, Iterator, Mapping, Sequence

    from typing_extensions import TypeGuard

    from .._types import Drawable, Number, Profile, Source, Stack
    from ..core.metadata import Metadata
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics
    from .protocol import ChartWriter, Format, Writer

#: Every format's module name (its ``name``), in sniffing order. Modules are imported when
#: first needed, so reading a folded file does not import speedscope (and json).
ORDER = (
    "flamespace-json",
    "speedscope",
    "gecko",
    "chrome",
    "cpuprofile",
    "pprof",
    "pstats",
    "austin",
    "perf-sched",
    "perf",
    "xctrace",
    "vtune",
    "vsprof",
    "ghcprof",
    "sample",
    "instruments",
    "jstack",
    "faulthandler",
    "gdb",
    "elfutils",
    "bpftrace",
    "pmc",
    "stap",
    "dtrace",
    "pyspy",
    "nytprof",
    "folded-diff",
    "folded",
)
#: What an input's head must look like for a format to be worth importing to sniff it; an
#: input that fails this check is refused with the reason written here, without the import
#: (a bare check, without a reason, is accepted too).
_COULD_BE: dict[str, tuple[Callable[[bytes], bool], str] | Callable[[bytes], bool]] = {
    "flamespace-json": lambda head: (
        head.lstrip()[:1] in (b"", b"{") and (b'"flamespace"' in head[:256] or len(head.lstrip()) < 32)
    ),
    "speedscope": (lambda head: head.lstrip()[:1] in (b"", b"{"), "does not start with '{'"),
    "perf-sched": (
        lambda head: _has(b"sched:sched_stat_", head) or _has(b"sched:sched_switch:", head),
        "no sched:sched_switch, sched_stat_sleep or sched_stat_blocked events",
    ),
    # a sample header: "comm pid[/tid] ...:" (folded Python frames, "f (a.py:1) 5", have no such number)
    "perf": (lambda head: _first_line_has_pid(head), "its first line has no ':' after a process id ('comm pid ... event:')"),
    "gecko": lambda head: head.lstrip()[:1] == b"{",
    "chrome": lambda head: head.lstrip()[:1] in (b"{", b"["),
    "cpuprofile": lambda head: head.lstrip()[:1] == b"{",
    "pprof": lambda head: head[:1] in (b"\x0a", b"\x12"),
    "pstats": lambda head: head[:1] in (b"{", b"\xfb"),
    "austin": lambda head: head[:3] == b"MOJ" or head.lstrip()[:1] in (b"#", b"P"),
    "xctrace": lambda head: _has(b"<trace-query-result", head),
    "vtune": lambda head: _has(b"Function Stack,", head),
    "vsprof": lambda head: b"Level,Function Name," in head[:64],
    "ghcprof": lambda head: _has(b"COST CENTRE", head),
    "sample": lambda head: _has(b"Call graph:", head),
    "instruments": lambda head: _has(b"\t \t", head),
    "jstack": lambda head: _has(b"java.lang.Thread.State", head) or _has(b"Full thread dump", head),
    "faulthandler": lambda head: _has(b'  File "', head),
    "gdb": lambda head: _has(b"\n#", head),
    "elfutils": lambda head: _has(b"TID ", head),
    "bpftrace": lambda head: _has(b"@[", head),
    "pmc": lambda head: _has(b"%  [", head),
    "stap": lambda head: _has(b" : ", head),
    "dtrace": lambda head: _has(b"`", head) or _has(b"0x", head),
    "pyspy": (lambda head: False, "read only when named (--from pyspy): it is folded text"),
    "nytprof": (lambda head: False, "read only when named (--from nytprof): it is folded text"),
    "folded-diff": (lambda head: False, "read only when named (--from folded-diff): folded reads two counts per line too"),
}
SNIFF_BYTES = 64 * 1024
#: Bytes in the order of how often stack texts hold them, most often first. :func:`_has` looks
#: for a token's byte that comes latest here (or is not here) first: a one-byte search (memchr)
#: is many times faster than a token's, and where that byte is not, neither is the token.
_FREQUENT = b" ;._etaoinsrlcdmufph(:)0123456789gbywkv/-<>\nxEjqzSTARCIFNDLMOP"
_KEYS: dict[bytes, bytes] = {}


def _has(token: bytes, head: bytes) -> bool:
    """``token in head``, quicker where the token's rarest byte is not in ``head`` (the same answer)."""
    key = _KEYS.get(token)
    if key is None:
        rank = {byte: i for i, byte in enumerate(_FREQUENT)}
        key = _KEYS[token] = bytes([max(token, key=lambda byte: rank.get(byte, len(rank)))])
    return key in head and token in head


def _first_line_has_pid(head: bytes) -> bool:
    """Whether the first line that is not a comment or blank has a ':' and a number (pid or pid/tid)
    between other words (or the head ends before such a line)."""
    end = head.find(b"\n", 4096) + 1  # whole first lines, where the answer usually is: not all 64 KB split
    first = head[:end].splitlines() if end else []  # the same as the first lines of head.splitlines()
    for lines in (first, head.splitlines()):
        for line in lines[:64]:
            if line and not line.startswith(b"#"):
                return b":" in line and any(word.replace(b"/", b"").isdigit() for word in line.split()[1:-1])
        if len(lines) >= 64:
            break
    return True


def _module(name: str) -> Format:
    """The format module named ``name`` (one of :data:`ORDER`), imported if it is not yet;
    protocol.py checks that each such module is a ``Format``."""
    qualified = f"{__package__}.{name.replace('-', '_')}"  # perf-sched is formats/perf_sched.py
    # Imported every time, not looked up in sys.modules first: a module another thread is still
    # importing is there half made (a server's first reads race), and the import waits for it.
    __import__(qualified)
    module: Format = sys.modules[qualified]
    return module


def formats() -> list[Format]:
    """Every format module, in sniffing order (importing them all)."""
    return [_module(name) for name in ORDER]


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


def by_name(name: str) -> Format:
    if name not in ORDER:
        raise ArgumentError(f"unknown format {name!r}; known formats: {', '.join(ORDER)}")
    return _module(name)


def by_extension(path: str) -> Format | None:
    """The format that claims ``path``'s extension (``.gz`` aside); formats already imported are asked first."""
    lower = path.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    loaded = [name for name in ORDER if f"{__package__}.{name.replace('-', '_')}" in sys.modules]
    for name in loaded + [name for name in ORDER if name not in loaded]:
        fmt = _module(name)
        if lower.endswith(tuple(fmt.extensions)):
            return fmt
    return None


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


def detect(head: bytes, path: str = "", *, fallback: str | None = None) -> Format:
    """The format of an input from its content; its file name only breaks ties.

    Every format whose ``sniff`` accepts ``head`` is a candidate; among several, the one that
    claims the file's extension wins, else the first in :data:`ORDER`. When none accepts, a
    format that claims the extension reads it (its parser then names the bad line); else, if
    some format could not tell yet (an empty input), folded; else ``fallback`` if given; else
    :class:`InputError` naming every format tried and why each refused.
    """
    accepted, undecided, refused = _sniff_all(head)
    if len(accepted) == 1:
        return accepted[0]  # the common case: no extension asked (by_extension imports every format)
    by_name_of_file = by_extension(path) if path else None
    if accepted:
        return by_name_of_file if by_name_of_file in accepted else accepted[0]
    if by_name_of_file is not None:
        return by_name_of_file
    if undecided:
        return folded if "folded" in undecided or not head.strip() else _module(undecided[0])
    if fallback is not None:
        return by_name(fallback)
    raise InputError(_refusals(refused), path or None)


#: What a format's cheap pre-check says when it refuses (see _COULD_BE).
_NOTHING_LIKE = "its first bytes cannot start one"


def _refusals(refused: list[tuple[str, str]]) -> str:
    """Why no format reads an input: folded's reason first (the likeliest intent), then each
    format with a reason of its own, then the formats whose pre-check found nothing like them."""
    specific = sorted((pair for pair in refused if pair[1] != _NOTHING_LIKE), key=lambda pair: pair[0] != "folded")
    others = [name for name, reason in refused if reason == _NOTHING_LIKE]
    lines = [f"  {name}: {reason}" for name, reason in specific]
    if others:
        lines.append(f"  {', '.join(others)}: nothing in the first bytes looks like them")
    return "not a format flamespace reads; name one with --from (`flamespace formats` lists them). Tried:\n" + "\n".join(lines)


def _sniff_all(head: bytes) -> tuple[list[Format], list[str], list[tuple[str, str]]]:
    """(formats that accept ``head``, names of those that cannot tell yet, (name, reason) of those that refuse)."""
    accepted: list[Format] = []
    undecided: list[str] = []
    refused: list[tuple[str, str]] = []
    for name in ORDER:
        could_be = _COULD_BE.get(name)
        if could_be is not None:
            check, reason = could_be if isinstance(could_be, tuple) else (could_be, _NOTHING_LIKE)
            if not check(head):
                refused.append((name, reason))
                continue
        fmt = _module(name)
        verdict = fmt.sniff(head)
        if verdict is True:
            accepted.append(fmt)
        elif verdict is None:
            undecided.append(name)
        else:
            refused.append((name, verdict if isinstance(verdict, str) else _why_not(fmt, head)))
    return accepted, undecided, refused


def _why_not(fmt: Format, head: bytes) -> str:
    why_not = getattr(fmt, "why_not", None)
    reason = why_not(head) if why_not is not None else None
    return str(reason) if reason else "its content does not match"


def recognises(path: str) -> bool:
    """True if a format claims ``path`` by its extension or its first bytes (used to pick files from a directory)."""
    if by_extension(path):
        return True
    try:
        with open_binary(path) as (stream, _):
            return bool(_sniff_all(stream.peek(SNIFF_BYTES)[:SNIFF_BYTES])[0])
    except InputError:
        return False


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
