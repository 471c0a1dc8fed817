"""Sampling a running process and its child processes from outside (``record --pid --subprocesses``).

The parent is sampled as :class:`~.recorder.RemoteRecorder` samples one process; at each tick the
children it has attached are sampled too, each by a recorder of its own (its own Python version and
layout). Children are looked for every :data:`SCAN_SECONDS`: the kernel's list of each known
process's children (``/proc/PID/task/TID/children``), or, where the kernel keeps none, the parent
pid of every process in ``/proc``. Children of children are found the same way, through processes
that are not Python too (``sh -c 'python ...'``). A child that is not Python is tried again when it
execs another program; one that exits keeps what was recorded of it.
"""

from __future__ import annotations

import os

from .process import AttachError, NoSuchProcess, NotPython, ProcessGone, attach
from .recorder import RemoteRecorder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..raw import RawRecording
    from ..recording import Recording

#: How often (s) the process tree is looked at for new children.
SCAN_SECONDS = 0.1
#: How many scans a child that could not be read (but may be a Python starting) is tried again.
RETRIES = 20


class FamilyRecorder(RemoteRecorder):
    """A :class:`RemoteRecorder` of a process that also samples its descendants that are Python.
    :meth:`run` returns the parent's recording; :meth:`raws` gives every process's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # RemoteRecorder's
        super().__init__(*args, **kwargs)
        #: The children being sampled, by pid, and the program each ran when it was attached.
        self.children: dict[int, RemoteRecorder] = {}
        self._programs: dict[int, str] = {}
        #: The children's recordings that ended (the child exited, or exec'd another program), in order.
        self.ended_children: list[tuple[RemoteRecorder, RawRecording]] = []
        #: Descendants not sampled, by pid: (executable, why, attempts) as last seen.
        self.skipped: dict[int, tuple[str, str, int]] = {}
        self._next_scan = 0

    def tick(self, now: int) -> None:
        super().tick(now)  # the parent first: its exit ends the recording
        if now >= self._next_scan:
            self._next_scan = now + int(SCAN_SECONDS * 1e9)
            self._scan(now)
        for pid, child in list(self.children.items()):
            try:
                child.tick(now)
            except ProcessGone:
                self._end(pid, "exited")

    def _end(self, pid: int, why: str) -> None:
        child = self.children.pop(pid)
        self._programs.pop(pid, None)
        if child.quality.ticks:
            self.ended_children.append((child, child.finish(why)))

    def _scan(self, now: int) -> None:
        """Attach the descendants not seen yet; a child that exec'd another program is a new one (its recording so far
        ends); one that could not be read is tried again when it execs, or (a Python starting) for a while."""
        for pid in descendants(self.process.pid):
            exe = executable(pid)
            if pid in self.children:
                if exe == self._programs[pid]:
                    continue
                self._end(pid, "exec")
            if pid in self.skipped:
                seen, why, attempts = self.skipped[pid]
                if seen == exe and (why.startswith("not Python") or attempts >= RETRIES):
                    continue
            try:
                process = attach(pid)
            except NoSuchProcess:  # it ended before it could be read: nothing of it to record
                self.skipped.pop(pid, None)
                continue
            except AttachError as exc:
                attempts = self.skipped[pid][2] + 1 if pid in self.skipped and self.skipped[pid][0] == exe else 1
                why = f"not Python: {exc}" if isinstance(exc, NotPython) and not _starting(exe) else str(exc)
                self.skipped[pid] = (exe, why, attempts)
                continue
            child = RemoteRecorder(process, self.options, self.clock, gil_only=self.gil_only, native=self.native)
            child.begin(now)
            self.children[pid] = child
            self._programs[pid] = exe
            self.skipped.pop(pid, None)

    def raws(self, parent: RawRecording) -> list[RawRecording]:
        """Every process's recording: the parent's (``parent``, what :meth:`run` returned), then each child's."""
        for pid in list(self.children):
            self._end(pid, self.ended or "stopped")
        return [parent, *(raw for _child, raw in self.ended_children)]

    def sampled(self) -> list[RemoteRecorder]:
        """The recorders of every child sampled (running or ended)."""
        return [*(child for child, _raw in self.ended_children), *self.children.values()]

    def problems(self) -> list[str]:
        found = super().problems()
        for child in self.sampled():
            found.extend(f"process {child.process.pid}: {problem}" for problem in child.problems())
        return found

    def skipped_children(self) -> list[str]:
        """The descendants that were not sampled, each as ``pid (executable)``."""
        return [f"{pid} ({exe or '?'})" for pid, (exe, _why, _attempts) in sorted(self.skipped.items())]

    def recording(self, raw: RawRecording, process_root: bool = True) -> Recording:
        """As :meth:`RemoteRecorder.recording`, of every process, each under its process's root frame
        (as ``record --subprocesses`` roots the processes of a program it starts)."""
        labels = self.labels()
        versions = sorted({child.process.version for child in self.sampled()} - {self.process.version})
        if versions:
            labels["children_python"] = ",".join(versions)
        return self._merged(self.raws(raw), labels, True)


def descendants(pid: int) -> list[int]:
    """The pids of ``pid``'s children, their children, and so on ([] once it has gone)."""
    found: list[int] = []
    parents = [pid]
    by_parent: dict[int, list[int]] | None = None
    while parents:
        parent = parents.pop()
        kids = _children(parent)
        if kids is None:  # the kernel keeps no children lists: the parent pid of every process
            by_parent = by_parent if by_parent is not None else _children_by_parent()
            kids = by_parent.get(parent, [])
        for kid in kids:
            if kid not in found and kid != pid:
                found.append(kid)
                parents.append(kid)
    return found


def _children(pid: int) -> list[int] | None:
    """The children of ``pid`` from /proc/PID/task/*/children; None where the kernel does not keep them."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    kids: list[int] = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as file:
                kids.extend(int(word) for word in file.read().split())
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}/task/{task}"):
                continue  # the thread ended
            return None
        except (OSError, ValueError):
            continue
    return kids


def _children_by_parent() -> dict[int, list[int]]:
    """Every process's children, from the parent pid in each /proc/PID/stat."""
    by_parent: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as file:
                data = file.read()
            parent = int(data[data.rfind(b")") + 2 :].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        by_parent.setdefault(parent, []).append(int(name))
    return by_parent


def _starting(exe: str) -> bool:
    """Whether a process running ``exe`` may be a Python still loading (its libpython not mapped yet): the program's name says python."""
    return "python" in os.path.basename(exe)


def executable(pid: int) -> str:
    """The program ``pid`` runs (its /proc/PID/exe), '' where it cannot be read."""
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return ""


__all__ = ["SCAN_SECONDS", "FamilyRecorder", "descendants", "executable"]
