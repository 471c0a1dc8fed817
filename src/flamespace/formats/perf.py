"""``perf script`` text (Linux perf), collapsed as FlameGraph's stackcollapse-perf.pl does, byte for byte.

A sample is a header line, its stack lines (leaf first) and a blank line::

    java 24636/25607 [000] 4794564.109216:    10101 cycles:
            7f722d142778 Ljava/io/PrintStream;::print (/tmp/perf-19982.map)
            ffffffff8103ce3b native_safe_halt ([kernel.kallsyms])

The rules are the Perl script's (tests/formats/test_peer_conformance.py checks them against its
output): the root frame is the command (``--pid``: ``comm-pid``, ``--tid``: ``comm-pid/tid``,
spaces as ``_``); each sample weighs its period when the header has one, else 1; only the
first event type seen is kept unless ``event_filter`` names one; symbol offsets (``+0x1f``),
argument lists, quotes and Java's leading ``L`` are tidied away; ``[unknown]`` frames take
their module's file name; ``a->b`` (inlined) frames are split, the inner ones marked ``_[i]``.

Where the Perl script gives nothing useful, we follow inferno's collapse-perf: a header that
carries a one-frame stack on the same line (``... cycles:u:  ffff81 func (module)``) is a
whole sample. Differences from the Perl script, on purpose: a line that is neither a header
nor a stack line is an error naming the line (the script warns and goes on; ``skip_invalid``
does the same and counts them); Windows line ends are read as line ends; ``inline`` runs
addr2line and nm with their arguments as a list (the script passes them through a shell).

Streamed: memory grows with the distinct stacks and stack lines, not with the input (a cache
of whole samples' stack text is bounded, see ``_SAMPLE_CACHE_LIMIT``).
"""

from __future__ import annotations

import re

from .._record import Record, record
from ..core.metadata import Metadata
from ..core.vector import MAX_VALUE, FlameGraph
from ..errors import InputError
from ._io import bounded_lines, line_too_long
from ._limits import max_line_bytes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO
    from collections.abc import Iterator

    from .._types import Number, Stack
    from ..diagnostics import Diagnostics

name = "perf"
extensions = (".perf", ".perf-script", ".perfscript")
description = "perf script text (Linux perf)"
reference = "stackcollapse-perf.pl (FlameGraph)"


@record
class ReadOptions(Record):
    """How to collapse ``perf script`` output (the options of stackcollapse-perf.pl).

    ``skip_invalid``: skip lines that are neither a sample header nor a stack line (counted).
    ``pid``: name the root frame comm-PID (perf script must print the PID: -F comm,pid,tid,...).
    ``tid``: name the root frame comm-PID/TID.
    ``kernel``: mark kernel frames with _[k].
    ``jit``: mark JIT frames (from /tmp/perf-PID.map) with _[j].
    ``all``: all marks (--kernel and --jit).
    ``addrs``: keep the address of frames without a symbol: [module <address>].
    ``event_filter``: keep samples of this event only (default: the first event type in the input).
    ``srcline``: the input has a source line after each stack line (perf script -F+srcline); append it to the frame.
    ``inline``: show inlined functions, asking addr2line (binutils) of each address; the binaries must be at the recorded paths.
    ``context``: with inline, add the source file and line to each frame (function:file:line).
    """

    skip_invalid: bool = False
    pid: bool = False
    tid: bool = False
    kernel: bool = False
    jit: bool = False
    all: bool = False
    addrs: bool = False
    event_filter: str | None = None
    srcline: bool = False
    inline: bool = False
    context: bool = False


# The Perl script's patterns, ASCII-only as Perl's are on byte strings. Its ``(\d+)*`` is
# written ``(\d+)?``: the same matches and captures, without exponential backtracking on
# long runs of digits.
_HEADER = re.compile(r"(\S.+?)\s+(\d+)(?:/+(\d+)?)?\s+", re.ASCII)  # comm, pid, [tid]; one way to split digits (not quadratic)
_EVENT = re.compile(r":\s*(\d+)?\s+(\S+):\s*$", re.ASCII)  # [period], event
_STACK = re.compile(r"\s*(\w+)\s*(.+) \((.*)\)", re.ASCII)  # address, symbol, module
_OFFSET = re.compile(r"\+0x[\da-f]+$", re.ASCII)
_GO_METHOD = re.compile(r"\.\(.*\)\.")  # net/http.(*Client).Do keeps its parentheses
_ARGUMENTS = re.compile(r"\((?!anonymous namespace\))")
_JIT_MODULE = re.compile(r"/tmp/perf-\d+\.map", re.ASCII)
#: A one-frame stack at the end of a header line (inferno's layout; see the module docstring).
_INLINE_STACK = re.compile(r"[0-9a-f]+\s+\S.* \(.*\)$", re.ASCII)
_WHITESPACE = " \t\n\r\f\v"
_SHOWN = 60  # characters of a bad line quoted in an error
_MAX_DIGITS = 300  # a period of more digits is not below core.vector.MAX_VALUE


def _lines_of(text: str) -> Iterator[str]:
    """The lines of ``text`` with their ends, split at '\\n' only, as the file is read
    (str.splitlines would also split at '\\v', '\\f', '\\x1c'-'\\x1e', '\\x85', U+2028 and U+2029)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        yield text[start:end]
        start = end


def sniff(head: bytes) -> bool | str | None:
    """True if the first sample header is followed by a stack line; None if ``head`` ends first; else why not."""
    text = head.decode("utf-8", "replace")
    lines = text.splitlines()
    if not text.endswith(("\n", "\r")):
        lines = lines[:-1]
    header = 0
    for number, line in enumerate(lines, 1):
        if line.startswith("#"):
            continue
        if not header:
            if not line:
                continue
            line = line.lstrip(_WHITESPACE)  # a right-aligned one-line sample (see parse)
            match = _HEADER.match(line)
            if match is None or ":" not in line[match.end() :]:
                return f"line {number} is not a sample header ('comm pid [cpu] time: [period] event:'): {_shown(line)}"
            if _EVENT.search(line) is None and _inline_stack(line, match.end()) is not None:
                return True
            header = number
            continue
        if _STACK.match(line):
            return True
        if not line:
            return f"the sample at line {header} has no stack (record with perf record -g)"
        return f"line {number} is not a stack line ('address symbol (module)'): {_shown(line)}"
    return None


def _shown(line: str) -> str:
    return repr(line if len(line) <= _SHOWN else line[: _SHOWN - 3] + "...")


def _inline_stack(line: str, start: int) -> str | None:
    """The stack line at the end of a header (``... 1 cycles:u:  ffff81 f (m)``), if there is one."""
    parts = line[start:].split(":", 2)
    if len(parts) < 3:
        return None
    rest = parts[2]
    cut = min((i for i in (rest.find(":"), rest.find(" ")) if i >= 0), default=-1)
    rest = rest[cut + 1 :].strip(_WHITESPACE)
    return rest if _INLINE_STACK.match(rest) else None


_CACHE_ENTRIES = 1 << 20  # distinct lines or symbols remembered before a cache starts afresh (bounded memory)


def _stack_parts(line: str) -> tuple[str, str, str] | None:
    """(address, symbol, module) of a stack line, as the Perl script's pattern splits it; None if it does not match.

    The common shape (``  7f12 symbol (module)``) is split with string methods; anything else
    goes to the pattern itself, so the result is always the pattern's.
    """
    text = line.lstrip(_WHITESPACE)
    if text[-1:] == ")":
        address, _, rest = text.partition(" ")
        if address and address.isascii() and (address.isalnum() or address.replace("_", "0").isalnum()):
            start = len(text) - len(rest.lstrip(_WHITESPACE))
            cut = text.rfind(" (")
            if cut > start:
                return address, text[start:cut], text[cut + 2 : -1]
    match = _STACK.match(line)
    return None if match is None else (match.group(1), match.group(2), match.group(3))


class _Frames:
    """Stack lines turned into frames, remembered per distinct line (most lines repeat) and per
    distinct symbol and module (a library mapped at other addresses in other processes)."""

    def __init__(self, options: ReadOptions) -> None:
        self.addrs = options.addrs
        self.kernel = options.kernel or options.all
        self.jit = options.jit or options.all
        self.java: dict[str, str | None] = {}  # line -> frames joined by ';' ("" none), None: not a stack line
        self.other: dict[str, str | None] = {}
        self.symbols: dict[tuple[str, str, bool], str] = {}  # (symbol, module, java) -> frames joined
        self.inliner = _Inliner(options.context) if options.inline else None

    def joined(self, line: str, java: bool) -> str | None:
        """The frames of a stack line joined by ';' ("" for none); None if it is not a stack line."""
        cache = self.java if java else self.other
        found = cache.get(line, 0)
        if found != 0:
            return found  # type: ignore[return-value]  # a str or None: 0 is only the default
        if len(cache) >= _CACHE_ENTRIES:
            cache.clear()
        parts = _stack_parts(line)
        if parts is None:
            cache[line] = None
            return None
        address, symbol, module = parts
        inlined = self.inlined(address, symbol, module)
        if inlined is not None:
            text = inlined
        elif self.addrs and "[unknown]" in symbol:  # the address is part of the name
            text = ";".join(f for f, _ in self.rules(address, symbol, module, java))
        else:
            key = (symbol, module, java)
            known = self.symbols.get(key)
            if known is None:
                if len(self.symbols) >= _CACHE_ENTRIES:
                    self.symbols.clear()
                known = self.symbols[key] = ";".join(f for f, _ in self.rules(address, symbol, module, java))
            text = known
        cache[line] = text
        return text

    def frames(self, line: str, java: bool) -> list[tuple[str, bool]] | None:
        """The frames of one stack line, outermost first, each with whether a --srcline line follows it."""
        parts = _stack_parts(line)
        if parts is None:
            return None
        inlined = self.inlined(*parts)
        return [(inlined, False)] if inlined is not None else self.rules(*parts, java)

    def inlined(self, address: str, symbol: str, module: str) -> str | None:
        """With ``inline``: the frames addr2line gives for this address, outermost first, joined by ';';
        None where the Perl script would not ask (perf maps, the kernel) or addr2line knows nothing."""
        if self.inliner is None or _NOT_INLINED.search(module):
            return None
        found = self.inliner.frames(address, symbol, module)
        return None if found in ("", "??", "??:??:0") else found

    def rules(self, address: str, symbol: str, module: str, java: bool) -> list[tuple[str, bool]]:
        """The Perl script's rules for one stack line, in its order."""
        symbol = _OFFSET.sub("", symbol, count=1)
        if symbol.startswith("("):  # a process name, not a frame
            return []
        parts = symbol.split("->")
        while parts and not parts[-1]:  # Perl's split drops trailing empty fields
            parts.pop()
        frames: list[tuple[str, bool]] = []
        unknown = False
        for function in parts:
            if function == "[unknown]":
                if module != "[unknown]":
                    function = module.rsplit("/", 1)[-1]
                else:
                    function = "unknown"
                    unknown = True
                function = f"[{function} <{address}>]" if self.addrs else f"[{function}]"
            function = function.replace(";", ":")
            if _GO_METHOD.search(function) is None:
                arguments = _ARGUMENTS.search(function)
                if arguments is not None:
                    function = function[: arguments.start()]
            function = function.replace('"', "").replace("'", "")
            if java and function.startswith("L") and "/" in function:
                function = function[1:]
            if frames:
                if "_[i]" not in function:
                    function += "_[i]"
            elif self.kernel and (module.startswith("[") or module.endswith("vmlinux")) and "unknown" not in module:
                function += "_[k]"
            elif self.jit and _JIT_MODULE.search(module) and "_[j]" not in function:
                function += "_[j]"
            frames.append((function, not unknown))
        return frames


#: Modules the Perl script never asks addr2line about: perf maps of JIT code, the kernel, [vdso] and the like.
_NOT_INLINED = re.compile(r"(perf-\d+.map|kernel\.|\[[^\]]+\])")


class _Inliner:
    """addr2line (and nm) on the profiled binaries, as stackcollapse-perf.pl's --inline runs them,
    one process per distinct address (remembered)."""

    def __init__(self, context: bool) -> None:
        self.context = context
        self.cache: dict[tuple[str, str], str] = {}
        self.symbols: dict[str, str] = {}  # module -> nm's output

    def frames(self, address: str, symbol: str, module: str) -> str:
        key = (address, module)
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = self._ask(address, symbol, module)
        return found

    def _ask(self, address: str, symbol: str, module: str) -> str:
        output = _run(["addr2line", "-a", address, "-e", module, "-i", "-f", "-s", "-C"])
        output = output.split("\n", 1)[1] if "\n" in output else output  # the first line repeats the address
        if "??\n??:0" in output:  # unknown address: from the symbol's own address and the offset, if nm knows it
            offset = re.match(r"(.+)\+0x([0-9a-f]+)$", symbol)
            if offset is not None:
                if module not in self.symbols:
                    self.symbols[module] = _run(["nm", module])
                base = re.search(r"^([0-9a-f]+) . " + re.escape(offset.group(1)) + "$", self.symbols[module], re.M)
                if base is not None:
                    return self.frames(f"0x{int(base.group(1), 16) + int(offset.group(2), 16):x}", "", module)
        names: list[str] = []
        function = ""
        lines = output.split("\n")
        if lines[-1] == "":  # Perl's split /^/ makes no empty last line
            lines.pop()
        for line in lines:
            line = re.sub(r" \(discriminator \S+\)", "", line, count=1)
            if function == "":
                function = line
            else:
                names.insert(0, f"{function}:{line}" if self.context else function)
                function = ""
        return ";".join(names)


def _run(argv: list[str]) -> str:
    """A tool's standard output ("" if it cannot run: the script then falls back to the symbol, as here)."""
    import subprocess

    try:
        return subprocess.run(argv, capture_output=True, text=True, errors="surrogateescape").stdout
    except OSError:
        return ""


def _source_line(line: str | None) -> str:
    """What --srcline appends from a source line: without [...] parts and surrounding space."""
    if line is None:
        return ""
    return re.sub(r"\[.*?\]", "", line.rstrip("\n")).strip(_WHITESPACE)


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Collapse ``perf script`` text into a flame graph whose values are the samples' periods.

    Raises :class:`InputError` naming the line of the first line that is neither a sample
    header nor a stack line, unless ``options.skip_invalid`` is set.
    """
    collapser = _Collapser(options, source, diagnostics)
    if options.srcline:  # source lines are read by the stack lines before them: line by line
        collapser.lines(bounded_lines(stream, source), 0)
    else:
        collapser.samples(stream)
    notes = collapser.notes()
    if diagnostics is not None:
        for note in notes:
            diagnostics.warn(f"{source}: {note}")
    event = collapser.event_filter
    metadata = Metadata(unit=collapser.unit(), metric=event or None)
    return FlameGraph.from_texts(collapser.counts, metadata=metadata, stacks=stack_cache)


_CHUNK = 1 << 20  # characters read at a time
#: perf's software clock events, whose periods are nanoseconds.
CLOCK_EVENTS = ("cpu-clock", "task-clock")


def _through_blank_line(stream: TextIO, rest: str, limit: int, source: str, lineno: int) -> tuple[str, bool]:
    """(``rest`` and the chunks after it, up to one with a blank line that ends a sample, joined
    once; whether the input ended). ``rest`` is the start of a sample after line ``lineno``, cut
    by the end of the last chunk. Joining each chunk to the rest and splitting it again was time
    quadratic in a sample's length (a deep stack, a long line). A line longer than ``limit``
    (characters, each at least a byte) is refused (formats/_io.py) once that much is read."""
    parts = [rest]
    length = len(rest) - rest.rfind("\n") - 1  # of the line that runs at the end of what is read
    running = lineno + 1 + rest.count("\n")  # that line's number
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            return "".join(parts), True
        after_line = parts[-1].endswith("\n")
        parts.append(chunk)
        newline = chunk.find("\n")
        if length + (len(chunk) if newline < 0 else newline) > limit:
            raise line_too_long(source, running, limit)
        if "\n\n" in chunk or (after_line and newline == 0):
            return "".join(parts), False
        if newline < 0:
            length += len(chunk)
        else:
            length = len(chunk) - chunk.rfind("\n") - 1
            running += chunk.count("\n")


_SAMPLE_CACHE_LIMIT = 64 << 20  # characters of stack text remembered (bounded memory on inputs of many stacks)


class _Collapser:
    """The Perl script's main loop. Its state is empty again after every blank line, so each
    blank-line-separated sample is collapsed on its own: whole samples whose stack text was
    seen before cost one dictionary look-up (:meth:`samples`); anything unusual in a sample
    (comments, a second header, a bad line, a one-line sample) goes through the line-by-line
    loop (:meth:`lines`), which is the reference."""

    def __init__(self, options: ReadOptions, source: str, diagnostics: Diagnostics | None) -> None:
        self.options, self.source, self.diagnostics = options, source, diagnostics
        self.counts: dict[str, Number] = {}
        self.frames = _Frames(options)
        self.event_filter = options.event_filter or ""
        self.defaulted = False
        self.other_events: dict[str, int] = {}
        # the line loop's state (reset by every blank line)
        self.pname: str | None = None
        self.java = False
        self.period: Number = 1
        self.with_period = self.without_period = 0  # kept samples whose header gave a period, or none
        self.blocks: list[str] = []  # each stack line's frames, innermost line first
        self.started = 0  # the line of the open sample's header
        # stack text of a sample (its lines after the header) -> its frames, root first; None: not plain
        self.java_samples: dict[str, str | None] = {}
        self.other_samples: dict[str, str | None] = {}
        self.cached = 0

    # -- whole samples -------------------------------------------------------------------

    def samples(self, stream: TextIO) -> None:
        """Collapse the input sample by sample (what :meth:`lines` would do, faster)."""
        lineno = 0
        rest = ""
        limit = max_line_bytes()
        while True:
            text, ended = _through_blank_line(stream, rest, limit, self.source, lineno)
            if ended:
                rest = text
                break
            pieces = text.split("\n\n")
            rest = pieces.pop()
            for piece in pieces:
                lineno = self.sample(piece, lineno) + 1  # and the blank line after it
        if rest:
            self.lines(_lines_of(rest), lineno)

    def sample(self, piece: str, lineno: int) -> int:
        """Collapse one sample: ``piece`` is its lines without the blank line after it; returns the last line's number."""
        while piece[:1] == "\n":  # more than one blank line between samples
            piece = piece[1:]
            lineno += 1
        if not piece:
            return lineno
        newline = piece.find("\n")
        head = piece if newline < 0 else piece[:newline]
        stacks = "" if newline < 0 else piece[newline + 1 :]
        last = lineno + 1 + (stacks.count("\n") + 1 if newline >= 0 else 0)
        header = _HEADER.match(head) if head[:1] not in _WHITESPACE and head[0] != "#" else None
        if header is not None:
            java = header.group(1).startswith("java")  # as the name made of it: "java" has no space
            cache = self.java_samples if java else self.other_samples
            joined = cache.get(stacks, 0)
            if joined == 0:
                joined = cache[stacks] = self.stack_of(stacks, java)
                self.cached += len(stacks)
                if self.cached > _SAMPLE_CACHE_LIMIT:
                    self.java_samples.clear()
                    self.other_samples.clear()
                    self.cached = 0
            if joined is not None:
                if self.header(head, header, lineno + 1):
                    pname = self.pname or ""  # set by header()
                    stack = f"{pname};{joined}" if joined else pname
                    self.counts[stack] = self.counts.get(stack, 0) + self.period
                    self.pname = None
                return last
        self.lines(_lines_of(piece + "\n\n"), lineno)
        return last

    def stack_of(self, stacks: str, java: bool) -> str | None:
        """The frames of a sample's stack lines, root first; None unless every line is a stack line."""
        if not stacks:
            return ""
        frames = self.frames
        cache = frames.java if java else frames.other  # the lines' cache, looked up here: most lines hit it
        parts: list[str] = []
        for line in stacks.split("\n"):
            part = cache.get(line)
            if part is None:  # not seen yet (or not a stack line)
                if line[:1] not in _WHITESPACE or not line:
                    return None  # a comment, a header or a blank: the line loop decides
                part = frames.joined(line, java)
                if part is None:
                    return None
            if part:
                parts.append(part)
        parts.reverse()
        return ";".join(parts)

    # -- line by line ----------------------------------------------------------------------

    def unit(self) -> str | None:
        """What the values count: samples when no header gave a period; with periods, nanoseconds
        for the clock events (cpu-clock, task-clock), else the event itself (``cycles``); None when
        the samples mix both (their sum counts neither)."""
        if not self.with_period:
            return "samples" if self.without_period else None
        if self.without_period:
            return None
        event = self.event_filter.split(":", 1)[0].split("/", 1)[0]
        return "ns" if event in CLOCK_EVENTS else (event or None)

    def header(self, line: str, header: re.Match[str], lineno: int) -> bool:
        """Take a sample header: True if its sample is kept (the name and period are set), False
        if its event is left out or the header held the whole sample (a one-line sample)."""
        comm, pid, tid = header.groups()
        if not tid or tid == "0":  # Perl: "0" is false
            tid, pid = pid, "?"
        value: str | None = None
        event: str | None = None
        inline: str | None = None
        found = _EVENT.search(line)
        if found is not None:
            value, event = found.groups()
        else:
            inline = _inline_stack(line, header.end())
            if inline is not None:  # inferno: the event is the word before the first ':'
                words = line[header.end() :].split(":", 2)[1].split()
                value = words[-2] if len(words) > 1 and words[-2].isdigit() and words[-2].isascii() else None
                event = words[-1] if words else ""
        if event is not None:
            if not self.event_filter:
                self.event_filter, self.defaulted = event, True
            elif event != self.event_filter:
                self.other_events[event] = self.other_events.get(event, 0) + 1
                return False
        if not value or value == "0":
            self.period = 1
            self.without_period += 1
        elif len(value) > _MAX_DIGITS or int(value) >= MAX_VALUE:
            raise InputError(f"period {value[:20]}... is out of range; periods must be below {MAX_VALUE:g}", self.source, lineno)
        else:
            self.period = int(value)
            self.with_period += 1
        options = self.options
        if options.tid:
            pname = f"{comm}-{pid}/{tid}"
        elif options.pid:
            pname = f"{comm}-{pid}"
        else:
            pname = comm
        self.pname = pname = pname.replace(" ", "_")
        self.java = pname.startswith("java")
        self.started = lineno
        if inline is not None:  # a whole sample on one line
            part = self.frames.joined(inline, self.java)
            if part:
                self.blocks.append(part)
            self.end_sample()
            return False
        return True

    def end_sample(self) -> None:
        """A blank line: count the open sample, if any, and start afresh."""
        if self.pname:
            blocks = self.blocks
            blocks.append(self.pname)
            blocks.reverse()
            stack = ";".join(blocks)
            self.counts[stack] = self.counts.get(stack, 0) + self.period
            blocks.clear()
            self.pname = None

    def lines(self, lines: Iterator[str], lineno: int) -> int:
        """Collapse ``lines`` (with their line ends) one by one, as the Perl script does; the last line's number."""
        frames, blocks, srcline = self.frames, self.blocks, self.options.srcline
        for line in lines:
            lineno += 1
            first = line[:1]
            if first == "#":
                continue
            if line[-1:] == "\n":
                line = line[:-1]
            if not line:
                self.end_sample()
                continue
            header = None
            if first not in _WHITESPACE:
                header = _HEADER.match(line)
            elif not self.pname:
                # outside a sample, a right-aligned header with its stack on the same line (the Perl
                # script ignores these lines; inferno reads them)
                padded = line.lstrip(_WHITESPACE)
                header = _HEADER.match(padded)
                if header is not None:
                    if _EVENT.search(padded) is None and _inline_stack(padded, header.end()) is not None:
                        line = padded
                    else:
                        header = None
            if header is not None:
                self.header(line, header, lineno)
                continue
            pname = self.pname
            if srcline:
                parsed = frames.frames(line, self.java)
                if parsed is not None and pname:
                    names = []
                    for function, wants_source in parsed:
                        if wants_source:
                            lineno += 1
                            extra = _source_line(next(lines, None))
                            if extra:
                                function += ":" + extra
                        names.append(function)
                    if names:
                        blocks.append(";".join(names))
                    continue
                part = None if parsed is None else ""
            else:
                part = frames.joined(line, self.java)
            if part is None:
                reason = (
                    "expected a sample header ('comm pid [cpu] time: [period] event:') or a stack line "
                    f"('address symbol (module)'), found {_shown(line)}"
                )
                if not self.options.skip_invalid:
                    raise InputError(reason, self.source, lineno)
                if self.diagnostics is not None:
                    self.diagnostics.skip(self.source, lineno, reason)
                continue
            if part and pname:
                blocks.append(part)
        return lineno

    def notes(self) -> list[str]:
        """What the caller should be told: a last sample left out, other events left out, no samples."""
        notes = []
        if self.pname:
            notes.append(
                f"the last sample (line {self.started}) does not end with a blank line: left out, as stackcollapse-perf.pl does"
            )
        if self.defaulted and self.other_events:
            others = ", ".join(f"{name} ({count:,})" for name, count in sorted(self.other_events.items()))
            notes.append(
                f"kept the samples of the first event type, {self.event_filter}; left out other events: {others} "
                "(choose one with --event-filter)"
            )
        if not self.counts:
            present = ", ".join(f"{name} ({count:,})" for name, count in sorted(self.other_events.items()))
            notes.append(f"no samples of event {self.event_filter}; the input has: {present}" if present else "no samples found")
        return notes


def loads(text: str, options: ReadOptions = ReadOptions()) -> FlameGraph:
    """Collapse ``perf script`` text held in a string."""
    import io

    return parse(io.StringIO(text), options)


__all__ = ["ReadOptions", "extensions", "loads", "name", "parse", "sniff"]
