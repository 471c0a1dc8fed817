"""The flamespace command, run through main([...]) as a user would."""

from __future__ import annotations

import gzip
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import flamespace as fs
from flamespace.cli import main
from flamespace.cli._help import short_help
from flamespace.formats import folded


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def before(tmp_path):
    return write(tmp_path / "before.folded", "A;B 1\nA;C;D 5\nA;C 1\nA 2\n")


@pytest.fixture
def after(tmp_path):
    return write(tmp_path / "after.folded", "A;B 3\nA;C;D 4\nA;E 2\nA 2\n")


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_merge_sums_and_mean_divides(capsys, before, after):
    code, out, _ = run(capsys, "merge", before, after)
    assert code == 0
    assert folded.loads(out) == fs.FlameGraph({("A", "B"): 4, ("A", "C", "D"): 9, ("A", "C"): 1, ("A", "E"): 2, ("A",): 4})
    code, out, _ = run(capsys, "merge", "--mean", before, after)
    assert folded.loads(out)[("A", "C", "D")] == 4.5


def test_merge_a_directory_and_write_to_a_file(capsys, tmp_path, before, after):
    out_file = tmp_path / "out" / "merged.folded"
    out_file.parent.mkdir()
    code, out, _ = run(capsys, "merge", tmp_path, "-o", out_file)
    assert code == 0 and out == ""
    assert fs.read(out_file).total() == 20


def test_merge_a_directory_skips_files_that_are_not_profiles(capsys, tmp_path, before, after):
    write(tmp_path / "README.md", "These runs were taken on\nmy laptop\n")
    write(tmp_path / "runs.tar", "not a profile at all")
    code, out, err = run(capsys, "merge", tmp_path)
    assert code == 0 and fs.read(tmp_path / "before.folded") + fs.read(tmp_path / "after.folded") == folded.loads(out)
    assert f"skipped 2 file(s) in {tmp_path} that are not profiles: README.md, runs.tar" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(capsys, "merge", empty)
    assert code == 1 and "the directory holds no profile files" in err


def test_a_subdirectory_of_an_input_directory_is_named_as_skipped(capsys, tmp_path, before, after):
    (tmp_path / "older").mkdir()
    write(tmp_path / "older" / "run-1.folded", "A;B 100\n")
    (tmp_path / "more").mkdir()
    code, out, err = run(capsys, "merge", tmp_path)
    assert code == 0 and folded.loads(out).total() == 20  # the nested run is not read
    assert f"skipped 2 subdirectories in {tmp_path} (directories are not read recursively): more/, older/" in err
    code, out, err = run(capsys, "merge", tmp_path / "older")
    assert code == 0 and "subdirector" not in err


def test_top_level_help_names_every_input_format(capsys):
    from flamespace.formats import registry

    code, out, _ = run(capsys, "--help")
    assert code == 0
    import re

    listed = out.split("formats, gzip or plain", 1)[1].split("(`flamespace formats`", 1)[0]
    for name in registry.names():
        assert re.search(rf"(?<![\w-]){name}(?![\w-])", listed), name


def test_no_arguments_shows_help(capsys):
    code, out, _ = run(capsys)
    assert code == 0 and "Usage: flamespace" in out


def test_merge_refuses_mixed_units(capsys, tmp_path):
    a = write(tmp_path / "a.folded", "# unit: ns\na 1\n")
    b = write(tmp_path / "b.folded", "# unit: samples\na 1\n")
    code, _, err = run(capsys, "merge", a, b)
    assert code == 1
    assert err.strip() == "flamespace merge: error: cannot combine a profile in 'ns' with one in 'samples'"


def test_sub_matches_difffolded(capsys, tmp_path):
    # Expected outputs were produced by difffolded.pl (sorted) on the same inputs.
    b = write(tmp_path / "b.folded", "x;0xAB 1\ny 2\nz 0.5\n")
    a = write(tmp_path / "a.folded", "x;0xcd 5\ny 5\n")
    _, out, _ = run(capsys, "sub", b, a)
    assert out == "x;0xAB 1 0\nx;0xcd 0 5\ny 2 5\nz 0.5 0\n"
    _, out, _ = run(capsys, "sub", "-n", b, a)
    assert out == "x;0xAB 2 0\nx;0xcd 0 5\ny 5 5\nz 1 0\n"
    _, out, _ = run(capsys, "sub", "--normalize", "--strip-hex", b, a)
    assert out == "x;0x... 2 5\ny 5 5\nz 1 0\n"
    _, out, _ = run(capsys, "sub", "-s", b, a)
    assert out == "x;0x... 1 5\ny 2 5\nz 0.5 0\n"


def test_sub_output_feeds_filter_and_info(capsys, tmp_path, before, after):
    diff = tmp_path / "diff.folded"
    assert run(capsys, "sub", before, after, "-o", diff)[0] == 0
    code, out, _ = run(capsys, "filter", "--grep", "^C$", diff)
    assert code == 0 and out == "A;C 1 0\nA;C;D 5 4\n"
    code, out, _ = run(capsys, "info", "--json", diff)
    facts = json.loads(out)
    assert facts["differential"] and facts["before"]["norm"] == 9 and facts["after"]["norm"] == 11


def test_commands_that_need_one_count_refuse_differential_input(capsys, tmp_path):
    diff = write(tmp_path / "d.folded", "a 1 2\n")
    code, _, err = run(capsys, "top", diff)
    assert code == 1 and "is differential input" in err and "d.folded" in err


def test_scale_keeps_ints_and_rejects_negative(capsys, before):
    code, out, _ = run(capsys, "scale", "3", before)
    assert code == 0 and folded.loads(out)[("A",)] == 6
    code, out, _ = run(capsys, "scale", "0.5", before)
    assert folded.loads(out)[("A",)] == 1
    code, _, err = run(capsys, "scale", "--", "-2", before)
    assert code == 1 and "must be a finite number >= 0" in err
    code, _, err = run(capsys, "scale", "abc", before)
    assert code == 1 and "'abc' is not a number" in err


def test_filter_options(capsys, tmp_path):
    src = write(tmp_path / "p.folded", "main;f (a.py:1);f (a.py:1);g (a.py:5) 4\nmain;h (b.py:2) 1\nidle 5\n")
    _, out, _ = run(capsys, "filter", "--no-header", "--fold-recursion", "--strip", "lines", src)
    assert out == "idle 5\nmain;f (a.py);g (a.py) 4\nmain;h (b.py) 1\n"
    _, out, _ = run(capsys, "filter", "--grep", "h ", "--grep", "g ", "--exclude", "^h", src)
    assert out == "main;f (a.py:1);f (a.py:1);g (a.py:5) 4\n"
    _, out, _ = run(capsys, "filter", "--base", "f (a.py:1)", "--reverse", src)
    assert out == "g (a.py:5);f (a.py:1);f (a.py:1) 4\n"
    _, out, _ = run(capsys, "filter", "--max-depth", "1", "--prefix", "app", src)
    assert out == "app;idle 5\napp;main 5\n"
    _, out, _ = run(capsys, "filter", "--map", r"\((\w+)\.py:\d+\)=[\1]", src)
    assert "main;f [a];f [a];g [a] 4" in out
    _, out, _ = run(capsys, "filter", "--min-share", "20%", src)
    assert out == "idle 5\nmain 1\nmain;f (a.py:1);f (a.py:1);g (a.py:5) 4\n"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--map", "noequals"], "is not of the form 'REGEX=REPLACEMENT'"),
        (["--map", "(=x"], "invalid regular expression '('"),
        (["--grep", "("], "invalid regular expression '('"),
        (["--min-share", "2"], "is not between 0 and 1"),
        (["--min-share", "lots"], "is not a share"),
        (["--max-depth", "-1"], "-1"),
        (["--strip", "everything"], "everything"),
    ],
)
def test_filter_bad_arguments_exit_1_with_one_line(capsys, before, args, message):
    code, out, err = run(capsys, "filter", *args, before)
    assert code == 1 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1
    assert err.startswith("flamespace filter: error: ")


def test_top_table_and_json(capsys, before):
    code, out, _ = run(capsys, "top", before)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Top 4 functions by self value (total 9 samples)"
    rows = [line.split() for line in lines if line.strip().endswith((" D", " A", " C", " B"))]
    assert rows[0] == ["5", "55.56%", "5", "55.56%", "D"]
    code, out, _ = run(capsys, "top", "--json", "--by", "inclusive", "-n", "2", before)
    data = json.loads(out)
    assert [f["name"] for f in data["functions"]] == ["A", "C"]
    assert data["functions"][1] == {"name": "C", "self": 1, "inclusive": 6}


def test_top_groups_by_function_by_default_and_by_line_or_file_on_request(capsys, tmp_path):
    src = write(
        tmp_path / "p.folded",
        (
            "# unit: ns\n"
            "main (app.py:1);parse (app.py:12) 2000000000\n"
            "main (app.py:1);parse (app.py:14) 351834370\n"
            "main (app.py:1);dump (<stdlib>/json/x.py:3) 1000\n"
            "main (app.py:1);native 500\n"
        ),
    )
    code, out, _ = run(capsys, "top", src)
    assert code == 0 and out.splitlines()[0] == "Top 4 functions by self value (total 2.35 s)"
    rows = [line.split("   ") for line in out.splitlines() if "parse" in line]
    assert len(rows) == 1 and [c.strip() for c in rows[0] if c.strip()] == [
        "2.35 s",
        "100.00%",
        "2.35 s",
        "100.00%",
        "parse (app.py)",
    ]
    assert "native" in out  # a frame without a (file:line) suffix is a row of its own
    code, out, _ = run(capsys, "top", "--by", "line", "--raw", src)
    assert code == 0 and "Top 5 lines by self value (total 2,351,835,870 ns)" in out
    assert "2,000,000,000" in out and "351,834,370" in out and "parse (app.py:12)" in out
    code, out, _ = run(capsys, "top", "--json", "--by", "file", src)
    data = json.loads(out)
    assert data["group"] == "file" and [(f["name"], f["self"]) for f in data["functions"]] == [
        ("app.py", 2351834370),
        ("<stdlib>/json/x.py", 1000),
        ("native", 500),
    ]
    code, _, err = run(capsys, "top", "--by", "inclusive", "--sort", "self", src)
    assert code == 1 and "contradicts --sort self" in err


def test_text_shows_times_in_human_units_and_exact_counts_with_raw(capsys, tmp_path):
    src = write(tmp_path / "p.folded", "# unit: ns\nmain;f 2351834370\nmain;g 1000\n")
    code, out, _ = run(capsys, "text", src)
    assert code == 0 and out.splitlines()[:3] == [
        " 100.00%  all (2.35 s)",
        " 100.00%  └─ main (2.35 s)",
        " 100.00%     └─ f (2.35 s)",
    ]
    code, out, _ = run(capsys, "text", "--threshold", "0", src)
    assert out.splitlines()[3] == "   0.00%     └─ g (1.00 µs)"
    code, out, _ = run(capsys, "text", "--raw", src)
    assert out.splitlines()[2] == " 100.00%     └─ f (2,351,834,370 ns)"
    code, out, _ = run(capsys, "text", "--countname", "nanoseconds", src)
    assert out.splitlines()[2] == " 100.00%     └─ f (2,351,834,370 nanoseconds)"
    counts = write(tmp_path / "c.folded", "main;f 2000\n")
    code, out, _ = run(capsys, "text", counts)
    assert out.splitlines()[0] == " 100.00%  all (2,000 samples)"  # counts stay exact


def test_info(capsys, tmp_path):
    src = write(tmp_path / "p.folded", "# unit: ns\n# python: 3.11\na;b 1000\na 500\nc;d;e 1\n")
    code, out, _ = run(capsys, "info", src)
    assert code == 0
    assert out.splitlines() == [
        "unit: ns",
        "norm: 1,501",
        "stacks: 3",
        "frames: 5",
        "max depth: 3",
        "mean depth: 1.67",
        "# python: 3.11",
    ]


def test_similarity(capsys, before, after):
    code, out, _ = run(capsys, "similarity", before, after)
    assert code == 0 and out == "similarity: 0.700000\ndistance: 6\n"
    _, out, _ = run(capsys, "similarity", "--json", "--normalize", before, before)
    assert json.loads(out)["similarity"] == 1.0


def test_decompose_writes_four_parts_and_prints_norms(capsys, tmp_path, before, after):
    out_dir = tmp_path / "parts"
    code, out, _ = run(capsys, "decompose", before, after, "--out-dir", out_dir)
    assert code == 0
    expected = {"appeared": "A;E 2\n", "grown": "A;B 2\n", "disappeared": "A;C 1\n", "shrunk": "A;C;D 1\n"}
    for name, text in expected.items():
        assert (out_dir / f"{name}.folded").read_text() == text
        assert name in out
    _, out, _ = run(capsys, "decompose", before, before, "-d", out_dir, "--json")
    assert json.loads(out)["norms"] == {"appeared": 0, "grown": 0, "disappeared": 0, "shrunk": 0}
    assert (out_dir / "grown.folded").read_text() == ""


def test_malformed_input_exit_1_with_file_and_line(capsys, tmp_path):
    bad = write(tmp_path / "bad.folded", "a 1\nb;c\n")
    code, _, err = run(capsys, "info", bad)
    assert code == 1
    assert (
        err.strip() == f"flamespace info: error: {bad}:2: expected 'frame;frame;... count', found no count after a space: 'b;c'"
    )
    code, out, err = run(capsys, "info", "--skip-invalid", bad)
    assert code == 0 and "norm: 1" in out
    assert "skipped 1 invalid line" in err and f"{bad}:2" in err


def test_gzip_input(capsys, tmp_path):
    path = tmp_path / "p.folded.gz"
    path.write_bytes(gzip.compress(b"a;b 3\n"))
    assert run(capsys, "merge", path)[1] == "a;b 3\n"


def test_usage_errors_exit_1(capsys):
    code, _, err = run(capsys, "merge", "--bogus")
    assert code == 1 and "No such option" in err and "flamespace merge --help" in err
    code, _, err = run(capsys, "sub", "onlyone")
    assert code == 1 and "Missing argument" in err
    code, _, err = run(capsys, "nosuchcommand")
    assert code == 1 and "No such command" in err


def test_help_has_an_example_on_every_command(capsys):
    from flamespace.cli import COMMANDS

    for name in COMMANDS:
        code, out, _ = run(capsys, name, "--help")
        assert code == 0
        assert "Example" in out and f"flamespace {name}" in out, name


def test_help_lists_every_command_with_its_short_help(capsys):
    import flamespace.cli as cli_package
    from flamespace.cli import COMMANDS

    modules = {p.stem for p in Path(cli_package.__file__).parent.glob("*.py") if not p.stem.startswith("_")}
    assert set(COMMANDS) == modules  # every command module is registered
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for name in COMMANDS:
        command = importlib.import_module(f"flamespace.cli.{name}").SPEC
        short = short_help(command.help, 200).split("...")[0].rstrip(".")
        line = next((line for line in out.splitlines() if line.strip().startswith(name + " ")), "")
        assert short[:30] in line, (name, short, line)


def test_a_command_imports_only_what_it_needs(tmp_path):
    """Start-up: 'flamespace svg' imports its own module, not the other commands, rich, numpy, gzip or pathlib."""
    source = tmp_path / "p.folded"
    source.write_text("a;b 1\n")
    code = (
        "import sys; from flamespace.cli import main; "
        f"main(['svg', {str(source)!r}, '-o', {str(tmp_path / 'p.svg')!r}]); print(' '.join(sorted(sys.modules)))"
    )
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split())
    assert "flamespace.cli._svg_spec" in loaded and (tmp_path / "p.svg").exists()  # the svg command
    others = {f"flamespace.cli.{name}" for name in ("record", "compare", "filter", "merge", "top", "text")}
    heavy = {"click", "rich", "numpy", "scipy", "gzip", "decimal", "pathlib", "flamespace.core.transforms", "flamespace.stats"}
    assert not loaded & (others | heavy), loaded & (others | heavy)


def test_internal_errors_exit_2_without_traceback(capsys, monkeypatch, before):
    import flamespace.cli.info as info

    def broken(graph):
        raise RuntimeError("boom")

    monkeypatch.setattr(info, "describe", broken)
    code, _, err = run(capsys, "info", before)
    assert code == 2
    assert "internal error: RuntimeError: boom" in err and "Traceback" not in err


def test_pipes_through_stdin_with_the_installed_command(tmp_path, before):
    exe = Path(sys.executable).parent / "flamespace"
    command = f"cat {before} | {exe} filter --grep C | {exe} scale 2 | {exe} info --json"
    out = subprocess.run(command, shell=True, capture_output=True, check=True, text=True).stdout
    assert json.loads(out)["norm"] == 12


def test_broken_pipe_is_quiet(tmp_path):
    big = tmp_path / "big.folded"
    big.write_text("".join(f"s{i};f 1\n" for i in range(200000)))
    exe = Path(sys.executable).parent / "flamespace"
    result = subprocess.run(f"{exe} merge {big} | head -1", shell=True, capture_output=True, text=True)
    assert result.stdout == "s0;f 1\n"
    assert result.stderr == ""
