"""Repeated Java ``jstack`` thread dumps, as stackcollapse-jstack.pl reads them::

    "main" #1 prio=5 os_prio=0 tid=0x... nid=0x... runnable [0x...]
       java.lang.Thread.State: RUNNABLE
            at java.io.FileOutputStream.writeBytes(Native Method)    <- leaf first
            at Main.main(Main.java:5)
                                                                   <- a blank line ends a thread

Only threads in the RUNNABLE state count (one each): a thread waiting in epoll, accept or
a socket read, and the JVM's own background threads, are left out. The thread's name is
the root frame (``include_tname``; ``-123`` suffixes dropped unless ``include_tid``);
``shorten_pkgs`` writes ``j.u.c.ThreadPoolExecutor.runWorker`` for
``java.util.concurrent.ThreadPoolExecutor.runWorker``. Lines the Perl script does not
recognise are counted in a warning. Two differences from the script: a thread the input
ends in (no blank line after it) counts, where the script drops it; and ``shorten_pkgs``
leaves a name with fewer than two dots as it is, where the script empties it.
"""

from __future__ import annotations

import re

from .._record import Record, record
from ._collapse import Stacks, lines, shown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from .._types import Stack
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics

name = "jstack"
extensions = ()
description = "Java jstack thread dumps (stackcollapse-jstack.pl)"
_BACKGROUND = re.compile(r"C. CompilerThread|Signal Dispatcher|Service Thread|Attach Listener")
_STATE = re.compile(r"java.lang.Thread.State: (\S+)", re.ASCII)
_AT = re.compile(r"[ \t\n\r\f\v]*at ([^(]*)")
_PASSED = re.compile(r"[ \t\n\r\f\v]*-|2\d\d\d-|Full thread dump|JNI global references:", re.ASCII)
_WAITING = re.compile(r"epollWait|EPoll\.wait")
_NETWORK = re.compile(r"socketAccept$|Socket.*accept0$|socketRead0$")
_PACKAGES = re.compile(r"(.*\.)([^.]+\.[^.]+)$")
_WORD = re.compile(r"(\w)\w*", re.ASCII)
_TID_SUFFIX = re.compile(r"-\d+$", re.ASCII)


@record
class ReadOptions(Record):
    """How to collapse jstack thread dumps (the options of stackcollapse-jstack.pl).

    ``skip_invalid``: skip malformed lines (counted) instead of failing.
    ``include_tname``: the thread name as root frame (on by default).
    ``include_tid``: keep the -N suffix of the thread name.
    ``shorten_pkgs``: name packages by their initials (org.example.Foo becomes o.e.Foo).
    """

    skip_invalid: bool = False
    include_tname: bool = True
    include_tid: bool = False
    shorten_pkgs: bool = False


def sniff(head: bytes) -> bool | None:
    """True for a ``Full thread dump`` line, or a quoted thread line then a thread state line."""
    if re.search(rb"(?m)^Full thread dump ", head):
        return True
    return bool(re.search(rb'(?m)^"[^"]*" .*\n\s+java\.lang\.Thread\.State: ', head)) or (None if len(head) < 4096 else False)


def _shorten(function: str) -> str:
    split = _PACKAGES.search(function)
    if not split:
        return function
    return _WORD.sub(r"\1", split.group(1)) + split.group(2)


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Count each running thread's stack once."""
    stacks = Stacks(name, options.skip_invalid, source, diagnostics, stack_cache)
    stack: list[str] = []  # leaf first
    thread: str | None = None
    state = "?"
    unknown: list[int] = []
    first_unknown = ""
    end = 0

    def count_thread() -> None:
        """The thread just read counts if it was running."""
        if state == "RUNNABLE" and stack:
            stacks.add(";".join(([thread] if thread is not None else []) + stack[::-1]), 1, end)

    for lineno, line in lines(stream, source):
        if line.startswith("#"):
            continue
        if not line:
            count_thread()
            stack, thread, state = [], None, "?"
            continue
        if line.startswith('"'):
            thread_name = line[1:].split('"', 1)[0]
            if options.include_tname:
                thread = thread_name if options.include_tid else _TID_SUFFIX.sub("", thread_name)
            if _BACKGROUND.search(thread_name):
                state = "BACKGROUND"
            continue
        found = _STATE.search(line)
        if found:
            if state == "?":
                state = found.group(1)
            continue
        frame = _AT.match(line)
        if frame:
            function = _shorten(frame.group(1)) if options.shorten_pkgs else frame.group(1)
            stack.append(function)
            end = lineno
            if _WAITING.search(function):
                state = "WAITING"
            if _NETWORK.search(function):
                state = "NETWORK"
            continue
        if line.strip() and not _PASSED.match(line):  # whitespace carries nothing to warn of
            if not unknown:
                first_unknown = f"line {lineno}: {shown(line)}"
            unknown.append(lineno)
    count_thread()
    if unknown and diagnostics is not None:
        diagnostics.warn(
            f"{source}: {len(unknown)} line{'s' if len(unknown) != 1 else ''} not recognised as part of a thread dump and passed over (first: {first_unknown})"
        )
    return stacks.graph()
