"""flamespace compare: which stacks changed between two samples of runs, with a stated error rate.

Declared as data (cli/_options.py).
"""

from __future__ import annotations

import sys

from . import _style
from ._common import INPUT_OPTIONS, echo, parse_share
from ._options import Command, Option
from ._report import write_out
from ._sides import GUARD_OPTIONS, expand_sides, parse_max_missed, show_findings
from ._store import CLUSTER_OPTION

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings (PEP 563)
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Sequence

    from ..stats.comparison import CompareOptions, Comparison

EXIT_REGRESSION = 3

#: The statistics' choices and defaults as the options show them: stats.comparison's METHODS,
#: ALTERNATIVES, FDR_CHOICES, COMPARE_DEFAULTS and GATE_ALTERNATIVE, stats.power's POWER. Copied so that
#: ``--help`` (and gate's and plan's) need not import the statistics (dataclasses, typing:
#: start-up, docs/performance.md); tests/cli/test_defaults.py checks the copy against them.
METHODS = ("maxt", "welch", "hotelling")
ALTERNATIVES = ("greater", "less", "two-sided")
FDR_CHOICES = ("off", "bh", "by")
DEFAULTS: dict[str, Any] = {
    "method": "maxt",
    "alternative": "two-sided",
    "alpha": 0.05,
    "fdr": "off",
    "permutations": 2000,
    "seed": 0,
    "min_delta": 0.0,
    "min_rel": 0.0,
    "normalize": False,
    "normalize_load": False,
    "min_runs": 2,
    "min_fraction": 0.05,
}
#: gate's --alternative (stats.comparison's GATE_ALTERNATIVE): regressions only.
GATE_ALTERNATIVE = "greater"
POWER = 0.8
PAIRING = ("auto", "on", "off")
#: maxt's statistics (stats/moderation.py: STATISTICS), the default first.
STATISTICS = ("auto", "welch", "moderated")
DEFAULTS["statistic"] = STATISTICS[0]


def run(
    baseline: Sequence[str],
    candidate: Sequence[str],
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
    as_json: bool,
    markdown: bool,
    include_all: bool,
    limit: int,
    out_dir: str | None,
    no_header: bool,
    skip_invalid: bool,
    input_format: str | None,
    force: bool = False,
    max_missed: str | None = None,
    normalize_load: bool = False,
    html_path: str | None = None,
    cluster: str | None = None,
    map_rules: Sequence[str] = (),
    statistic: str = STATISTICS[0],
) -> int:
    """Test which stacks differ between the mean profiles of two samples of runs.

    Give each side many runs of the same program (say 20–50 each): a profile varies from
    run to run, so one run against one run is mostly noise. The report lists the stacks
    whose change is significant (and beyond --min-delta/--min-rel), with both means, Δ,
    an interval for Δ and the adjusted p-value.

    By default the test is two-sided: it reports what got slower (appeared, grew) and what
    got faster (disappeared, shrank), with one family-wise error over both: the chance of
    any false report, in either direction, is at most --alpha, whatever the number of
    stacks. --alternative greater tests regressions only (as `flamespace gate` does), with
    more power for them. The report also gives, per stack, the smallest change the
    comparison could have detected (80% power); `flamespace plan` says how many runs a side
    a change of a given size needs.

    Exit code 0: no significant regression (improvements alone exit 0); 3: some stack
    significantly appeared or grew beyond the margin (gate CI on it); 1: bad usage or input.

    Guard rails: runs that differ in unit, mode or program are refused (--force goes on
    where that makes sense), other differences (rate, Python, host) are warnings, empty runs
    are left out, and a note gives each side's run time and the machine's drift.

    \b
    Examples:
        flamespace compare --baseline runs/main/ --candidate runs/pr/
        flamespace compare -a 'base/*.folded' -b 'pr/*.folded' --min-rel 2% --markdown
        flamespace compare -a A/ -b B/ --alternative greater --fdr by --out-dir changes/
    """
    from ..formats import check_output_dir
    from ..stats import report
    from ..workflows.samples import compare_sides
    from ._common import progress
    from ._report import report as report_diagnostics

    if as_json and markdown:
        from ._report import UsageError

        raise UsageError("choose one of --json and --markdown")
    options = options_of(
        method=method,
        alternative=alternative,
        alpha=alpha,
        fdr=fdr,
        permutations=permutations,
        seed=seed,
        min_delta=min_delta,
        min_rel=min_rel,
        normalize=normalize,
        normalize_load=normalize_load,
        min_runs=min_runs,
        min_fraction=min_fraction,
        statistic=statistic,
    )
    if out_dir is not None:  # '' too: check_output_dir says it is empty
        check_output_dir(out_dir)  # before reading the samples
    if html_path is not None:
        from ..formats import check_output

        check_output(html_path)
    rename = None
    if map_rules:
        from ..core.transforms import stack_renamer
        from .filter import parse_map_rule

        rename = stack_renamer([parse_map_rule(rule) for rule in map_rules])
    compared = compare_sides(
        expand_sides({"baseline": baseline, "candidate": candidate}),
        options,
        pairing=pairing,
        on_findings=lambda found: show_findings(found, "compare"),
        force=force,
        max_missed=parse_max_missed(max_missed),
        skip_invalid=skip_invalid,
        input_format=input_format,
        cluster=cluster,
        rename=rename,
        track=progress,
        on_diagnostics=report_diagnostics,
    )
    result, samples = compared.comparison, compared.samples
    if out_dir is not None:
        from ..render.comparison_files import write_comparison

        write_comparison(result, out_dir, header=not no_header, samples=samples)
    if html_path is not None:
        from ..render.comparison_files import comparison_page

        comparison_page(result, html_path, samples)
    shown = limit or None
    if as_json:
        echo(report.to_json(result))
    elif markdown:
        write_out(report.markdown(result, include_all, shown))
    else:
        echo_text_report(result, include_all, shown)
        if out_dir:
            from ..render.comparison_files import PARTS

            echo(
                f"Δ_r written to {out_dir}/ ({', '.join(f'{p}.folded' for p in PARTS)}, delta.folded, "
                "delta.svg, delta-baseline.svg)"
            )
    return EXIT_REGRESSION if result.regressed else 0


def echo_text_report(result: Comparison, include_all: bool, limit: int | None) -> None:
    """The text report on stdout, as wide as the terminal (200 columns in a pipe); coloured as
    cli/_style.py says: regressions red, improvements green, other rows dim, the verdict bold."""
    from ..stats import report
    from ._table import stdout_width

    coloured = _style.enabled(sys.stdout)
    write_out(
        report.text(
            result,
            include_all,
            limit,
            stdout_width(),
            row_style=lambda change: _style.kind_style(change.kind),
            verdict_style=_style.VERDICT,
            paint=_style.paint if coloured else None,
        )
    )


def options_of(
    method: str,
    alternative: str,
    alpha: float,
    fdr: str,
    permutations: int,
    seed: int | None,
    min_delta: float,
    min_rel: str,
    normalize: bool,
    min_runs: int,
    min_fraction: str,
    statistic: str = STATISTICS[0],
    normalize_load: bool = False,
    **others: object,
) -> CompareOptions:
    """The CompareOptions of compare's options (gate's too: it takes them from compare), which
    checks them; ``others`` (the command's other options) are left alone."""
    from ..stats.comparison import CompareOptions
    from ..stats.matrix import FrequencyFilter

    return CompareOptions(
        method=method,
        alpha=alpha,
        alternative=alternative,
        fdr=fdr,
        permutations=permutations,
        seed=seed,
        min_delta=min_delta,
        min_rel=parse_share(min_rel, "--min-rel", maximum=None),
        normalize=normalize,
        normalize_load=normalize_load,
        frequency=FrequencyFilter(min_runs, parse_share(min_fraction, "--min-fraction")),
        statistic=statistic,
    )


#: The options of compare; gate takes most of them as they are (same names, defaults, help).
SPEC = Command(
    "compare",
    run,
    [],
    [
        Option(
            ("-a", "--baseline"),
            "baseline",
            "multiple",
            required=True,
            metavar="PATH",
            help="Baseline runs: a profile file per run, a directory of them, or a quoted glob. Repeatable.",
        ),
        Option(
            ("-b", "--candidate"), "candidate", "multiple", required=True, metavar="PATH", help="Candidate runs, as --baseline."
        ),
        Option(
            ("-m", "--method"),
            "method",
            "choice",
            DEFAULTS["method"],
            choices=METHODS,
            show_default=True,
            help="maxt: exact permutation test (any number of stacks, no normality); welch: per-stack t-tests; "
            "hotelling: Tornetta's T² test (two-sided, few stacks).",
        ),
        Option(
            ("--alternative",),
            "alternative",
            "choice",
            DEFAULTS["alternative"],
            choices=ALTERNATIVES,
            show_default=True,
            help="two-sided: regressions and improvements, one family-wise error over both (compare's default); "
            "greater: regressions only (candidate > baseline), the gate's question and default; less: improvements only.",
        ),
        Option(
            ("--alpha",),
            "alpha",
            "float",
            DEFAULTS["alpha"],
            show_default=True,
            help="Error rate: family-wise (chance of any false report), or false-discovery rate with --fdr.",
        ),
        Option(
            ("--fdr",),
            "fdr",
            "choice",
            DEFAULTS["fdr"],
            choices=FDR_CHOICES,
            show_default=True,
            help="off: family-wise error (maxt; Holm for welch); bh (Benjamini–Hochberg) or by (Benjamini–Yekutieli, "
            "any dependence): false-discovery rate instead.",
        ),
        Option(
            ("--permutations",),
            "permutations",
            "int",
            DEFAULTS["permutations"],
            show_default=True,
            help="maxt's budget: every relabelling of the runs when there are no more (exact), else this many random ones.",
        ),
        Option(
            ("--seed",), "seed", "int", DEFAULTS["seed"], show_default=True, help="maxt's random seed (same seed, same result)."
        ),
        Option(
            ("--pairing",),
            "pairing",
            "choice",
            "auto",
            choices=PAIRING,
            show_default=True,
            help="maxt: test the runs of each round of an interleaved collection as pairs, so that drift of the machine "
            "between rounds cannot look like a change (auto: when every run is half of a round of a collection both "
            "sides share and the pairs can reach α; else unpaired, every run used, a note says why).",
        ),
        Option(
            ("--statistic",),
            "statistic",
            "choice",
            DEFAULTS["statistic"],
            choices=STATISTICS,
            show_default=True,
            help="maxt's statistic: welch (each stack's own variances), moderated (each variance shrunk toward a prior "
            "from all stacks: more power with few runs when stacks of a size are alike in noise, less for a stack "
            "much quieter than its peers; exact either way), or auto (moderated when the smaller side has under 5 "
            "runs, else welch).",
        ),
        Option(
            ("--min-delta",),
            "min_delta",
            "float",
            DEFAULTS["min_delta"],
            metavar="X",
            help="Ignore changes smaller than X (in the profiles' unit).",
        ),
        Option(
            ("--min-rel",),
            "min_rel",
            "str",
            f"{DEFAULTS['min_rel']:g}",
            metavar="X",
            help="Ignore changes smaller than X of the stack's baseline mean (0.02 or 2%).",
        ),
        Option(
            ("--normalize",),
            "normalize",
            "flag",
            DEFAULTS["normalize"],
            help="Compare shares of each run's total (runs of different length or load).",
        ),
        Option(
            ("--normalize-load",),
            "normalize_load",
            "flag",
            DEFAULTS["normalize_load"],
            help="Divide each run by its load: the median over the stacks of each one's value against its usual "
            "(runs of different load, e.g. a service's windows: one stack that grew is outvoted and barely moves "
            "the others, where it moves all their shares).",
        ),
        Option(
            ("--min-runs",),
            "min_runs",
            "int",
            DEFAULTS["min_runs"],
            show_default=True,
            help="Test only stacks seen in at least this many runs (both sides pooled).",
        ),
        Option(
            ("--min-fraction",),
            "min_fraction",
            "str",
            f"{100 * DEFAULTS['min_fraction']:g}%",
            metavar="X",
            show_default=True,
            help="... and in at least this share of all runs.",
        ),
        Option(("--json",), "as_json", "flag", help="Print the full result as JSON."),
        Option(("--markdown",), "markdown", "flag", help="Print the report as Markdown (for a CI comment)."),
        Option(("--all",), "include_all", "flag", help="List every tested stack, not only the significant ones."),
        Option(("--limit",), "limit", "int", 30, minimum=0, show_default=True, help="Rows in the table (0: all)."),
        Option(
            ("-d", "--out-dir"),
            "out_dir",
            "dir",
            help="Write appeared/grown/disappeared/shrunk.folded (the parts of Δ_r), delta.folded and "
            "the differential flame graphs delta.svg and delta-baseline.svg.",
        ),
        Option(("--no-header",), "no_header", "flag", help="Do not write '# key: value' metadata lines in --out-dir files."),
        Option(
            ("--html",),
            "html_path",
            "path",
            metavar="FILE",
            help="Write a comparison page: both mean profiles, only the significant stacks coloured, each test's "
            "interval and p in the tooltips (flamespace html --diff's views).",
        ),
        Option(
            ("--map",),
            "map_rules",
            "multiple",
            metavar="'RE=REPL'",
            help="Rename frames on both sides before comparing, as filter --map (repeatable, in order): "
            "e.g. --map '^(.*) \\(\\w+/(.*)\\)$=\\1 (\\2)' for two checkouts in a/ and b/.",
        ),
        *GUARD_OPTIONS,
        *INPUT_OPTIONS,
        CLUSTER_OPTION,
    ],
)
