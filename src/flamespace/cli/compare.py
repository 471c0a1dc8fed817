"""flamespace compare: which stacks changed between two samples of runs, with a stated error rate."""

from __future__ import annotations

import os
import shutil
import sys
from typing import Optional, Sequence

import click

from ..formats import registry
from ..stats.comparison import ALTERNATIVES, DEFAULT_ALTERNATIVE, DEFAULT_METHOD, DEFAULT_PERMUTATIONS, METHODS
from ._common import input_options, parse_share
from ._samples import read_samples

EXIT_REGRESSION = 3
PARTS = ("appeared", "grown", "disappeared", "shrunk")


@click.command("compare")
@click.option("-a", "--baseline", multiple=True, required=True, metavar="PATH",
              help="Baseline runs: a profile file per run, a directory of them, or a quoted glob. Repeatable.")
@click.option("-b", "--candidate", multiple=True, required=True, metavar="PATH", help="Candidate runs, as --baseline.")
@click.option("-m", "--method", type=click.Choice(list(METHODS)), default=DEFAULT_METHOD, show_default=True,
              help="maxt: exact permutation test (any number of stacks, no normality); welch: per-stack t-tests; "
                   "hotelling: Tornetta's T² test (two-sided, few stacks).")
@click.option("--alternative", type=click.Choice(list(ALTERNATIVES)), default=DEFAULT_ALTERNATIVE, show_default=True,
              help="greater: test for regressions only (candidate > baseline), the gate's question; less: improvements; "
                   "two-sided: any change.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05, show_default=True,
              help="Error rate: family-wise (chance of any false report), or false-discovery rate with --fdr.")
@click.option("--fdr", type=click.Choice(["off", "bh", "by"]), default="off", show_default=True,
              help="off: family-wise error (maxt; Holm for welch); bh (Benjamini–Hochberg) or by (Benjamini–Yekutieli, "
                   "any dependence): false-discovery rate instead.")
@click.option("--permutations", type=click.IntRange(1), default=DEFAULT_PERMUTATIONS, show_default=True,
              help="maxt's budget: every relabelling of the runs when there are no more (exact), else this many random ones.")
@click.option("--seed", type=int, default=0, show_default=True, help="maxt's random seed (same seed, same result).")
@click.option("--min-delta", type=click.FloatRange(0), default=0.0, metavar="X", help="Ignore changes smaller than X (in the profiles' unit).")
@click.option("--min-rel", metavar="X", default="0", help="Ignore changes smaller than X of the stack's baseline mean (0.02 or 2%).")
@click.option("--normalize", is_flag=True, help="Compare shares of each run's total (runs of different length or load).")
@click.option("--min-runs", type=click.IntRange(0), default=2, show_default=True, help="Test only stacks seen in at least this many runs (both sides pooled).")
@click.option("--min-fraction", metavar="X", default="5%", show_default=True, help="... and in at least this share of all runs.")
@click.option("--json", "as_json", is_flag=True, help="Print the full result as JSON.")
@click.option("--markdown", is_flag=True, help="Print the report as Markdown (for a CI comment).")
@click.option("--all", "include_all", is_flag=True, help="List every tested stack, not only the significant ones.")
@click.option("--limit", type=click.IntRange(0), default=30, show_default=True, help="Rows in the table (0: all).")
@click.option("-d", "--out-dir", type=click.Path(file_okay=False), help="Write appeared/grown/disappeared/shrunk.folded (the parts of Δ_r), delta.folded and "
                   "the differential flame graphs delta.svg and delta-baseline.svg.")
@click.option("--no-header", is_flag=True, help="Do not write '# key: value' metadata lines in --out-dir files.")
@input_options
def command(
    baseline: Sequence[str], candidate: Sequence[str], method: str, alternative: str, alpha: float, fdr: str,
    permutations: int, seed: int,
    min_delta: float, min_rel: str, normalize: bool, min_runs: int, min_fraction: str, as_json: bool, markdown: bool,
    include_all: bool, limit: int, out_dir: Optional[str], no_header: bool, skip_invalid: bool, input_format: Optional[str],
) -> int:
    """Test which stacks differ between the mean profiles of two samples of runs.

    Give each side many runs of the same program (say 20–50 each): a profile varies from
    run to run, so one run against one run is mostly noise. The report lists the stacks
    whose change is significant (and beyond --min-delta/--min-rel), with both means, Δ,
    an interval for Δ and the adjusted p-value.

    By default the test is one-sided (did anything regress?) and controls the family-wise
    error: the chance that the gate fails on an unchanged program is at most --alpha,
    whatever the number of stacks. The report also gives, per stack, the smallest change
    the comparison could have detected (80% power); `flamespace plan` says how many runs
    a side a change of a given size needs.

    Exit code 0: no significant regression; 3: some stack significantly appeared or grew
    beyond the margin (gate CI on it); 1: bad usage or input.

    \b
    Examples:
        flamespace compare --baseline runs/main/ --candidate runs/pr/
        flamespace compare -a 'base/*.folded' -b 'pr/*.folded' --min-rel 2% --markdown
        flamespace compare -a A/ -b B/ --alternative two-sided --fdr by --out-dir changes/
    """
    from ..stats.comparison import compare
    from ..stats.sample import FrequencyFilter
    from ..stats import report

    if as_json and markdown:
        raise click.UsageError("choose one of --json and --markdown")
    margin_rel = parse_share(min_rel, "--min-rel", maximum=None)
    frequency = FrequencyFilter(min_runs, parse_share(min_fraction, "--min-fraction"))
    samples = read_samples({"baseline": baseline, "candidate": candidate}, "compare", skip_invalid, input_format)
    result = compare(
        samples["baseline"], samples["candidate"], method, alpha, alternative=alternative, fdr=None if fdr == "off" else fdr,
        permutations=permutations, seed=seed,
        min_delta=min_delta, min_rel=margin_rel, normalize=normalize, frequency=frequency,
    )
    if out_dir:
        write_parts(result, out_dir, not no_header)
    shown = limit or None
    if as_json:
        click.echo(report.to_json(result))
    elif markdown:
        click.echo(report.markdown(result, include_all, shown), nl=False)
    else:
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else 200
        click.echo(report.text(result, include_all, shown, width), nl=False)
        if out_dir:
            click.echo(f"Δ_r written to {out_dir}/ ({', '.join(f'{p}.folded' for p in PARTS)}, delta.folded, "
                       "delta.svg, delta-baseline.svg)")
    return EXIT_REGRESSION if result.regressed else 0


def write_parts(result, out_dir: str, header: bool) -> None:  # type: ignore[no-untyped-def]
    """The four parts of Δ_r (empty files when nothing changed), Δ_r as two-column differential
    input, and Δ_r drawn as differential flame graphs (see :func:`write_delta_svgs`)."""
    os.makedirs(out_dir, exist_ok=True)
    for name, graph in zip(PARTS, result.parts):
        registry.write(graph, os.path.join(out_dir, f"{name}.folded"), header=header)
    delta = result.differential()
    registry.write(delta, os.path.join(out_dir, "delta.folded"), header=header)
    write_delta_svgs(delta, result.unit, out_dir)


def write_delta_svgs(delta, unit: Optional[str], out_dir: str) -> None:  # type: ignore[no-untyped-def]
    """delta.svg: the significant stacks at their candidate means, red where they grew or
    appeared, blue where they shrank. A differential flame graph draws one side's widths, so
    stacks that disappeared are invisible there: delta-baseline.svg draws the baseline's
    widths with the same colours (red still means slower in the candidate)."""
    from ..core.differential import Differential
    from ..render import SvgOptions, svg

    common = dict(countname=unit or "samples", colors="hot", empty_text="No significant change: Δ_r is empty.")
    svg(delta, SvgOptions(title="Significant changes (Δ_r), widths of the candidate",
                          subtitle="red: appeared or grew, blue: shrank; disappeared stacks are in delta-baseline.svg",
                          **common), os.path.join(out_dir, "delta.svg"))
    svg(Differential(delta.after, delta.before),
        SvgOptions(title="Significant changes (Δ_r), widths of the baseline",
                   subtitle="red: grew, blue: shrank or disappeared; appeared stacks are in delta.svg",
                   negate=True, **common), os.path.join(out_dir, "delta-baseline.svg"))
