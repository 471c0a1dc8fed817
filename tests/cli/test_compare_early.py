"""compare refuses a method's limit while it reads the runs, not after reading them all."""

from __future__ import annotations

import numpy as np

from flamespace.cli import main


def wide_runs(directory, runs: int, stacks: int, seed: int, broken_last: bool = False):
    rng = np.random.default_rng(seed)
    directory.mkdir()
    for i in range(runs):
        text = "".join(f"main;f{j} {rng.poisson(20) + 1}\n" for j in range(stacks))
        if broken_last and i == runs - 1:
            text += "this line has no count\n"
        (directory / f"r{i:02d}.folded").write_text(text)
    return directory


def test_hotelling_refuses_before_reading_every_run(capsys, tmp_path):
    base = wide_runs(tmp_path / "a", 6, 40, 1)
    cand = wide_runs(tmp_path / "b", 6, 40, 2, broken_last=True)  # never read: the refusal comes first
    code = main(["compare", "-a", str(base), "-b", str(cand), "-m", "hotelling", "--alternative", "two-sided"])
    err = capsys.readouterr().err
    assert code == 1
    assert "hotelling needs fewer varying stacks than n1 + n2 − 1 = 11 runs, but there are at least" in err
    assert "r05.folded:41" not in err


def test_hotelling_within_its_limit_reads_everything(capsys, tmp_path):
    base = wide_runs(tmp_path / "a", 6, 3, 1)
    cand = wide_runs(tmp_path / "b", 6, 3, 2, broken_last=True)
    code = main(["compare", "-a", str(base), "-b", str(cand), "-m", "hotelling", "--alternative", "two-sided"])
    assert code == 1 and "r05.folded:4: expected a count" in capsys.readouterr().err  # read: no early refusal


def test_other_methods_read_everything(capsys, tmp_path):
    base = wide_runs(tmp_path / "a", 6, 40, 1)
    cand = wide_runs(tmp_path / "b", 6, 40, 2)
    assert main(["compare", "-a", str(base), "-b", str(cand), "-m", "welch"]) in (0, 3)
    assert main(["compare", "-a", str(base), "-b", str(cand), "-m", "maxt"]) in (0, 3)


def test_rare_stacks_the_filter_drops_do_not_refuse_early(capsys, tmp_path):
    """Stacks seen in one run only are left untested by the frequency filter: they must not count."""
    base, cand = tmp_path / "a", tmp_path / "b"
    for directory, seed in ((base, 1), (cand, 2)):
        directory.mkdir()
        rng = np.random.default_rng(seed)
        for i in range(6):
            rare = "".join(f"rare;{directory.name}{i};f{j} 1\n" for j in range(30))
            (directory / f"r{i}.folded").write_text(f"main;a {rng.poisson(40) + 1}\nmain;b {rng.poisson(40) + 1}\n" + rare)
    code = main(["compare", "-a", str(base), "-b", str(cand), "-m", "hotelling", "--alternative", "two-sided"])
    out, err = capsys.readouterr()
    assert code in (0, 3), err
