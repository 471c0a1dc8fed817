"""flamespace gate: does this change make the program slower? Two git refs, one command, exit 0/3/1.

Binds the options to :func:`flamespace.gate` (flamespace/workflows/gate.py: worktrees,
environments, interleaved runs, the comparison and its reports) and prints what it says and
the text report. Declared as data (cli/_options.py).
"""

from __future__ import annotations

import os
import sys

from ..collect import AIMED_SAMPLES, MAX_RATE, MIN_RATE
from ..workflows import GATE_OUT_DIR, GATE_WARMUP
from . import collect as _collect
from . import _style
from . import compare as _compare
from ._options import Argument, Command, Option
from ._recording import SAMPLING
from ._report import warn, write_out


#: The options of compare and collect that gate takes as they are (same names, defaults, help).
COMPARE_OPTIONS = (
    "method",
    "alternative",
    "alpha",
    "fdr",
    "permutations",
    "seed",
    "pairing",
    "min_delta",
    "min_rel",
    "normalize",
    "min_runs",
    "min_fraction",
    "include_all",
    "limit",
    "force",
    "max_missed",
    "cluster",
)
COLLECT_OPTIONS = (
    "runs",
    "mode",
    "idle",
    "threads",
    "async_stacks",
    "subprocesses",
    "sampler",
    "keep_going",
    "show_output",
    "store",
)


def run(
    base: str,
    head: str | None,
    repo: str,
    out_dir: str,
    warmup: int,
    no_install: bool,
    lines: bool,
    keep: bool,
    command: tuple[str, ...],
    method: str,
    alternative: str,
    alpha: float,
    fdr: str,
    permutations: int,
    seed: int,
    pairing: str,
    min_delta: float,
    min_rel: str,
    normalize: bool,
    min_runs: int,
    min_fraction: str,
    include_all: bool,
    limit: int,
    force: bool,
    max_missed: str | None,
    cluster: str | None,
    runs: int,
    mode: str,
    idle: bool,
    threads: bool,
    async_stacks: bool,
    subprocesses: bool,
    keep_going: bool,
    show_output: bool,
    store: bool,
    rate: float | None,
    sampler: str = "auto",
) -> int:
    """Gate a change: run the same command from two git refs, interleaved, and compare them.

    Makes a temporary worktree of --base and of --head (default: the working tree as it is,
    so local changes can be gated before they are committed), installs each into a
    virtualenv of its own (pip install TREE; without a pyproject.toml or setup.py, or with
    --no-install, the trees run as they are), runs COMMAND -n times from the root of each
    tree, alternating, and compares the two samples of runs as 'flamespace compare' does.
    Paths in COMMAND are relative to the repository's root.

    Writes OUT_DIR/report.md (for a pull-request comment), report.json, report.txt, the
    delta flame graphs (delta.svg, ...) and the runs (runs/baseline/, runs/candidate/); prints
    the text report. The test is one-sided (--alternative greater: regressions only, all of
    --alpha for them). Exit code 0: no regression; 3: a stack significantly appeared or grew;
    1: bad usage, or the gate could not be set up (not a git repository, unknown ref,
    install failed, a run failed).

    With --base store:SELECTOR (store:branch=main,last=30) the baseline is those stored runs
    (flamespace store): only the head is checked out and run, and compared with them.

    \b
    Examples:
        flamespace gate --base origin/main -n 20 -- bench/workload.py
        flamespace gate --base v1.2 --head v1.3 -n 30 --min-rel 5% -- -m mypkg.bench --size 1000
        flamespace gate --base HEAD --no-install --alpha 0.01 -- bench/workload.py
        flamespace gate --base store:branch=main,last=30 -n 20 -- bench/workload.py
    """
    if command and command[0].startswith("-") and command[0] not in ("--", "-m", "-c"):
        from ._report import UsageError

        raise UsageError(f"No such option {command[0]!r}.")  # an unknown option before the program (it would be taken for it)
    words = list(command[1:] if command[:1] == ("--",) else command)
    if not words:
        from ._report import UsageError

        raise UsageError("nothing to run: give the command after --, e.g. flamespace gate --base main -- bench/workload.py")
    from ..workflows.gate import GateStopped, gate
    from ._common import progress
    from ._recording import recorder_settings
    from ._report import report
    from ._sides import parse_max_missed

    # the records check the options before any checkout or install
    comparing = _compare.options_of(
        method, alternative, alpha, fdr, permutations, seed, min_delta, min_rel, normalize, min_runs, min_fraction
    )
    # without --rate, the sampler's default rate: the warm-up runs' until the gate chose one from them
    recorder = recorder_settings(
        mode,
        SAMPLING["rate"] if rate is None else rate,
        None,
        None,
        idle,
        not lines,
        threads,
        async_stacks,
        None,
        None,
        "folded",
        sampler,
    )
    rows = limit or None
    try:
        result = gate(
            base,
            words,
            runs=runs,
            head=head,
            repo=repo,
            out_dir=out_dir,
            warmup=warmup,
            install=not no_install,
            recorder=recorder,
            choose_rate=rate is None,
            options=comparing,
            pairing=pairing,
            force=force,
            max_missed=parse_max_missed(max_missed),
            cluster=cluster,
            keep=keep,
            keep_going=keep_going,
            subprocesses=subprocesses,
            show_output=show_output,
            store=store,
            include_all=include_all,
            limit=rows,
            say=_progress,
            track=progress,
            on_diagnostics=report,
        )
    except GateStopped as stopped:  # it cleaned up: exit as a process killed by the signal would
        raise SystemExit(stopped.exit_code) from None
    if _style.enabled(sys.stdout):  # report.txt again, in colour
        from ..workflows.gate_report import text_header

        write_out(text_header(result.run))
        _compare.echo_text_report(result.comparison, include_all, rows)
    else:
        write_out(_read(os.path.join(out_dir, "report.txt")))
    verdict = "regression (exit 3)" if result.regressed else "no regression (exit 0)"
    _progress(f"{verdict}; reports in {out_dir}/ (report.md, report.json, report.txt, delta.svg)")
    return _compare.EXIT_REGRESSION if result.regressed else 0


def _progress(message: str) -> None:
    warn(f"flamespace gate: {message}")


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as file:
        return file.read()


def _taken(spec: Command, names: tuple[str, ...], defaults: dict[str, object] | None = None) -> tuple[Option, ...]:
    """``spec``'s options named ``names`` (dests), as they are: one definition, one default;
    but for ``defaults`` (dest: default), where the gate's question differs from the command's."""
    import copy

    by_dest = {option.dest: option for option in spec.options}
    taken = []
    for name in names:
        option = by_dest[name]
        if defaults and name in defaults:
            option = copy.copy(option)
            option.default = defaults[name]
        taken.append(option)
    return tuple(taken)


#: The command: its own options, the program after them, then the options of compare and collect it takes.
SPEC = Command(
    "gate",
    run,
    [Argument("command", "raw", nargs=-1)],
    [
        Option(
            ("--base",),
            "base",
            required=True,
            metavar="REF",
            help="The baseline: a branch, tag or commit (e.g. origin/main), or stored runs: store:branch=main,last=30.",
        ),
        Option(
            ("--head",),
            "head",
            metavar="REF",
            help="The candidate (default: the working tree as it is: HEAD with its uncommitted changes and "
            "untracked files that are not ignored).",
        ),
        Option(("--repo",), "repo", "dir", ".", exists=True, show_default=True, help="A directory inside the git repository."),
        Option(
            ("-o", "--out-dir"),
            "out_dir",
            "dir",
            GATE_OUT_DIR,
            show_default=True,
            help="Where report.md, report.json, report.txt, the delta flame graphs and the runs go (a previous "
            "gate's runs there are replaced).",
        ),
        Option(
            ("--warmup",),
            "warmup",
            "int",
            GATE_WARMUP,
            minimum=0,
            show_default=True,
            help="Runs of each side before the kept ones, not written (fresh trees compile their .pyc files).",
        ),
        Option(
            ("--no-install",),
            "no_install",
            "flag",
            help="Run the trees as they are, with PYTHONPATH set to the tree (and its src/), in the interpreter "
            "flamespace runs in; the default when a tree has no pyproject.toml or setup.py.",
        ),
        Option(
            ("--lines",),
            "lines",
            "flag",
            help="Name frames with their line numbers (by default function and file: lines move between versions).",
        ),
        Option(("--keep",), "keep", "flag", help="Keep the worktrees and virtualenvs (their place is printed)."),
        *_taken(_compare.SPEC, COMPARE_OPTIONS, {"alternative": _compare.GATE_ALTERNATIVE}),  # regressions only: what fails CI
        *_taken(_collect.SPEC, COLLECT_OPTIONS),
        Option(
            ("--rate",),
            "rate",
            "float",
            None,
            metavar="HZ",
            help=f"Mean samples per second, {MIN_RATE:g} to {MAX_RATE:,g}. Default: a stored baseline's rate, else one "
            f"that gives each run about {AIMED_SAMPLES} samples, from the warm-up runs' length (at least "
            f"{SAMPLING['rate']:g}); said on stderr.",
        ),
    ],
    interspersed=False,
)
