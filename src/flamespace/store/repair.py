"""Checking and repairing a store: what `flamespace store check` reports and `store repair` rebuilds.

Why a store can be repaired: every part carries its own sealed description (``part.json``:
its files' sizes and sha256, the id counters after it, the manifest generation it was written
on, the parts it replaces), and the manifest keeps its previous generation
(``MANIFEST.prev.json``). A damaged manifest is rebuilt from the previous generation and the
parts written after it; a lowered id counter is raised past every stored id; a profile id
used twice is given a new id in the later part; corrupt parts are set aside in ``corrupt/``
as gc does (the sound profiles they hold are kept). What cannot be rebuilt is said as lost,
with the part and its files. ``check`` runs the same inspection and changes nothing.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone

from ._deps import StoreError, modules
from .store import (
    CORRUPT,
    COUNTERS,
    KINDS,
    MANIFEST,
    MIRROR,
    MIRRORED,
    PART_META,
    PREVIOUS,
    ManifestError,
    Snapshot,
    Store,
    _file_entry,
    _part_meta,
    _write_part_meta,
    copy_synced,
    empty_manifest,
    file_problem,
    load_manifest,
    read_part_meta,
    stored_parts,
    write_manifest,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..diagnostics import Diagnostics


class Report:
    """What check found (``problems``: each a reason to repair; ``notes``: what is known and
    needs nothing), and for repair what it did (``done``) and what is lost (``lost``)."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.notes: list[str] = []
        self.done: list[str] = []
        self.lost: list[str] = []
        #: Problems repair cannot fix (it says why).
        self.unrepaired: list[str] = []


class _Manifests:
    """The current manifest and its previous generation as found: each a dict, or None with the problem."""

    def __init__(self, root: str) -> None:
        self.current, self.current_problem = _load(os.path.join(root, MANIFEST))
        self.previous, self.previous_problem = _load(os.path.join(root, PREVIOUS))


def _load(path: str) -> tuple[dict[str, Any] | None, str | None]:
    try:
        return load_manifest(path), None
    except FileNotFoundError:
        return None, f"{path} is missing"
    except ManifestError as exc:
        return None, str(exc)


def check(store: Store) -> Report:
    """Every problem of the store, changing nothing (taken under the writers' lock: a whole state)."""
    report = Report()
    _require(store)
    with store._locked():
        _inspect(store, report, datetime.now(timezone.utc).replace(tzinfo=None))
    return report


def repair(store: Store, diagnostics: Diagnostics | None = None, now: datetime | None = None) -> Report:
    """Rebuild what can be rebuilt (see the module docstring); :attr:`Report.lost` says what could not."""
    report = Report()
    _require(store)
    now = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).replace(tzinfo=None)
    with store._locked():
        manifest, rebuilt = _inspect(store, report, now, repairing=True)
        if not report.problems:
            return report
        found = Snapshot(store.path, manifest)
        found.verify_all()
        report.done += _restore_mirrors(store.path, manifest, found)
        report.done += _describe_parts(store.path, manifest, found)
        report.done += _raise_counters(manifest, found)
        report.done += _renumber(store, manifest, found, now)
        if found.corrupt:
            done = store._collect(manifest, None, None, now, diagnostics)
            report.lost += [str(loss) for loss in done.lost]
            if done.unreadable:
                report.lost.append(
                    f"{done.unreadable} kept profile(s) cannot be read: their stacks were defined in a part set aside in corrupt/"
                )
        write_manifest(
            store.path, manifest, keep_previous=not rebuilt
        )  # a rebuilt one keeps the previous generation it came from
        store._intern = None
        after = Report()
        _inspect(store, after, now)
        report.unrepaired = after.problems
    return report


def _require(store: Store) -> None:
    modules()
    root = store.path
    if not (os.path.exists(os.path.join(root, MANIFEST)) or os.path.exists(os.path.join(root, PREVIOUS)) or stored_parts(root)):
        raise StoreError(f"there is no store at {root} (nothing was ever added to it)")


def _inspect(store: Store, report: Report, now: datetime, repairing: bool = False) -> tuple[dict[str, Any], bool]:
    """Fill ``report`` with the store's problems and notes; the manifest the rest works on (rebuilt
    if the current one is damaged) and whether it was rebuilt."""
    root = store.path
    found = _Manifests(root)
    rebuilt = found.current is None
    if found.current is not None:
        manifest = found.current
    else:
        report.problems.append(found.current_problem or f"{MANIFEST} is damaged")
        manifest, steps, aside = rebuild(root, found.previous, now, change=repairing)
        (report.done if repairing else report.notes).extend(steps)
        (report.lost if repairing else report.notes).extend(aside)
    if found.previous is None and not os.path.exists(os.path.join(root, PREVIOUS)):
        report.notes.append(
            f"there is no {PREVIOUS} (a store written before it was kept, or it was deleted): the next write keeps one"
        )
    elif found.previous is None and found.previous_problem:
        report.problems.append(found.previous_problem)
        if repairing and not rebuilt:
            report.done.append(f"replaced the damaged {PREVIOUS} by the current manifest")
    snapshot = Snapshot(root, manifest)
    snapshot.verify_all()
    for part in manifest["parts"]:
        if part["name"] in snapshot.corrupt:
            lost = (
                f"its {part['profiles']} profile(s) cannot be read"
                if part not in snapshot.parts
                else "the profiles that use its stacks cannot be read"
            )
            report.problems.append(f"part {part['name']}: {'; '.join(snapshot.problems[part['name']])} ({lost})")
        report.problems.extend(_description_problems(root, part))
        report.problems.extend(problem for problem, _, _ in _mirror_damage(root, part, snapshot))
    report.problems.extend(_id_problems(manifest, snapshot))
    _notes(root, manifest, snapshot, report)
    return manifest, rebuilt


def _mirror_damage(root: str, part: dict[str, Any], snapshot: Snapshot) -> list[tuple[str, str, str]]:
    """(problem, sound copy, damaged copy) for each dictionary file of ``part`` whose file or
    mirror copy is damaged while the other is sound: repair copies the sound one over."""
    folder = os.path.join(root, "parts", part["name"])
    if part["name"] in snapshot.corrupt or not os.path.isdir(os.path.join(folder, MIRROR)):
        return []
    found = []
    for kind in MIRRORED:
        main, copy = os.path.join(folder, f"{kind}.parquet"), os.path.join(folder, MIRROR, f"{kind}.parquet")
        if (part["name"], kind) in snapshot.mirrored:
            found.append(
                (
                    f"part {part['name']}: {snapshot.mirrored[(part['name'], kind)]}; its copy in {MIRROR}/ is "
                    "sound (read instead; repair restores the file from it)",
                    copy,
                    main,
                )
            )
        else:
            problem = file_problem(copy, part["files"][kind], f"{MIRROR}/{kind}.parquet")
            if problem:
                found.append((f"part {part['name']}: {problem} (repair copies it again from {kind}.parquet)", main, copy))
    return found


def _restore_mirrors(root: str, manifest: dict[str, Any], snapshot: Snapshot) -> list[str]:
    """Each damaged dictionary file copied again from its sound twin."""
    steps = []
    for part in manifest["parts"]:
        for _, sound, damaged in _mirror_damage(root, part, snapshot):
            copy_synced(sound, damaged)
            steps.append(f"restored {damaged} from {sound}")
    return steps


def _description_problems(root: str, part: dict[str, Any]) -> list[str]:
    """A listed part's own description: missing (older stores) or not agreeing with the manifest."""
    path = os.path.join(root, "parts", part["name"], PART_META)
    if not os.path.isdir(os.path.dirname(path)):
        return []  # said by the file checks
    try:
        meta = read_part_meta(path)
    except FileNotFoundError:
        return [f"part {part['name']} has no {PART_META} (written by an older flamespace): repair writes it"]
    except (OSError, ManifestError) as exc:
        return [f"{exc}: repair writes it again from the manifest"]
    if meta.get("files") != part["files"]:
        return [f"{path} does not agree with {MANIFEST} on the part's files: repair writes it again from the manifest"]
    return []


def _id_problems(manifest: dict[str, Any], snapshot: Snapshot) -> list[str]:
    """Ids used twice, and counters at or below a stored id (the next profile would repeat one)."""
    db = snapshot.connection()
    problems = []
    for ident, count in db.execute("SELECT id, count(*) FROM profiles GROUP BY id HAVING count(*) > 1 ORDER BY id").fetchall():
        problems.append(
            f"profile id {ident} is used by {count} profiles (store:id={ident} would merge them): "
            "repair gives the later ones new ids"
        )
    for kind, what in (("stacks", "(parent, frame)"), ("frames", "name")):
        for (ident,) in db.execute(f"SELECT id FROM {kind} GROUP BY id HAVING count(DISTINCT {what}) > 1 ORDER BY id").fetchall():
            problems.append(
                f"{kind[:-1]} id {ident} is defined twice, differently (its counter was lowered): the profiles "
                "that use it may show the wrong stacks, and repair cannot tell which is meant"
            )
    for kind, top in zip(COUNTERS, _top_ids(snapshot)):
        if top >= int(manifest[f"next_{kind}"]):
            problems.append(
                f"next_{kind} is {manifest[f'next_{kind}']} but {kind} id {top} is stored: new ones would "
                "repeat ids (repair raises it; ingest already skips past stored ids)"
            )
    return problems


def _top_ids(snapshot: Snapshot) -> list[int]:
    """The highest profile, frame and stack id in the snapshot's sound parts (-1: none)."""
    db = snapshot.connection()
    return [
        int(db.execute(f"SELECT coalesce(max(id), -1) FROM {kind}").fetchone()[0]) for kind in ("profiles", "frames", "stacks")
    ]


def _notes(root: str, manifest: dict[str, Any], snapshot: Snapshot, report: Report) -> None:
    """What is known and needs nothing repair can do: parts set aside (losses said when they
    happened), the kept profiles they make unreadable, leftovers gc deletes."""
    for entry in manifest.get("quarantined", []):
        lost = f"{entry.get('lost', 0)} profile(s) lost to corruption" if entry.get("lost") else "its profiles were kept"
        report.notes.append(
            f"{CORRUPT}/{entry['name']}: set aside on {entry.get('since', '?')[:16]} "
            f"({'; '.join(entry.get('problems', []))}): {lost}"
        )
    if not snapshot.corrupt and snapshot.missing_stacks:
        unreadable = snapshot.unreadable(snapshot.profile_ids())
        if unreadable:
            report.notes.append(
                f"{unreadable} profile(s) are kept but cannot be read: their stacks were defined in a part "
                f"set aside in {CORRUPT}/ (queries leave them out, with a warning)"
            )
    listed = {p["name"] for p in manifest["parts"]} | {r["name"] for r in manifest.get("retired", [])}
    for name in stored_parts(root):
        if name not in listed:
            report.notes.append(f"parts/{name} is in no manifest (left by a killed writer): `flamespace store gc` deletes it")


def rebuild(
    root: str, previous: dict[str, Any] | None, now: datetime, change: bool = True
) -> tuple[dict[str, Any], list[str], list[str]]:
    """A manifest rebuilt from the previous generation (if readable) and the parts written after
    it (their own descriptions); without a previous generation, from every part found (those a
    later part replaced left out). Parts that cannot be placed are moved to corrupt/ (unless not
    ``change``). Returns the manifest, what was done, and what was set aside (lost to the store)."""
    aside: list[str] = []
    manifest = dict(previous) if previous is not None else empty_manifest()
    manifest["parts"] = list(manifest["parts"])
    manifest["retired"] = list(manifest.get("retired", []))
    steps = [
        f"rebuilt {MANIFEST} from {PREVIOUS} (generation {manifest['generation']}) and the parts' own {PART_META}"
        if previous is not None
        else f"rebuilt {MANIFEST} from the parts' own {PART_META} (no readable {PREVIOUS})"
    ]
    known = {p["name"] for p in manifest["parts"]} | {r["name"] for r in manifest["retired"]}
    newer: dict[str, dict[str, Any]] = {}
    for name in stored_parts(root):
        if name in known:
            continue
        meta, problem = _part_description(root, name)
        if meta is None:
            steps.append(f"parts/{name}: {problem}; left where it is")
        elif previous is not None and int(meta.get("base", -1)) != int(previous["generation"]):
            # the lost manifest is the generation after PREVIOUS: only parts written on PREVIOUS were committed by it
            steps.append(
                f"parts/{name} was written on manifest generation {meta.get('base')}, not on {PREVIOUS}'s "
                f"{previous['generation']}, and is in neither (left by a killed writer): not restored"
            )
        else:
            newer[name] = meta
    writers = sorted({m.get("writer") for m in newer.values()}, key=str)
    if previous is not None and len(writers) > 1:  # one commit follows a generation: which one cannot be told
        for name in sorted(newer) if change else ():
            _set_aside(root, name)
        aside.append(
            f"parts {', '.join(sorted(newer))} were written after {PREVIOUS} by {len(writers)} writers, of which "
            f"one was committed and cannot be told: {'moved' if change else 'repair moves them'} to {CORRUPT}/ "
            "(move the right one back into parts/ and run `flamespace store repair` again)"
        )
        newer = {}
    replaced = {r for m in newer.values() for r in m.get("replaces", [])}
    for name, meta in sorted(newer.items()):
        if name in replaced:
            continue
        manifest["parts"].append({k: meta[k] for k in ("name", "profiles", "facts", "files")})
        for kind in COUNTERS:
            manifest[f"next_{kind}"] = max(int(manifest[f"next_{kind}"]), int(meta.get("next", {}).get(kind, 0)))
        manifest["generation"] = max(int(manifest["generation"]), int(meta.get("base", 0)) + 1)
        steps.append(f"restored part {name} ({meta['profiles']} profile(s)) from its {PART_META}")
    kept = [p for p in manifest["parts"] if p["name"] not in replaced]
    manifest["retired"] += [{"name": p["name"], "since": now.isoformat()} for p in manifest["parts"] if p["name"] in replaced]
    manifest["parts"] = kept
    _add_corrupt_dirs(root, manifest)
    return manifest, steps, aside


def _part_description(root: str, name: str) -> tuple[dict[str, Any] | None, str]:
    """A part's own description, or (for a part of an older flamespace) one made from its files as found."""
    folder = os.path.join(root, "parts", name)
    try:
        return read_part_meta(os.path.join(folder, PART_META)), ""
    except FileNotFoundError:
        pass
    except (OSError, ManifestError) as exc:
        return None, str(exc)
    _, _, pq = modules()
    try:
        rows = {kind: pq.read_metadata(os.path.join(folder, f"{kind}.parquet")).num_rows for kind in KINDS}
        files = {kind: _file_entry(os.path.join(folder, f"{kind}.parquet")) for kind in KINDS}
    except Exception as exc:  # pyarrow raises several kinds for a file it cannot parse
        return None, f"no {PART_META} and its files cannot be read ({exc})"
    return {
        "name": name,
        "profiles": rows["profiles"],
        "facts": rows["facts"],
        "files": files,
        "base": 0,
        "writer": None,
        "next": {},
        "replaces": [],
    }, ""


def _set_aside(root: str, name: str) -> None:
    os.makedirs(os.path.join(root, CORRUPT), exist_ok=True)
    os.rename(os.path.join(root, "parts", name), os.path.join(root, CORRUPT, name))


def _add_corrupt_dirs(root: str, manifest: dict[str, Any]) -> None:
    """Parts in corrupt/ the rebuilt manifest does not know of are listed as set aside."""
    known = {q["name"] for q in manifest.setdefault("quarantined", [])}
    try:
        names = sorted(os.listdir(os.path.join(root, CORRUPT)))
    except OSError:
        return
    for name in names:
        if name not in known:
            # whether its stack table is missed cannot be known here: taken as missed (queries then check)
            manifest["quarantined"].append({"name": name, "problems": [f"found in {CORRUPT}/"], "lost": 0, "dictionary": True})


def _describe_parts(root: str, manifest: dict[str, Any], snapshot: Snapshot) -> list[str]:
    """Write the description of sound listed parts that lack one or whose one disagrees."""
    steps = []
    for part in manifest["parts"]:
        if part["name"] in snapshot.corrupt or not _description_problems(root, part):
            continue
        path = os.path.join(root, "parts", part["name"], PART_META)
        meta = _part_meta(manifest, "repair", {k: int(manifest[f"next_{k}"]) for k in COUNTERS})
        _write_part_meta(path, part, meta)
        steps.append(f"wrote {path} from {MANIFEST}")
    return steps


def _raise_counters(manifest: dict[str, Any], snapshot: Snapshot) -> list[str]:
    """Counters raised past every stored id."""
    steps = []
    for kind, top in zip(COUNTERS, _top_ids(snapshot)):
        if top >= int(manifest[f"next_{kind}"]):
            steps.append(f"raised next_{kind} from {manifest[f'next_{kind}']} to {top + 1} (past the stored ids)")
            manifest[f"next_{kind}"] = top + 1
    return steps


def _renumber(store: Store, manifest: dict[str, Any], snapshot: Snapshot, now: datetime) -> list[str]:
    """A profile id used in several parts: the first part (manifest order) keeps it, the profiles
    of later parts get new ids (their parts rewritten, the old ones retired)."""
    db = snapshot.connection()
    order = {p["name"]: k for k, p in enumerate(manifest["parts"])}
    rows = db.execute(
        "SELECT id, filename, source FROM profiles WHERE id IN "
        "(SELECT id FROM profiles GROUP BY id HAVING count(*) > 1) ORDER BY id"
    ).fetchall()
    users: dict[int, list[tuple[int, str, str]]] = {}
    for ident, filename, source in rows:
        part = os.path.basename(os.path.dirname(filename))
        users.setdefault(int(ident), []).append((order[part], part, source))
    remap: dict[str, dict[int, int]] = {}
    steps = []
    for ident, found in sorted(users.items()):
        found.sort()
        for _, part, source in found[1:]:
            if ident in remap.get(part, {}):
                continue  # the same id twice within one part: said by check, not told apart here
            new = int(manifest["next_profile"])
            manifest["next_profile"] = new + 1
            remap.setdefault(part, {})[ident] = new
            steps.append(f"profile id {ident} was used twice: the one in part {part} ({source}) is now id {new}")
    for name, mapping in remap.items():
        index = order[name]
        old = manifest["parts"][index]
        manifest["parts"][index] = store._renumbered(
            old, mapping, _part_meta(manifest, "repair", {k: int(manifest[f"next_{k}"]) for k in COUNTERS}, [name])
        )
        manifest["retired"] = list(manifest.get("retired", [])) + [{"name": name, "since": now.isoformat()}]
    return steps


__all__ = ["Report", "check", "rebuild", "repair"]
