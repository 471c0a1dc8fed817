"""``top --pid``: a live view of the functions a running process spends its time in (py-spy's ``top``).

Three parts, each with one job:

- :func:`build_rows`: the recorder's stacks (those of the last refresh, those of the whole run) -> one
  :class:`LiveRow` per function: its share of the last refresh and its time over the run, as leaf
  (own) and anywhere in the stack (total);
- :func:`render`: a pure function of (table, terminal size, sort) -> the screen's lines
  (tests/cli/test_top_live.py holds it to golden text);
- :class:`Terminal` and :func:`watch`: keys, a redraw each second, and the terminal put back as it was
  on ``q``, Ctrl-C, SIGTERM/SIGHUP, ``-d`` and the target's exit.

The terminal is driven with the standard library's ``termios``/``tty`` (cbreak mode: keys arrive one
by one, unechoed, Ctrl-C still interrupts) and four ANSI sequences (the alternate screen, the cursor
hidden, home, clear to the end), not ``curses``: the screen is lines that :func:`render` makes, so
nothing of curses' windows is needed; ``_curses`` is missing from some Python builds; and ``initscr``
changes more terminal state (keypad, colours, signal handlers) than a ``finally`` can be sure to undo.
"""

from __future__ import annotations

import os
import threading
import time

from .._record import Record, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO
    from collections.abc import Callable, Mapping

    from ..collect.remote.recorder import RemoteRecorder

#: How often the view is redrawn (s), and how often keys are looked at (s; at most once a tick).
REFRESH_SECONDS = 1.0
POLL_SECONDS = 0.05
#: The sort keys: key -> (sort, column title). 1-4 as py-spy's top; 5 sorts by name.
SORT_KEYS = {"1": "own", "2": "total", "3": "own_time", "4": "total_time", "5": "name"}
#: The columns of numbers: (sort, title, width).
COLUMNS = (("own", "%Own", 7), ("total", "%Total", 7), ("own_time", "OwnTime", 9), ("total_time", "TotalTime", 9))
KEYS_HELP = "Keys: 1-5 sort by column (5: name), space pause, r reset, q quit"
#: The terminal's own sequences: the alternate screen and a hidden cursor, then back.
ENTER, LEAVE = "\x1b[?1049h\x1b[?25l", "\x1b[?25h\x1b[?1049l"
HOME, CLEAR_LINE, CLEAR_BELOW = "\x1b[H", "\x1b[K", "\x1b[J"


@record
class LiveRow(Record):
    """One function: ``own_share``/``total_share`` of the last refresh's wall time (1.0: one thread all the
    time; several threads can add up to more), ``own_ns``/``total_ns`` over the run."""

    name: str
    own_share: float
    total_share: float
    own_ns: int
    total_ns: int


@record
class LiveTable(Record):
    """What one screen shows: a title, a status line, the threads, the rows; ``paused`` while the view is held."""

    title: str
    status: str
    threads: str
    rows: tuple[LiveRow, ...]
    paused: bool = False


def build_rows(
    interval: Mapping[tuple[str, ...], float],
    run: Mapping[tuple[str, ...], float],
    interval_ns: int,
    group: str,
) -> list[LiveRow]:
    """A row per function (``group``: function, line or file, as ``top``'s --by) of the run's stacks ``run``,
    with its share of ``interval`` (the stacks of the last refresh, ``interval_ns`` long)."""
    from ..core.ranking import function_costs
    from ..core.vector import FlameGraph

    now = {cost.name: cost for cost in function_costs(FlameGraph(dict(interval)), group)} if interval else {}
    rows = []
    for cost in function_costs(FlameGraph(dict(run)), group):
        recent = now.get(cost.name)
        own, total = (recent.self_value, recent.inclusive_value) if recent is not None else (0, 0)
        rows.append(
            LiveRow(
                cost.name,
                own / interval_ns if interval_ns > 0 else 0.0,
                total / interval_ns if interval_ns > 0 else 0.0,
                int(cost.self_value),
                int(cost.inclusive_value),
            )
        )
    return rows


def sorted_rows(rows: tuple[LiveRow, ...] | list[LiveRow], sort: str) -> list[LiveRow]:
    """``rows`` in the order of ``sort`` (own, total, own_time, total_time: largest first; name: A-Z)."""
    keys = {
        "own": lambda row: (-row.own_share, -row.own_ns, row.name),
        "total": lambda row: (-row.total_share, -row.total_ns, row.name),
        "own_time": lambda row: (-row.own_ns, -row.own_share, row.name),
        "total_time": lambda row: (-row.total_ns, -row.total_share, row.name),
        "name": lambda row: (row.name, -row.own_share),
    }
    return sorted(rows, key=keys[sort])


def render(table: LiveTable, width: int, height: int, sort: str, limit: int | None = None) -> list[str]:
    """The screen: at most ``height`` lines of at most ``width`` characters; as many rows as fit (at most ``limit``)."""
    header = " ".join(f"{('*' if key == sort else '') + name:>{width}}" for key, name, width in COLUMNS)
    header += f" {'*' if sort == 'name' else ' '}Function (file:line)"
    status = ("[paused: space resumes] " if table.paused else "") + table.status
    lines = [table.title, status, table.threads, KEYS_HELP, "", header]
    room = max(height - len(lines), 0)
    shown = sorted_rows(table.rows, sort)[: room if limit is None else min(room, limit)]
    for row in shown:
        lines.append(
            f"{100 * row.own_share:>6.1f}% {100 * row.total_share:>6.1f}% "
            f"{row.own_ns / 1e9:>8.2f}s {row.total_ns / 1e9:>8.2f}s  {row.name}"
        )
    if not table.rows:
        lines.append("(no Python frames sampled yet)")
    return [line[:width] for line in lines[:height]]


class LiveView:
    """The recorder's stacks as :class:`LiveTable` s: the run's since the start (or the last reset) and the last
    refresh's; with ``thread``, one thread's only (its root frame dropped)."""

    def __init__(self, recorder: RemoteRecorder, group: str, thread: str | None, described: str) -> None:
        self.recorder, self.group, self.thread, self.described = recorder, group, thread, described
        self.paused = False
        self._base: dict[tuple[str, ...], float] = {}
        self._previous: dict[tuple[str, ...], float] = {}
        self._previous_ns = self._base_ns = time.monotonic_ns()
        self.table = LiveTable(described, "starting...", "", ())

    def reset(self) -> None:
        """Count the run's times from now."""
        self._base = dict(self.recorder.sink.totals)
        self._base_ns = time.monotonic_ns()

    def refresh(self) -> LiveTable:
        """A new table from what was recorded since the last refresh."""
        now_ns = time.monotonic_ns()
        current = dict(self.recorder.sink.totals)
        interval = _minus(current, self._previous)
        run = _minus(current, self._base)
        if self.thread is not None:
            interval, run = _one_thread(interval, self.thread), _one_thread(run, self.thread)
        rows = build_rows(interval, run, now_ns - self._previous_ns, self.group)
        self._previous, self._previous_ns = current, now_ns
        quality = self.recorder.quality
        seconds = (now_ns - self._base_ns) / 1e9
        status = (
            f"{quality.ticks:,} ticks over {seconds:.1f} s ({quality.ticks / seconds if seconds > 0 else 0:.0f} a second); "
            f"100% = one thread all the time"
        )
        self.table = LiveTable(self.described, status, thread_line(self.recorder), tuple(rows), self.paused)
        return self.table

    def press(self, key: str, sort: str) -> tuple[str, bool]:
        """The sort after ``key``, and whether it asks to quit."""
        if key in SORT_KEYS:
            return SORT_KEYS[key], False
        if key == " ":
            self.paused = not self.paused
            self.table = self.table.replace(paused=self.paused)
        elif key in "rR":
            self.reset()
        return sort, key in "qQ"


def _minus(current: dict[tuple[str, ...], float], before: dict[tuple[str, ...], float]) -> dict[tuple[str, ...], float]:
    return {stack: value - before.get(stack, 0) for stack, value in current.items() if value - before.get(stack, 0) > 0}


def _one_thread(stacks: dict[tuple[str, ...], float], thread: str) -> dict[tuple[str, ...], float]:
    """The stacks under the root frame ``thread`` ('main': MainThread), without it."""
    from ..core.transforms import MAIN_THREAD

    wanted = MAIN_THREAD if thread == "main" else thread
    return {stack[1:]: value for stack, value in stacks.items() if len(stack) > 1 and stack[0] == wanted}


def thread_line(recorder: RemoteRecorder) -> str:
    """``Threads (2): MainThread running, sleeper waiting (clock_nanosleep)`` from the last tick's stacks."""
    from ..collect.remote.recorder import thread_running, waiting_in

    pid = recorder.process.pid
    shown = []
    for stack in reversed(recorder.last_stacks):  # the main thread first
        native = stack.native_id
        state = ""
        if native is not None and thread_running(pid, native):
            state = " running"
        elif native is not None:
            syscall = waiting_in(pid, native)
            state = f" waiting ({syscall})" if syscall else " waiting"
        shown.append(f"{stack.name}{state}{', GIL' if stack.holds_gil else ''}")
    return f"Threads ({len(shown)}): " + ", ".join(shown)


class Terminal:
    """The terminal while the view is up: cbreak mode on ``keys_fd`` (when it is a terminal), the alternate
    screen on ``out``; everything put back on leaving the ``with``, however it is left, and while the
    view is suspended (Ctrl-Z: the shell's prompt needs the terminal as it was; ``fg`` brings the view back).
    ``resumed`` is set when it comes back from a suspension (the screen must be drawn again)."""

    def __init__(self, out: TextIO, keys_fd: int | None) -> None:
        self.out, self.keys_fd = out, keys_fd
        self._saved: list | None = None
        self._previous_handler: object = None
        self.resumed = False
        self.on_resume: Callable[[], None] | None = None

    def __enter__(self) -> Terminal:
        if self.keys_fd is not None:
            import termios

            self._saved = termios.tcgetattr(self.keys_fd)
            if threading.current_thread() is threading.main_thread():  # (signal handlers are the main thread's)
                import signal

                self._previous_handler = signal.signal(signal.SIGTSTP, self._suspend)
        self._take()
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._give_back()
        finally:
            if self._previous_handler is not None:
                import signal

                signal.signal(signal.SIGTSTP, self._previous_handler)  # type: ignore[arg-type]

    def _take(self) -> None:
        if self._saved is not None and self.keys_fd is not None:
            import tty

            tty.setcbreak(self.keys_fd)
        self.out.write(ENTER)
        self.out.flush()

    def _give_back(self) -> None:
        try:
            self.out.write(LEAVE)
            self.out.flush()
        finally:
            if self._saved is not None and self.keys_fd is not None:
                import termios

                termios.tcsetattr(self.keys_fd, termios.TCSADRAIN, self._saved)

    def _suspend(self, signum: int, _frame: object) -> None:
        """Ctrl-Z: the terminal as it was, then stop as the default action would; on ``fg`` (SIGCONT) the
        view again. (A process group no shell controls is not stopped: the view comes back at once.)"""
        import signal

        self._give_back()
        signal.signal(signal.SIGTSTP, signal.SIG_DFL)
        signal.raise_signal(signal.SIGTSTP)  # to this thread: it stops here, before the handler is set again
        signal.signal(signal.SIGTSTP, self._suspend)
        self._take()
        self.resumed = True
        if self.on_resume is not None:
            self.on_resume()

    def keys(self) -> str:
        """The keys pressed since the last call ('' if none; never waits)."""
        if self.keys_fd is None:
            return ""
        import select

        if not select.select([self.keys_fd], [], [], 0)[0]:
            return ""
        return os.read(self.keys_fd, 64).decode(errors="ignore")

    def size(self) -> tuple[int, int]:
        try:
            size = os.get_terminal_size(self.out.fileno())
        except (OSError, ValueError):
            return 80, 24
        return size.columns, size.lines

    def draw(self, lines: list[str]) -> None:
        self.out.write(HOME + "".join(f"{line}{CLEAR_LINE}\n" for line in lines[:-1]) + lines[-1] + CLEAR_LINE + CLEAR_BELOW)
        self.out.flush()


def watch(view: LiveView, terminal: Terminal, sort: str, limit: int | None) -> tuple[LiveTable, str]:
    """Run the view's recorder with the view up until it stops (q, Ctrl-C, a stop signal, -d, the target's exit);
    the last table shown, and its sort."""
    from ._attach import run_until_stopped

    recorder = view.recorder
    due = 0.0
    terminal.on_resume = recorder.skip_gap  # the time the view was stopped was not sampled

    def poll(_quality: object, _elapsed_ns: int) -> None:
        nonlocal sort, due
        changed, terminal.resumed = terminal.resumed, False
        for key in terminal.keys():
            sort, quit = view.press(key, sort)
            changed = True
            if quit:
                recorder.stop()
                return
        now = time.monotonic()
        if not view.paused and now >= due:
            due = now + REFRESH_SECONDS
            view.refresh()
            changed = True
        if changed:
            width, height = terminal.size()
            terminal.draw(render(view.table, width, height, sort, limit))

    recorder.on_progress = (POLL_SECONDS, poll)
    run_until_stopped(recorder)
    return view.table, sort


__all__ = ["LiveRow", "LiveTable", "LiveView", "Terminal", "build_rows", "render", "sorted_rows", "watch"]
