"""The store under damage: what a flipped, cut or deleted file costs after `store repair` and `store gc`.

    python benchmarks/bench_store_faults.py [--trials 200] [--profiles 300] [--stacks 500] [--seed 1]

A store of ``--profiles`` synthetic profiles (bench_store.py's generator) in the shape a CI
store has: several ingests, a gc (one compacted part holding the whole stack table, the
replaced parts kept for the grace hour), then more ingests. Each trial copies it, damages one
file chosen at random among every file of the store (parts' tables, their mirror copies,
their part.json, MANIFEST.json, MANIFEST.prev.json) in one of three ways (4 bytes flipped at a
random offset, cut at a random length, deleted), then runs `store check` (must report a
problem, and change nothing), `store repair` and `store gc`, and compares what can be read
with what was stored. The damage may cost only the profiles whose own file (profiles or
facts table of their part) was damaged; anything more is counted as an excess loss.

Printed: trials, those where check was right (a problem exactly when a file in use was
damaged; the parts gc replaced, kept an hour for readers, are not in use), profiles lost in all (and the most in one trial),
excess losses (must be 0), losses repair or gc did not say, and the size the mirror copies
add to the store.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from bench_store import profiles, universe  # noqa: E402

from flamespace.core.metadata import Metadata  # noqa: E402
from flamespace.core.vector import FlameGraph  # noqa: E402
from flamespace.diagnostics import Diagnostics  # noqa: E402
from flamespace.store import StoreError, open_store  # noqa: E402


def build(root: str, count: int, per: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    texts = universe(per * 4, rng)
    store = open_store(root)
    made = list(profiles(texts, count, per, rng))
    batches = [made[i : i + count // 6] for i in range(0, count, count // 6)]
    for number, batch in enumerate(batches):
        items = [
            (FlameGraph.from_texts(values, metadata=Metadata(unit="samples", labels={"run": f"{number}-{i}"})), f"p{number}-{i}")
            for i, values in enumerate(batch)
        ]
        store.add(items, labels={"branch": "main"})
        if number == len(batches) // 2:
            store.gc()


def readable(root: str) -> dict[str, float]:
    """Each readable profile's source -> its total (what the store gives back)."""
    try:
        snapshot = open_store(root).snapshot(Diagnostics())
        rows = snapshot.profiles()
    except StoreError:  # a manifest that cannot be read: nothing can
        return {}
    if not rows:
        return {}
    found = set(snapshot.facts([r["id"] for r in rows])[0].tolist())
    return {r["source"]: r["total"] for r in rows if r["id"] in found}


def files(root: str) -> list[str]:
    found = []
    for folder, _, names in os.walk(root):
        for name in names:
            if name != ".lock" and os.path.relpath(folder, root).split(os.sep)[0] != "tmp":
                found.append(os.path.join(folder, name))
    return sorted(found)


def damage(path: str, how: str, rng: random.Random) -> None:
    data = bytearray(open(path, "rb").read())
    if how == "delete" or not data:
        os.remove(path)
    elif how == "cut":
        open(path, "wb").write(bytes(data[: rng.randrange(len(data))]))
    else:
        at = rng.randrange(max(1, len(data) - 4))
        data[at : at + 4] = bytes(b ^ 0xFF for b in data[at : at + 4])
        open(path, "wb").write(bytes(data))


def own_profiles(root: str, path: str) -> list[str]:
    """The sources of the profiles whose own table is ``path`` (a listed part's profiles or facts file)."""
    manifest = json.load(open(os.path.join(root, "MANIFEST.json")))
    name, kind = os.path.basename(os.path.dirname(path)), os.path.basename(path)
    if kind not in ("profiles.parquet", "facts.parquet") or name not in {p["name"] for p in manifest["parts"]}:
        return []
    import pyarrow.parquet as pq

    return pq.read_table(os.path.join(os.path.dirname(path), "profiles.parquet"), columns=["source"]).column("source").to_pylist()


def trial(
    base: str, work: str, before: dict[str, float], rng: random.Random, gc_only: bool, verbose: bool
) -> tuple[bool, int, int, bool]:
    """(check right: a problem exactly when a file in use was damaged; lost; excess lost; every loss said)."""
    root = os.path.join(work, "s")
    shutil.copytree(base, root)
    target = rng.choice(files(root))
    expected = set(own_profiles(root, target))
    how = rng.choice(["flip", "cut", "delete"])
    listed = {p["name"] for p in json.load(open(os.path.join(root, "MANIFEST.json")))["parts"]}
    part = os.path.relpath(target, root).split(os.sep)
    # a retired part (kept an hour for readers) is not in use; a deleted previous generation is a note, not a problem
    relevant = (part[0] != "parts" or part[1] in listed) and not (part[0] == "MANIFEST.prev.json" and how == "delete")
    damage(target, how, rng)
    problems, said = [], 0
    if not gc_only:
        from flamespace.store.repair import check, repair

        listing = {p: os.path.getsize(p) for p in files(root)}
        problems = check(open_store(root)).problems
        assert {p: os.path.getsize(p) for p in files(root)} == listing, "check changed the store"
        done = repair(open_store(root), Diagnostics())
        said = sum(int(line.split(" profile(s) lost")[0].rsplit(" ", 1)[-1]) for line in done.lost if "profile(s) lost" in line)
    try:
        said += getattr(open_store(root).gc(diagnostics=Diagnostics()), "lost_profiles", 0)
    except StoreError:
        pass
    after = readable(root)
    lost = {s for s in before if after.get(s) != before[s]}
    shutil.rmtree(root)
    if verbose and (bool(problems) != relevant or lost - expected or said != len(lost)):
        print(f"  {how} {os.path.relpath(target, root)}: problems {problems}, lost {len(lost)}, said {said}")
    return bool(problems) == relevant, len(lost), len(lost - expected), said == len(lost)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--profiles", type=int, default=300)
    parser.add_argument("--stacks", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--gc-only", action="store_true", help="no check or repair, only gc (what flamespace before issue 24 had)"
    )
    parser.add_argument("--verbose", action="store_true", help="print each trial that went wrong")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as work:
        base = os.path.join(work, "base")
        build(base, args.profiles, args.stacks, args.seed)
        before = readable(base)
        total = sum(os.path.getsize(p) for p in files(base))
        mirror = sum(os.path.getsize(p) for p in files(base) if f"{os.sep}mirror{os.sep}" in p)
        results = [trial(base, work, before, rng, args.gc_only, args.verbose) for _ in range(args.trials)]
    detected = sum(r[0] for r in results)
    print(
        f"store: {len(before)} profiles, {total / 1e6:.2f} MB, mirror copies {mirror / 1e6:.3f} MB ({100 * mirror / total:.1f}%)"
    )
    if not args.gc_only:
        print(f"trials: {len(results)}; check right (a problem exactly when a file in use was damaged): {detected}")
    print(
        f"trials: {len(results)}; profiles lost: {sum(r[1] for r in results)} in all, at most {max(r[1] for r in results)} in one trial"
    )
    print(
        f"excess losses (profiles whose own files were sound): {sum(r[2] for r in results)} "
        f"in {sum(r[2] > 0 for r in results)} trial(s)"
    )
    print(f"trials whose losses were not all said as lost: {sum(not r[3] for r in results)}")


if __name__ == "__main__":
    main()
