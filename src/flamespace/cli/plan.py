"""flamespace plan: how many runs a side a comparison needs to see a change of a given size.

Declared as data (cli/_options.py).
"""

from __future__ import annotations

from ._common import INPUT_OPTIONS, echo, echo_json, parse_share
from ._store import CLUSTER_OPTION
from ._options import Argument, Command, Option
from .compare import ALTERNATIVES, DEFAULTS, POWER


def run(
    pilot: tuple[str, ...],
    detect: str,
    alpha: float,
    power: float,
    top: int | None,
    alternative: str,
    min_runs: int,
    min_fraction: str,
    as_json: bool,
    skip_invalid: bool,
    input_format: str | None,
    cluster: str | None = None,
    paired: bool = True,
    share: str = "1%",
    resamples: int | None = None,
    seed: int = 0,
) -> None:
    """Say how many runs a side `flamespace compare` needs to detect a change.

    PILOT is a sample of runs of the program (a directory of profiles, files or a quoted
    glob, read like compare's sides), e.g. 5-10 runs recorded with `flamespace collect`.
    For each stack holding at least --share of the total (at most --top of them): its mean
    and run-to-run spread, the change to detect in the profiles' unit, and the runs a side
    (pairs, as collect and gate record and test them; --unpaired otherwise) that detect it
    with --power at --alpha, family-wise over every stack compare would test; then what the
    other stacks would cost. Both versions are assumed to vary like the pilot, whose spreads
    are taken at their 80% upper confidence bound (10 pilot runs misjudge a spread by a
    third) and whose heavy tails ask for more runs; this first guess uses Bonferroni's t critical
    value (compare's max-t test never exceeds it) and respects the smallest p the design can
    reach (2/2^n for n pairs, two-sided). The stacks that set the plan (the 3 needing the most
    runs) are then checked by the test itself: comparisons drawn from the pilot's runs with
    the change put in, run through compare's max-t test, n moved until --power of them find
    it (the "power" column: the share found at the planned n; --resamples 0: formula only).

    \b
    Examples:
        flamespace plan runs/baseline --detect 5%
        flamespace plan 'pilot/*.folded' --detect 10ms --top 20
    """
    from ..stats.power import PILOT_CONFIDENCE, Change
    from ..stats.resampling import plan
    from ..stats.matrix import FrequencyFilter
    from ..stats.report import short_stack
    from ._sides import read_samples
    from ._table import print_table

    sample = read_samples({"pilot": pilot}, "plan", skip_invalid, input_format, cluster)["pilot"]
    change = Change.parse(detect, sample.unit)
    frequency = FrequencyFilter(min_runs, parse_share(min_fraction, "--min-fraction"))
    result = plan(
        sample,
        change,
        resamples,
        seed,
        alpha=alpha,
        power=power,
        top=top,
        alternative=alternative,
        frequency=frequency,
        paired=paired,
        share=parse_share(share, "--share"),
    )
    label = change.describe(sample.unit)
    if as_json:
        echo_json(
            {
                "pilot_runs": result.pilot_runs,
                "unit": result.unit,
                "alpha": alpha,
                "power": power,
                "alternative": alternative,
                "detect": {"value": change.value, "relative": change.relative},
                "tested": result.tested,
                "minimum_runs": result.minimum,
                "runs": result.runs,
                "paired": result.paired,
                "share": result.share,
                "seconds": result.seconds(result.runs) if result.runs else None,
                "rest": {"stacks": len(result.rest), "runs": result.rest_runs},
                "resamples": result.resamples,
                "stacks": [
                    {
                        "stack": list(r.stack),
                        "mean": r.mean,
                        "sd": r.sd,
                        "change": r.change,
                        "runs": r.runs or None,
                        "first_guess": r.first_guess or None,
                        "power": r.power,
                    }
                    for r in result.rows
                ],
            }
        )
        return
    unit = sample.unit or "unknown unit"
    echo(
        f"Pilot: {result.pilot_runs} runs, {result.tested} stacks tested ({unit}); {'paired' if result.paired else 'unpaired'} "
        f"design; α = {alpha:g} family-wise, "
        f"{alternative}, power {100 * power:g}%; spreads taken at their {100 * PILOT_CONFIDENCE:g}% upper "
        "confidence bound (a small pilot misjudges them)."
    )
    rows = [
        (
            short_stack(r.stack),
            f"{r.mean:,.4g}",
            f"{r.sd:,.4g}",
            f"{r.change:,.4g}",
            f"{r.runs:,}" if r.runs else "out of reach",
            "-" if r.power is None else f"{100 * r.power:.0f}%",
        )
        for r in result.rows
    ]
    print_table(
        None,
        ["stack", "mean", "sd", "change", "pairs" if result.paired else "runs a side", "power"],
        rows,
        [False, True, True, True, True, True],
    )
    if any(r.power is not None for r in result.rows):
        echo(
            f"power: the share of {result.resamples:,} comparisons drawn from the pilot's runs (the change added) that "
            f"compare's max-t test found at that n; ± {100 * (0.16 / result.resamples) ** 0.5:.1f} points (Monte-Carlo); "
            "'-': the formula's answer, not checked."
        )
    echo(answer(result, label))
    echo(rest_line(result, label))


def rest_line(result, label: str) -> str:
    """What planning for every other tested stack too would cost."""
    if not result.rest:
        return f"Every tested stack holds ≥ {100 * result.share:g}% of the total and is planned for."
    count = len(result.rest)
    smaller = f"The other {count} stack{'s' if count != 1 else ''} (< {100 * result.share:g}% of the total each, or beyond --top)"
    if result.rest_runs is None:
        return f"{smaller} {'are' if count != 1 else 'is'} out of reach for a {label} change; --share 0 plans for them all."
    return f"{smaller} would need {result.rest_runs:,} {_side(result)}{_cost(result, result.rest_runs)} to show a {label} change too."


def _side(result) -> str:
    return "pairs" if result.paired else "runs a side"


def _cost(result, runs: int) -> str:
    seconds = result.seconds(runs)
    return "" if seconds is None else f" (about {seconds:,.0f} s of program time, both sides)"


def answer(result, label: str) -> str:
    """The plan in one sentence."""
    count = len(result.rows)
    floor = f"the exact permutation test needs at least {result.minimum} {_side(result)} to reach α = {result.alpha:g}" + (
        f" (the smallest p of n pairs is {'2' if result.alternative == 'two-sided' else '1'}/2^n)" if result.paired else ""
    )
    if not count:
        return f"No stack passes the frequency filter; {floor}."
    if result.runs is None:
        reachable = [r for r in result.rows if r.runs]
        if not reachable:
            return f"No number of runs detects a {label} change in these stacks; {floor}."
        most = max(r.runs for r in reachable)
        return (
            f"{most} {_side(result)}{_cost(result, most)} detect a {label} change in {len(reachable)} of the {count} stacks planned for "
            f"(the others are out of reach); {floor}."
        )
    return (
        f"{result.runs} {_side(result)}{_cost(result, result.runs)} detect a {label} change in the {count} stacks "
        f"holding ≥ {100 * result.share:g}% of the total; {floor}."
    )


SPEC = Command(
    "plan",
    run,
    [Argument("pilot", "str", nargs=-1, required=True, metavar="PILOT...")],
    [
        Option(
            ("--detect",),
            "detect",
            required=True,
            metavar="CHANGE",
            help="The change to detect: relative to each stack's mean (5%), or absolute in the profiles' unit (120, or 10ms for time units).",
        ),
        Option(
            ("--alpha",),
            "alpha",
            "float",
            DEFAULTS["alpha"],
            minimum=0,
            maximum=1,
            open=True,
            show_default=True,
            help="Family-wise error rate of the comparison to plan.",
        ),
        Option(
            ("--power",),
            "power",
            "float",
            POWER,
            minimum=0,
            maximum=1,
            open=True,
            show_default=True,
            help="Chance of detecting a change of that size.",
        ),
        Option(
            ("--share",),
            "share",
            "str",
            "1%",
            metavar="X",
            show_default=True,
            help="Plan for the stacks holding at least this share of the total (0: every tested stack).",
        ),
        Option(("--top",), "top", "int", None, minimum=1, help="At most this many of them (the widest first)."),
        Option(
            ("--paired",),
            "paired",
            "pair",
            True,
            show_default=True,
            secondary=("--unpaired",),
            help="The design compare will test: pairs (as collect and gate record them) or independent runs.",
        ),
        Option(
            ("--alternative",),
            "alternative",
            "choice",
            DEFAULTS["alternative"],
            choices=ALTERNATIVES,
            show_default=True,
            help="The direction compare will test (two-sided: compare's default; greater: regressions only, as gate tests).",
        ),
        Option(
            ("--resamples",),
            "resamples",
            "int",
            None,
            minimum=0,
            help="Comparisons drawn from the pilot per power measurement when checking the plan (0: the formula alone).",
        ),
        Option(("--seed",), "seed", "int", 0, show_default=True, help="Seed of the resampling (the same seed, the same plan)."),
        Option(
            ("--min-runs",),
            "min_runs",
            "int",
            DEFAULTS["min_runs"],
            minimum=0,
            show_default=True,
            help="As compare: stacks seen in fewer runs are not tested.",
        ),
        Option(
            ("--min-fraction",),
            "min_fraction",
            "str",
            f"{100 * DEFAULTS['min_fraction']:g}%",
            metavar="X",
            show_default=True,
            help="... nor in less than this share of the runs.",
        ),
        Option(("--json",), "as_json", "flag", help="Print JSON instead of a table."),
        *INPUT_OPTIONS,
        CLUSTER_OPTION,
    ],
)
