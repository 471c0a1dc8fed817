"""The server's one writer: pushes that arrive together are stored by one ``Store.add`` (group commit).

Why: every ``Store.add`` writes a part (four Parquet files and their mirror, synced) and replaces
the manifest under the store's lock; one a push would cap ingest at what the disk syncs per
second, and leave a part a window. The writer thread takes every push waiting when it is free and
stores them in one part, then answers each: a push is acknowledged only once its part is in the
manifest (durable: synced, renamed, the directory synced), so a stop or a crash after the answer
loses nothing. A push whose batch could not be written gets the error, and nothing of it is stored.
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import Future

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Sequence

    from ...store import Store
    from .ingest import Pushed

#: Profiles stored by one ``Store.add`` at most (the rest wait for the next).
BATCH = 256
#: When this many parts of one size tier end the manifest, they are compacted into one
#: (:meth:`Store.compact`, :meth:`Writer._compact`): a query checks and reads a few parts, not one a push.
COMPACT_AFTER = 16


class Writer:
    """A thread that stores what :meth:`submit` hands it, in batches; :meth:`close` stores what is
    queued, then stops."""

    def __init__(self, store: Store, batch: int = BATCH, compact_after: int = COMPACT_AFTER) -> None:
        self.store = store
        self.batch = batch
        self.compact_after = compact_after
        self.compactions = 0
        self._queue: queue.Queue[tuple[Sequence[Pushed], Future[list[int]]] | None] = queue.Queue()
        self._closed = False
        self._lock = threading.Lock()
        self.batches = 0  # how many Store.add calls: pushes per batch = pushes / batches
        self._thread = threading.Thread(target=self._run, name="flamespace-serve-writer", daemon=True)
        self._thread.start()

    def submit(self, pushed: Sequence[Pushed]) -> Future[list[int]]:
        """Queue a push's profiles; the future gives their store ids once they are durably stored."""
        future: Future[list[int]] = Future()
        with self._lock:
            if self._closed:
                future.set_exception(RuntimeError("the server is stopping: the push was not stored"))
                return future
            self._queue.put((pushed, future))
        return future

    def close(self) -> None:
        """Store everything queued, then stop the thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is None:
                break
            waiting = [first]
            count = len(first[0])
            while count < self.batch:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stopping = True  # store what came before the stop, then end
                    break
                waiting.append(more)
                count += len(more[0])
            self._store(waiting)
            self._compact()

    def _store(self, waiting: list[tuple[Sequence[Pushed], Future[list[int]]]]) -> None:
        items = []
        for n, (pushed, _) in enumerate(waiting):
            for k, one in enumerate(pushed):
                graph = one.graph.with_metadata(labels={**one.graph.metadata.labels, **one.labels})  # the push's win
                name = f"{one.labels.get('service_name', one.source)} {one.labels.get('time', '')}".strip()
                items.append((graph, f"{name} #{self.batches}.{n}.{k}"))  # the store's source column; unique in the batch
        try:
            result = self.store.add(items)
        except BaseException as exc:  # noqa: BLE001  # every push of the batch learns it was not stored
            for _, future in waiting:
                future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        finally:
            self.batches += 1
        again = dict(result.duplicates)
        added = iter(result.added)
        position = 0
        for pushed, future in waiting:
            ids = []
            for _ in pushed:
                source = items[position][1]
                ids.append(again[source] if source in again else next(added))
                position += 1
            future.set_result(ids)

    def _compact(self) -> None:
        """Size-tiered compaction: once :attr:`compact_after` parts at the end of the manifest are each
        smaller than ``compact_after`` times the newest part (a batch), they become one; else the same
        with ``compact_after`` times that bound (the tier above), and so on. A fact is rewritten about
        once a tier, and a store of n batches keeps about ``compact_after`` parts a tier, log(n) tiers.
        A failure is no push's: it is left for a later batch (or ``flamespace store gc``)."""
        from ...store.store import PART_FACTS, read_manifest

        try:
            parts = read_manifest(self.store.path)["parts"]
            if len(parts) < self.compact_after:
                return
            limit = max(int(parts[-1]["facts"]), 1) * self.compact_after
            while limit <= PART_FACTS * self.compact_after:
                tail: list[dict[str, Any]] = []
                for part in reversed(parts):
                    if part["facts"] >= limit or sum(p["facts"] for p in tail) + part["facts"] > PART_FACTS:
                        break
                    tail.append(part)
                if len(tail) >= self.compact_after:
                    if self.store.compact([p["name"] for p in reversed(tail)]):
                        self.compactions += 1
                    return
                limit *= self.compact_after
        except (OSError, ValueError, RuntimeError):
            return
