"""The profile store: DuckDB queries over append-only Parquet parts and an atomically replaced manifest.

Why this shape: profiles of one program share most stacks, so frames and stacks are interned
once (a stack is its parent's id and a frame id) and a profile is only (stack id, value)
pairs, a few bytes each once compressed; Parquet keeps them columnar for DuckDB (and Dask)
to aggregate without loading profiles one by one.

Consistency: a part (four Parquet files) is written under ``tmp/``, moved into ``parts/``
and only then named in ``MANIFEST.json``, which is replaced by rename. Readers take the
manifest as it is when they start (a snapshot) and see whole parts or nothing; writers
(ingest, gc) hold an exclusive lock on ``.lock`` for the whole write, so concurrent CI jobs
queue instead of losing each other's parts. Every file's size and sha256 are in the
manifest: a file that does not match is a corrupt part, named in a warning and skipped.

Repair: the stack and frame tables (which later parts' profiles share) have a byte-identical
copy in each part's ``mirror/``; the manifest is sealed by a checksum and its previous
generation kept; each part describes itself (``part.json``). store/repair.py rebuilds from
these; gc never deletes a profile whose own files are sound.
The layout and tables are described in docs/architecture.md ("The store").
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import shutil
import time
import uuid
from datetime import date, datetime, timedelta, timezone

from ..core.metadata import Metadata
from ..errors import ArgumentError, OutputError
from . import location
from ._deps import StoreError, modules
from .selector import COLUMNS, Selector, parse_selector, parse_time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable
    from collections.abc import Iterable, Iterator, Mapping, Sequence

    import numpy as np

    from .._types import Number, Stack
    from ..core.vector import FlameGraph
    from ..diagnostics import Diagnostics
    from .aggregate import Engine

FORMAT = "flamespace-store"
VERSION = 1
MANIFEST = "MANIFEST.json"
#: The manifest's previous generation (a hard link to the replaced file): what `store repair` starts from.
PREVIOUS = "MANIFEST.prev.json"
#: Each part's own description (its files' sizes and sha256, the ids it uses, the parts it
#: replaces), sealed by a checksum: with :data:`PREVIOUS`, what a damaged manifest is rebuilt from.
PART_META = "part.json"
#: Where corrupt parts are kept aside (never deleted: to repair or inspect them).
CORRUPT = "corrupt"
LOCK = ".lock"
#: The tables every part keeps a byte-identical second copy of, under ``mirror/``: the stack and
#: frame tables are shared by the profiles of later parts, so losing one would make sound
#: profiles unreadable; they are small next to the facts. The copy is checked against the same
#: size and sha256 as the file, used when the file is damaged, and copied back by `store repair`.
MIRRORED = ("frames", "stacks")
MIRROR = "mirror"
#: The id counters of the manifest (``next_profile``, ...): ids below them are taken.
COUNTERS = ("profile", "frame", "stack")
KINDS = ("profiles", "frames", "stacks", "facts")
#: Rows per Parquet row group of the fact table: small enough that a query for a few
#: profiles skips most of a compacted part (row groups carry min/max of ``profile``).
ROW_GROUP = 128 * 1024
#: Facts per part that ingest and gc write at most (about 13 MB): a query checks the sha256 of the parts it reads.
PART_FACTS = 8 * 1024 * 1024
#: How long gc keeps the parts it replaced, for readers that took the old manifest.
RETIRED_GRACE = timedelta(hours=1)
#: The columns of the profiles table, in order (labels of their own, then the rest). ``time`` and
#: ``time_end`` are the window a profile covers (a continuous profiler's 10 s): from its ``time`` and
#: ``time_end`` labels, else when it was added; a part written before ``time_end`` existed has no such
#: column, and its profiles read as windows of no length (:data:`_PROFILES_VIEW`; gc writes the column).
PROFILE_COLUMNS = ("id", "hash", "source", "time", "added") + COLUMNS + ("labels", "total", "stacks", "integral", "time_end")
#: The labels a profile's window is read from (ISO date-times, UTC unless they say).
TIME_LABEL, TIME_END_LABEL = "time", "time_end"


def open_store(path: str | None = None) -> Store:
    """The store at ``path`` (default: :func:`location.resolve`); checks that DuckDB and pyarrow are installed."""
    modules()
    return Store(location.resolve(path))


class AddResult:
    """What an ingest did: the ids of the new profiles, and (source, id) of those already stored
    (a re-ingest: :meth:`Store.add` says what counts as one)."""

    def __init__(self) -> None:
        self.added: list[int] = []
        self.duplicates: list[tuple[str, int]] = []


class Loss:
    """A corrupt part set aside by gc or repair: what is wrong with it, how many profiles went
    with it (0 when only its stack table was damaged: its profiles were kept) and where it is kept."""

    def __init__(self, part: str, problems: Sequence[str], profiles: int, kept_at: str) -> None:
        self.part, self.problems, self.profiles, self.kept_at = part, list(problems), profiles, kept_at

    def __str__(self) -> str:
        what = f"{self.profiles} profile(s) lost to corruption" if self.profiles else "no profile lost (its profiles were kept)"
        return f"part {self.part}: {'; '.join(self.problems)}: {what}; the part is kept aside in {self.kept_at}"


class GcResult:
    """What gc did: profiles removed by retention and kept, parts before and after, leftovers
    deleted; corrupt parts set aside (:class:`Loss`: never counted as retention) and the kept
    profiles that cannot be read because a corrupt part defined their stacks."""

    def __init__(
        self,
        removed: int,
        kept: int,
        parts_before: int,
        parts_after: int,
        deleted: int,
        lost: Sequence[Loss] = (),
        unreadable: int = 0,
    ) -> None:
        self.removed, self.kept, self.parts_before, self.parts_after, self.deleted = (
            removed,
            kept,
            parts_before,
            parts_after,
            deleted,
        )
        self.lost = list(lost)
        self.unreadable = unreadable

    @property
    def lost_profiles(self) -> int:
        return sum(loss.profiles for loss in self.lost)


class _Intern:
    """The writer's view of the ids: frames, stacks and content hashes already stored."""

    def __init__(self) -> None:
        self.parts: set[str] = set()
        self.frames: dict[str, int] = {}
        self.stacks: dict[tuple[int, int], int] = {}
        self.texts: dict[str, int] = {}
        #: Content hash -> a profile with that content (whatever its labels).
        self.hashes: dict[str, int] = {}
        #: A run's identity (:func:`_identity`: content and labels) -> the profile.
        self.runs: dict[str, int] = {}
        #: The highest id of each kind seen in the parts: a counter below it would give an id twice.
        self.top: dict[str, int] = {kind: -1 for kind in COUNTERS}


class Store:
    """A store directory. Cheap to make; nothing is read until a snapshot, an ingest or gc."""

    def __init__(self, path: str) -> None:
        self.path = os.fspath(path)
        self._intern: _Intern | None = None

    def __repr__(self) -> str:
        return f"Store({self.path!r})"

    # -- reading

    def snapshot(self, diagnostics: Diagnostics | None = None) -> Snapshot:
        """A consistent view of the store as its manifest is now; corrupt parts are warned of and left out."""
        return Snapshot(self.path, read_manifest(self.path), diagnostics)

    def exists(self) -> bool:
        return os.path.exists(os.path.join(self.path, MANIFEST))

    # -- writing

    def add(
        self,
        items: Iterable[tuple[FlameGraph, str]],
        labels: Mapping[str, str] = {},
        diagnostics: Diagnostics | None = None,
        now: datetime | None = None,
    ) -> AddResult:
        """Ingest profiles given as (flame graph, source name), with ``labels``
        added to each (they win over the profile's own). The call's profiles become visible at
        once (in parts of at most :data:`PART_FACTS` facts, so memory stays bounded). Every run
        is kept: the same content under other labels (two commits whose runs count the same) is
        another run. Only a re-ingest is skipped (:attr:`AddResult.duplicates`): the same content
        with the same labels, or the same run of a collection (its ``collection`` and ``run``
        labels, same content) added again under other labels."""
        _, pa, pq = modules()
        added_at = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).replace(tzinfo=None)
        with self._locked():
            try:
                return self._add(items, labels, diagnostics, added_at, pa, pq)
            except BaseException:
                self._intern = None  # it may hold ids that were never written: read it again next time
                raise

    def _add(
        self,
        items: Iterable[tuple[FlameGraph, str]],
        labels: Mapping[str, str],
        diagnostics: Diagnostics | None,
        added_at: datetime,
        pa: Any,
        pq: Any,
    ) -> AddResult:
        """:meth:`add` under the lock."""
        import numpy as np

        from ..formats.folded import texts

        result = AddResult()
        manifest = read_manifest(self.path)
        intern = self._load_intern(manifest, diagnostics)
        counters = _next_ids(manifest, intern)
        new_frames: list[tuple[int, str]] = []
        new_stacks: list[tuple[int, int, int]] = []
        rows: dict[str, list] = {c: [] for c in PROFILE_COLUMNS}
        facts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        held = 0  # facts not written yet
        parts: list[dict[str, Any]] = []
        writer = uuid.uuid4().hex  # the parts of one call: committed together or not at all

        def flush() -> None:
            """Write what is held as a part (not yet in the manifest): memory stays bounded."""
            nonlocal held
            tables = {
                "profiles": pa.table({c: rows[c] for c in PROFILE_COLUMNS}, schema=schema("profiles")),
                "frames": pa.table(
                    {"id": [i for i, _ in new_frames], "name": [n for _, n in new_frames]}, schema=schema("frames")
                ),
                "stacks": pa.table(
                    {"id": [s[0] for s in new_stacks], "parent": [s[1] for s in new_stacks], "frame": [s[2] for s in new_stacks]},
                    schema=schema("stacks"),
                ),
                "facts": pa.table(
                    {name: np.concatenate([f[k] for f in facts]) for k, name in enumerate(("profile", "stack", "value"))},
                    schema=schema("facts"),
                ),
            }
            parts.append(self._write_part(tables, pq, len(rows["id"]), _part_meta(manifest, writer, counters)))
            new_frames.clear()
            new_stacks.clear()
            for column in rows.values():
                column.clear()
            facts.clear()
            held = 0

        for graph, source in items:
            metadata = graph.metadata  # its stacks by folded text: a text-backed graph's own, no join
            stacks, numbers = _intern_values(intern, texts(graph), counters, new_frames, new_stacks)
            digest = _content_hash(stacks, numbers, metadata)
            merged = {**metadata.labels, **labels}  # those added win
            stored = _stored_labels(merged)
            identity = _identity(digest, stored)
            known = _stored_as(intern, identity, digest, _collected(metadata))
            if known is not None:
                result.duplicates.append((source, known))
                continue
            ident = counters["profile"]
            counters["profile"] += 1
            _remember(intern, identity, digest, ident)  # (a failed ingest drops intern: see add)
            facts.append((np.full(len(stacks), ident, dtype=np.int32), stacks, numbers))
            integral = bool(((numbers == np.floor(numbers)) & (np.abs(numbers) < 2.0**53)).all())
            _profile_row(rows, ident, digest, source, metadata, merged, stored, added_at, numbers, integral)
            result.added.append(ident)
            held += len(stacks)
            if held >= PART_FACTS:
                flush()
        if rows["id"]:
            flush()
        if not result.added:
            if new_stacks:  # interned for nothing (no profile added): not written, so not kept
                self._intern = None
            return result
        manifest["parts"].extend(parts)  # every part of the call becomes visible at once
        for k, v in counters.items():
            manifest[f"next_{k}"] = v
        write_manifest(self.path, manifest)
        intern.parts.update(part["name"] for part in parts)
        return result

    def add_files(
        self,
        paths: Sequence[str],
        labels: Mapping[str, str] = {},
        diagnostics: Diagnostics | None = None,
        input_format: str | None = None,
        skip_invalid: bool = False,
    ) -> AddResult:
        """Ingest profile files of any readable format (read one at a time), as :meth:`add`."""
        from ..formats import registry

        def read() -> Iterator[tuple[FlameGraph, str]]:
            for path in paths:
                yield (
                    registry.read_graph(path, input_format, skip_invalid=skip_invalid, diagnostics=diagnostics),
                    registry.display_name(path),
                )

        return self.add(read(), labels, diagnostics)

    def gc(
        self,
        keep_last: int | None = None,
        older_than: timedelta | None = None,
        diagnostics: Diagnostics | None = None,
        now: datetime | None = None,
    ) -> GcResult:
        """Retention, then compaction: keep the ``keep_last`` latest profiles of each branch
        (profiles without a branch count as one) and none older than ``older_than``; rewrite
        what is kept as one part. Every profile whose own files are sound is kept whatever else
        is damaged; corrupt parts are moved to ``corrupt/`` (never deleted) and returned as
        :attr:`GcResult.lost`, apart from retention; parts left by killed ingests are deleted;
        replaced parts are deleted after :data:`RETIRED_GRACE` (a reader may still be using them)."""
        if keep_last is not None and keep_last < 1:
            raise ArgumentError(f"--keep-last must be at least 1, not {keep_last}")
        if not self.exists():
            read_manifest(self.path)  # a manifest lost while parts are stored: says so and how to repair
            raise StoreError(f"there is no store at {self.path} (nothing was ever added to it)")
        now = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).replace(tzinfo=None)
        with self._locked():
            manifest = read_manifest(self.path)
            done = self._collect(manifest, keep_last, older_than, now, diagnostics)
            write_manifest(self.path, manifest)
            self._intern = None
        return done

    def compact(self, names: Sequence[str], diagnostics: Diagnostics | None = None, now: datetime | None = None) -> str | None:
        """Rewrite the parts ``names`` (consecutive in the manifest) as one part, in their place: a
        store that takes a part a push (``flamespace serve``) stays a few parts to check and read.
        Ids are unchanged, no profile is dropped; the replaced parts are retired (deleted by a later
        compaction or gc after :data:`RETIRED_GRACE`). Returns the new part's name, or None when
        there is nothing to do: a part is no longer listed, they are not consecutive, or one is
        corrupt (gc sets it aside)."""
        _, pa, pq = modules()
        now = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).replace(tzinfo=None)
        with self._locked():
            manifest = read_manifest(self.path)
            listed = [p["name"] for p in manifest["parts"]]
            wanted = set(names)
            where = [k for k, name in enumerate(listed) if name in wanted]
            if len(where) < 2 or len(where) != len(wanted) or where[-1] - where[0] + 1 != len(where):
                return None
            chosen = manifest["parts"][where[0] : where[-1] + 1]
            snapshot = Snapshot(self.path, dict(manifest, parts=chosen), diagnostics)
            snapshot.verify_all()
            if snapshot.corrupt:
                return None
            con = snapshot.connection()
            ids = [row[0] for row in con.execute("SELECT id FROM profiles ORDER BY id").fetchall()]
            counters = {k: int(manifest[f"next_{k}"]) for k in COUNTERS}
            meta = _part_meta(manifest, uuid.uuid4().hex, counters, [p["name"] for p in chosen])
            name = f"{time.strftime('%Y%m%d%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:12]}-compact"
            with _naming(os.path.join(self.path, "tmp", name)):
                entry = self._compact_part(con, os.path.join(self.path, "tmp", name), name, 0, ids, pa, pq, meta)
            manifest["parts"][where[0] : where[-1] + 1] = [entry]
            retired = list(manifest.get("retired", [])) + [{"name": p["name"], "since": now.isoformat()} for p in chosen]
            self._sweep(manifest, retired, now)
            write_manifest(self.path, manifest)
            self._keep_intern([p["name"] for p in chosen], name)
        return name

    def _keep_intern(self, replaced: Sequence[str], by: str) -> None:
        """After a compaction: the parts ``replaced`` are now the part ``by``, with the same ids and
        contents, so an intern that had read them all still knows exactly what the parts hold (it is
        not read again: serve compacts every few batches); any other is dropped, to be read again."""
        intern = self._intern
        if intern is None or not intern.parts.issuperset(replaced):
            self._intern = None
            return
        intern.parts.difference_update(replaced)
        intern.parts.add(by)

    def _collect(
        self,
        manifest: dict[str, Any],
        keep_last: int | None,
        older_than: timedelta | None,
        now: datetime,
        diagnostics: Diagnostics | None,
    ) -> GcResult:
        """gc under the lock, on ``manifest`` (changed in place, written by the caller): retention
        by ``keep_last`` and ``older_than``, compaction, corrupt parts set aside. A profile whose own
        files (profiles, facts) are sound is kept whatever else is damaged: if a corrupt part
        defined its stacks it cannot be read, but its values are not thrown away."""
        _, pa, pq = modules()
        snapshot = Snapshot(self.path, manifest, diagnostics)
        snapshot.verify_all()
        con = snapshot.connection()
        total = con.execute("SELECT count(*) FROM profiles").fetchone()[0]
        cutoff = _cutoff(now, older_than)
        kept_ids = [
            row[0]
            for row in con.execute(
                "SELECT id FROM (SELECT id, time, row_number() OVER (PARTITION BY branch ORDER BY time DESC, id DESC) AS rank "
                "FROM profiles) WHERE (? IS NULL OR rank <= ?) AND (? IS NULL OR time >= ?) ORDER BY id",
                [keep_last, keep_last, cutoff, cutoff],
            ).fetchall()
        ]
        corrupt = [p for p in manifest["parts"] if p["name"] in snapshot.corrupt]
        sound = {p["name"] for p in snapshot.parts}
        before = len(manifest["parts"])
        retired = list(manifest.get("retired", []))
        lost: list[Loss] = []
        unreadable = snapshot.unreadable(kept_ids)  # before a part moves to corrupt/
        if len(kept_ids) < total or len(manifest["parts"]) > 1 or corrupt:
            names = [p["name"] for p in manifest["parts"]]
            retired += [{"name": p["name"], "since": now.isoformat()} for p in manifest["parts"] if p not in corrupt]
            meta = _part_meta(manifest, uuid.uuid4().hex, {k: int(manifest[f"next_{k}"]) for k in COUNTERS}, names)
            manifest["parts"] = self._compact(snapshot, kept_ids, pa, pq, meta) if snapshot.parts or snapshot.dictionary else []
            for part in corrupt:
                lost.append(
                    self._quarantine(manifest, part, snapshot, 0 if part["name"] in sound else int(part["profiles"]), now)
                )
        deleted = self._sweep(manifest, retired, now)
        return GcResult(total - len(kept_ids), len(kept_ids), before, len(manifest["parts"]), deleted, lost, unreadable)

    # -- internals

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """The writers' lock: an exclusive ``flock`` on ``.lock`` (released by the kernel if the writer dies)."""
        os.makedirs(os.path.join(self.path, "parts"), exist_ok=True)
        os.makedirs(os.path.join(self.path, "tmp"), exist_ok=True)
        with open(os.path.join(self.path, LOCK), "a+b") as handle:
            try:
                import fcntl
            except ImportError:  # Windows: no concurrent writers
                yield
                return
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _load_intern(self, manifest: dict[str, Any], diagnostics: Diagnostics | None) -> _Intern:
        """Frames, stacks and hashes of every stored part (read only for parts not seen before)."""
        names = {p["name"] for p in manifest["parts"]}
        intern = self._intern
        if intern is not None and not intern.parts <= names:
            _follow_compactions(self.path, intern, manifest)
        if intern is None or not intern.parts <= names:
            intern = self._intern = _Intern()
        fresh = [p for p in manifest["parts"] if p["name"] not in intern.parts]
        if not fresh:
            return intern
        snapshot = Snapshot(self.path, dict(manifest, parts=fresh), diagnostics)
        _, _, pq = modules()
        for part in snapshot.dictionary:
            for ident, name in zip(*_columns(pq, snapshot.file(part, "frames"), ("id", "name"))):
                intern.frames[name] = ident
                intern.top["frame"] = max(intern.top["frame"], ident)
            for ident, parent, frame in zip(*_columns(pq, snapshot.file(part, "stacks"), ("id", "parent", "frame"))):
                intern.stacks[(parent, frame)] = ident
                intern.top["stack"] = max(intern.top["stack"], ident)
        for part in snapshot.parts:
            for ident, digest, labels in zip(*_columns(pq, snapshot.file(part, "profiles"), ("id", "hash", "labels"))):
                _remember(intern, _identity(digest, labels), digest, ident)
                intern.top["profile"] = max(intern.top["profile"], ident)
        intern.parts.update(p["name"] for p in fresh)
        return intern

    def _write_part(self, tables: Mapping[str, Any], pq: Any, profiles: int, meta: Mapping[str, Any]) -> dict[str, Any]:
        """Write the four files of a part under tmp/, synced, then move it into parts/; its manifest entry."""
        name = f"{time.strftime('%Y%m%d%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:12]}"
        staging = os.path.join(self.path, "tmp", name)
        with _naming(staging):
            os.makedirs(staging)
            files = {}
            for kind in KINDS:
                path = os.path.join(staging, f"{kind}.parquet")
                _write_table(pq, tables[kind], path, kind)
                files[kind] = _file_entry(path)
            entry = {"name": name, "profiles": profiles, "facts": tables["facts"].num_rows, "files": files}
            _publish_part(self.path, staging, entry, {**meta, "mirror": _write_mirror(staging)})
        return entry

    def _compact(
        self, snapshot: Snapshot, kept_ids: list[int], pa: Any, pq: Any, meta: Mapping[str, Any]
    ) -> list[dict[str, Any]]:
        """The kept profiles rewritten as parts of at most :data:`PART_FACTS` facts each (a query
        checks and reads only the parts that hold its profiles), every stack and frame in the
        first (ids unchanged: stable for readers). Facts are streamed: they need not fit in memory."""
        con = snapshot.connection()
        sizes = dict(con.execute("SELECT id, stacks FROM profiles").fetchall())
        chunks: list[list[int]] = [[]]
        rows = 0
        for ident in kept_ids:
            if chunks[-1] and rows + sizes[ident] > PART_FACTS:
                chunks.append([])
                rows = 0
            chunks[-1].append(ident)
            rows += sizes[ident]
        parts = []
        for index, chunk in enumerate(chunks):
            name = f"{time.strftime('%Y%m%d%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:12]}-gc"
            staging = os.path.join(self.path, "tmp", name)
            with _naming(staging):
                parts.append(self._compact_part(con, staging, name, index, chunk, pa, pq, meta))
        _fsync_dir(os.path.join(self.path, "parts"))
        return parts

    def _compact_part(
        self, con: Any, staging: str, name: str, index: int, chunk: list[int], pa: Any, pq: Any, meta: Mapping[str, Any]
    ) -> dict[str, Any]:
        """One part of :meth:`_compact`: the profiles ``chunk`` (and, for the first, every stack and frame)."""
        os.makedirs(staging)
        con.register("kept", pa.table({"id": pa.array(chunk, pa.int32())}))
        low, high = (chunk[0], chunk[-1]) if chunk else (0, -1)
        dictionary = "" if index == 0 else " WHERE false"
        queries = {
            "profiles": f"SELECT {', '.join(_quote(c) for c in PROFILE_COLUMNS)} FROM profiles SEMI JOIN kept USING (id) ORDER BY id",
            "frames": f"SELECT id, name FROM frames{dictionary} ORDER BY id",
            "stacks": f"SELECT id, parent, frame FROM stacks{dictionary} ORDER BY id",
            "facts": f"SELECT profile, stack, value FROM facts WHERE profile BETWEEN {low} AND {high} "
            "AND profile IN (SELECT id FROM kept) ORDER BY profile, stack",
        }
        files = {}
        facts = 0
        for kind, query in queries.items():
            path = os.path.join(staging, f"{kind}.parquet")
            if kind == "facts":
                facts = _write_batches(pq, _arrow_batches(con, query), path, schema(kind))
            else:
                _write_table(pq, _arrow(con, query).cast(schema(kind)), path, kind)
            files[kind] = _file_entry(path)
        entry = {"name": name, "profiles": len(chunk), "facts": facts, "files": files}
        _publish_part(self.path, staging, entry, {**meta, "mirror": _write_mirror(staging)})
        return entry

    def _renumbered(self, part: Mapping[str, Any], mapping: Mapping[int, int], meta: Mapping[str, Any]) -> dict[str, Any]:
        """``part`` written again as a new part with its profile ids changed by ``mapping`` (facts
        sorted again); its manifest entry. Frames and stacks are copied as they are."""
        import numpy as np

        _, pa, pq = modules()
        folder = os.path.join(self.path, "parts", part["name"])
        tables = {kind: conform(pq.read_table(os.path.join(folder, f"{kind}.parquet")), kind) for kind in KINDS}

        def renumber(column: Any) -> Any:
            ids = np.asarray(column.to_numpy(), np.int64)
            return pa.array(np.fromiter((mapping.get(i, i) for i in ids.tolist()), np.int32, count=len(ids)), pa.int32())

        profiles = tables["profiles"]
        tables["profiles"] = profiles.set_column(0, "id", renumber(profiles.column("id"))).sort_by("id")
        facts = tables["facts"]
        tables["facts"] = facts.set_column(0, "profile", renumber(facts.column("profile"))).sort_by(
            [("profile", "ascending"), ("stack", "ascending")]
        )
        return self._write_part(tables, pq, profiles.num_rows, meta)

    def _quarantine(
        self, manifest: dict[str, Any], part: Mapping[str, Any], snapshot: Snapshot, lost: int, now: datetime
    ) -> Loss:
        """Move a corrupt part to corrupt/ (kept, to repair or inspect) and record it in the
        manifest's ``quarantined`` list: what was wrong, the profiles lost with it, and whether
        its stack table went with it (the kept profiles that used it cannot be read)."""
        name = part["name"]
        target = os.path.join(self.path, CORRUPT, name)
        os.makedirs(os.path.join(self.path, CORRUPT), exist_ok=True)
        source = os.path.join(self.path, "parts", name)
        if os.path.exists(source):
            os.rename(source, target)
            _fsync_dir(os.path.join(self.path, CORRUPT))
        problems = snapshot.problems.get(name, ["a file does not match the manifest"])
        dictionary = part not in snapshot.dictionary
        manifest.setdefault("quarantined", []).append(
            {**part, "problems": problems, "lost": lost, "dictionary": dictionary, "since": now.isoformat()}
        )
        return Loss(name, problems, lost, target)

    def _sweep(self, manifest: dict[str, Any], retired: list[dict[str, str]], now: datetime) -> int:
        """Delete what no reader can need: killed ingests' leftovers, parts named nowhere, and
        retired parts past their grace; the manifest keeps the retired parts still in it."""
        listed = {p["name"] for p in manifest["parts"]}
        keep = [r for r in retired if datetime.fromisoformat(r["since"]) > now - RETIRED_GRACE and r["name"] not in listed]
        protected = listed | {r["name"] for r in keep}
        deleted = 0
        for folder in ("tmp", "parts"):
            directory = os.path.join(self.path, folder)
            for name in os.listdir(directory):
                if folder == "tmp" or name not in protected:
                    shutil.rmtree(os.path.join(directory, name), ignore_errors=True)
                    deleted += 1
        manifest["retired"] = keep
        return deleted


#: The profiles of every part, whatever schema it was written with: a part older than the
#: ``time_end`` column (added for windows) reads as windows of no length (ending at ``time``).
_PROFILES_VIEW = (
    "CREATE VIEW profiles AS SELECT * REPLACE (coalesce(time_end, time) AS time_end) "
    "FROM (SELECT * FROM {source} UNION ALL BY NAME SELECT * FROM {empty})"
)


class Snapshot:
    """The store as one manifest describes it. Parts' small files (profiles, frames, stacks) are
    checked against the manifest when the snapshot is made, fact files when a query first
    reads them; a part that fails is warned of (``diagnostics``) and left out."""

    def __init__(self, root: str, manifest: dict[str, Any], diagnostics: Diagnostics | None = None) -> None:
        self.root = root
        self.manifest = manifest
        self.diagnostics = diagnostics
        self.corrupt: set[str] = set()  # parts with a file that failed its check
        self.problems: dict[str, list[str]] = {}  # what failed, by part
        #: Damaged dictionary files read from their sound mirror copy: (part, kind) -> what was wrong.
        self.mirrored: dict[tuple[str, str], str] = {}
        self._sound: set[str] = set()
        self._unsound: set[str] = set()
        #: Parts whose profiles (and, once read, facts) are sound: the profiles this snapshot sees.
        self.parts: list[dict[str, Any]] = [p for p in manifest["parts"] if self._check(p, ("profiles",))]
        #: Parts whose frames and stacks are sound (a part's dictionary outlives its corrupt facts).
        self.dictionary: list[dict[str, Any]] = [p for p in manifest["parts"] if self._check(p, ("frames", "stacks"))]
        self._db: Any = None
        self._stacks: tuple[Any, Any, list[str]] | None = None
        self._lists: tuple[list[int], list[int], list[str]] | None = None
        self._tuples: dict[int, Stack] = {-1: ()}
        self._texts: dict[int, str | None] = {-1: None}

    # -- files

    def file(self, part: Mapping[str, Any], kind: str) -> str:
        """The file of a table of ``part`` to read: its mirror copy if the file is damaged and the copy is sound."""
        if (part["name"], kind) in self.mirrored:
            return os.path.join(self.root, "parts", part["name"], MIRROR, f"{kind}.parquet")
        return os.path.join(self.root, "parts", part["name"], f"{kind}.parquet")

    def part_files(self, kind: str) -> list[str]:
        """The Parquet files of one table over every sound part (fact files are checked first): for Dask."""
        if kind == "facts":
            self.verify_all()
        return [self.file(p, kind) for p in (self.dictionary if kind in ("frames", "stacks") else self.parts)]

    def verify_all(self) -> None:
        """Check every part's fact file now (gc, and callers that read all facts)."""
        self.parts = [p for p in self.parts if self._check(p, ("facts",))]

    def _check(self, part: Mapping[str, Any], kinds: Sequence[str]) -> bool:
        """Whether the files ``kinds`` of ``part`` match the manifest (each checked once; a
        mismatch is warned of once, naming the part and the file)."""
        for kind in kinds:
            path = os.path.join(self.root, "parts", part["name"], f"{kind}.parquet")
            if path in self._sound:
                continue
            if path in self._unsound:
                return False
            problem = file_problem(path, part["files"][kind], f"{kind}.parquet")
            if problem and kind in MIRRORED and self._mirror_sound(part, kind, problem):
                problem = None
            if problem:
                self._unsound.add(path)
                self.corrupt.add(part["name"])
                self.problems.setdefault(part["name"], []).append(problem)
                lost = (
                    f"{part['profiles']} profile(s) left out"
                    if kind in ("profiles", "facts")
                    else "the profiles that use its stacks are left out"
                )
                if self.diagnostics is not None:
                    self.diagnostics.warn(
                        f"store {self.root}: skipped corrupt part {part['name']}: {problem} "
                        f"({lost}; `flamespace store repair` or `store gc` moves it to corrupt/)"
                    )
                return False
            self._sound.add(path)
        return True

    def _mirror_sound(self, part: Mapping[str, Any], kind: str, problem: str) -> bool:
        """Whether the mirror copy of a damaged dictionary file is sound (then it is read instead, with a warning)."""
        mirror = os.path.join(self.root, "parts", part["name"], MIRROR, f"{kind}.parquet")
        if not os.path.exists(mirror) or file_problem(mirror, part["files"][kind], f"{MIRROR}/{kind}.parquet"):
            return False
        self.mirrored[(part["name"], kind)] = problem
        if self.diagnostics is not None:
            self.diagnostics.warn(
                f"store {self.root}: part {part['name']}: {problem}; its copy in {MIRROR}/ is sound and "
                "read instead (`flamespace store repair` restores the file)"
            )
        return True

    # -- DuckDB

    def connection(self) -> Any:
        """A DuckDB connection with views ``profiles``, ``frames``, ``stacks`` and ``facts``
        over this snapshot's sound parts (every fact file is checked first)."""
        self.verify_all()
        db = self.database()
        files = self.part_files("facts")
        if files:
            db.execute(f"CREATE OR REPLACE VIEW facts AS SELECT * FROM read_parquet({_sql_list(files)})")
        else:
            db.execute("CREATE OR REPLACE VIEW facts AS SELECT * FROM empty_facts")
        return db

    def database(self) -> Any:
        """The snapshot's in-memory DuckDB with views ``profiles``, ``frames`` and ``stacks`` over
        the sound parts (facts are read per query, from :meth:`fact_files`): the connection
        every query of this snapshot runs on, including those of store/aggregate.py and
        store/history.py. Unlike :meth:`connection` it checks no fact file (cheap to get)."""
        if self._db is not None:
            return self._db
        duckdb, pa, _ = modules()
        db = duckdb.connect(":memory:")
        db.execute("SET enable_progress_bar = false")  # DuckDB draws one on a terminal for long queries: the library never prints
        for kind in KINDS:
            db.register(f"empty_{kind}", schema(kind).empty_table())
        for kind in ("profiles", "frames", "stacks"):
            files = self.part_files(kind)
            empty = f"(SELECT *, '' AS filename FROM empty_{kind})"
            if kind == "profiles":  # parts of every schema the store had (union_by_name): missing columns are NULL
                source = f"read_parquet({_sql_list(files)}, filename = true, union_by_name = true)" if files else empty
                db.execute(_PROFILES_VIEW.format(source=source, empty=empty))
                continue
            source = f"read_parquet({_sql_list(files)}, filename = true)" if files else empty
            db.execute(f"CREATE VIEW {kind} AS SELECT * FROM {source}")
        self._db = db
        return db

    def profile_ids(self) -> list[int]:
        """Every profile id of the snapshot's sound parts, in id order."""
        return [int(row[0]) for row in self.database().execute("SELECT id FROM profiles ORDER BY id").fetchall()]

    def count(self) -> int:
        return int(self.database().execute("SELECT count(*) FROM profiles").fetchone()[0])

    # -- selecting

    def select(self, selector: str | Selector) -> list[int]:
        """The ids of the profiles ``selector`` matches, oldest first (by time, then id);
        :class:`StoreError` when it matches none (never an empty sample)."""
        text = selector if isinstance(selector, str) else selector.text()
        chosen = parse_selector(selector) if isinstance(selector, str) else selector
        where, params = _conditions(chosen)
        query = f"SELECT id FROM profiles {'WHERE ' + ' AND '.join(where) if where else ''} ORDER BY time, id"
        ids = [row[0] for row in self.database().execute(query, params).fetchall()]
        if chosen.id is not None and len(ids) > 1:
            raise StoreError(
                f"{text}: profile id {chosen.id} is stored {len(ids)} times in {self.root} (its id counter "
                f"was lowered); `flamespace store repair` gives each its own id"
            )
        if chosen.last is not None:
            ids = ids[-chosen.last :]
        if not ids:
            raise StoreError(f"{text} matches no profile in the store {self.root}{self._hint(chosen)}")
        return ids

    def _hint(self, chosen: Selector) -> str:
        """What the store holds, for the error of an empty match: its count and the values of the keys used."""
        count = self.count()
        if not count:
            return " (it is empty; add profiles with `flamespace store add`)"
        hints = []
        for key in list(chosen.labels)[:2]:
            column = _quote(key) if key in COLUMNS else "json_extract_string(labels, ?)"
            params = [] if key in COLUMNS else [_json_path(key)] * 2
            values = [
                r[0]
                for r in self.database()
                .execute(f"SELECT DISTINCT {column} AS v FROM profiles WHERE {column} IS NOT NULL ORDER BY v LIMIT 6", params)
                .fetchall()
            ]
            shown = ", ".join(map(str, values[:5])) + (", ..." if len(values) > 5 else "")
            hints.append(f"{key}: {shown}" if values else f"no profile has the label {key}")
        return f" ({count} profile(s){'; ' if hints else ''}{'; '.join(hints)})"

    def profiles(self, ids: Sequence[int] | None = None) -> list[dict[str, Any]]:
        """Rows of the profiles table (``labels`` as a dict), oldest first; only ``ids`` if given."""
        db = self.database()
        columns = ", ".join(_quote(c) for c in PROFILE_COLUMNS)
        if ids is None:
            cursor = db.execute(f"SELECT {columns} FROM profiles ORDER BY time, id")
        else:
            self._register_ids(ids)
            cursor = db.execute(f"SELECT {columns} FROM profiles SEMI JOIN selected USING (id) ORDER BY time, id")
        rows = [dict(zip(PROFILE_COLUMNS, row)) for row in cursor.fetchall()]
        for row in rows:
            row["labels"] = json.loads(row["labels"])
        return rows

    def label_names(self, ids: Sequence[int]) -> list[str]:
        """The label keys the profiles ``ids`` carry, sorted (one query of the labels' JSON)."""
        self._register_ids(ids)
        query = "SELECT DISTINCT unnest(json_keys(labels)) AS k FROM profiles SEMI JOIN selected USING (id) ORDER BY k"
        return [row[0] for row in self.database().execute(query).fetchall()]

    def label_values(self, ids: Sequence[int], key: str) -> list[str]:
        """The values of the label ``key`` among the profiles ``ids``, sorted (``key`` a bound parameter)."""
        self._register_ids(ids)
        query = (
            "SELECT DISTINCT json_extract_string(labels, ?) AS v FROM profiles SEMI JOIN selected USING (id) "
            "WHERE v IS NOT NULL ORDER BY v"
        )
        return [row[0] for row in self.database().execute(query, [_json_path(key)]).fetchall()]

    def metadata(self, row: Mapping[str, Any]) -> Metadata:
        """The metadata of a stored profile (a row of :meth:`profiles`): unit, metric, every label."""
        return Metadata(unit=row["unit"], metric=row["metric"], labels=row["labels"])

    def _register_ids(self, ids: Sequence[int]) -> None:
        _, pa, _ = modules()
        self.database().register("selected", pa.table({"id": pa.array(list(ids), pa.int32())}))

    def fact_files(self, ids: Sequence[int]) -> tuple[list[str], int]:
        """The fact files that hold ``ids`` (checked against the manifest now; a corrupt one is
        warned of and skipped) and how many of ``ids`` they hold: the files every aggregation
        engine reads (store/aggregate.py, store/cluster.py). Also registers ``ids`` as the
        table ``selected`` of :meth:`database`, for a query that follows."""
        self._register_ids(ids)
        counts = {
            os.path.basename(os.path.dirname(name)): n
            for name, n in self.database()
            .execute("SELECT filename, count(*) FROM profiles SEMI JOIN selected USING (id) GROUP BY filename")
            .fetchall()
        }
        parts = [p for p in self.parts if p["name"] in counts and self._check(p, ("facts",))]
        return [self.file(p, "facts") for p in parts], sum(counts[p["name"]] for p in parts)

    # -- values

    def facts(self, ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(profile ids, stack ids, values) of the profiles ``ids``, sorted by profile then stack:
        one DuckDB query over the parts that hold them."""
        import numpy as np

        files, _ = self.fact_files(ids)
        if not files:
            return np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0)
        got = (
            self.database()
            .execute(
                f"SELECT profile, stack, value FROM read_parquet({_sql_list(files)}) "
                f"WHERE {self._range(ids)} AND profile IN (SELECT id FROM selected) ORDER BY profile, stack"
            )
            .fetchnumpy()
        )
        profiles, stacks, values = (
            np.asarray(got["profile"], np.int32),
            np.asarray(got["stack"], np.int32),
            np.asarray(got["value"], np.float64),
        )
        unknown = self._unknown(stacks)
        if len(unknown):  # profiles that use stacks of a corrupt dictionary: left out, with a warning
            keep = ~np.isin(profiles, self._users(files, unknown))
            profiles, stacks, values = profiles[keep], stacks[keep], values[keep]
        return profiles, stacks, values

    def sums(self, ids: Sequence[int], engine: Engine | None = None) -> tuple[np.ndarray, np.ndarray, int]:
        """(stack ids, summed values, profiles found) over the profiles ``ids``: aggregated by DuckDB,
        or by ``engine`` (store/aggregate.py: e.g. a Dask cluster) when given."""
        import numpy as np

        if engine is not None:
            from . import aggregate

            kept = aggregate.readable(self, ids)
            if not kept:
                return np.zeros(0, np.int32), np.zeros(0), 0
            stacks, values = aggregate.stack_sums(self, kept, engine)
            return np.asarray(stacks, np.int32), np.asarray(values, np.float64), len(kept)
        files, found = self.fact_files(ids)
        if not files:
            return np.zeros(0, np.int32), np.zeros(0), 0
        query = (
            f"SELECT stack, sum(value) AS value FROM read_parquet({_sql_list(files)}) "
            f"WHERE {self._range(ids)} AND profile IN (SELECT id FROM selected) GROUP BY stack ORDER BY stack"
        )
        got = self.database().execute(query).fetchnumpy()
        unknown = self._unknown(np.asarray(got["stack"]))
        if len(unknown):  # profiles that use stacks of a corrupt dictionary: left out, with a warning
            users = set(self._users(files, unknown).tolist())
            readable = [i for i in ids if i not in users]
            if not readable:
                return np.zeros(0, np.int32), np.zeros(0), 0
            files, found = self.fact_files(readable)
            got = self.database().execute(query).fetchnumpy()
        return np.asarray(got["stack"], np.int32), np.asarray(got["value"], np.float64), found

    @staticmethod
    def _range(ids: Sequence[int]) -> str:
        """A condition on the profile column that Parquet's row-group statistics can skip by."""
        return f"profile BETWEEN {int(min(ids))} AND {int(max(ids))}"

    def _unknown(self, stacks: np.ndarray) -> np.ndarray:
        """The stack ids among ``stacks`` that no sound part defines (none unless a dictionary was corrupt)."""
        import numpy as np

        if not self.missing_stacks or not len(stacks):
            return np.zeros(0, np.int64)
        parent = self._stack_table()[0]
        broken = parent == -2  # unknown, or (pointer jumping, a few rounds for any depth) an ancestor is
        up = np.where(parent >= 0, parent, np.arange(len(parent)))
        while True:
            spread = broken | broken[up]
            if (spread == broken).all():
                break
            broken, up = spread, up[up]
        outside = stacks >= len(parent)
        return np.unique(stacks[outside | broken[np.where(outside, 0, stacks)]])

    @property
    def missing_stacks(self) -> bool:
        """Whether some stacks cannot be resolved: a listed part's stack table is corrupt, or one
        was set aside in corrupt/ while profiles that use it were kept."""
        return len(self.dictionary) < len(self.manifest["parts"]) or any(
            q.get("dictionary") for q in self.manifest.get("quarantined", [])
        )

    @property
    def incomplete(self) -> bool:
        """Whether some of this snapshot's profiles may be unreadable (left out by queries, with a warning)."""
        return bool(self.corrupt) or self.missing_stacks

    def unreadable(self, ids: Sequence[int]) -> int:
        """How many of ``ids`` (in sound parts) use a stack that no sound part defines."""
        import numpy as np

        if not self.missing_stacks or not ids:
            return 0
        unknown = self._unknown(np.arange(int(self.manifest["next_stack"])))
        if not len(unknown):
            return 0
        self._register_ids(ids)
        return int(
            self.connection()
            .execute(
                "SELECT count(DISTINCT profile) FROM facts WHERE profile IN (SELECT id FROM selected) "
                "AND stack IN (SELECT unnest(?))",
                [unknown.tolist()],
            )
            .fetchone()[0]
        )

    def _users(self, files: Sequence[str], unknown: np.ndarray) -> np.ndarray:
        """The selected profiles that use any of the ``unknown`` stacks, warned of."""
        import numpy as np

        got = (
            self.database()
            .execute(
                f"SELECT DISTINCT profile FROM read_parquet({_sql_list(files)}) "
                "WHERE profile IN (SELECT id FROM selected) AND stack IN (SELECT unnest(?))",
                [[int(s) for s in unknown]],
            )
            .fetchnumpy()
        )
        users = np.asarray(got["profile"])
        if self.diagnostics is not None:
            self.diagnostics.warn(
                f"store {self.root}: left out {len(users)} profile(s) whose stacks were defined in "
                "a corrupt part (`flamespace store check` names it)"
            )
        return users

    def matrix(self, ids: Sequence[int]) -> tuple[list[str], np.ndarray, list[int]]:
        """(stack texts, runs × stacks matrix, profile ids of the rows): the profiles ``ids``
        that could be read, rows in the order of ``ids``, stacks in id order."""
        import numpy as np

        profiles, stacks, values = self.facts(ids)
        present = set(profiles.tolist())
        found = [i for i in ids if i in present]
        row_of = {p: r for r, p in enumerate(found)}
        columns, inverse = np.unique(stacks, return_inverse=True)
        rows = np.fromiter((row_of[p] for p in profiles.tolist()), dtype=np.intp, count=len(profiles))
        out = np.zeros((len(found), len(columns)))
        out[rows, inverse] = values
        return self.stack_texts(columns), out, found

    def graph(self, ids: Sequence[int], mean: bool = False, engine: Engine | None = None) -> FlameGraph:
        """The sum (or with ``mean``, the mean) of the profiles ``ids`` and their combined metadata;
        ints where every profile held ints and a sum is asked for. Stacks are built from the store's
        stack table (not split from text); summed by ``engine`` when given (as :meth:`sums`)."""
        from ..core.vector import FlameGraph

        rows = self.profiles(ids)
        stacks, sums, found = self.sums(ids, engine)
        if not found:
            raise StoreError(f"none of the {len(ids)} selected profile(s) could be read from the store {self.root}")
        integral = not mean and all(r["integral"] for r in rows)
        tuples = self.stack_tuples(stacks)
        values: dict[Stack, Number] = {}
        for stack, value in zip(tuples, sums.tolist()):
            if value:
                values[stack] = value / found if mean else int(value) if integral else value
        return FlameGraph._trusted(values, self._combined(rows))

    def _combined(self, rows: Sequence[Mapping[str, Any]]) -> Metadata:
        """The metadata of a sum of these profiles (units must agree; labels kept where all agree)."""
        combined: Metadata | None = None
        for row in rows:
            meta = self.metadata(row)
            combined = meta if combined is None else combined.combine(meta)
        return combined or Metadata()

    # -- stacks

    def _stack_table(self) -> tuple[Any, Any, list[str]]:
        """(parent by stack id, frame by stack id, frame names by id): -2 where a stack is unknown."""
        if self._stacks is None:
            import numpy as np

            db = self.database()
            size = int(self.manifest["next_stack"])
            parent: np.ndarray = np.full(size, -2, dtype=np.int64)
            frame: np.ndarray = np.full(size, -2, dtype=np.int64)
            got = db.execute("SELECT id, parent, frame FROM stacks").fetchnumpy()
            parent[got["id"]] = got["parent"]
            frame[got["id"]] = got["frame"]
            names = [""] * int(self.manifest["next_frame"])
            for ident, name in db.execute("SELECT id, name FROM frames").fetchall():
                names[ident] = name
            self._stacks = (parent, frame, names)
        return self._stacks

    def stack_tuples(self, stack_ids: Iterable[int]) -> list[Stack]:
        """The frames of each stack id, root first."""
        return self._resolve(stack_ids, self._tuples, lambda stack, name: stack + (name,))

    def stack_texts(self, stack_ids: Iterable[int]) -> list[str]:
        """Each stack id as the folded format writes it (frames joined by ';')."""
        texts = self._resolve(stack_ids, self._texts, lambda text, name: name if text is None else text + ";" + name)
        return [text or "" for text in texts]  # None: the empty stack (a root frame may be named "")

    def _resolve(self, stack_ids: Iterable[int], memo: dict[int, Any], extend: Callable[[Any, str], Any]) -> list[Any]:
        """Each stack id built from its parent's (memoised for the snapshot: a parent is built once)."""
        parent, frame, names = self._stack_lists()

        def build(ident: int) -> Any:
            chain = []
            while ident not in memo:
                if not 0 <= ident < len(parent) or parent[ident] == -2:
                    raise StoreError(f"stack {ident} is not in the store {self.root}: it was defined in a corrupt part")
                chain.append(ident)
                ident = parent[ident]
            built = memo[ident]
            for link in reversed(chain):
                f = frame[link]
                built = memo[link] = extend(built, names[f]) if f >= 0 else built
            return built

        return [memo[i] if i in memo else build(i) for i in map(int, stack_ids)]

    def _stack_lists(self) -> tuple[list[int], list[int], list[str]]:
        if self._lists is None:
            parent, frame, names = self._stack_table()
            self._lists = (parent.tolist(), frame.tolist(), names)
        return self._lists


# -- selection


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _json_path(key: str) -> str:
    return '$."' + key.replace('"', '\\"') + '"'


def _conditions(chosen: Selector) -> tuple[list[str], list[Any]]:
    """SQL conditions (and parameters) on the profiles table for a selector's filters."""
    where: list[str] = []
    params: list[Any] = []
    for key, value in chosen.labels.items():
        if key == "commit":  # a short commit names every commit it begins
            where.append("starts_with(commit, ?)")
        elif key in COLUMNS:
            where.append(f"{_quote(key)} = ?")
        else:
            where.append("json_extract_string(labels, ?) = ?")
            params.append(_json_path(key))
        params.append(value)
    if chosen.id is not None:
        where.append("id = ?")
        params.append(chosen.id)
    if chosen.since is not None:
        where.append("time >= ?")
        params.append(chosen.since)
    if chosen.until is not None:
        until = chosen.until
        if until == datetime(until.year, until.month, until.day):  # a date: to the end of that day
            if until.date() < date.max:  # 9999-12-31 (the last day there is) bounds nothing
                where.append("time < ?")
                params.append(until + timedelta(days=1))
        else:
            where.append("time <= ?")
            params.append(until)
    return where, params


# -- ingest


def _follow_compactions(root: str, intern: _Intern, manifest: Mapping[str, Any]) -> None:
    """Parts the intern read that another writer (a second ``serve`` on the store) compacted: a part
    :meth:`Store.compact` wrote holds exactly the profiles, stacks and frames of the parts it replaces,
    ids unchanged, so when the intern read them all it knows the new part too (it is not read
    again). Anything else (gc's parts, which may drop profiles; an unreadable description) is left
    for the caller to read afresh."""
    for part in manifest["parts"]:
        name = part["name"]
        if name in intern.parts or not name.endswith("-compact"):
            continue
        try:
            replaced = set(read_part_meta(os.path.join(root, "parts", name, PART_META)).get("replaces", []))
        except (OSError, ValueError, ManifestError):
            continue
        if replaced and replaced <= intern.parts:
            intern.parts.difference_update(replaced)
            intern.parts.add(name)


def _next_ids(manifest: Mapping[str, Any], intern: _Intern) -> dict[str, int]:
    """The next id of each kind: past the manifest's counter and past every stored id (a lowered
    counter, edited or restored from an old copy, would otherwise give an id twice)."""
    return {kind: max(int(manifest[f"next_{kind}"]), intern.top[kind] + 1) for kind in COUNTERS}


def _intern_values(
    intern: _Intern,
    values: Mapping[str, Number],
    counters: dict[str, int],
    new_frames: list[tuple[int, str]],
    new_stacks: list[tuple[int, int, int]],
) -> tuple[np.ndarray, np.ndarray]:
    """A profile as (stack ids, values), sorted by stack id, zeros left out; new stacks interned."""
    import numpy as np

    count = len(values)
    try:  # most stacks of a run were stored before: one C-level lookup each
        stacks = np.fromiter(map(intern.texts.__getitem__, values), dtype=np.int32, count=count)
    except KeyError:
        stacks = np.fromiter(
            (_stack_id(intern, text, counters, new_frames, new_stacks) for text in values), dtype=np.int32, count=count
        )
    numbers = np.fromiter(values.values(), dtype=np.float64, count=count)
    order = np.argsort(stacks, kind="stable")
    stacks, numbers = stacks[order], numbers[order]
    kept = numbers != 0
    return (stacks, numbers) if kept.all() else (stacks[kept], numbers[kept])


def _content_hash(stacks: np.ndarray, numbers: np.ndarray, metadata: Metadata) -> str:
    """The content of a profile in a store (the ``hash`` column): sha256 of its unit, metric,
    own labels and its (stack id, value) pairs (a stack text has one id in a store). Labels
    added at ingest (git, --label) are not part of it; a run's identity adds them (:func:`_identity`)."""
    digest = hashlib.sha256()
    head = {"unit": metadata.unit, "metric": metadata.metric, "labels": dict(sorted(metadata.labels.items()))}
    digest.update(json.dumps(head, sort_keys=True).encode())
    digest.update(stacks.astype("<i4").tobytes())
    digest.update(numbers.astype("<f8").tobytes())
    return digest.hexdigest()


def _stored_labels(labels: Mapping[str, str]) -> str:
    """A profile's labels (its own and those added at ingest) as the ``labels`` column holds
    them: JSON with sorted keys, so equal labels are equal text."""
    return json.dumps(labels, sort_keys=True)


def _identity(digest: str, labels: str) -> str:
    """A stored run's identity: sha256 of its content hash and its stored labels
    (:func:`_stored_labels`), both columns of every profile ever stored, so stores written
    before this rule need no migration (and a writer holds 64 characters a profile, not its
    labels). Two runs that counted the same but carry other labels (other commits) are two."""
    return hashlib.sha256(f"{digest}\n{labels}".encode()).hexdigest()


def _collected(metadata: Metadata) -> bool:
    """Whether the profile names its run (``collection`` and ``run`` labels, written by collect
    and gate): then the same content with those labels is the same run, whatever labels are added."""
    labels = metadata.labels
    return bool(labels.get("collection")) and bool(labels.get("run"))


def _stored_as(intern: _Intern, identity: str, digest: str, collected: bool) -> int | None:
    """The stored profile (or one earlier in this ingest) that a profile re-ingests, else None:
    the same ``identity`` (content and labels); for a run of a collection (``collected``) the
    same content ``digest``, which covers its collection and run labels."""
    known = intern.runs.get(identity)
    return intern.hashes.get(digest) if known is None and collected else known


def _remember(intern: _Intern, identity: str, digest: str, ident: int) -> None:
    """Note a stored profile for later ingests to recognise (:func:`_stored_as`)."""
    intern.runs[identity] = ident
    intern.hashes.setdefault(digest, ident)


def _stack_id(
    intern: _Intern,
    text: str,
    counters: dict[str, int],
    new_frames: list[tuple[int, str]],
    new_stacks: list[tuple[int, int, int]],
) -> int:
    """The id of a stack text, interning its frames and its prefixes as needed."""
    known = intern.texts.get(text)
    if known is not None:
        return known
    parent = -1
    for name in text.split(";") if text else [None]:
        if name is None:
            frame = -1
        else:
            found = intern.frames.get(name)
            if found is None:
                found = intern.frames[name] = counters["frame"]
                counters["frame"] += 1
                new_frames.append((found, name))
            frame = found
        ident = intern.stacks.get((parent, frame))
        if ident is None:
            ident = intern.stacks[(parent, frame)] = counters["stack"]
            counters["stack"] += 1
            new_stacks.append((ident, parent, frame))
        parent = ident
    intern.texts[text] = parent
    return parent


def _profile_row(
    rows: dict[str, list],
    ident: int,
    digest: str,
    source: str,
    metadata: Metadata,
    labels: Mapping[str, str],
    stored: str,
    added_at: datetime,
    numbers: np.ndarray,
    integral: bool,
) -> None:
    """One profile's row of the profiles table; ``labels`` all of its labels, ``stored`` them as text."""
    when = _label_time(labels, TIME_LABEL, added_at)
    column = {
        "commit": labels.get("commit"),
        "branch": labels.get("branch"),
        "host": labels.get("host"),
        "mode": labels.get("mode") or metadata.metric,
        "python": labels.get("python"),
        "bench": labels.get("bench") or labels.get("test"),
        "unit": metadata.unit,
        "metric": metadata.metric,
    }
    values = {
        "id": ident,
        "hash": digest,
        "source": source,
        "time": when,
        "added": added_at,
        **column,
        "labels": stored,
        "total": float(numbers.sum()),
        "stacks": len(numbers),
        "integral": integral,
        "time_end": max(when, _label_time(labels, TIME_END_LABEL, when)),
    }
    for name in PROFILE_COLUMNS:
        rows[name].append(values[name])


def _label_time(labels: Mapping[str, str], key: str, default: datetime) -> datetime:
    """The time a label gives (an ISO date-time), or ``default`` when it is absent or no time."""
    if labels.get(key):
        try:
            return parse_time(labels[key])
        except ValueError:
            pass
    return default


# -- files


def conform(table: Any, kind: str) -> Any:
    """A table read from a part of any age, with the schema this version writes: a profiles table
    older than ``time_end`` gets it (its ``time``: a window of no length, as :data:`_PROFILES_VIEW` reads it)."""
    if kind == "profiles" and "time_end" not in table.column_names:
        table = table.append_column("time_end", table.column("time"))
    return table.cast(schema(kind))


def schema(kind: str) -> Any:
    """The Arrow schema of a table (see the module docstring and docs/architecture.md)."""
    _, pa, _ = modules()
    text = pa.string()
    if kind == "profiles":
        return pa.schema(
            [("id", pa.int32()), ("hash", text), ("source", text), ("time", pa.timestamp("us")), ("added", pa.timestamp("us"))]
            + [(c, text) for c in COLUMNS]
            + [("labels", text), ("total", pa.float64()), ("stacks", pa.int32()), ("integral", pa.bool_())]
            + [("time_end", pa.timestamp("us"))]
        )
    if kind == "frames":
        return pa.schema([("id", pa.int32()), ("name", text)])
    if kind == "stacks":
        return pa.schema([("id", pa.int32()), ("parent", pa.int32()), ("frame", pa.int32())])
    return pa.schema([("profile", pa.int32()), ("stack", pa.int32()), ("value", pa.float64())])


def _parquet_options(kind: str) -> dict[str, Any]:
    """How a table is written. Facts: stack ids delta-encoded (sorted within a profile), the
    profile column run-length encoded by its dictionary, values split by byte (then zstd)."""
    options: dict[str, Any] = {"compression": "zstd"}
    if kind == "facts":
        options.update(use_dictionary=["profile"], column_encoding={"stack": "DELTA_BINARY_PACKED", "value": "BYTE_STREAM_SPLIT"})
    return options


def _write_table(pq: Any, table: Any, path: str, kind: str) -> None:
    """One table as a Parquet file, synced to disk."""
    with _naming(path):
        pq.write_table(table, path, row_group_size=ROW_GROUP, **_parquet_options(kind))
        _fsync_file(path)


def _write_batches(pq: Any, batches: Any, path: str, arrow_schema: Any) -> int:
    """Record batches (facts) streamed into one Parquet file, synced; returns the rows written."""
    rows = 0
    with _naming(path):
        with pq.ParquetWriter(path, arrow_schema, **_parquet_options("facts")) as writer:
            for batch in batches:
                if batch.num_rows:
                    writer.write_batch(batch.cast(arrow_schema), row_group_size=ROW_GROUP)
                    rows += batch.num_rows
        _fsync_file(path)
    return rows


def _fsync_file(path: str) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def _file_entry(path: str) -> dict[str, Any]:
    return {"size": os.path.getsize(path), "sha256": _sha256(path)}


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _columns(pq: Any, path: str, names: Sequence[str]) -> list[list]:
    table = pq.read_table(path, columns=list(names))
    return [table.column(n).to_pylist() for n in names]


def _arrow(con: Any, query: str) -> Any:
    """A query's result as an Arrow table (DuckDB 2 renamed a relation's arrow() to to_arrow_table())."""
    relation = con.sql(query)
    fetch = getattr(relation, "to_arrow_table", None) or relation.arrow
    return fetch()


def _arrow_batches(con: Any, query: str) -> Any:
    """A query's result as Arrow record batches, read as they are written (bounded memory)."""
    relation = con.sql(query)
    reader = getattr(relation, "to_arrow_reader", None) or relation.fetch_arrow_reader
    return reader(ROW_GROUP)


def _sql_path(path: str) -> str:
    return path.replace("'", "''")


def _sql_list(paths: Sequence[str]) -> str:
    return "[" + ", ".join(f"'{_sql_path(p)}'" for p in paths) + "]"


def empty_manifest() -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "generation": 0,
        "next_profile": 0,
        "next_frame": 0,
        "next_stack": 0,
        "parts": [],
        "retired": [],
    }


class ManifestError(StoreError):
    """A manifest that is missing or damaged while the store holds parts: `store repair` rebuilds it."""


def read_manifest(root: str) -> dict[str, Any]:
    """The store's manifest (an empty one if the store does not exist yet); :class:`ManifestError`
    if it is damaged, or missing while parts are stored (an empty one would let ids repeat and
    gc delete every part)."""
    path = os.path.join(root, MANIFEST)
    try:
        return load_manifest(path)
    except FileNotFoundError:
        if os.path.exists(root) and not os.path.isdir(root):
            raise StoreError(f"{root} is a file, not a store directory") from None
        if _manifest_was_written(root):
            raise ManifestError(f"{path} is missing but the store holds parts; {_REPAIR.format(root=root)}") from None
        return empty_manifest()  # nothing stored yet (or a first ingest under way: its part is not visible yet)
    except ManifestError as exc:
        raise ManifestError(f"{exc}; {_REPAIR.format(root=root)}") from None


def _manifest_was_written(root: str) -> bool:
    """Whether a store without a manifest had one: a previous generation, or a part written on a
    manifest (a first ingest's part, under way or killed, was not; an older flamespace's part, which
    does not say, is taken as written on one)."""
    if os.path.exists(os.path.join(root, PREVIOUS)):
        return True
    for name in stored_parts(root):
        try:
            if int(read_part_meta(os.path.join(root, "parts", name, PART_META)).get("base", 0)) > 0:
                return True
        except (OSError, ManifestError, ValueError, TypeError):
            return True
    return False


_REPAIR = (
    f"`flamespace store repair --store {{root}}` rebuilds it from {PREVIOUS} and the parts' own {PART_META} "
    "(`flamespace store check` only reports)"
)


def load_manifest(path: str) -> dict[str, Any]:
    """One manifest file, checked (format, version, its checksum); FileNotFoundError if absent,
    :class:`ManifestError` if damaged."""
    try:
        with open(path, encoding="utf-8") as handle:
            manifest = json.load(handle)
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as exc:
        raise ManifestError(f"{path}: the store manifest is damaged (not readable JSON: {exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ManifestError(f"{path}: the store manifest is damaged (not a flamespace store manifest)")
    if manifest.get("version") != VERSION:
        raise StoreError(f"{path}: store version {manifest.get('version')}; this flamespace reads version {VERSION}")
    manifest = unsealed(manifest, path, "store manifest")
    if not isinstance(manifest.get("parts"), list) or not all(isinstance(manifest.get(f"next_{k}"), int) for k in COUNTERS):
        raise ManifestError(f"{path}: the store manifest is damaged (its parts or id counters are missing)")
    return manifest


def write_manifest(root: str, manifest: dict[str, Any], keep_previous: bool = True) -> None:
    """Replace the manifest atomically (temp file, fsync, rename, fsync of the directory), sealed
    by a checksum; the replaced one stays as :data:`PREVIOUS` (a hard link: no copy, no window
    without a manifest) unless ``keep_previous`` is false (repair, when it was damaged)."""
    manifest["generation"] = int(manifest.get("generation", 0)) + 1
    path = os.path.join(root, MANIFEST)
    staging = os.path.join(root, f".{MANIFEST}.{uuid.uuid4().hex[:8]}")
    with _naming(staging):
        with open(staging, "w", encoding="utf-8") as handle:
            json.dump(sealed(manifest), handle, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        if keep_previous and os.path.exists(path):
            _keep_previous(root)
        os.replace(staging, path)
    _fsync_dir(root)


def _keep_previous(root: str) -> None:
    """The current manifest becomes :data:`PREVIOUS` (linked, or copied where links are not supported)."""
    link = os.path.join(root, f".{PREVIOUS}.{uuid.uuid4().hex[:8]}")
    try:
        os.link(os.path.join(root, MANIFEST), link)
    except OSError:
        shutil.copyfile(os.path.join(root, MANIFEST), link)
    os.replace(link, os.path.join(root, PREVIOUS))


def _digest(data: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def sealed(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with the sha256 of its content as ``checksum`` (a flipped byte that leaves valid
    JSON is still found), and the generation it was sealed at."""
    data = {k: v for k, v in data.items() if k not in _SEAL}
    data["sealed"] = data.get("generation")
    return {**data, "checksum": _digest(data)}


#: The fields :func:`sealed` adds.
_SEAL = ("checksum", "sealed")


def unsealed(data: dict[str, Any], path: str, what: str) -> dict[str, Any]:
    """``data`` without its seal, :class:`ManifestError` if the checksum does not match. Files
    written before checksums have none, and a manifest an older flamespace wrote again keeps
    the stale seal of the generation before (``sealed`` differs from ``generation``): both are
    taken as they are."""
    checksum = data.get("checksum")
    if checksum is not None and data.get("sealed") == data.get("generation"):
        if checksum != _digest({k: v for k, v in data.items() if k != "checksum"}):
            raise ManifestError(f"{path}: the {what} is damaged (it does not match its checksum)")
    return {k: v for k, v in data.items() if k not in _SEAL}


def stored_parts(root: str) -> list[str]:
    """The part directories under parts/, listed or not."""
    try:
        return sorted(os.listdir(os.path.join(root, "parts")))
    except OSError:
        return []


def _part_meta(
    manifest: Mapping[str, Any], writer: str, counters: Mapping[str, int], replaces: Sequence[str] = ()
) -> dict[str, Any]:
    """What a part says of itself besides its files (:data:`PART_META`): the manifest generation it
    was written on, its writer (the parts of one call share it), the id counters after it and the
    parts it replaces (gc)."""
    return {"base": int(manifest.get("generation", 0)), "writer": writer, "next": dict(counters), "replaces": list(replaces)}


def _publish_part(root: str, staging: str, entry: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
    """Seal the part's own description into it, sync, and move it from tmp/ into parts/."""
    _write_part_meta(os.path.join(staging, PART_META), entry, meta)
    _fsync_dir(staging)
    os.rename(staging, os.path.join(root, "parts", entry["name"]))
    _fsync_dir(os.path.join(root, "parts"))


def _write_mirror(folder: str) -> list[str]:
    """The second copy of the :data:`MIRRORED` tables of the part in ``folder``, synced; the kinds copied."""
    os.makedirs(os.path.join(folder, MIRROR))
    for kind in MIRRORED:
        copy_synced(os.path.join(folder, f"{kind}.parquet"), os.path.join(folder, MIRROR, f"{kind}.parquet"))
    _fsync_dir(os.path.join(folder, MIRROR))
    return list(MIRRORED)


def copy_synced(source: str, target: str) -> None:
    """Copy a file by temp file and rename, synced (a reader never sees half a copy)."""
    staging = f"{target}.{uuid.uuid4().hex[:8]}"
    shutil.copyfile(source, staging)
    _fsync_file(staging)
    os.replace(staging, target)


def file_problem(path: str, expected: Mapping[str, Any], label: str) -> str | None:
    """What is wrong with a part's file against its manifest entry (size, then sha256), or None."""
    try:
        size = os.path.getsize(path)
        if size != expected["size"]:
            return f"{label} has {size:,} bytes, the manifest says {expected['size']:,}"
        if _sha256(path) != expected["sha256"]:
            return f"{label} does not match its checksum"
    except OSError as exc:
        return f"{label} cannot be read ({exc.strerror or exc})"
    return None


def _write_part_meta(path: str, entry: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
    """A part's description (its manifest entry and ``meta``), sealed, written by temp file and rename, synced."""
    staging = f"{path}.{uuid.uuid4().hex[:8]}"
    with open(staging, "w", encoding="utf-8") as handle:
        json.dump(sealed({"format": FORMAT, **entry, **meta}), handle, indent=1)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(staging, path)


def read_part_meta(path: str) -> dict[str, Any]:
    """A part's own description (:data:`PART_META`), checked; OSError or :class:`ManifestError`."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except ValueError as exc:
        raise ManifestError(f"{path}: damaged (not readable JSON: {exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ManifestError(f"{path}: damaged (not a flamespace part description)")
    return unsealed(data, path, "part description")


@contextlib.contextmanager
def _naming(path: str) -> Iterator[None]:
    """An OSError that names no file (pyarrow's, on a full disk) raised as one that names ``path``."""
    try:
        yield
    except OutputError:
        raise
    except OSError as exc:
        if exc.filename is not None:
            raise
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise OutputError(f"cannot write {path}: {reason}") from exc


def _cutoff(now: datetime, age: timedelta | None) -> datetime | None:
    """The time before which gc's --older-than removes profiles (an age past the year 1 removes none)."""
    if age is None:
        return None
    try:
        return now - age
    except OverflowError:
        return datetime.min


def parse_age(text: str) -> timedelta:
    """``30d``, ``12h``, ``2w``, ``90m`` -> a timedelta (gc's --older-than)."""
    units = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
    raw = text.strip().lower()
    try:
        amount = float(raw[:-1])
        unit = units[raw[-1]]
    except (ValueError, KeyError, IndexError):
        raise ArgumentError(f"{text!r} is not an age such as 30d, 12h, 2w or 90m") from None
    if not math.isfinite(amount):
        raise ArgumentError(f"{text!r} is not an age such as 30d, 12h, 2w or 90m (the number must be finite)")
    if amount < 0:
        raise ArgumentError(f"{text!r}: an age cannot be negative")
    try:
        return timedelta(**{unit: amount})
    except OverflowError:  # more than 2.7 million years: older than any profile's time, so it removes none
        return timedelta.max
