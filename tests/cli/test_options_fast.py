"""Every command declared as data (cli/_options.Command): the small parser gives what click gives or
lets click decide, ``COMMAND --help`` is click's text, and a run without click is a run with it."""

from __future__ import annotations

import importlib
import os
import random
import subprocess
import sys

import click
import pytest

import flamespace.cli as cli_package
from flamespace.cli import FAST, main
from flamespace.cli._group import cli
from flamespace.cli._help import cleandoc, command_help
from flamespace.cli._options import Command, Option

WIDTHS = [40, 63, 80, 99, 100, 137]


def module(name):
    return importlib.import_module(f"flamespace.cli.{name}")


def click_params(name, args):
    """What click gives the command for ``args`` under the group (its -h, its callbacks run), or the
    UsageError it raises. A fresh click command: click 8.2 keeps a command's help option once
    made, so one another test used outside the group would have no -h."""
    command = module(name).SPEC.click_command()
    parent = cli.make_context("flamespace", [name], resilient_parsing=True)
    try:
        with command.make_context(name, list(args), parent=parent) as ctx:
            return dict(ctx.params)
    except click.exceptions.Exit:
        return "exit"
    except click.UsageError as exc:
        return exc


@pytest.fixture
def places(tmp_path):
    (tmp_path / "a.folded").write_text("main;work 3\nmain;idle 1\n")
    (tmp_path / "b.folded").write_text("main;work 5\nmain;parse 2\n")
    (tmp_path / "dir").mkdir()
    for side, extra in (("base", 0), ("cand", 4)):  # samples of runs for compare and plan
        (tmp_path / side).mkdir()
        for run in range(4):
            (tmp_path / side / f"run-{run}.folded").write_text(f"main;work {10 + run + extra}\nmain;idle {5 + run % 2}\n")
    return tmp_path


def values_for(option: Option, places) -> list:
    """Spellings of good and bad values for an option of this kind."""
    file, folder, missing = str(places / "a.folded"), str(places / "dir"), str(places / "missing.out")
    pools = {
        "int": ["3", " 7 ", "1_000", "0", "x", "1.5", "-2"],
        "float": ["2.5", "1e3", "3", "x", "-0.5"],
        "number": ["2", "0.5", "x", "inf", "-1"],
        "str": ["word", "", "a b", "-", "1%"],
        "path": [missing, file, folder, "-"],
        "dir": [folder, missing, file],
        "multiple": ["a", "b;c", "-"],
        "choice": ["bogus"],
    }
    values = list(pools.get(option.kind, pools["str"]))
    if option.ranged():
        values += [str(option.minimum), str(option.maximum), "0.5", "1"]
    if option.choices:
        values += [option.choices[0], option.choices[-1], "bogus"]
    return values


def random_args(spec: Command, rng: random.Random, places) -> list:
    """An argument list drawn from the command's own options and arguments, with the oddities click handles."""
    words = [str(places / "a.folded"), str(places / "b.folded"), str(places / "dir"), str(places / "nothing"), "-", "2",
             "0.5"]
    args: list = []
    for _ in range(rng.randint(0, 6)):
        roll = rng.random()
        option = rng.choice(spec.options)
        flag = rng.choice(option.flags + option.secondary)
        if roll < 0.55:
            if option.takes_value():
                value = rng.choice(values_for(option, places))
                args += [f"{flag}={value}"] if flag.startswith("--") and rng.random() < 0.3 else [flag, value]
            else:
                args.append(flag)
        elif roll < 0.8:
            args.append(rng.choice(words))
        elif roll < 0.85:
            args.append("--")
        else:
            args.append(rng.choice(["--bogus", "-x", "-h", "--help", flag + "=1", option.flags[-1][:4], "-pass"]))
    if spec.name in ("record", "collect", "trace") and rng.random() < 0.7:
        args += rng.choice([["-c", "pass"], ["--", "prog.py", "-v"], ["prog.py", "--rate", "5"], ["-m", "mod", "arg"]])
    if spec.name == "collect" and rng.random() < 0.7:
        args = ["-o", str(places / "runs")] + args
    if spec.name == "compare" and rng.random() < 0.7:  # its two required options, often enough
        args = ["-a", str(places / "base"), "-b", str(places / "cand")][:rng.choice([2, 4, 4])] + args
    if spec.name == "plan" and rng.random() < 0.7:
        args = [str(places / "base"), "--detect", rng.choice(["5%", "10"])][:rng.choice([1, 3, 3])] + args
    if spec.name == "gate" and rng.random() < 0.7:  # the program after the options, as gate takes it
        args = ["--base", "main"][:rng.choice([0, 2, 2])] + args + rng.choice([["--", "prog.py", "-n"], ["prog.py"], ["-m", "mod"], []])
    if spec.name == "dump" and rng.random() < 0.7:  # its required option, often enough
        args = ["--pid", rng.choice(["1", "4242", "0", "x"])] + args
    if spec.name == "decompose" and rng.random() < 0.7:  # its required option and two arguments, often enough
        args = ["-d", str(places / "dir")] + args + [str(places / "a.folded"), str(places / "b.folded")][:rng.randint(1, 2)]
    return args


def same_as_click(name, args):
    """'fast' (the small parser's values are click's), 'click' (it left them to click), or the difference."""
    fast = module(name).SPEC.parse(args)
    expected = click_params(name, args)
    if fast is None:
        return "click"
    if not isinstance(expected, dict) or expected != fast:
        return f"{name} {args}: small parser {fast}, click {expected}"
    return "fast"


@pytest.mark.parametrize("name", FAST)
def test_the_small_parser_gives_what_click_gives_or_defers(name, places, monkeypatch):
    """Many argument lists drawn from the command's own table (good and bad values, unknown options,
    --help, '--', option-like values): the small parser agrees with click, or leaves the list to click;
    whatever click refuses, the small parser leaves to it (so every message is click's)."""
    monkeypatch.chdir(places)
    spec = module(name).SPEC
    rng = random.Random(name)
    outcomes = [same_as_click(name, random_args(spec, rng, places)) for _ in range(400)]
    wrong = [o for o in outcomes if o not in ("fast", "click")]
    assert not wrong, wrong[:5]
    assert outcomes.count("fast") >= 20 and outcomes.count("click") >= 20  # both ways exercised


#: Lists each command's small parser must understand (the common cases), with what click gives.
COMMON = {
    "record": [["-c", "pass"], ["-q", "-o", "{out}", "-c", "pass"], ["--mode", "cpu", "--rate", "500", "app.py", "-x"],
               ["-o", "-", "--format", "speedscope", "--", "app.py", "--rate", "1"], ["-m", "pkg.cli", "run", "-q"],
               ["--mode=alloc", "--bytes-per-sample", "0", "--seed=3", "--idle", "--process-root", "--async", "--threads",
                "--no-lines", "--subprocesses", "--duration", "2.5", "--weight", "count", "--no-header", "-c", "x=1"]],
    "dump": [["--pid", "1"], ["--pid=42", "--json", "--no-lines"]],
    "trace": [["-c", "pass"], ["-q", "-o", "{out}", "-c", "pass"], ["--builtins", "--lines", "app.py", "-x"],
              ["-o", "-", "--format", "chrome", "--", "app.py", "--lines", "1"], ["-m", "pkg.cli", "run", "-q"],
              ["--format=lines-csv", "--max-events", "10", "--max-depth=3", "--threads", "--no-lines", "--subprocesses",
               "--no-header", "--quiet", "-c", "x=1"]],
    "collect": [["-n", "3", "-o", "{dir}", "-c", "pass"], ["--out-dir={dir}", "--runs=5", "--warmup", "1", "--keep-going",
                "--overwrite", "--show-output", "--baseline-cmd", "a.py", "--candidate-cmd=b.py", "--baseline-env",
                "A=1", "--candidate-env", "B=2", "--candidate-env", "C=3", "-q"], ["-o", "{dir}", "--", "app.py", "-n", "1"]],
    "text": [["{a}"], ["--threshold", "5%", "--max-depth", "6", "--sort-by-value", "{a}", "{b}"],
             ["--reverse", "--base", "main", "--base=work", "--delta", "self", "--countname", "ms", "--raw",
              "--width", "40", "-o", "{out}", "--skip-invalid", "--from", "folded"]],
    "info": [[], ["{a}"], ["--json", "-"], ["{a}", "--from=folded", "--skip-invalid"]],
    "top": [["{a}"], ["-n", "5", "--by", "line", "--sort", "inclusive", "--raw", "--json", "{a}"], ["--by=self", "-"]],
    "merge": [["{a}", "{b}"], ["--mean", "{dir}", "-o", "{out}", "--no-header"], []],
    "sub": [["{a}", "{b}"], ["-n", "-s", "{a}", "-", "-o", "{out}"], ["--normalize", "--strip-hex", "{a}", "{b}"]],
    "scale": [["2", "{a}"], ["0.5"], ["1_000", "-", "-o", "{out}", "--no-header"]],
    "filter": [["{a}"], ["--grep", "work", "--exclude=idle", "--base", "main", "--map", "a=b", "--strip", "lines",
                "--strip", "hex", "--fold-recursion", "--reverse", "--max-depth", "0", "--prefix", "app",
                "--min-share", "1%", "{a}", "-o", "{out}"]],
    "svg": [["{a}"], ["{a}", "{b}", "-o", "{out}", "--title", "T", "--width", "800"]],
    "decompose": [["{a}", "{b}", "-d", "{dir}"], ["--out-dir={dir}", "--json", "--no-header", "-", "{b}", "--from", "folded"]],
    "formats": [[], ["--json"]],
    "similarity": [["{a}", "{b}"], ["--normalize", "--json", "-", "{b}", "--skip-invalid"], ["--sample", "{dir}", "{dir}"]],
    "compare": [["-a", "{base}", "-b", "{cand}"], ["--baseline={base}", "-a", "{a}", "--candidate", "{cand}", "-m", "welch",
                "--alternative", "two-sided", "--alpha", "0.01", "--fdr", "bh", "--permutations", "100", "--seed=7",
                "--pairing", "off", "--min-delta", "0.5", "--min-rel", "2%", "--normalize", "--min-runs", "3",
                "--min-fraction", "10%", "--json", "--all", "--limit", "0", "-d", "{dir}", "--no-header", "--force",
                "--max-missed", "10%", "--skip-invalid", "--from", "folded"], ["-a", "{base}", "-b", "{cand}", "--markdown"]],
    "plan": [["{base}", "--detect", "5%"], ["--detect=10", "{base}", "{cand}", "--alpha", "0.01", "--power", "0.9", "--top", "3",
             "--alternative", "less", "--min-runs", "0", "--min-fraction", "1%", "--json", "--from=folded"]],
    "gate": [["--base", "main", "--", "bench.py"], ["--base", "main", "bench.py", "-n", "3"],
             ["--base=v1", "--head", "v2", "--repo", "{dir}", "-o", "{dir}", "--warmup", "0", "--no-install", "--lines", "--keep",
              "-m", "welch", "--alpha", "0.1", "--min-rel", "5%", "--all", "--limit", "3", "--force", "--max-missed", "5%",
              "-n", "5", "--mode", "cpu", "--rate", "250", "--idle", "--threads", "--async", "--subprocesses", "--keep-going",
              "--show-output", "--", "-m", "pkg.bench", "--size", "1"]],
}
#: Lists click refuses (or answers with help): the small parser must leave every one to click.
REFUSED = {
    "dump": [[], ["--pid", "0"], ["--pid", "x"], ["--json"], ["--help"]],
    "record": [["--mode", "slow", "-c", "pass"], ["--rate", "fast", "-c", "pass"], ["--help"], ["-h"], ["-o"],
               ["--format", "svgz"]],
    "trace": [["--format", "svg", "-c", "pass"], ["--max-events", "many", "-c", "pass"], ["--help"], ["-h"], ["-o"],
              ["-o", "{dir}", "-c", "pass"], ["--max-depth=1.5", "-c", "pass"]],
    "collect": [["-c", "pass"], ["-n", "0", "-o", "{dir}", "-c", "pass"], ["-o", "{a}", "-c", "pass"],
                ["-n", "x", "-o", "{dir}"], ["--warmup=-1", "-o", "{dir}"]],
    "text": [["--max-depth", "x"], ["--delta", "both"], ["-o", "{dir}"], ["--bogus"], ["--width=1.5"]],
    "info": [["{a}", "{b}"], ["--json=1"], ["--from", "nothing"]],
    "top": [["-n", "0"], ["--by", "module"], ["--sort", "self", "--sort", "x"], ["{a}", "{b}"]],
    "merge": [["--mean=yes"], ["-o"], ["--meen"]],
    "sub": [[], ["{a}"], ["{a}", "{b}", "{a}"]],
    "scale": [[], ["-1"], ["x", "{a}"], ["inf"], ["2", "{a}", "{b}"]],
    "filter": [["--strip", "names"], ["--max-depth", "-1"], ["--max-depth=-1"], ["--grep"]],
    "svg": [["--width", "wide"], ["--colors", "pink"]],
    "decompose": [["{a}", "{b}"], ["-d", "{dir}", "{a}"], ["-d", "{a}", "{a}", "{b}"], ["-d", "{dir}", "{a}", "{b}", "{a}"]],
    "formats": [["--json=1"], ["{a}"], ["--jsn"]],
    "similarity": [["{a}"], [], ["{a}", "{b}", "{a}"], ["--sample=1", "{a}", "{b}"]],
    "compare": [[], ["-a", "{base}"], ["-a", "{base}", "-b", "{cand}", "--limit", "-1"], ["-a", "{base}", "-b", "{cand}", "-m", "t"],
                ["-a", "{base}", "-b", "{cand}", "--alpha", "x"], ["-a", "{base}", "-b", "{cand}", "-d", "{a}"],
                ["-a", "{base}", "-b", "{cand}", "{a}"], ["-a", "{base}", "-b", "{cand}", "--fdr", "yes"]],
    "plan": [[], ["{base}"], ["--detect", "5%"], ["{base}", "--detect", "5%", "--alpha", "0"], ["{base}", "--detect", "5%", "--alpha", "1"],
             ["{base}", "--detect", "5%", "--power", "1.5"], ["{base}", "--detect", "5%", "--top", "0"],
             ["{base}", "--detect", "5%", "--min-runs", "-1"]],
    "gate": [["bench.py"], ["--base", "main", "--repo", "{missing}", "--", "bench.py"], ["--base", "main", "--repo", "{a}", "bench.py"],
             ["--base", "main", "--warmup", "-1", "bench.py"], ["--base", "main", "-n", "0", "bench.py"],
             ["--base", "main", "--mode", "slow", "bench.py"]],
}


#: Lists click takes, but the small parser does not guess at: grouped or attached short options, option-like values.
DEFERRED = [["sub", "-ns", "{a}", "{b}"], ["record", "-cpass"], ["record", "-qo", "{out}", "-c", "pass"],
            ["filter", "--grep", "-x", "{a}"], ["text", "--countname", "-x", "{a}"], ["top", "-n5", "{a}"],
            ["compare", "-a{base}", "-b", "{cand}"], ["plan", "{base}", "--detect", "-5%"], ["gate", "--base", "main", "-x", "pkg"],
            ["gate", "--base", "main", "--bogus", "prog.py"], ["trace", "-qo", "{out}", "-c", "pass"]]


@pytest.mark.parametrize("args", DEFERRED, ids=" ".join)
def test_what_the_small_parser_does_not_guess_goes_to_click(args, places):
    name, args = args[0], fill(args[1:], places)
    assert module(name).SPEC.parse(args) is None
    assert isinstance(click_params(name, args), dict)


def fill(args, places):
    return [a.format(a=places / "a.folded", b=places / "b.folded", dir=places / "dir", out=places / "out.txt",
                     base=places / "base", cand=places / "cand", missing=places / "missing") for a in args]


@pytest.mark.parametrize("name", FAST)
def test_the_common_cases_run_without_click_and_refused_ones_go_to_it(name, places, monkeypatch):
    monkeypatch.chdir(places)
    for args in COMMON[name]:
        assert same_as_click(name, fill(args, places)) == "fast", args
    for args in REFUSED[name]:
        args = fill(args, places)
        assert module(name).SPEC.parse(args) is None, args
        assert not isinstance(click_params(name, args), dict), args


def click_help(name, columns, monkeypatch):
    """What click prints for ``flamespace NAME --help`` (the group's context: its width and -h)."""
    monkeypatch.setenv("COLUMNS", str(columns))
    command = module(name).SPEC.click_command()  # fresh: see click_params
    parent = cli.make_context("flamespace", [name], resilient_parsing=True)
    context = command.make_context(name, [], parent=parent, resilient_parsing=True)
    return command.get_help(context) + "\n"


@pytest.mark.parametrize("name", FAST)
def test_the_fast_help_is_clicks(name, monkeypatch):
    for columns in WIDTHS:
        expected = click_help(name, columns, monkeypatch)
        assert command_help(f"flamespace {name}", module(name).SPEC, columns) == expected, columns
        assert command_help(f"flamespace {name}", module(name).SPEC) == expected  # $COLUMNS, as click reads it


def test_cleandoc_is_inspects():
    import inspect

    texts = [module(name).SPEC.help for name in FAST] + ["", "x", "  a\n\n   b\n  c\n\n", "\n\n  a\n\tb\n", "a\n  \n b"]
    for text in texts:
        assert cleandoc(text) == inspect.cleandoc(text), text


#: What a plain run may import besides our modules (the statistics need numpy), and its exit code.
PLAIN_LOADS = {"compare": ("numpy",), "plan": ("numpy",)}  # compare: its text report is written without rich (cli/_table.py)
PLAIN_EXIT = {"compare": 3}


@pytest.mark.parametrize("name", FAST)
def test_help_and_a_plain_run_do_not_import_click(name, places):
    a, b = str(places / "a.folded"), str(places / "b.folded")
    base, cand = str(places / "base"), str(places / "cand")
    plain = {
        "record": ["-q", "-o", str(places / "r.folded"), "-c", "pass"],
        "collect": ["-q", "-n", "1", "-o", str(places / "runs"), "-c", "pass"],
        "trace": ["-q", "-o", str(places / "t.folded"), "-c", "pass"],
        "text": [a], "info": [a], "top": ["--json", a], "merge": [a, b], "sub": [a, b], "scale": ["2", a], "filter": ["--grep", "w", a],
        "svg": [a, "-o", str(places / "a.svg")], "decompose": ["--json", "-d", str(places / "parts"), a, b],
        "formats": ["--json"], "similarity": [a, b], "dump": ["--pid", str(os.getpid())], "compare": ["-a", base, "-b", cand, "--alternative", "greater"], "plan": ["--json", base, "--detect", "5%"],
        "gate": None,  # a plain run needs git refs and installs: its options are the ones tested here
    }
    for args in (["--help"], plain[name]):
        if args is None:
            continue
        code = ("import sys; from flamespace.cli import main; code = main(%r); "
                "sys.stderr.write(' loaded: ' + ' '.join(m for m in ('click', 'numpy', 'rich') if m in sys.modules)); "
                "sys.exit(code)" % ([name, *args],))
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "COLUMNS": "80"})
        allowed = PLAIN_LOADS.get(name, ()) if args != ["--help"] else ()
        expected = PLAIN_EXIT.get(name, 0) if args != ["--help"] else 0
        assert done.returncode == expected and done.stderr.endswith(" loaded: " + " ".join(allowed)), (args, done.stderr)


def run_both(capsys, monkeypatch, args, output=None):
    """(exit code, stdout, stderr, the output file's text) with the small parser, and with click alone."""
    results = []
    for fast in (FAST, ()):
        monkeypatch.setattr(cli_package, "FAST", fast)
        if output is not None and output.exists():
            output.unlink()
        code = main(list(args))
        out, err = capsys.readouterr()
        results.append((code, out, err, output.read_text() if output is not None and output.exists() else None))
    return results


RUNS = [
    ["text", "{a}"], ["text", "--threshold", "x", "{a}"], ["text", "{a}", "{b}", "--sort-by-value", "--max-depth", "1"],
    ["text", "{missing}"], ["info", "{a}"], ["info", "--json", "{b}"], ["info", "{missing}"],
    ["top", "{a}"], ["top", "--json", "--by", "line", "{b}"], ["top", "--by", "self", "--sort", "inclusive", "{a}"],
    ["top", "-n", "0", "{a}"], ["merge", "{a}", "{b}"], ["merge", "--mean", "{dir}"], ["merge", "{a}", "-", "-"],
    ["sub", "{a}", "{b}"], ["sub", "-n", "-s", "{a}", "{b}"], ["sub", "{a}"], ["scale", "3", "{a}"], ["scale", "0.5", "{b}"],
    ["scale", "-1", "{a}"], ["scale", "x", "{a}"], ["filter", "--grep", "work", "{b}"], ["filter", "--map", "(=x", "{a}"],
    ["filter", "--map", "nothing", "{a}"], ["filter", "--min-share", "2", "{a}"], ["filter", "--strip", "nope", "{a}"],
    ["filter", "--prefix", "app", "--reverse", "-o", "{dir}", "{a}"], ["info", "--bogus"], ["text", "-h"],
    ["svg", "{a}", "--title", "T"], ["--color", "never", "top", "{a}"], ["--color=always", "text", "{a}"],
    ["--color", "pink", "text", "{a}"], ["decompose", "{a}", "{b}", "-d", "{dir}"], ["decompose", "--json", "{a}", "{b}", "-d", "{dir}"],
    ["decompose", "{a}", "{missing}", "-d", "{dir}"], ["decompose", "{a}", "{b}"], ["formats"], ["formats", "--json"],
    ["similarity", "{a}", "{b}"], ["similarity", "--normalize", "--json", "{a}", "{b}"], ["similarity", "{a}", "{missing}"],
    ["compare", "-a", "{base}", "-b", "{cand}"], ["compare", "-a", "{base}", "-b", "{cand}", "--markdown", "--all"],
    ["compare", "-a", "{base}", "-b", "{cand}", "--json", "-m", "welch", "--normalize"],
    ["compare", "-a", "{base}", "-b", "{cand}", "--json", "--markdown"], ["compare", "-a", "{base}", "-b", "{cand}", "--min-rel", "x"],
    ["compare", "-a", "{base}", "-b", "{missing}"], ["compare", "-a", "{base}", "-b", "{cand}", "--alpha", "2"],
    ["compare", "-a", "{base}", "-b", "{cand}", "-d", "{dir}", "--no-header", "--max-missed", "5%", "--force"],
    ["plan", "{base}", "--detect", "5%"], ["plan", "{base}", "{cand}", "--detect", "10", "--json", "--top", "1"],
    ["plan", "{base}", "--detect", "lots"], ["plan", "{base}", "--detect", "5%", "--min-fraction", "200%"],
    ["gate", "--base", "main", "--repo", "{dir}", "--", "bench.py"], ["gate", "--base", "main", "--repo", "{dir}"],
    ["gate", "--base", "main", "--repo", "{dir}", "-o", "{a}", "--", "bench.py"],
]


@pytest.mark.parametrize("args", RUNS, ids=" ".join)
def test_a_run_without_click_is_a_run_with_it(args, places, capsys, monkeypatch):
    """Same exit code, stdout and stderr (errors included: the small parser leaves those to click)."""
    monkeypatch.chdir(places)
    args = [a.format(a=places / "a.folded", b=places / "b.folded", dir=places / "dir", missing=places / "no.folded",
                     base=places / "base", cand=places / "cand") for a in args]
    fast, slow = run_both(capsys, monkeypatch, args)
    assert fast == slow


def quiet(err):
    """stderr without the sampler's warnings (on a busy machine they come and go)."""
    return [line for line in err.splitlines() if ": warning: " not in line]


def test_record_and_collect_run_the_same_with_and_without_click(places, capsys, monkeypatch):
    monkeypatch.chdir(places)
    out = places / "r.folded"
    for args in (["record", "-q", "-o", str(out), "-c", "import sys; sys.exit(3)"],
                 ["record", "-q", "--mode", "wall", "-o", str(out), "--", "-c", "pass"],
                 ["record", "--mode", "live", "--idle", "-c", "pass"], ["record", "-o", str(places / "dir"), "-c", "pass"],
                 ["collect", "-c", "pass"], ["collect", "-q", "-o", str(places / "runs"), "--baseline-env", "A=1", "-c", "pass"],
                 ["collect", "-q", "-o", str(places / "runs"), "--baseline-cmd", "-c", "-c", "pass"]):
        fast, slow = run_both(capsys, monkeypatch, args, out)
        assert fast[0] == slow[0] and quiet(fast[2]) == quiet(slow[2]), args
        assert (fast[3] is None) == (slow[3] is None), args
    (fast_code, _, _, fast_text), (slow_code, _, _, slow_text) = run_both(
        capsys, monkeypatch, ["record", "-q", "--no-header", "-o", str(out), "-c", "pass"], out)
    assert fast_code == slow_code == 0 and fast_text is not None and slow_text is not None
    runs = places / "runs"
    codes = []
    for fast in (FAST, ()):
        monkeypatch.setattr(cli_package, "FAST", fast)
        codes.append(main(["collect", "-q", "-n", "2", "--overwrite", "-o", str(runs), "-c", "pass"]))
        codes.append(sorted(p.name for p in runs.iterdir()))
    assert codes[0] == codes[2] == 0 and codes[1] == codes[3] == ["run-001.folded", "run-002.folded"]


def test_trace_runs_the_same_with_and_without_click(places, capsys, monkeypatch):
    """Exit codes, messages and (for the exact call counts) the output agree, errors included."""
    monkeypatch.chdir(places)
    out = places / "t.calls.folded"
    for args in (["trace", "-q", "--no-header", "-o", str(out), "-c", "import sys; sys.exit(3)"],
                 ["trace", "-q", "--no-header", "--format", "calls", "-o", str(out), "--", "-c", "def f(): pass\nf()"],
                 ["trace", "-q", "-o", str(places / "dir"), "-c", "pass"], ["trace", "--format", "svg", "-c", "pass"],
                 ["trace", "-q", "--max-events", "0", "-o", str(out), "-c", "pass"], ["trace"]):
        fast, slow = run_both(capsys, monkeypatch, args, out)
        assert fast == slow, args
