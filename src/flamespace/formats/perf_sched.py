"""Off-CPU time from ``perf script`` text of scheduler events, as FlameGraph's stackcollapse-perf-sched.awk computes it.

Recorded with::

    perf record -g -e sched:sched_switch -e sched:sched_stat_sleep -e sched:sched_stat_blocked -p PID -- sleep 10
    perf script -F time,comm,pid,tid,event,ip,sym,dso,trace

(the ``sched_stat_*`` events need a kernel with schedstats). A ``sched_switch`` event gives the
stack a thread left the CPU with; the next ``sched_stat_sleep`` or ``sched_stat_blocked`` event
naming that thread (``pid=``) gives how long it was off the CPU (``delay=`` ns), and adds that
time to ``comm;switch stack``. ``wake_stack`` appends the stack of the thread that woke it
(leaf first, as Gregg's wake-up graphs draw it) and the waker's name; ``recurse`` appends, after
``-``, the stack that woke the waker (his "chain graphs": an approximation, since only the last
sleep of each thread is remembered). Values are microseconds, the total of each stack truncated
as the script does, and stacks under 1 us are left out. Frame names are as perf prints them
(offsets kept: the script does no tidying).

The rules are the awk script's (run with gawk: ``\\s`` in its patterns needs it), line by line,
including its quirks: the command name is the event's first word and the waker's pid its
second; the first ``comm=``/``pid=`` of a trace line is taken (``prev_comm=`` for a switch).
"""

from __future__ import annotations

import re

from .._record import Record, record
from ..core.metadata import Metadata
from ..core.vector import FlameGraph
from ..errors import InputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Optional, TextIO, Union

    from .._types import Number, Stack
    from ..diagnostics import Diagnostics

name = "perf-sched"
extensions = (".perf-sched",)
description = "perf script text of scheduler events: off-CPU time (Linux perf)"
reference = "stackcollapse-perf-sched.awk (FlameGraph)"


@record
class ReadOptions(Record):
    """How to collapse scheduler events (the awk script's variables).

    ``skip_invalid``: accepted for every reader; this format has no invalid lines (the script ignores what it does not use).
    ``tid``: name threads command-TID (record_tid).
    ``wake_stack``: add the waker's stack and name above the sleeping stack (record_wake_stack).
    ``recurse``: also add the stack that woke the waker, after a '-' frame: chain graphs (recurse; implies wake_stack).
    """

    skip_invalid: bool = False
    tid: bool = False
    wake_stack: bool = False
    recurse: bool = False


_TIMESTAMP = re.compile(r" ([^ :]+):")
_WHITESPACE = " \t\n\r\f\v"  # gawk's \s
_VARIABLES: Dict[str, re.Pattern[str]] = {}
_MAX_DIGITS = 300  # a delay of more digits is out of core.vector's range


def sniff(head: bytes) -> Union[bool, str, None]:
    """True if ``head`` holds a sched_stat_sleep or sched_stat_blocked event line; else why not."""
    if b"sched:sched_stat_sleep:" in head or b"sched:sched_stat_blocked:" in head:
        return True
    return "no sched:sched_stat_sleep or sched:sched_stat_blocked events in the first 64 KiB"


def _variable(line: str, variable: str) -> str:
    """The value of the first ``variable=value`` in ``line`` ("" if none), as the script's match() finds it."""
    pattern = _VARIABLES.get(variable)
    if pattern is None:
        pattern = _VARIABLES[variable] = re.compile(re.escape(variable) + r"=([^ \t\n\r\f\v]+)")
    found = pattern.search(line)
    return found.group(1) if found else ""


def _timestamp(line: str) -> str:
    found = _TIMESTAMP.search(line)
    return found.group(1) if found else ""


def _function(fields: List[str]) -> str:
    """A stack line's function: its fields but the first (the address) and the last (the module), as awk joins them."""
    if len(fields) < 2:
        return ""
    return " ".join([fields[1]] + fields[2:-1])


def _int(text: str, source: str, lineno: int) -> int:
    """awk's int() of a field: its leading digits, 0 if none."""
    digits = re.match(r"\d*", text).group()  # type: ignore[union-attr]  # \d* always matches
    if len(digits) > _MAX_DIGITS:
        raise InputError(f"delay {digits[:20]}... is out of range", source, lineno)
    return int(digits) if digits else 0


def parse(
    stream: TextIO,
    options: ReadOptions = ReadOptions(),
    *,
    source: str = "<input>",
    diagnostics: Optional[Diagnostics] = None,
    stack_cache: Optional[Dict[str, Stack]] = None,
) -> FlameGraph:
    """Off-CPU microseconds per stack (see the module docstring)."""
    from .folded import _to_stacks

    wakes = options.wake_stack or options.recurse
    switch_pid: Optional[str] = None  # None: awk's 0 (no open switch event)
    switch_stack = ""
    switch_stacks: Dict[str, str] = {}
    last_switch_stacks: Dict[str, str] = {}
    wake_command = wake_time = wake_stack = next_command = ""
    wake_pid = ""
    next_pid: Optional[str] = None
    delay = 0
    last_wake_time: Dict[str, str] = {}
    totals: Dict[str, int] = {}
    for lineno, line in enumerate(stream, 1):
        if line[-1:] == "\n":
            line = line[:-1]
        comment = line[:1] == "#"
        indented = line[:1] in _WHITESPACE and line != ""
        if not comment and "sched:sched_switch" in line:
            switch_pid = _variable(line, "prev_pid")  # (the script also keeps the command and time, unused)
            switch_stack = ""
        switching = switch_pid is not None and switch_pid != "0"
        if switching and indented:
            function = _function(line.split())
            switch_stack = function if switch_stack == "" else f"{function};{switch_stack}"
        if switching and line == "":
            assert switch_pid is not None
            switch_stacks[switch_pid] = switch_stack
            last_switch_stacks.pop(switch_pid, None)
            switch_pid, switch_stack = None, ""
        if not comment and ("sched:sched_stat_sleep" in line or "sched:sched_stat_blocked" in line):
            fields = line.split()
            wake_command = fields[0] if fields else ""
            wake_pid = fields[1] if len(fields) > 1 else ""
            wake_time = _timestamp(line)
            next_command = _variable(line, "comm")
            next_pid = _variable(line, "pid")
            delay = _int(_variable(line, "delay"), source, lineno)
            wake_stack = ""
        waking = next_pid is not None and next_pid != "0"
        if waking and indented:
            function = _function(line.split())
            wake_stack = function if wake_stack == "" else f"{wake_stack};{function}"
        if waking and line == "":
            assert next_pid is not None
            if next_pid in switch_stacks:
                last_wake_time[next_pid] = wake_time
                stack = switch_stacks[next_pid]
                if wakes:
                    stack = f"{stack};{wake_stack};{wake_command}-{wake_pid}" if options.tid else f"{stack};{wake_stack};{wake_command}"
                if options.recurse:
                    # the script compares with last_switch_time, which it never sets: any wake time of the waker passes
                    if last_wake_time.get(wake_pid, "") > "":
                        stack = f"{stack};-;{last_switch_stacks.get(wake_pid, '')}"
                    last_switch_stacks[next_pid] = stack
                del switch_stacks[next_pid]
                key = f"{next_command}-{next_pid};{stack}" if options.tid else f"{next_command};{stack}"
                totals[key] = totals.get(key, 0) + delay
            wake_command, wake_pid, next_pid, next_command = "", "", None, ""
    counts: Dict[str, Number] = {stack: total // 1000 for stack, total in totals.items() if total // 1000 > 0}
    if diagnostics is not None and not counts:
        diagnostics.warn(f"{source}: no off-CPU time found (sched_switch followed by sched_stat_sleep/blocked events)")
    return FlameGraph._trusted(_to_stacks(counts, stack_cache), Metadata(unit="us", metric="off-cpu"))


__all__ = ["ReadOptions", "extensions", "name", "parse", "sniff"]
