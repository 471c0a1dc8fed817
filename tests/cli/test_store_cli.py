"""flamespace store and store: selectors where profiles are read, run through main([...])."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from flamespace.cli import main

from .test_compare import write_runs

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")


@pytest.fixture
def store(tmp_path, monkeypatch):
    """An empty store in $FLAMESPACE_STORE (selectors read it)."""
    path = tmp_path / "store"
    monkeypatch.setenv("FLAMESPACE_STORE", str(path))
    return path


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("method", ["maxt", "welch"])
def test_compare_against_a_store_baseline_is_compare_against_its_files(capsys, tmp_path, store, method):
    base, cand = write_runs(tmp_path / "base", 1, False), write_runs(tmp_path / "cand", 2, True)
    assert run(capsys, "store", "add", base, "--no-git", "--label", "branch=main")[0] == 0
    files = run(capsys, "compare", "-a", base, "-b", cand, "-m", method, "--json")
    stored = run(capsys, "compare", "-a", "store:branch=main", "-b", cand, "-m", method, "--json")
    assert files[0] == stored[0] == 3
    assert json.loads(files[1]) == json.loads(stored[1])
    text = run(capsys, "compare", "-a", base, "-b", cand, "-m", method)[1]
    assert run(capsys, "compare", "-a", "store:branch=main,last=12", "-b", cand, "-m", method)[1] == text
    # both sides from the store
    assert run(capsys, "store", "add", cand, "--no-git", "--label", "branch=pr")[0] == 0
    assert run(capsys, "compare", "-a", "store:branch=main", "-b", "store:branch=pr", "-m", method)[1] == text


def test_add_ls_get_and_gc(capsys, tmp_path, store):
    base = write_runs(tmp_path / "base", 1, False, n=4)
    code, _, err = run(capsys, "store", "add", base, "--no-git", "--label", "bench=parse", "--label", "branch=main")
    assert code == 0 and "added 4 profile(s)" in err
    code, _, err = run(
        capsys, "store", "add", base / "run00.folded", "--no-git", "--label", "bench=parse", "--label", "branch=main"
    )
    assert code == 0 and "added 0 profile(s)" in err and "1 already stored, skipped" in err and "run00.folded" in err
    code, out, _ = run(capsys, "store", "ls", "--json")
    rows = json.loads(out)
    assert [r["bench"] for r in rows] == ["parse"] * 4 and rows[0]["labels"] == {"bench": "parse", "branch": "main"}
    code, out, _ = run(capsys, "store", "ls", "store:bench=parse,last=2")
    assert code == 0 and "2 profile(s)" in out and "run03.folded" in out and "run01.folded" not in out
    merged = run(capsys, "merge", base, "--no-header")[1]
    assert run(capsys, "store", "get", "store:bench=parse", "--no-header")[1] == merged
    out_file = tmp_path / "mean.json"
    assert run(capsys, "store", "get", "store:bench=parse", "--mean", "--to", "speedscope", "-o", out_file)[0] == 0
    assert json.loads(out_file.read_text())["profiles"]
    assert run(capsys, "svg", "store:bench=parse", "-o", tmp_path / "x.svg")[0] == 0
    assert "<svg" in (tmp_path / "x.svg").read_text()
    code, out, _ = run(capsys, "top", "store:bench=parse")
    assert code == 0 and "main" in out
    code, _, err = run(capsys, "store", "gc", "--keep-last", "3")
    assert code == 0 and "removed 1 profile(s), kept 3" in err
    assert len(json.loads(run(capsys, "store", "ls", "--json")[1])) == 3


@pytest.mark.parametrize(
    "args, says",
    [
        (["compare", "-a", "store:branch=nope", "-b", "store:branch=main"], "store:branch=nope matches no profile"),
        (["compare", "-a", "store:branch", "-b", "x"], "'branch' is not key=value"),
        (["svg", "store:bench=none"], "matches no profile"),
        (["store", "get", "store:last=0"], "last must be a whole number"),
        (["store", "add", "nothing.folded", "--label", "novalue"], "give KEY=VALUE"),
        (["store", "gc", "--older-than", "soon"], "not an age"),
        (["store", "gc", "--store", "nowhere"], "there is no store at nowhere"),
        (["gate", "--base", "store:branch=nope", "--", "bench.py"], "store:branch=nope matches no profile"),
    ],
)
def test_bad_selectors_and_empty_matches_exit_1(capsys, tmp_path, store, args, says, monkeypatch):
    monkeypatch.chdir(tmp_path)  # gate makes its --out-dir (flamespace-gate/) here, not in the checkout
    base = write_runs(tmp_path / "base", 1, False, n=2)
    run(capsys, "store", "add", base, "--no-git", "--label", "branch=main")
    code, out, err = run(capsys, *args)
    assert code == 1 and says in err and out == ""


def test_collect_store_adds_the_runs(capsys, tmp_path, store, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "collect", "-n", "2", "-o", tmp_path / "runs", "--store", "-q", "-c", "sum(range(10000))")
    assert code == 0 and "added 2 run(s) to the store" in err
    rows = json.loads(run(capsys, "store", "ls", "--json")[1])
    assert [r["mode"] for r in rows] == ["wall", "wall"] and [r["labels"]["run"] for r in rows] == ["1", "2"]


def test_gate_store_adds_each_side_with_its_commit(capsys, tmp_path, store, monkeypatch):
    """The gate finds test_gate's +150 ms of CPU time on any load (test_gate's docstring)."""
    from .test_gate import UNTIMED, gate, git, make_repo

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    repo = make_repo(tmp_path / "repo")
    code, _, stderr = gate(
        capsys, repo, tmp_path / "out", "--base", "v1", "--head", "v2", "--no-install", "--store", "--", "bench/workload.py"
    )
    assert code == 3 and "added 16 run(s) to the store" in stderr
    rows = json.loads(run(capsys, "store", "ls", "--json")[1])
    commits = {
        side: git(repo, "rev-parse", f"{ref}^{{commit}}").strip() for side, ref in (("baseline", "v1"), ("candidate", "v2"))
    }
    stored = Counter((r["labels"]["side"], r["commit"], r["branch"]) for r in rows)
    assert set(stored) == {("baseline", commits["baseline"], "v1"), ("candidate", commits["candidate"], "v2")}
    assert len(set(stored.values())) == 1 and stored[("baseline", commits["baseline"], "v1")] == 8
    # the stored baseline gates the next change as the files did
    code, _, _ = run(capsys, "compare", "-a", f"store:commit={commits['baseline'][:8]}", "-b", "store:side=candidate")
    assert code == 3
    # ... and gate takes it as --base: only the head runs, against the stored runs (then adds its own)
    base = f"store:commit={commits['baseline'][:8]},last=8"
    out2 = tmp_path / "out2"
    code, _, stderr = gate(
        capsys, repo, out2, "--base", base, "--head", "v2", "--no-install", "--store", "--", "bench/workload.py", options=UNTIMED
    )
    assert code == 3, stderr
    assert "rate: 1,000 Hz, the stored baseline's" in stderr  # no --rate: the candidate is sampled as the baseline was
    assert {p.read_text().split("# rate_requested: ")[1].split()[0] for p in (out2 / "runs" / "candidate").glob("run-*")} == {
        "1000"
    }
    assert "baseline: the stored runs store:commit=" in stderr and "added 8 run(s) to the store" in stderr
    report = json.loads((out2 / "report.json").read_text())
    assert report["gate"]["runs"] == {"baseline": 8, "candidate": 8} and report["gate"]["base"]["stored"] is True
    assert "8 stored + 8 new runs" in (out2 / "report.md").read_text()
    assert not (out2 / "runs" / "baseline").exists()
    # the same code against its own stored runs passes (the gate's false-failure rate: tests/cli/test_gate.py)
    code, _, stderr = gate(
        capsys,
        repo,
        tmp_path / "out3",
        "--base",
        "store:side=candidate,last=8",
        "--head",
        "v2",
        "--no-install",
        "--",
        "bench/workload.py",
    )
    assert code == 0, stderr


def test_a_selector_on_both_sides_compares_its_runs_with_themselves(capsys, tmp_path, store):
    base = write_runs(tmp_path / "base", 1, False, n=6)
    run(capsys, "store", "add", base, "--no-git", "--label", "branch=main")
    code, out, err = run(capsys, "compare", "-a", "store:branch=main", "-b", "store:branch=main", "--alternative", "two-sided")
    assert code == 0 and "global max |t| = 0, p = 1." in out and "No stack changed significantly." in out, out + err


def _stored_twice(capsys, tmp_path):
    """Two parts (one `store add` each) of 4 profiles; the first part's name."""
    run(capsys, "store", "add", write_runs(tmp_path / "a", 1, False, n=4), "--no-git", "--label", "branch=main")
    run(capsys, "store", "add", write_runs(tmp_path / "b", 2, True, n=4), "--no-git", "--label", "branch=main")
    return json.loads((tmp_path / "store" / "MANIFEST.json").read_text())["parts"][0]["name"]


def test_gc_says_what_corruption_cost_apart_from_retention(capsys, tmp_path, store):
    first = _stored_twice(capsys, tmp_path)
    facts = store / "parts" / first / "facts.parquet"
    facts.write_bytes(facts.read_bytes()[:-50])  # truncated
    code, _, err = run(capsys, "store", "gc")
    assert code == 0 and "removed 0 profile(s), kept 4" in err
    assert f"part {first}: facts.parquet has" in err and "4 profile(s) lost to corruption" in err
    assert f"kept aside in {store / 'corrupt' / first}" in err
    code, out, _ = run(capsys, "store", "check")
    assert code == 0 and f"note: corrupt/{first}" in out and "has no problem" in out


def test_check_and_repair_a_damaged_manifest(capsys, tmp_path, store):
    _stored_twice(capsys, tmp_path)
    before = run(capsys, "store", "get", "store:branch=main")[1]
    manifest = store / "MANIFEST.json"
    manifest.write_text(manifest.read_text()[:-30])
    code, out, err = run(capsys, "store", "ls")
    assert code == 1 and out == "" and "MANIFEST.json: the store manifest is damaged" in err and "store repair" in err
    code, out, _ = run(capsys, "store", "check")
    assert code == 1 and out.startswith("problem: ") and "1 problem(s)" in out
    code, out, _ = run(capsys, "store", "repair")
    assert code == 0 and "repaired: rebuilt MANIFEST.json from MANIFEST.prev.json" in out and "nothing lost" in out
    assert run(capsys, "store", "check")[0] == 0
    assert run(capsys, "store", "get", "store:branch=main")[1] == before


def test_the_last_day_and_ages_past_any_date_are_answers_not_internal_errors(capsys, tmp_path, store):
    _stored_twice(capsys, tmp_path)
    everything = run(capsys, "store", "get", "store:branch=main")[1]
    code, out, err = run(capsys, "store", "get", "store:until=9999-12-31")
    assert (code, out, err) == (0, everything, "")
    for age in ("3000000d", "1e308m", "99999999999w"):
        code, _, err = run(capsys, "store", "gc", "--older-than", age)
        assert code == 0 and "removed 0 profile(s), kept 8" in err, err
    for age in ("nand", "infd", "-infh"):
        code, _, err = run(capsys, "store", "gc", "--older-than", age)
        assert code == 1 and "internal error" not in err and f"{age!r} is not an age" in err


_FULL = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) as on a full disk
resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))
from flamespace.cli import main
sys.exit(main(["store", "add", "--no-git", "--store", sys.argv[1], sys.argv[2]]))
"""


def test_a_full_disk_in_store_add_names_the_file(tmp_path):
    import subprocess
    import sys

    profile = tmp_path / "big.folded"
    profile.write_text("".join(f"main;f{i};g{j} {i * j + 1}\n" for i in range(300) for j in range(30)))
    done = subprocess.run([sys.executable, "-c", _FULL, str(tmp_path / "s"), str(profile)], capture_output=True, text=True)
    assert done.returncode == 1 and "internal error" not in done.stderr
    assert f"cannot write {tmp_path / 's' / 'tmp'}" in done.stderr and ".parquet: File too large" in done.stderr
    assert not (tmp_path / "s" / "MANIFEST.json").exists()  # nothing was added


def test_repair_exits_1_when_a_problem_remains(capsys, tmp_path, store, monkeypatch):
    from flamespace.store import store as module

    run(capsys, "store", "add", write_runs(tmp_path / "a", 1, False, n=1), "--no-git")
    with monkeypatch.context() as patch:  # frame and stack counters back at 0, as a lowered manifest gave before
        patch.setattr(module, "_next_ids", lambda manifest, intern: {"profile": manifest["next_profile"], "frame": 0, "stack": 0})
        (tmp_path / "other.folded").write_text("x;y;z 3\n")
        run(capsys, "store", "add", tmp_path / "other.folded", "--no-git")
    code, out, _ = run(capsys, "store", "repair")
    assert code == 1 and "repaired: raised next_stack" in out and "not repaired: frame id 0 is defined twice" in out


def write_collection(directory, collection, rounds=8, grown=0):
    """The runs one side of `flamespace collect --baseline-cmd ... --candidate-cmd ...` writes:
    each with its collection id, run and round; ``grown`` ns more in main;work."""
    directory.mkdir(parents=True)
    for r in range(1, rounds + 1):
        lines = [
            "# unit: ns",
            "# mode: wall",
            f"# collection: {collection}",
            f"# run: {r}",
            f"# pair: {r}",
            f"main;work {100_000_000 + grown + 1000 * (r * 7919 % 13)}",
            f"main;other {50_000_000 + 1000 * r}",
        ]
        (directory / f"run-{r:03d}.folded").write_text("\n".join(lines) + "\n")
    return directory


def test_a_stored_baseline_is_tested_unpaired_with_every_run(capsys, tmp_path, store):
    """Issue 26: a stored baseline (another collection) was paired round by round with new runs,
    10 of 40 runs left out in silence. Failed before: 6 pairs, 2 candidate runs dropped."""
    base = write_collection(tmp_path / "old" / "baseline", "0000aaaa0000aaaa", rounds=6)
    assert run(capsys, "store", "add", base, "--no-git", "--label", "branch=main")[0] == 0
    cand = write_collection(tmp_path / "new" / "candidate", "1111bbbb1111bbbb", rounds=8, grown=5_000_000)
    code, out, err = run(capsys, "compare", "-a", "store:branch=main,last=30", "-b", cand, "--json")
    assert code == 3 and json.loads(out)["runs"] == {"baseline": 6, "candidate": 8}
    assert (
        "note: runs tested as unpaired (all 6 + 8 runs): the baseline's runs and the candidate's come from "
        "different collections (baseline 0000aaaa; candidate 1111bbbb)"
    ) in err
    assert "pairs of runs" not in err and "left out" not in err


def test_the_runs_of_one_collection_still_pair_through_the_store_and_gc(capsys, tmp_path, store):
    """The store keeps each run's collection and round (its labels), through add and gc."""
    for side, grown in (("baseline", 0), ("candidate", 5_000_000)):
        directory = write_collection(tmp_path / "ab" / side, "2222cccc2222cccc", grown=grown)
        assert run(capsys, "store", "add", directory, "--no-git", "--label", f"side={side}")[0] == 0
    assert run(capsys, "store", "gc")[0] == 0
    code, out, err = run(capsys, "compare", "-a", "store:side=baseline", "-b", "store:side=candidate")
    assert code == 3 and "8 pairs of runs from the same rounds of their collection" in err and "(paired:" in out


def test_two_commits_whose_runs_count_the_same_both_keep_their_runs(capsys, tmp_path, store):
    """Issue 26: `store add` skipped the second commit's runs (same counts as the first's), so
    `history` had a hole there. Failed before: the second add added 0 profiles."""
    runs = write_runs(tmp_path / "runs", 1, False, n=3)
    for commit in ("c1", "c2"):
        code, _, err = run(capsys, "store", "add", runs, "--no-git", "--label", f"commit={commit}", "--label", "branch=main")
        assert code == 0 and "added 3 profile(s)" in err and "already stored" not in err
    code, out, _ = run(capsys, "store", "ls", "--json")
    assert Counter(row["commit"] for row in json.loads(out)) == {"c1": 3, "c2": 3}
