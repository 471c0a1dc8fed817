"""How a format is recognised: by its name, by a file's extension, or by an input's first bytes.

:data:`ORDER` lists every format (its module's ``name``) in the order they are asked. Each
format module says whether a head is its own (``sniff(head)``: True; None when ``head`` is too
short to tell; False or a string saying why not; or a ``why_not(head)`` asked only when no
format accepts, to name the reason). Importing every format to ask it costs more than the rest
of a small command's start-up (docs/performance.md), so :data:`PRECHECKS` holds, beside the
order, what a head must look like for each format to be worth importing: a cheap bytes test,
with the reason it refuses. ``tests/formats/test_detect_quick.py`` checks that no pre-check
refuses what its format's ``sniff`` accepts.

:mod:`.registry` re-exports :func:`detect`, :func:`by_name`, :func:`by_extension` and
:func:`recognises`; the CLI's help lists :data:`ORDER`.
"""

from __future__ import annotations

import sys

from ..errors import ArgumentError, InputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from .protocol import Format

#: Every format's module name (its ``name``), in sniffing order. Modules are imported when
#: first needed, so reading a folded file does not import speedscope (and json).
ORDER = (
    "flamespace-json",
    "tachyon",
    "tachyon-jsonl",
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
PRECHECKS: dict[str, tuple[Callable[[bytes], bool], str] | Callable[[bytes], bool]] = {
    "flamespace-json": lambda head: (
        head.lstrip()[:1] in (b"", b"{") and (b'"flamespace"' in head[:256] or len(head.lstrip()) < 32)
    ),
    "tachyon": (lambda head: head[:4] in (b"HCAT", b"TACH"), "does not start with Tachyon's magic (HCAT or TACH)"),
    "tachyon-jsonl": (lambda head: head.lstrip()[:9] == b'{"type":"' and _has(b'"run_id"', head), "no Tachyon meta record first"),
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
    "sample": lambda head: head.startswith(b"Analysis of sampling ") or _has(b"Call graph:", head),
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


def load(name: str) -> Format:
    """The format module named ``name`` (one of :data:`ORDER`), imported if it is not yet (whole, whichever
    thread asks first); protocol.py checks that each such module is a ``Format``."""
    qualified = f"{__package__}.{name.replace('-', '_')}"  # perf-sched is formats/perf_sched.py
    # Imported every time, not looked up in sys.modules first: a module another thread is still
    # importing is there half made (a server's first reads race), and the import waits for it.
    __import__(qualified)
    module: Format = sys.modules[qualified]
    return module


def by_name(name: str) -> Format:
    if name not in ORDER:
        raise ArgumentError(f"unknown format {name!r}; known formats: {', '.join(ORDER)}")
    return load(name)


def by_extension(path: str) -> Format | None:
    """The format that claims ``path``'s extension (``.gz`` aside); formats already imported are asked first."""
    lower = path.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    loaded = [name for name in ORDER if f"{__package__}.{name.replace('-', '_')}" in sys.modules]
    for name in loaded + [name for name in ORDER if name not in loaded]:
        fmt = load(name)
        if lower.endswith(tuple(fmt.extensions)):
            return fmt
    return None


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
        return load("folded" if "folded" in undecided or not head.strip() else undecided[0])
    if fallback is not None:
        return by_name(fallback)
    raise InputError(_refusals(refused), path or None)


#: What a format's cheap pre-check says when it refuses (see PRECHECKS).
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
        could_be = PRECHECKS.get(name)
        if could_be is not None:
            check, reason = could_be if isinstance(could_be, tuple) else (could_be, _NOTHING_LIKE)
            if not check(head):
                refused.append((name, reason))
                continue
        fmt = load(name)
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
        from ._io import open_binary

        with open_binary(path) as (stream, _):
            return bool(_sniff_all(stream.peek(SNIFF_BYTES)[:SNIFF_BYTES])[0])
    except InputError:
        return False
