"""compare's guard rails: runs that cannot be compared are refused, unusable runs left out,
the machine's drift reported. Hand-written runs with the headers flamespace collect writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from flamespace.cli import main
from flamespace.collect.engine import MAX_TRUSTED_MISSED_SHARE
from flamespace.collect.target import program_name

#: Headers of a run as `flamespace collect --rate 100` writes them (without the varying ones).
HEADERS = {
    "unit": "ns",
    "metric": "wall",
    "mode": "wall",
    "weight": "time",
    "rate_requested": "100",
    "python": "3.11.7",
    "host": "ci",
    "command": "python bench.py",
    "ticks": "100",
    "late": "0",
    "missed": "0",
}
#: The id of the collection whose rounds the paired runs are (as `collect` writes it).
COLLECTION = "5eed5eed5eed5eed"
#: The stacks of every run: steady values, so that only what a test changes can be significant.
STACKS = {"main;work": 100_000_000, "main;other": 50_000_000}


def write_run(path: Path, number: int, stacks: dict[str, float] | None = None, **headers: str) -> Path:
    """One run file: '# key: value' headers (HEADERS, changed by ``headers``; None drops one) and stacks."""
    fields = {**HEADERS, "run": str(number), **headers}
    lines = [f"# {key}: {value}" for key, value in fields.items() if value is not None]
    for stack, value in (STACKS if stacks is None else stacks).items():
        lines.append(f"{stack} {int(value + 1000 * number)}")  # a little variation between runs
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def write_side(directory: Path, n: int = 4, stacks: dict[str, float] | None = None, **headers: str) -> Path:
    for i in range(1, n + 1):
        write_run(directory / f"run-{i:03d}.folded", i, stacks, **headers)
    return directory


def run(capsys, *args):
    code = main(["compare", *[str(a) for a in args]])
    out, err = capsys.readouterr()
    return code, out, err


def test_runs_with_the_same_headers_pass_in_silence(capsys, tmp_path):
    code, out, err = run(capsys, "-a", write_side(tmp_path / "a"), "-b", write_side(tmp_path / "b"))
    assert code == 0 and "Compared 4 baseline runs with 4 candidate runs" in out
    assert "warning" not in err and "error" not in err


def test_different_modes_are_refused_with_the_fix_and_force_goes_on(capsys, tmp_path):
    a, b = write_side(tmp_path / "a"), write_side(tmp_path / "b", mode="cpu", metric="cpu")
    code, out, err = run(capsys, "-a", a, "-b", b)
    assert code == 1 and out == ""
    assert "runs differ in mode" in err and "'wall' in 4 baseline run(s)" in err and "'cpu' in 4 candidate run(s)" in err
    assert str(b / "run-001.folded") in err and "--mode" in err and "--force" in err
    code, out, err = run(capsys, "-a", a, "-b", b, "--force")
    assert code == 0 and "Compared 4 baseline runs" in out
    assert "warning: runs differ in mode" in err and "going on anyway" in err


def test_different_units_are_refused_even_with_force(capsys, tmp_path):
    a, b = write_side(tmp_path / "a"), write_side(tmp_path / "b", unit="samples", weight="samples")
    code, _, err = run(capsys, "-a", a, "-b", b, "--force")
    assert code == 1 and "runs differ in unit" in err and "--force cannot help" in err and "--weight" in err


@pytest.mark.parametrize(
    "label, value, what",
    [
        ("rate_requested", "1000", "sampling rate"),
        ("python", "3.12.1", "Python version"),
        ("host", "laptop", "host"),
    ],
)
def test_different_rates_pythons_or_hosts_are_warnings(capsys, tmp_path, label, value, what):
    code, out, err = run(capsys, "-a", write_side(tmp_path / "a"), "-b", write_side(tmp_path / "b", **{label: value}))
    assert code == 0 and "Compared 4 baseline runs" in out
    assert f"warning: runs differ in {what}" in err and repr(value) in err


def test_runs_sampled_from_outside_and_inside_are_a_warning(capsys, tmp_path):
    """The two samplers differ where the GIL's holder is off the CPU (docs/statistics.md): a difference between
    sides recorded by different ones may come from that. Runs without the header (before it) are not checked."""
    a, b = write_side(tmp_path / "a", sampler="outside"), write_side(tmp_path / "b", sampler="inside")
    code, out, err = run(capsys, "-a", a, "-b", b)
    assert code == 0 and "warning: runs differ in sampler (outside or inside the program)" in err
    assert "'outside' in 4 baseline run(s)" in err and "--sampler" in err
    code, out, err = run(capsys, "-a", write_side(tmp_path / "c"), "-b", b)
    assert "runs differ in sampler" not in err


def test_a_side_that_mixes_programs_is_refused(capsys, tmp_path):
    a = write_side(tmp_path / "a", 2, program="baseline")
    write_side(tmp_path / "a2", 2, program="candidate")
    code, _, err = run(capsys, "-a", a, "-a", tmp_path / "a2", "-b", write_side(tmp_path / "b"))
    assert code == 1 and "the baseline mixes runs of different programs" in err


def test_sides_running_different_scripts_are_refused_but_other_directories_and_arguments_are_fine(capsys, tmp_path):
    a = write_side(tmp_path / "a", command="python old/bench.py")
    same_script = write_side(tmp_path / "b", command="python -X dev new/bench.py --fast")
    code, _, err = run(capsys, "-a", a, "-b", same_script)
    assert code == 0 and "warning" not in err
    other = write_side(tmp_path / "c", command="python other.py")
    code, _, err = run(capsys, "-a", a, "-b", other)
    assert code == 1 and "the sides run different programs" in err and "'bench.py'" in err and "'other.py'" in err


@pytest.mark.parametrize(
    "command, name",
    [
        ("python bench.py --n 3", "bench.py"),
        ("python -X dev /src/tree/bench.py", "bench.py"),
        ("python3.11 -u -W error -- bench.py", "bench.py"),
        ("python -m pkg.cli run", "-m pkg.cli"),
        ("python -c 'import time; time.sleep(1)'", "-c"),
        (None, None),
    ],
)
def test_program_name_is_what_frames_are_named_after(command, name):
    assert program_name(command) == name


def test_profiles_without_headers_are_not_checked(capsys, tmp_path):
    plain = {
        "unit": None,
        "metric": None,
        "mode": None,
        "weight": None,
        "rate_requested": None,
        "python": None,
        "host": None,
        "command": None,
        "ticks": None,
        "late": None,
        "missed": None,
        "run": None,
    }
    code, _, err = run(capsys, "-a", write_side(tmp_path / "a", mode="cpu"), "-b", write_side(tmp_path / "b", **plain))
    assert code == 0 and "warning" not in err


def test_an_empty_run_is_named_and_left_out(capsys, tmp_path):
    a = write_side(tmp_path / "a", 3)
    (a / "run-004.folded").write_text("")  # a failed recording: Austin sometimes leaves an empty file
    (a / "run-005.folded").write_text("# unit: ns\n# mode: wall\nmain;work 0\nmain;other 0\n")  # all-zero values
    code, out, err = run(capsys, "-a", a, "-b", write_side(tmp_path / "b"))
    assert code == 0 and "Compared 3 baseline runs with 4 candidate runs" in out
    assert "left out 2 empty run(s)" in err
    assert str(a / "run-004.folded") in err and str(a / "run-005.folded") in err


def test_all_empty_runs_are_an_error(capsys, tmp_path):
    for side in ("a", "b"):
        for i in (1, 2):
            write_run(tmp_path / side / f"run-{i:03d}.folded", i, {})
    code, _, err = run(capsys, "-a", tmp_path / "a", "-b", tmp_path / "b")
    assert code == 1 and "every run is empty" in err and "recordings failed" in err


def test_a_side_left_with_fewer_than_2_runs_is_an_error(capsys, tmp_path):
    a = write_side(tmp_path / "a", 1)
    (a / "run-002.folded").write_text("")
    code, _, err = run(capsys, "-a", a, "-b", write_side(tmp_path / "b"))
    assert code == 1
    assert "the baseline has 1 usable run(s) of 2" in err and f"{a / 'run-002.folded'} is empty" in err
    assert "at least 2 runs" in err


def test_max_missed_leaves_out_runs_whose_sampler_fell_behind(capsys, tmp_path):
    a = write_side(tmp_path / "a", 3)
    late = write_run(a / "run-004.folded", 4, ticks="100", late="20", missed="30")  # missed 30 of 130: 23.1%
    b = write_side(tmp_path / "b")
    code, out, err = run(capsys, "-a", a, "-b", b)  # off by default: kept, and named since 23.1% > 20%
    assert MAX_TRUSTED_MISSED_SHARE < 0.231
    assert code == 0 and "Compared 4 baseline runs" in out and f"{late} (23.1%)" in err and "--max-missed 20%" in err
    code, out, err = run(capsys, "-a", a, "-b", b, "--max-missed", "10%")
    assert code == 0 and "Compared 3 baseline runs" in out
    assert "left out 1 run(s) whose sampler missed more than --max-missed 10%" in err and str(late) in err
    code, out, err = run(capsys, "-a", a, "-b", b, "--max-missed", "0.3")
    assert code == 0 and "Compared 4 baseline runs" in out and "left out" not in err


def test_max_missed_reads_the_recorders_missed_share_when_present(capsys, tmp_path):
    a = write_side(tmp_path / "a", 3)
    write_run(a / "run-004.folded", 4, missed_share="0.1500")  # ticks and missed say 0%: the header wins
    code, out, err = run(capsys, "-a", a, "-b", write_side(tmp_path / "b"), "--max-missed", "10%")
    assert code == 0 and "Compared 3 baseline runs" in out and "(15%)" in err


def test_max_missed_that_leaves_a_side_too_small_says_to_loosen_it(capsys, tmp_path):
    a = write_side(tmp_path / "a", 2, missed="50")
    code, _, err = run(capsys, "-a", a, "-b", write_side(tmp_path / "b"), "--max-missed", "10%")
    assert code == 1 and "the baseline has 0 usable run(s) of 2" in err and "raise --max-missed" in err
    assert "run-001.folded missed 33.3% of its samples" in err


def test_max_missed_says_when_no_run_can_be_judged(capsys, tmp_path):
    headerless = {"ticks": None, "late": None, "missed": None}
    a, b = write_side(tmp_path / "a", **headerless), write_side(tmp_path / "b", **headerless)
    code, out, err = run(capsys, "-a", a, "-b", b, "--max-missed", "10%")
    assert code == 0 and "Compared 4 baseline runs" in out and "--max-missed left nothing out" in err


def drifting_side(directory: Path, first: float, step: float, stacks: dict[str, float]) -> Path:
    for i in range(1, 7):
        write_run(directory / f"run-{i:03d}.folded", i, stacks, duration_s=f"{first + step * (i - 1):.3f}")
    return directory


def test_drift_note_gives_each_sides_run_time(capsys, tmp_path):
    a = drifting_side(tmp_path / "a", 1.0, 0.01, STACKS)
    b = drifting_side(tmp_path / "b", 1.2, 0.0, STACKS)
    code, _, err = run(capsys, "-a", a, "-b", b)
    assert code == 0
    assert "note: run time: baseline 1.02 s (IQR 1.01 s to 1.04 s, 6 runs), candidate 1.2 s" in err
    assert "drift from the first third of the runs to the last: baseline +40 ms, candidate +0 µs" in err
    assert "machine drifted more" not in err  # no change reported: nothing to set the drift against


def test_drift_larger_than_the_changes_reported_is_a_warning(capsys, tmp_path):
    grown = {**STACKS, "main;new": 5_000_000}  # a 5 ms stack appears in every candidate run
    a = drifting_side(tmp_path / "a", 1.0, 0.0, STACKS)
    steady = drifting_side(tmp_path / "b", 1.0, 0.001, grown)
    code, out, err = run(capsys, "-a", a, "-b", steady, "--method", "welch")
    assert code == 3 and "main;new" in out and "machine drifted more" not in err  # 4 ms of drift < 5 ms
    drifting = drifting_side(tmp_path / "c", 1.0, 0.1, grown)
    code, out, err = run(capsys, "-a", a, "-b", drifting, "--method", "welch")
    assert code == 3 and "main;new" in out
    assert "warning: the machine drifted more during the collection (candidate runs: +400 ms" in err
    assert "than the largest change reported (5 ms)" in err


def test_run_order_follows_the_run_label(capsys, tmp_path):
    a = tmp_path / "a"
    for i in range(1, 7):  # file names in the reverse order of the runs
        write_run(a / f"x{7 - i}.folded", i, duration_s=f"{1 + 0.01 * i:.3f}")
    code, _, err = run(capsys, "-a", a, "-b", drifting_side(tmp_path / "b", 1.0, 0.0, STACKS))
    assert code == 0 and "baseline +40 ms" in err


def test_similarity_sample_warns_where_compare_refuses(capsys, tmp_path):
    a, b = write_side(tmp_path / "a"), write_side(tmp_path / "b", mode="cpu")
    code = main(["similarity", "--sample", str(a), str(b)])
    _, err = capsys.readouterr()
    assert code in (0, None) and "warning: runs differ in mode" in err and "going on anyway" in err


def test_runs_of_an_interleaved_collection_are_compared_as_pairs(capsys, tmp_path):
    a = tmp_path / "a"
    b = tmp_path / "b"
    for i in range(1, 7):
        write_run(a / f"run-{i:03d}.folded", i, pair=str(i), collection=COLLECTION)
        write_run(b / f"run-{i:03d}.folded", i, pair=str(i), collection=COLLECTION)
    code, out, err = run(capsys, "-a", a, "-b", b)
    assert code == 0 and "6 pairs of runs from the same rounds" in err and "(paired:" in out
    code, out, err = run(capsys, "-a", a, "-b", b, "--pairing", "off")
    assert "pairs of runs" not in err and "(paired:" not in out


def test_rounds_without_a_collection_id_are_tested_unpaired_unless_pairing_is_on(capsys, tmp_path):
    """Runs recorded before collections had ids: their round numbers cannot say which collection."""
    for side in ("a", "b"):
        for i in range(1, 7):
            write_run(tmp_path / side / f"run-{i:03d}.folded", i, pair=str(i))
    code, out, err = run(capsys, "-a", tmp_path / "a", "-b", tmp_path / "b")
    assert code == 0 and "(paired:" not in out
    assert "note: runs tested as unpaired (all 6 + 6 runs): 12 run(s) carry a round but no collection id" in err
    code, out, err = run(capsys, "-a", tmp_path / "a", "-b", tmp_path / "b", "--pairing", "on")
    assert code == 0 and "(paired:" in out and "6 pairs of runs" in err and "paired by round number alone" in err


def test_pairing_on_without_rounds_is_an_error(capsys, tmp_path):
    code, _, err = run(capsys, "-a", write_side(tmp_path / "a"), "-b", write_side(tmp_path / "b"), "--pairing", "on")
    assert code == 1 and "cannot pair the runs" in err


def test_paired_runs_get_the_drift_note_but_not_the_warning(capsys, tmp_path):
    """Drift between rounds cancels in a paired test, so it cannot explain a change found."""
    grown = {**STACKS, "main;new": 5_000_000}
    for side, stacks in (("a", STACKS), ("c", grown)):
        for i in range(1, 7):
            write_run(
                tmp_path / side / f"run-{i:03d}.folded",
                i,
                stacks,
                duration_s=f"{1.0 + 0.1 * (i - 1):.3f}",
                pair=str(i),
                collection=COLLECTION,
            )
    code, out, err = run(capsys, "-a", tmp_path / "a", "-b", tmp_path / "c")
    assert code == 3 and "main;new" in out and "6 pairs of runs" in err
    assert "note: run time:" in err and "machine drifted more" not in err


def test_two_checkouts_compared_say_their_frames_differ_only_in_location(capsys, tmp_path):
    """`collect --baseline-cmd a/bench.py --candidate-cmd b/bench.py`: the frames carry a/ and b/, no
    stack matches, and compare reported every stack as a change without a word."""
    a = write_side(
        tmp_path / "a",
        stacks={"main (a/bench.py:9);work (a/bench.py:3)": 1e8, "main (a/bench.py:9)": 5e7},
        command="python a/bench.py",
    )
    b = write_side(
        tmp_path / "b",
        stacks={"main (b/bench.py:9);work (b/bench.py:3)": 1e8, "main (b/bench.py:9)": 5e7},
        command="python b/bench.py",
    )
    code, _, err = run(capsys, "-a", a, "-b", b)
    assert "warning: the two sides share few stacks: only 0% of the baseline's total" in err
    assert "file names or lines only (e.g. 'main (a/bench.py:9)' and 'main (b/bench.py:9)')" in err


def test_compare_map_renames_frames_on_both_sides(capsys, tmp_path):
    a = write_side(
        tmp_path / "a",
        stacks={"main (a/bench.py:9);work (a/bench.py:3)": 1e8, "main (a/bench.py:9)": 5e7},
        command="python a/bench.py",
    )
    b = write_side(
        tmp_path / "b",
        stacks={"main (b/bench.py:9);work (b/bench.py:3)": 1e8, "main (b/bench.py:9)": 5e7},
        command="python b/bench.py",
    )
    code, out, err = run(capsys, "-a", a, "-b", b, "--map", r"^(.*) \(\w+/(.*)\)$=\1 (\2)", "--all", "--json")
    assert code == 0 and "share few stacks" not in err, err
    import json

    tested = {";".join(row["stack"]) for row in json.loads(out)["stacks"]}
    assert tested == {"main (bench.py:9);work (bench.py:3)", "main (bench.py:9)"}


def test_a_side_sampled_at_less_than_the_rate_asked_is_named_with_its_real_rate(capsys, tmp_path):
    """The sampler can fall behind on a busy machine (450 of 1,000 Hz): the spreads the test
    and plan use are those of runs sampled at that real rate, so the report says it."""
    a = write_side(tmp_path / "a", rate_requested="1000", rate_achieved="998.5")
    b = write_side(tmp_path / "b", rate_requested="1000", rate_achieved="450.0")
    code, _, err = run(capsys, "-a", a, "-b", b)
    assert code == 0 and "note: the sampler took fewer samples than asked" in err
    assert "baseline 998 Hz of 1,000 asked, candidate 450 Hz of 1,000 asked" in err
    code, _, err = run(capsys, "-a", a, "-b", write_side(tmp_path / "c", rate_requested="1000", rate_achieved="960"))
    assert "fewer samples than asked" not in err  # both within 10% of the rate asked
    assert main(["plan", str(b), "--detect", "10%"]) == 0
    assert "pilot 450 Hz of 1,000 asked" in capsys.readouterr().err
