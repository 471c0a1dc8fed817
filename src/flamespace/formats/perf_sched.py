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

Kernels without schedstats have no ``sched_stat_*`` events; then off-CPU time comes from the
time stamps of ``sched_switch`` (and ``sched_wakeup`` for the wakers), recorded with::

    perf record -g -e sched:sched_switch -e sched:sched_wakeup -a -- sleep 10

A thread is off the CPU from the ``sched_switch`` that takes it off (``prev_pid``; its stack is
the event's) to the ``sched_switch`` that puts it back (``next_pid``), run-queue wait included,
as BCC's offcputime and offwaketime measure it; the first ``sched_wakeup`` naming it (``pid=``)
in between is what woke it: its stack is the waker's, its command and thread id the event's
header's. ``wake_stack`` and ``recurse`` build the same stacks as above from these (the chain
is each waker's last complete off-CPU stack). ``off_cpu`` picks the source: ``auto`` uses the
``sched_stat_*`` delays when the input has such events, else the switch time stamps.
"""

from __future__ import annotations

import re

from .._record import Record, record
from ..core.metadata import Metadata
from ..core.vector import FlameGraph
from ..errors import ArgumentError, InputError
from ._io import bounded_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

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
    ``off_cpu``: where off-CPU time comes from: stat (sched_stat_sleep/blocked delays, as the script), switch (sched_switch
    time stamps, from leaving the CPU to coming back; for kernels without schedstats) or auto (stat if the input has such events).
    """

    skip_invalid: bool = False
    tid: bool = False
    wake_stack: bool = False
    recurse: bool = False
    off_cpu: str = "auto"


OFF_CPU = ("auto", "stat", "switch")


_TIMESTAMP = re.compile(r" ([^ :]+):")
_WHITESPACE = " \t\n\r\f\v"  # gawk's \s
_VARIABLES: dict[str, re.Pattern[str]] = {}
_MAX_DIGITS = 300  # a delay of more digits is out of core.vector's range


def sniff(head: bytes) -> bool | str | None:
    """True if ``head`` holds a sched_stat_sleep, sched_stat_blocked or sched_switch event line; else why not."""
    if b"sched:sched_stat_sleep:" in head or b"sched:sched_stat_blocked:" in head or b"sched:sched_switch:" in head:
        return True
    return "no sched:sched_switch, sched:sched_stat_sleep or sched:sched_stat_blocked events in the first 64 KiB"


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


def _function(fields: list[str]) -> str:
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
    diagnostics: Diagnostics | None = None,
    stack_cache: dict[str, Stack] | None = None,
) -> FlameGraph:
    """Off-CPU microseconds per stack (see the module docstring)."""
    if options.off_cpu not in OFF_CPU:
        raise ArgumentError(f"off_cpu must be one of {', '.join(OFF_CPU)}, not {options.off_cpu!r}")
    switches = _SwitchTimes(options, source, diagnostics) if options.off_cpu != "stat" else None
    stat_events = 0
    wakes = options.wake_stack or options.recurse
    switch_pid: str | None = None  # None: awk's 0 (no open switch event)
    switch_stack = ""
    switch_stacks: dict[str, str] = {}
    last_switch_stacks: dict[str, str] = {}
    wake_command = wake_time = wake_stack = next_command = ""
    wake_pid = ""
    next_pid: str | None = None
    delay = 0
    last_wake_time: dict[str, str] = {}
    totals: dict[str, int] = {}
    for lineno, line in enumerate(bounded_lines(stream, source), 1):
        if line[-1:] == "\n":
            line = line[:-1]
        if switches is not None:
            switches.feed(line, lineno)
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
            stat_events += 1
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
                    stack = (
                        f"{stack};{wake_stack};{wake_command}-{wake_pid}"
                        if options.tid
                        else f"{stack};{wake_stack};{wake_command}"
                    )
                if options.recurse:
                    # the script compares with last_switch_time, which it never sets: any wake time of the waker passes
                    if last_wake_time.get(wake_pid, "") > "":
                        stack = f"{stack};-;{last_switch_stacks.get(wake_pid, '')}"
                    last_switch_stacks[next_pid] = stack
                del switch_stacks[next_pid]
                key = f"{next_command}-{next_pid};{stack}" if options.tid else f"{next_command};{stack}"
                totals[key] = totals.get(key, 0) + delay
            wake_command, wake_pid, next_pid, next_command = "", "", None, ""
    labels = {"off-cpu": "sched_stat delays"}
    if switches is not None and (options.off_cpu == "switch" or not stat_events):
        totals = switches.finish()
        labels = {"off-cpu": "sched_switch time stamps"}
    counts: dict[str, Number] = {stack: total // 1000 for stack, total in totals.items() if total // 1000 > 0}
    if diagnostics is not None and not counts:
        how = "sched_stat_sleep/blocked events" if switches is None or stat_events else "a sched_switch putting the thread back"
        diagnostics.warn(f"{source}: no off-CPU time found (sched_switch followed by {how})")
    return FlameGraph.from_texts(counts, metadata=Metadata(unit="us", metric="off-cpu", labels=labels), stacks=stack_cache)


#: An event's header line: command, pid[/tid], optional [cpu], time stamp, optional period, event name, its trace.
_HEADER = re.compile(
    r"(?P<comm>\S.*?)\s+(?P<pid>-?\d+)(?:/(?P<tid>-?\d+))?\s+(?:\[\d+\]\s+)?(?P<time>\d+\.\d+):\s+(?:\d+\s+)?"
    r"(?P<event>[\w:.-]+):\s*(?P<trace>.*)$"
)
_PREV_COMM = re.compile(r"prev_comm=(.*?) prev_pid=")


def _ns(time: str) -> int:
    """``seconds.fraction`` (perf's time stamps: us, or ns with --ns) as integer nanoseconds, exactly."""
    whole, _, fraction = time.partition(".")
    return int(whole) * 1_000_000_000 + int((fraction + "000000000")[:9])


class _SwitchTimes:
    """Off-CPU time from sched_switch time stamps, wakers from sched_wakeup: fed one line at a time.

    An event is a header line, then its stack (indented lines, leaf first), then a blank line.
    """

    def __init__(self, options: ReadOptions, source: str, diagnostics: Diagnostics | None) -> None:
        self.options, self.source, self.diagnostics = options, source, diagnostics
        self.header: re.Match[str] | None = None
        self.frames: list[str] = []  # the current event's stack, leaf first
        #: thread id -> (time it left the CPU, its command, its stack root first, (waker command, waker tid, waker stack leaf first) or None)
        self.away: dict[str, tuple[int, str, str, tuple[str, str, str] | None]] = {}
        self.last: dict[str, str] = {}  # thread id -> its last off-CPU stack (without the command): chain graphs
        self.totals: dict[str, int] = {}
        self.error: InputError | None = None  # raised by finish() only: the input may be read from sched_stat events

    def feed(self, line: str, lineno: int) -> None:
        if line[:1] == "#":
            return
        if line.strip() == "":
            self._event()
            return
        if line[:1] in _WHITESPACE:
            if self.header is not None:
                self.frames.append(_function(line.split()))
            return
        self._event()  # a header without a blank line before it ends the event before
        header = _HEADER.match(line)
        if header is None:
            if "sched:sched_switch" in line or "sched:sched_wakeup" in line:
                self._invalid(
                    lineno,
                    "expected an event header 'comm pid/tid [cpu] seconds.fraction: event: ...' "
                    "(perf script -F time,comm,pid,tid,event,ip,sym,dso,trace)",
                )
            return
        self.header, self.lineno = header, lineno

    def _invalid(self, lineno: int, reason: str) -> None:
        if self.options.skip_invalid:
            if self.diagnostics is not None:
                self.diagnostics.skip(self.source, lineno, reason)
        elif self.error is None:
            self.error = InputError(reason, self.source, lineno)

    def _event(self) -> None:
        header, frames = self.header, self.frames
        if header is None:
            return
        self.header, self.frames = None, []
        event, trace = header.group("event"), header.group("trace")
        if event == "sched:sched_switch":
            time = header.group("time")
            if len(time) > 40:  # seconds since boot: perf prints at most a dozen digits before the point
                self._invalid(self.lineno, f"time stamp {time[:20]}... is out of range")
                return
            now = _ns(time)
            back = _variable(trace, "next_pid")
            if back in self.away:
                if now < self.away[back][0]:
                    self._invalid(self.lineno, f"time {time} is before the switch that took thread {back} off the CPU")
                    del self.away[back]
                else:
                    self._back(back, now)
            leaving = _variable(trace, "prev_pid")
            if leaving and leaving != "0":  # pid 0: the idle task
                command = _PREV_COMM.search(trace)
                stack = ";".join(reversed(frames))
                self.away[leaving] = (now, command.group(1) if command else header.group("comm"), stack, None)
        elif event in ("sched:sched_wakeup", "sched:sched_wakeup_new"):
            woken = _variable(trace, "pid")
            away = self.away.get(woken)
            if away is not None and away[3] is None:  # the first wake-up is the one that woke it
                waker = header.group("tid") or header.group("pid")
                self.away[woken] = away[:3] + ((header.group("comm"), waker, ";".join(frames)),)

    def _back(self, thread: str, now: int) -> None:
        left, command, stack, waker = self.away.pop(thread)
        options = self.options
        if (options.wake_stack or options.recurse) and waker is not None:
            waker_command, waker_tid, waker_stack = waker
            name = f"{waker_command}-{waker_tid}" if options.tid else waker_command
            stack = ";".join(part for part in (stack, waker_stack, name) if part)
            if options.recurse:
                chain = self.last.get(waker_tid)
                if chain is not None:
                    stack = f"{stack};-;{chain}"
        if options.recurse:
            self.last[thread] = stack
        key = f"{command}-{thread};{stack}" if options.tid else f"{command};{stack}"
        self.totals[key] = self.totals.get(key, 0) + now - left

    def finish(self) -> dict[str, int]:
        """Off-CPU ns per stack text; the first invalid line's error, if any and not skipped."""
        self._event()
        if self.error is not None:
            raise self.error
        return self.totals


__all__ = ["ReadOptions", "extensions", "name", "parse", "sniff"]
