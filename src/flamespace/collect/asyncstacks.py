"""asyncio task stacks for the sampler (``--async``): the awaiting chain of the running task
instead of the event loop's internals.

A thread running an event loop shows, in its frames, ``asyncio.run`` → ``run_forever`` →
``_run_once`` → ``Handle._run`` and then only the coroutines of the task that runs now. What
a user wants is the *logical* stack: the program's frames up to ``asyncio.run``, then the
coroutines of every task that is waiting for the running one (``await task``, ``gather``,
``wait_for``, ``TaskGroup``), outermost first, then the running task's own frames. The
waiting tasks are found through the callbacks the running task will call when it is done.

Only objects of the running program are read, from the sampling thread while it holds the
GIL; nothing is imported (a program that never imported asyncio is left alone).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import FrameType
    from typing import Any

#: How many futures a search for the waiting task may pass through (gather, wait_for, ...).
MAX_HOPS = 4
#: At most this many tasks in one awaiting chain (a guard against cycles).
MAX_TASKS = 64


class AsyncStacks:
    """Rewrites a thread's frames (root first) into its asyncio logical stack."""

    def __init__(self) -> None:
        self._asyncio_dir: str | None = None
        self._handle_run = None

    def frames(self, frames: list[FrameType], thread_ident: int) -> list[FrameType]:
        """``frames`` with the event loop's internals replaced by the awaiting chain; unchanged
        when the thread is not running a task's step."""
        if not self._ready():
            return frames
        boundary = self._callback_boundary(frames)
        if boundary is None:
            return frames
        inside = self._asyncio_dir
        prefix: list[FrameType] = []
        for frame in frames[:boundary]:  # the program's frames, up to asyncio.run (say)
            if _in(frame, inside):
                break
            prefix.append(frame)
        running = frames[boundary + 1 :]
        while running and _in(running[0], inside):  # Task.__step and friends (pure-Python tasks)
            running = running[1:]
        task = self._running_task(thread_ident)
        waiting: list[FrameType] = []
        if task is not None:
            for parent in self._waiting_chain(task):
                waiting[:0] = [f for f in _coroutine_frames(parent) if not _in(f, inside)]
        return prefix + waiting + running

    def _ready(self) -> bool:
        if self._handle_run is not None:
            return True
        events = sys.modules.get("asyncio.events")
        if events is None or not hasattr(events, "Handle") or events.__file__ is None:  # not imported, or not yet whole
            return False
        self._handle_run = events.Handle._run.__code__
        self._asyncio_dir = os.path.dirname(events.__file__) + os.sep
        return True

    def _callback_boundary(self, frames: list[FrameType]) -> int | None:
        """Index of the innermost ``Handle._run`` frame: the callbacks of the loop run above it."""
        for index in range(len(frames) - 1, -1, -1):
            if frames[index].f_code is self._handle_run:
                return index
        return None

    @staticmethod
    def _running_task(thread_ident: int) -> Any:
        tasks = sys.modules.get("asyncio.tasks")
        current = getattr(tasks, "_current_tasks", None)
        if not current:
            return None
        for loop, task in list(current.items()):
            if getattr(loop, "_thread_id", None) == thread_ident:
                return task
        return None

    def _waiting_chain(self, task: Any) -> list[Any]:
        """The tasks waiting for ``task``, nearest first."""
        chain: list[Any] = []
        seen = {id(task)}
        while len(chain) < MAX_TASKS:
            parent = _waiting_task(task, MAX_HOPS)
            if parent is None or id(parent) in seen:
                break
            chain.append(parent)
            seen.add(id(parent))
            task = parent
        return chain


def _in(frame: FrameType, directory: str | None) -> bool:
    return directory is not None and frame.f_code.co_filename.startswith(directory)


def _waiting_task(future: Any, hops: int) -> Any:
    """The task that resumes when ``future`` is done, found through its done-callbacks."""
    try:
        callbacks = list(future._callbacks or ())
    except (AttributeError, TypeError):
        return None
    for callback, _context in callbacks:
        for referent in _referents(callback):
            if _is_task(referent):
                return referent
            parent = getattr(referent, "_parent_task", None)  # asyncio.TaskGroup
            if _is_task(parent):
                return parent
            if hops > 0 and hasattr(referent, "_callbacks"):  # a future between: gather, wait_for
                found = _waiting_task(referent, hops - 1)
                if found is not None:
                    return found
    return None


def _referents(callback: Any) -> list[Any]:
    """Objects a done-callback is bound to: its ``self``, a partial's arguments, closure cells."""
    found = []
    owner = getattr(callback, "__self__", None)
    if owner is not None:
        found.append(owner)
    found.extend(getattr(callback, "args", ()) or ())  # functools.partial
    for cell in getattr(callback, "__closure__", None) or ():
        try:
            found.append(cell.cell_contents)
        except ValueError:  # an empty cell
            pass
    return found


def _is_task(value: Any) -> bool:
    return value is not None and hasattr(value, "get_coro") and hasattr(value, "_callbacks")


def _coroutine_frames(task: Any) -> list[FrameType]:
    """The frames of a suspended task's coroutines, outermost first (``await`` chain)."""
    frames: list[FrameType] = []
    coroutine = task.get_coro() if hasattr(task, "get_coro") else None
    while coroutine is not None and len(frames) < 1000:
        frame = (
            getattr(coroutine, "cr_frame", None) or getattr(coroutine, "gi_frame", None) or getattr(coroutine, "ag_frame", None)
        )
        if frame is None:
            break
        frames.append(frame)
        coroutine = (
            getattr(coroutine, "cr_await", None)
            or getattr(coroutine, "gi_yieldfrom", None)
            or getattr(coroutine, "ag_await", None)
        )
    return frames


__all__ = ["AsyncStacks"]
