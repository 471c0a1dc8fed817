"""The folded (collapsed) stack format of Brendan Gregg's FlameGraph: ``root;child;leaf 12``.

Grammar (one record per line; docs/formats.md has the full table of edge cases)::

    line      = stack WS count [WS count] | "#" comment | blank
    stack     = frame *( ";" frame )         ; may be empty: " 5" is 5 samples with no frame
    count     = DIGITS [ "." *DIGIT ]        ; what flamegraph.pl accepts
    metadata  = "#" *WS key ":" WS value     ; e.g. "# unit: ns" (Austin writes these)

The count is after the *last* whitespace, so frames may contain spaces; other whitespace
before the count stays in the stack, as in flamegraph.pl (``a;b  1`` has the frame ``"b "``).
A file where every line has two counts is differential input (before, after), as
difffolded.pl writes it.
"""

from __future__ import annotations

import io
from operator import itemgetter

from .._record import Record, record
from ..core.differential import Differential
from ..core.metadata import Metadata
from ..core.vector import MAX_DIGITS, MAX_VALUE, FlameGraph, below_max, stack_texts
from ..diagnostics import Diagnostics
from ..errors import ArgumentError, InputError
from ._io import ENCODING_ERRORS, bounded_lines, line_too_long
from ._limits import max_line_bytes

try:
    from . import _folded  # the C loop over lines (_folded.c)

    _core: ModuleType | None = _folded
except ImportError:  # built without it: the Python loop reads every line
    _core = None

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from types import ModuleType
    from typing import BinaryIO, Callable, TextIO
    from collections.abc import Iterable

    from .._types import Number, Profile, Stack

name = "folded"
extensions = (".folded", ".collapsed", ".fold")
description = "folded stacks (stackcollapse-*.pl, py-spy --format raw, Austin)"
reference = "flamegraph.pl (FlameGraph)"

#: Frames cannot contain ';' in this format: writers replace it with this character.
SEMICOLON_REPLACEMENT = ":"

#: ``# key: value`` header lines; compiled on first use (files without headers need no ``re``).
_METADATA_PATTERN = r"#\s*([A-Za-z_][\w.\-]*)\s*:\s?(.*)$"
_metadata: re.Pattern[str] | None = None
_SHOWN = 60  # characters of a bad line quoted in an error


@record
class ReadOptions(Record):
    """How to read folded input.

    ``skip_invalid``: skip malformed lines (counted in the diagnostics) instead of failing.
    ``columns``: auto (differential when every line has two counts), 1 or 2.
    """

    skip_invalid: bool = False
    columns: str = "auto"


@record
class WriteOptions(Record):
    """How to write folded output. ``header``: write metadata as ``# key: value`` lines."""

    header: bool = True


def sniff(head: bytes) -> bool | None:
    """True if the first data line looks like ``stack count``; None if ``head`` has no full line."""
    text = head.decode("utf-8", "replace").lstrip("\ufeff")
    lines = text.splitlines()
    if not text.endswith(("\n", "\r")):
        lines = lines[:-1]
    for line in lines:
        line = line.rstrip()
        if line and not line.startswith("#"):
            _, count, cut = _split_count(line)
            return cut >= 0 and _is_decimal(count)
    return None


def why_not(head: bytes) -> str:
    """Why ``head`` is not folded stacks: its first data line, and what is wrong with it."""
    for number, line in enumerate(head.decode("utf-8", "replace").lstrip("\ufeff").splitlines(), 1):
        line = line.rstrip()
        if line and not line.startswith("#"):
            rest, count, cut = _split_count(line)
            return f"line {number}: {_invalid_reason(line, cut, count)}"
    return "no stacks"


def _is_decimal(text: str) -> bool:
    """ASCII digits, optionally a point and more digits (``12``, ``1.5``, ``3.``)."""
    whole, point, fraction = text.partition(".")
    return whole.isdigit() and whole.isascii() and (not point or not fraction or (fraction.isdigit() and fraction.isascii()))


_MAX_COUNT = MAX_VALUE  # counts must be below it (core.vector says why)


def _number(text: str) -> Number | None:
    """The count ``text`` holds; None if it is not a count or not below :data:`_MAX_COUNT`."""
    if text.isdigit() and text.isascii():
        value = int(text) if len(text) <= MAX_DIGITS else _MAX_COUNT
        return value if value < _MAX_COUNT else None
    if _is_decimal(text):
        value = float(text)
        return value if value < _MAX_COUNT else None
    return None


def _metadata_match(line: str) -> tuple[str, str] | None:
    """(key, value) of a ``# key: value`` line as :data:`_METADATA_PATTERN` matches it, written
    out: ``re`` costs a small command a third of python's start-up (docs/performance.md), and
    every profile flamespace writes has these lines. tests/formats/test_folded_headers.py holds
    the two to the same answer."""
    if "\n" in line:  # never in a line read here (lines are split at "\n"): the pattern decides
        return _metadata_regex(line)
    n = len(line)
    if not n or line[0] != "#":
        return None
    i = 1
    while i < n and line[i].isspace():  # \s*
        i += 1
    start = i
    if i == n or not (line[i] == "_" or (line[i].isascii() and line[i].isalpha())):  # [A-Za-z_]
        return None
    i += 1
    while i < n and (line[i].isalnum() or line[i] in "_.-"):  # [\w.\-]*
        i += 1
    key = line[start:i]
    while i < n and line[i].isspace():  # \s*
        i += 1
    if i == n or line[i] != ":":
        return None
    i += 1
    if i < n and line[i].isspace():  # \s?
        i += 1
    return key, line[i:]


def _metadata_regex(line: str) -> tuple[str, str] | None:
    """:func:`_metadata_match` by the pattern itself."""
    global _metadata
    if _metadata is None:
        import re

        _metadata = re.compile(_METADATA_PATTERN)
    match = _metadata.match(line)
    return (match.group(1), match.group(2)) if match else None


def _invalid_reason(line: str, cut: int, count: str) -> str:
    shown = line if len(line) <= _SHOWN else line[: _SHOWN - 3] + "..."
    if cut < 0:
        return f"expected 'frame;frame;... count', found no count after a space: {shown!r}"
    if count.startswith("-") and _number(count[1:]) is not None:
        return f"count {count} is negative; counts must be >= 0"
    if _is_decimal(count):
        return f"count {count:.20}... is out of range; counts must be below {_MAX_COUNT:g}"
    return f"expected a count (digits, optionally with a decimal point) at the end of the line, found {count!r}"


def _split_count(text: str) -> tuple[str, str, int]:
    """(rest, count_text, cut) where count_text follows the last space or tab."""
    cut = max(text.rfind(" "), text.rfind("\t"))
    return text[:cut], text[cut + 1 :], cut


def parse(
    stream: TextIO | BinaryIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> Profile:
    """Read folded stacks; repeated stacks are summed, frames are interned.

    ``stream`` is text, or bytes (UTF-8; read by the C core when it is built, much faster).
    The profile keeps its stacks as their texts until a stack is asked for
    (:meth:`FlameGraph.from_texts`): adding, scaling, comparing or writing it splits none.
    ``stack_cache`` maps stack text to its tuple; share one dict across the files of a
    merge so a stack seen in many runs is split once and its tuple object is reused.

    Returns a :class:`FlameGraph`, or a :class:`Differential` for two-count input.
    Raises :class:`InputError` naming the line of the first malformed record unless
    ``options.skip_invalid`` is set.
    """
    counts, metadata = _read_counts(stream, options, source, diagnostics)
    # bytes are read with universal newlines (no line break in a text): the counts are taken as
    # they are; a text stream's lines may hold a '\r' (StringIO), so its texts are checked
    checked = not isinstance(stream, (io.BufferedIOBase, io.RawIOBase))
    if options.columns == "2" or (options.columns == "auto" and _all_differential(counts)):
        # both sides mostly hold the same stacks: split each once
        return _differential(counts, metadata, {} if stack_cache is None else stack_cache, checked)
    if counts and not max(counts.values()) < _MAX_COUNT:  # each count below it, a sum need not be (10**300 + 0.0 is 1e300)
        text = next(text for text, value in counts.items() if not value < _MAX_COUNT)
        raise InputError(f"the counts of {text[:60]!r} add up to {counts[text]:.3g}, not below {_MAX_COUNT:g}", source)
    return FlameGraph.from_texts(counts, metadata=metadata, stacks=stack_cache, checked=checked)


class DifferentialInput(InputError):
    """Two-count (differential) input where a profile with one count per line is needed.

    ``profile``: the Differential the input holds, for callers that can use it instead.
    """

    def __init__(self, source: str | None = None, profile: Differential | None = None):
        super().__init__("is differential input (two counts per line); a profile with one count per line is needed", source)
        self.profile = profile


def texts(graph: FlameGraph) -> dict[str, Number]:
    """``graph``'s values keyed by its stacks' folded text, as :func:`dump` writes them (for keys a
    sample's rows share whichever format a run came from); ArgumentError if two stacks collide."""
    held = stack_texts(graph)
    if held is not None:
        return held
    values: dict[str, Number] = {}
    for stack, value in graph.items():
        text = format_stack(stack)
        if text in values:
            raise _collision(text)
        values[text] = value
    return values


def _read_counts(
    stream: TextIO | BinaryIO, options: ReadOptions, source: str, diagnostics: Diagnostics | None
) -> tuple[dict[str, Number], Metadata]:
    """Stack text -> summed value (zeros kept, in first-appearance order) and the ``# key: value`` metadata."""
    if options.columns not in ("auto", "1", "2"):
        raise ArgumentError(f"columns must be 'auto', '1' or '2', not {options.columns!r}")
    counts: dict[str, Number] = {}
    labels: dict[str, str] = {}
    if not isinstance(stream, (io.BufferedIOBase, io.RawIOBase)):  # text
        _sum_lines(bounded_lines(stream, source), 1, counts, labels, options, source, diagnostics)  # type: ignore[arg-type]  # text: mypy cannot narrow by the io classes
    elif _core is None or options.columns == "2":
        from ._io import text_reader

        text = text_reader(stream)
        try:
            _sum_lines(bounded_lines(text, source), 1, counts, labels, options, source, diagnostics)
        finally:
            text.detach()
    else:
        _sum_binary(stream, _core.sum_lines, counts, labels, options, source, diagnostics)
    return counts, Metadata(unit=labels.pop("unit", None), metric=labels.pop("metric", None), labels=labels)


_CHUNK_BYTES = 1 << 16  # bytes read at once for the C core: a chunk stays in the CPU's cache while it is read


def _sum_binary(
    stream: BinaryIO,
    sum_lines: Callable[[bytes, int, dict[str, Number], int, bool], tuple[int, int, int, int, int]],
    counts: dict[str, Number],
    labels: dict[str, str],
    options: ReadOptions,
    source: str,
    diagnostics: Diagnostics | None,
    chunk: int = _CHUNK_BYTES,
    punted: dict[str, Number] | None = None,
) -> tuple[int, int]:
    """Sum the lines of a UTF-8 byte stream with ``sum_lines`` (the C core), which stops at every line
    it leaves to :func:`_sum_lines`: the first, headers, errors, odd line breaks.

    Reads ``chunk`` bytes at a time; a line cut by the end of a chunk is read with the next.
    Lines are numbered as a text stream with universal newlines numbers them. The lines
    :func:`_sum_lines` reads are summed in ``punted`` if given, else in ``counts``.
    Returns what the core added: (lines, lines whose stack cannot end in a count).
    """
    limit = max_line_bytes()
    data = b""
    pos = 0
    lineno = 1
    final = False
    added = plain = 0
    while not final:
        data, final = _next_chunk(stream, data[pos:], chunk, limit, source, lineno)
        pos = 0
        while True:
            pos, lineno, status, lines, plain_lines = sum_lines(data, pos, counts, lineno, final)
            added += lines
            plain += plain_lines
            if not status:
                break
            end = data.find(b"\n", pos) + 1
            if not end:  # the last line, without a line break
                end = len(data)
            # utf-8-sig drops a BOM from the first line, as the text reader does
            text = data[pos:end].decode("utf-8-sig" if lineno == 1 else "utf-8", ENCODING_ERRORS)
            lines_ = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            if lines_[-1] == "":
                lines_.pop()  # after the last line break (or an empty rest at the end of the input)
            lineno = _sum_lines(lines_, lineno, counts if punted is None else punted, labels, options, source, diagnostics)
            pos = end
    return added, plain


def _next_chunk(stream: BinaryIO, rest: bytes, chunk: int, limit: int, source: str, lineno: int) -> tuple[bytes, bool]:
    """(``rest`` and what follows it up to the end of a chunk with a line break, whether the input
    ended). ``rest`` is the start of line ``lineno``, cut by the end of the last chunk: while the
    line goes on, chunks are gathered and joined once, so a line of many chunks costs time
    linear in its length (joining each chunk to the rest and scanning it again was quadratic).
    A line longer than ``limit`` bytes (at least a chunk) is refused (:func:`._io.line_too_long`)
    once that much of it is read. '\\r' ends a line too (universal newlines, as the Python reader reads)."""
    more = stream.read(chunk)
    newline = more.find(b"\n")
    if newline >= 0 and len(rest) + newline <= limit:  # the common case: the line ends in this chunk
        return rest + more, False
    parts = [rest]
    length = len(rest) - rest.rfind(b"\r") - 1  # of the line that runs at the end of what is read
    lineno += rest.count(b"\r")  # that line's number
    while more:
        parts.append(more)
        newline = more.find(b"\n")
        end = newline if newline >= 0 else len(more)
        if length + end > limit:  # unless the line ended at a '\r' before
            cr = more.find(b"\r", 0, end)
            if cr < 0 or length + cr > limit:
                raise line_too_long(source, lineno, limit)
        if newline >= 0:
            return b"".join(parts), False
        last_cr = more.rfind(b"\r")
        if last_cr >= 0:
            length = len(more) - last_cr - 1
            lineno += more.count(b"\r")
        else:
            length += len(more)
        more = stream.read(chunk)
    return b"".join(parts), True


class Inexact(Exception):
    """Raised by :func:`add_ints`: the input holds a count that is no int (or may be differential),
    so it must be read with :func:`parse` and summed on its own."""


def add_ints(
    stream: BinaryIO,
    total: dict[str, Number],
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
) -> Metadata:
    """Add folded input straight into ``total`` (whose values are all ints, zeros allowed): one dict
    update per line, for a merge of many runs. Returns the input's metadata.

    Adding run by run (:func:`parse`, then a sum) gives the same values only while every
    count is an int (floats add up differently in another order): raises :class:`Inexact`
    (``total`` then spoilt) when a count is no int, or when every stack may end in a count (the
    input may be differential). Needs the C core.
    """
    if _core is None or options.columns != "auto":
        raise ArgumentError("add_ints needs the C core and columns='auto'")
    sum_ints = _core.sum_lines
    extra: dict[str, Number] = {}  # the lines Python reads
    labels: dict[str, str] = {}
    added, plain = _sum_binary(
        stream, lambda *args: sum_ints(*args, True), total, labels, options, source, diagnostics, punted=extra
    )
    if any(type(value) is not int for value in extra.values()):
        raise Inexact(source)
    if (added or extra) and not plain and _all_differential(extra, empty=True):
        raise Inexact(source)  # every stack may end in a count (differential input?): parse decides
    get = total.get
    for text, value in extra.items():
        total[text] = get(text, 0) + value
    return Metadata(unit=labels.pop("unit", None), metric=labels.pop("metric", None), labels=labels)


class _IntoRun:
    """Where :func:`_sum_lines` adds the lines the C core leaves to it when a :class:`ColumnReader`
    reads: into the table's current run, in line order (the dict methods it uses, nothing else)."""

    def __init__(self, table: object, source: str) -> None:
        self.table = table
        self.source = source
        self.texts: dict[str, Number] = {}  # for the differential check

    def get(self, text: str, default: Number) -> Number:
        return 0  # __setitem__ adds

    def __setitem__(self, text: str, value: Number) -> None:
        assert _core is not None
        if not _core.add_text(self.table, text, value):
            raise Inexact(self.source)
        self.texts[text] = value


class ColumnReader:
    """Reads the folded runs of a sample as (column, value) pairs against one table of stack
    texts kept across runs, with the columns of ``index`` (stack text -> column, which it
    extends): a stack seen in an earlier run costs a hash of its bytes, no str and no dict.

    :meth:`read` gives what :func:`parse` gives turned into columns: the same values (in
    first-appearance order), metadata, errors and diagnostics. It raises :class:`Inexact` (the
    run then left out of the table) where the caller must read the run with :func:`parse`:
    an int sum beyond 2**63 or input that may be differential. Needs the C core.
    """

    def __init__(self, index: dict[str, int]) -> None:
        if _core is None:
            raise ArgumentError("ColumnReader needs the C core")
        self.index = index
        self._table = _core.table_new()

    def read(
        self,
        stream: BinaryIO,
        options: ReadOptions = ReadOptions(),
        *,
        source: str = "<input>",
        diagnostics: Diagnostics | None = None,
    ) -> tuple[bytes, list[Number], Metadata]:
        """One run: (its columns as native intp bytes, their values, its metadata)."""
        core = _core
        assert core is not None
        if options.columns != "auto":
            raise Inexact(source)
        table = self._table
        labels: dict[str, str] = {}
        into = _IntoRun(table, source)
        try:
            added, plain = _sum_binary(
                stream,
                lambda data, start, counts, lineno, final: core.add_columns(data, start, table, lineno, final),
                {},
                labels,
                options,
                source,
                diagnostics,
                punted=into,  # type: ignore[arg-type]
            )
            if (added or into.texts) and not plain and _all_differential(into.texts, empty=True):
                raise Inexact(source)  # every stack may end in a count (differential input?): parse decides
        except BaseException:
            core.drop_run(table)
            raise
        columns, values = core.take_run(table, self.index)
        return columns, values, Metadata(unit=labels.pop("unit", None), metric=labels.pop("metric", None), labels=labels)


def _sum_lines(
    lines: Iterable[str],
    first: int,
    counts: dict[str, Number],
    labels: dict[str, str],
    options: ReadOptions,
    source: str,
    diagnostics: Diagnostics | None,
) -> int:
    """Add ``lines`` (numbered from ``first``) to ``counts`` and their headers to ``labels``; the next line's number.

    The reader's rules, errors and diagnostics: the pure-Python path reads every line here,
    the C core only the lines it does not take (the tests check that both agree).
    """
    two_columns = options.columns == "2"
    get = counts.get
    lineno = first - 1
    for lineno, line in enumerate(lines, first):
        line = line.rstrip()
        if lineno == 1:
            line = line.lstrip("\ufeff")
        if not line:
            continue
        if line[0] == "#":
            match = _metadata_match(line)
            if match:
                labels[match[0]] = match[1]
            continue
        cut = line.rfind(" ")
        if "\t" in line:
            cut = max(cut, line.rfind("\t"))
        count = line[cut + 1 :]
        value = _number(count) if cut >= 0 else None
        if value is None or (two_columns and _number(_split_count(line[:cut])[1]) is None):
            reason = (
                _invalid_reason(line, cut, count)
                if value is None
                else "expected two counts (before after) on every line of differential input"
            )
            if not options.skip_invalid:
                raise InputError(reason, source, lineno)
            if diagnostics is not None:
                diagnostics.skip(source, lineno, reason)
            continue
        stack = line[:cut]  # as flamegraph.pl: whitespace before the last one stays in the stack
        counts[stack] = get(stack, 0) + value
    return lineno + 1


def _all_differential(counts: dict[str, Number], empty: bool = False) -> bool:
    """True when every stack text still ends in a count: the file has two count columns (``empty`` when there are none)."""
    if not counts:
        return empty
    for text in counts:
        rest, count, cut = _split_count(text)
        if cut < 0 or _number(count) is None:
            return False
    return True


def _differential(counts: dict[str, Number], metadata: Metadata, cache: dict[str, Stack], checked: bool) -> Differential:
    before: dict[str, Number] = {}
    after: dict[str, Number] = {}
    for text in list(counts):
        value = counts.pop(text)
        stack, first, _ = _split_count(text)
        before[stack] = before.get(stack, 0) + (_number(first) or 0)
        after[stack] = after.get(stack, 0) + value
    return Differential(  # the sides share one table of splits: a stack of both is split once
        FlameGraph.from_texts(before, metadata=metadata, stacks=cache, checked=checked),
        FlameGraph.from_texts(after, metadata=metadata, stacks=cache, checked=checked),
    )


def format_number(value: Number) -> str:
    """A count as flamegraph.pl reads it: digits with an optional decimal point, never an exponent."""
    if isinstance(value, int):
        return str(value)
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    text = repr(value)
    if "e" in text or "E" in text:
        from decimal import Decimal

        text = format(Decimal(text), "f")
    return text


def format_stack(stack: Stack) -> str:
    """Join frames with ';', replacing ';' inside frames and line breaks (which the format cannot hold)."""
    text = ";".join(stack)
    if text.count(";") != len(stack) - 1 or "\n" in text or "\r" in text:
        text = ";".join(f.replace(";", SEMICOLON_REPLACEMENT).replace("\r", " ").replace("\n", " ") for f in stack)
    return text


def _header(metadata: Metadata) -> list[str]:
    fields = [("unit", metadata.unit), ("metric", metadata.metric)]
    fields += sorted(metadata.labels.items())
    return [
        f"# {' '.join(key.split())}: {' '.join(str(value).split())}\n" for key, value in fields if value is not None
    ]  # no line breaks


def _sort_bytewise(rows: list[tuple[str, str]]) -> None:
    """Sort by stack text as Perl's ``sort`` does on bytes; only non-ASCII text needs a byte key."""
    if all(text.isascii() for text, _ in rows):
        rows.sort(key=itemgetter(0))
    else:
        rows.sort(key=lambda row: row[0].encode("utf-8", "surrogateescape"))


_CHUNK = 1024  # lines per write: bounded extra memory (a few hundred kB), few system calls


def dump(profile: Profile, stream: TextIO, options: WriteOptions = WriteOptions()) -> None:
    """Write ``profile`` as folded stacks sorted bytewise, like the Perl tools' output (a profile
    kept as stack texts is written from its texts: no frame joined)."""
    if isinstance(profile, Differential):
        before, after = _writable_texts(profile.before), _writable_texts(profile.after)
        if before is not None and after is not None:
            rows = [
                (text, f"{_count(before.get(text, 0), text)} {_count(after.get(text, 0), text)}")
                for text in before.keys() | after.keys()
            ]
        else:
            rows = [(format_stack(stack), f"{_count(b, stack)} {_count(a, stack)}") for stack, b, a in profile.rows()]
        metadata = profile.after.metadata
    else:
        texts = _writable_texts(profile)
        if texts is not None:
            rows = [(text, _count(value, text)) for text, value in texts.items()]
        else:
            rows = [(format_stack(stack), _count(value, stack)) for stack, value in profile.items()]
        metadata = profile.metadata
    _write_rows(rows, metadata, stream, options)


def _writable_texts(profile: Profile) -> dict[str, Number] | None:
    """The stack texts ``profile`` keeps, if it keeps them and none holds a line break (which
    :func:`format_stack` replaces; a reader's texts never do)."""
    return stack_texts(profile, plain=True) if not isinstance(profile, Differential) else None


def _collision(text: str) -> ArgumentError:
    return ArgumentError(f"stacks collide when written as folded text: {text!r}")


def _write_rows(rows: list[tuple[str, str]], metadata: Metadata, stream: TextIO, options: WriteOptions) -> None:
    """Sort ``(stack text, counts)`` rows bytewise and write them after the header."""
    _sort_bytewise(rows)
    for (text, _), (following, _) in zip(rows, rows[1:]):
        if text == following:  # two frames differed only by ';' vs its replacement
            raise _collision(text)
    if options.header:
        stream.writelines(_header(metadata))
    for start in range(0, len(rows), _CHUNK):
        stream.write("".join([f"{text} {count}\n" for text, count in rows[start : start + _CHUNK]]))


def _count(value: Number, stack: Stack | str) -> str:
    if value < 0:
        text = stack if isinstance(stack, str) else ";".join(stack)
        raise ArgumentError(
            f"the folded format cannot hold the negative value {value!r} (stack {text!r}); "
            "write a Differential (before, after) instead"
        )
    return format_number(below_max(value, stack))


def loads(text: str, options: ReadOptions = ReadOptions()) -> Profile:
    """Parse folded text held in a string."""
    import io

    return parse(io.StringIO(text), options)


def dumps(profile: Profile, options: WriteOptions = WriteOptions()) -> str:
    """Folded text of ``profile`` as a string."""
    import io

    out = io.StringIO()
    dump(profile, out, options)
    return out.getvalue()
