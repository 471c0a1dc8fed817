"""Thread names of another process, as threading knows them (``MainThread``, ``Thread-1 (worker)``,
``Dummy-2``): read from ``threading._active`` (a dict of ident -> Thread) and each Thread's ``_name``,
in the target's main interpreter, the same way on 3.9 to 3.13 (:mod:`.objects` reads the dict and
the instances wherever each version keeps them).

A thread that threading does not know (started from C, or by ``_thread.start_new_thread``, and never
asked for ``threading.current_thread()``), or a program that never imported threading, keeps the
name the reader gives without threading: ``MainThread`` for the process's first thread,
``Thread <kernel id>`` for others (:func:`fallback_name`). So does a thread seen before threading
has registered it (the first microseconds of its life): it takes its own name from the next reading.
"""

from __future__ import annotations

import struct
import time

from .objects import ObjectReader
from .process import ProcessGone

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from .stacks import ThreadStack

#: How often the names are read again while a thread has none (s): a thread threading never knows
#: would otherwise cost a reading at every tick.
RETRY_SECONDS = 1.0
#: A thread seen before threading has registered it (the microseconds between its start and its entry in
#: ``threading._active``) is looked up again this often (s) during its first :data:`NEW_THREAD_SECONDS`, so
#: that only a sample or two of a new thread goes under its kernel id.
NEW_RETRY_SECONDS = 0.01
NEW_THREAD_SECONDS = 0.5
MAIN_THREAD = "MainThread"


def fallback_name(pid: int, native_id: int | None, thread_id: int) -> str:
    """A thread's name without threading's: ``MainThread`` for process ``pid``'s first thread, else
    ``Thread <kernel id>`` (its pthread id where the kernel's is not known)."""
    if native_id == pid:
        return MAIN_THREAD
    return f"Thread {native_id if native_id is not None else thread_id}"


class ThreadNames:
    """The names of a process's threads by pthread ident, read again when a thread appears that the last
    reading did not know (at most once per :meth:`update`), or every :data:`RETRY_SECONDS` while one has none."""

    def __init__(self, objects: ObjectReader, clock: Callable[[], float] = time.monotonic) -> None:
        self.objects = objects
        self.clock = clock
        self.names: dict[int, str] = {}
        #: Why the last reading found no names (None: it found them, or none was tried).
        self.problem: str | None = None
        self._active: int | None = None  # threading._active's address, once found
        self._known: set[int] = set()  # idents present at the last reading
        self._first_unnamed: dict[int, float] = {}  # when each thread without a name was first seen
        self._read_at = float("-inf")

    def update(self, stacks: list[ThreadStack]) -> None:
        """Read the names again if ``stacks`` hold a thread the last reading did not see, or one without a
        name and the last reading is older than :data:`RETRY_SECONDS` (:data:`NEW_RETRY_SECONDS` while that
        thread is new); then name each stack."""
        idents = {stack.thread_id for stack in stacks}
        unnamed = idents - self.names.keys()
        now = self.clock()
        for ident in [ident for ident in self._first_unnamed if ident not in unnamed]:
            del self._first_unnamed[ident]
        for ident in unnamed:
            self._first_unnamed.setdefault(ident, now)
        if unnamed:
            young = any(now - self._first_unnamed[ident] < NEW_THREAD_SECONDS for ident in unnamed)
            retry = NEW_RETRY_SECONDS if young else RETRY_SECONDS
            if unnamed - self._known or now - self._read_at >= retry:
                self.read()
                self._known = idents
        pid = self.objects.process.pid
        for stack in stacks:
            stack.name = self.names.get(stack.thread_id) or fallback_name(pid, stack.native_id, stack.thread_id)

    def read(self) -> None:
        """Read ``threading._active`` now (names read before stay for threads it no longer lists: a thread
        ends after it leaves ``_active``)."""
        self._read_at = self.clock()
        try:
            found = self._read()
        except ProcessGone:
            raise
        except (OSError, ValueError, UnicodeDecodeError, struct.error) as exc:
            self._active = None  # found again next time (the module may have been reloaded)
            self.problem = f"threading's names could not be read ({exc})"
            return
        self.problem = None if found is not None else "the program has not imported threading"
        self.names.update(found or {})

    def _read(self) -> dict[int, str] | None:
        objects = self.objects
        if self._active is None:
            module = objects.module("threading")
            self._active = None if module is None else objects.find(objects.dict_items(module), "_active")
            if self._active is None:
                return None
        names: dict[int, str] = {}
        for key, thread in objects.dict_items(self._active):
            try:
                name = objects.find(objects.attributes(thread), "_name")
                if name is not None:
                    names[objects.integer(key)] = objects.string(name)
            except (OSError, ValueError, UnicodeDecodeError, struct.error):
                continue  # a Thread freed while read, or a key that is no int: the others stand
        return names


__all__ = ["MAIN_THREAD", "NEW_RETRY_SECONDS", "NEW_THREAD_SECONDS", "RETRY_SECONDS", "ThreadNames", "fallback_name"]
