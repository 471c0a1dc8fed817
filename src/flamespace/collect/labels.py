"""Dynamic labels for the agent: ``with labels(endpoint="/checkout"):`` marks the samples taken
inside the block, so each window pushes one profile per label set.

Labels belong to the thread that entered the block, or, inside a running asyncio task, to that
task (they follow it across its awaits, and other tasks of the loop do not see them; tasks it
starts do not inherit them). The sampling thread reads them with two dict lookups per thread
and tick (:meth:`LabelTable.of_thread`); entering and leaving a block costs about a
microsecond. Nothing here is imported but ``sys`` and ``threading``: a service can use the
labels whether an agent runs or not.
"""

from __future__ import annotations

import sys
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .._types import LabelSet

#: Names Pyroscope reserves (the profile type, the service): set by the agent, not by a block.
RESERVED = ("__name__", "service_name")


class LabelTable:
    """The label set of each thread (by ident) and each asyncio task that entered a block."""

    def __init__(self) -> None:
        self.threads: dict[int, LabelSet] = {}
        self.tasks: dict[Any, LabelSet] = {}

    def of_thread(self, ident: int) -> LabelSet:
        """What the samples of thread ``ident`` carry now (read by the sampling thread)."""
        if self.tasks:
            task = _running_task(ident)
            if task is not None:
                found = self.tasks.get(task)
                if found is not None:
                    return found
        return self.threads.get(ident, ())

    def current(self) -> LabelSet:
        """The label set of the calling thread (or task)."""
        task = _own_task()
        ident = threading.get_ident()
        if task is not None and task in self.tasks:
            return self.tasks[task]
        return self.threads.get(ident, ())


#: The one table every ``labels`` block writes and every agent reads.
TABLE = LabelTable()


class labels:  # noqa: N801  # used as a function: `with labels(endpoint="/checkout"):`
    """Samples taken inside the block carry these labels (on top of the enclosing block's)."""

    __slots__ = ("values", "_saved")

    def __init__(self, **values: str) -> None:
        for name, value in values.items():
            if name in RESERVED:
                raise ValueError(f"the label {name!r} is set by the agent (service name and profile type), not by a block")
            if not isinstance(value, str):
                raise TypeError(f"label {name!r}: values are strings, not {type(value).__name__} ({value!r})")
        self.values = values
        self._saved: list[tuple[dict[Any, LabelSet], Any, LabelSet | None]] = []

    def __enter__(self) -> labels:
        task = _own_task()
        ident = threading.get_ident()
        base: LabelSet | None
        if task is not None:
            table: dict[Any, LabelSet] = TABLE.tasks
            key: Any = task
            previous = table.get(task)
            base = previous if previous is not None else TABLE.threads.get(ident, ())
        else:
            table, key = TABLE.threads, ident
            previous = base = table.get(ident)
        merged = dict(base or ())
        merged.update(self.values)
        self._saved.append((table, key, previous))
        table[key] = tuple(sorted(merged.items()))
        return self

    def __exit__(self, *exc_info: object) -> None:
        table, key, previous = self._saved.pop()
        if previous is None:
            table.pop(key, None)
        else:
            table[key] = previous


def _own_task() -> Any:
    """The asyncio task running this code, or None (no loop runs in this thread, or no task)."""
    events = sys.modules.get("asyncio.events")
    if events is None or events._get_running_loop() is None:
        return None
    tasks = sys.modules.get("asyncio.tasks")
    return None if tasks is None else tasks.current_task()


def _running_task(ident: int) -> Any:
    """The task the event loop of thread ``ident`` runs now (asyncio's own table), or None."""
    tasks = sys.modules.get("asyncio.tasks")
    current = getattr(tasks, "_current_tasks", None)
    if not current:
        return None
    for loop, task in list(current.items()):
        if getattr(loop, "_thread_id", None) == ident:
            return task
    return None


__all__ = ["RESERVED", "TABLE", "LabelTable", "labels"]
