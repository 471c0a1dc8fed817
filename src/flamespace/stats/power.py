"""What a comparison can see: smallest reachable p-values, minimum detectable effects, runs needed.

Pure functions of the design (runs per side, number of stacks tested, α, power) and of the
per-stack spread; :func:`~flamespace.stats.comparison.compare` and ``flamespace plan`` use
them. The detectable effect is the usual normal approximation (c + z_power)·se: a change of
that size gives a t statistic whose mean lies z_power standard deviations beyond the critical
value c, so it is found with probability ≈ ``power``. For a permutation test, c is the test's
own critical value (its permutation quantile); for ``plan``, c is Bonferroni's t quantile,
which maxt's critical value never exceeds.
"""

from __future__ import annotations

import math
from .._record import Record, record
from typing import TYPE_CHECKING, Callable
from collections.abc import Sequence

from ..errors import ArgumentError
from ._result import check_alternative

if TYPE_CHECKING:
    import numpy as np

    from .._types import Stack
    from .matrix import FrequencyFilter, Sample

#: The 80% power the minimum detectable effect is stated at.
POWER = 0.8
#: Beyond this many runs a side, ``runs_needed`` answers 0 (not reachable in practice).
MAX_RUNS = 100_000
#: ``plan`` takes the pilot's variances at this upper confidence bound (Browne 1995): a pilot of
#: 10 runs misjudges a standard deviation by ±25-45%, and runs planned on its point estimate
#: fell to 18-30% power when it had guessed low (docs/performance.md).
PILOT_CONFIDENCE = 0.8


def assured_padding(runs: int, kurtosis: float, critical: float, power: float) -> float:
    """The factor on a pilot's variances after which the n planned reaches ``power`` on average over pilots.

    A pilot of m runs misjudges a variance by s²/σ² ≈ V ~ χ²_d/d with 1/d = 1/(m − 1) + κ/(2m)
    (Var s²/σ² = 2/(m − 1) + κ/m: heavy tails make it far noisier than normal runs'). A plan
    scaled by f asks f·V times the n that reaches the power, so its power is
    Φ((c + z)·√(f·V) − c) (c the test's critical value, z the power's normal quantile). Power
    is concave in n about 80%, so a pilot that guessed low loses more than one that guessed
    high gains: f solves E_V[Φ((c + z)√(f·V) − c)] = power (200 quantiles of V, bisection).
    The resampled check of ``plan`` scales the pilot's spreads by it (κ the pilot's pooled
    kurtosis of single runs); it replaced a fixed 70% confidence bound calibrated on a few
    pilots (docs/statistics.md, "plan checked by resampling").
    """
    import numpy as np

    from ._tails import normal_ppf

    if runs < 2:
        return 1.0
    d = 1.0 / (1.0 / (runs - 1) + max(kurtosis, 0.0) / (2.0 * runs))
    # χ²_d/d at 200 quantiles by Wilson–Hilferty (a cube of a normal; the exact χ² quantiles cost 1.5 s)
    z = np.array([normal_ppf((k + 0.5) / 200) for k in range(200)])
    v = np.maximum(1.0 - 2.0 / (9.0 * d) + z * math.sqrt(2.0 / (9.0 * d)), 0.0) ** 3
    reach = critical + normal_ppf(power)

    def cdf(x: np.ndarray) -> np.ndarray:
        return np.array([0.5 * math.erfc(-float(e) / math.sqrt(2.0)) for e in x])

    def average(factor: float) -> float:
        return float(np.mean(cdf(reach * np.sqrt(factor * v) - critical)))

    low, high = 0.5, 2.0
    while average(high) < power and high < 1e4:
        low, high = high, 2 * high
    while average(low) > power and low > 1e-3:
        low, high = low / 2, low
    for _ in range(40):
        middle = math.sqrt(low * high)
        low, high = (middle, high) if average(middle) < power else (low, middle)
    return high


def relabellings(n1: int, n2: int, paired: bool = False) -> int:
    """How many ways the pooled runs can be split into groups of n1 and n2; ``paired``: with
    one run of each pair (n1 = n2 pairs) on each side, 2^n1."""
    return 2**n1 if paired else math.comb(n1 + n2, n1)


def smallest_p(n1: int, n2: int, permutations: int, alternative: str, paired: bool = False) -> float:
    """The smallest p-value a permutation test of this design can give.

    Enumerated exactly (C(n1+n2, n1), or 2^n for n pairs, ≤ ``permutations``): 1/C
    one-sided; two-sided with n1 = n2 the mirrored labelling has the same |t|, so 2/C.
    Random relabellings: 1/(B+1).
    """
    check_alternative(alternative)
    total = relabellings(n1, n2, paired)
    if total <= permutations:
        return (2.0 if alternative == "two-sided" and n1 == n2 else 1.0) / total
    return 1.0 / (permutations + 1)


def min_runs(alpha: float, alternative: str, permutations: int | None = None, paired: bool = False) -> int:
    """The fewest runs a side (both sides equal) for which a permutation test can reach ``alpha``
    (with at least ``permutations`` random relabellings when enumeration is out of budget)."""
    budget = permutations if permutations is not None else 10**12
    for n in range(2, MAX_RUNS):
        if smallest_p(n, n, budget, alternative, paired) <= alpha:
            return n
    raise ArgumentError(f"no design reaches alpha = {alpha}")  # pragma: no cover - alpha > 0


def z(power: float) -> float:
    """The standard normal quantile of ``power`` (0.84 for 80%)."""
    from ._tails import normal_ppf

    if not 0 < power < 1:
        raise ArgumentError(f"power must be between 0 and 1, not {power}")
    return normal_ppf(power)


def degrees_of_freedom(x1: np.ndarray, x2: np.ndarray, paired: bool = False) -> np.ndarray:
    """Per-stack degrees of freedom of the t the test computes: n − 1 for pairs, Welch–Satterthwaite otherwise."""
    import numpy as np

    n1, n2 = len(x1), len(x2)
    p = x1.shape[1] if x1.ndim == 2 else 0
    if paired:
        return np.full(p, max(n1 - 1, 1), dtype=float)
    a, b = x1.var(axis=0, ddof=1) / n1, x2.var(axis=0, ddof=1) / n2
    with np.errstate(invalid="ignore", divide="ignore"):
        df = (a + b) ** 2 / (a * a / (n1 - 1) + b * b / (n2 - 1))
    return np.where(np.isfinite(df), np.clip(df, min(n1, n2) - 1, n1 + n2 - 2), n1 + n2 - 2).astype(float)


def excess_kurtosis(x1: np.ndarray, x2: np.ndarray, paired: bool = False) -> float:
    """The excess kurtosis of the runs' residuals, averaged over stacks (one stack's few runs cannot tell).

    Heavy tails make the standard error noisier than a normal sample's (Var s²/σ⁴ = 2/df + κ/n),
    so a change of the size (c + z)·se is found less often than the normal formula promises.
    Each stack's figure is the small-sample corrected G₂ (the raw m₄/m₂² of n runs cannot exceed
    n, and understates a rare stall badly); never below 0 (light tails are not credited).
    """
    return kurtosis_of([x2 - x1] if paired else [x1, x2])


def kurtosis_of(groups: Sequence[np.ndarray]) -> float:
    """:func:`excess_kurtosis` of the runs in ``groups`` (runs × stacks each), each around its own means.

    Stacks weigh by their spread: a rare stack (absent in most runs, a huge kurtosis) says
    little about the tails of the wide stacks the figure matters for."""
    import numpy as np

    figures, weights = [], []
    for x in groups:
        if len(x) < 4:
            continue
        g2, m2, live = _corrected_g2(x)
        figures.append(g2[live])
        weights.append(np.sqrt(m2[live]))
    if not figures or not sum(len(f) for f in figures):
        return 0.0
    return float(max(float(np.average(np.concatenate(figures), weights=np.concatenate(weights))), 0.0))


def _corrected_g2(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per stack of ``x`` (runs × stacks, at least 4 runs): the small-sample corrected excess kurtosis G₂
    (0 where a stack does not vary), the variance m₂, and which stacks vary."""
    import numpy as np

    n = len(x)
    residuals = x - x.mean(axis=0)
    m2 = (residuals**2).mean(axis=0)
    live = m2 > 0
    g2 = np.zeros(x.shape[1])
    g2[live] = (residuals[:, live] ** 4).mean(axis=0) / m2[live] ** 2 - 3.0
    corrected = np.where(live, ((n + 1) * g2 + 6.0) * (n - 1) / ((n - 2) * (n - 3)), 0.0)
    return corrected, m2, live


def kurtosis_by_stack(groups: Sequence[np.ndarray]) -> np.ndarray:
    """Each stack's excess kurtosis, shrunk toward the pooled figure (:func:`kurtosis_of`) as far as its runs are unsure.

    One stack's n runs give a G₂ with sampling variance v ≈ 24n(n−1)²/((n−3)(n−2)(n+3)(n+5)); the
    stacks' G₂ scatter around the pooled figure by τ² + v, so τ² (how much stacks truly differ)
    is their spread-weighted scatter less v, and each stack moves from the pooled figure
    toward its own G₂ by τ²/(τ² + v) (empirical Bayes). A program whose widest stack has light
    tails and whose small stacks stall no longer charges the wide one for the others' stalls;
    a stack whose few runs happened to see no stall still gets most of the pooled allowance.
    Never below 0. Stacks without variance get the pooled figure.
    """
    import numpy as np

    pooled = kurtosis_of(groups)
    stacks = groups[0].shape[1] if groups and groups[0].ndim == 2 else 0
    total, count, spread, variance = np.zeros(stacks), np.zeros(stacks), np.zeros(stacks), np.zeros(stacks)
    for x in groups:
        n = len(x)
        if n < 4:
            continue
        g2, m2, live = _corrected_g2(x)
        total += np.where(live, g2, 0.0)
        count += live
        spread += np.sqrt(m2)
        variance += np.where(live, 24.0 * n * (n - 1) ** 2 / ((n - 3) * (n - 2) * (n + 3) * (n + 5)), 0.0)
    seen = count > 0
    if not seen.any():
        return np.full(stacks, pooled)
    own = total[seen] / count[seen]
    noise = variance[seen] / count[seen] ** 2  # the variance of a mean over the groups
    between = max(float(np.average((own - pooled) ** 2 - noise, weights=spread[seen])), 0.0)
    out = np.full(stacks, pooled)
    out[seen] = np.maximum(pooled + between / (between + noise) * (own - pooled), 0.0)
    return out


def critical_noise(critical: np.ndarray, relabellings: int, alpha: float, df: np.ndarray) -> np.ndarray:
    """The relative variance of a permutation critical value between comparisons of one design.

    The test's bar is the (⌊αN⌋+1)-th largest of N relabelled maxima: an order statistic, whose
    variance is α(1 − α)/(N·f(c)²), f the density of the maximum at c. Its tail falls like a
    t's on ``df`` degrees of freedom (f/S ≈ (df + 1)c/(df + c²), S(c) = α), so relative to c²
    it is (1 − α)/(Nα·((df + 1)c²/(df + c²))²). Negligible from a few hundred relabellings,
    it is what makes 6 pairs (32 distinct sign-flip maxima two-sided) miss: their bar moves
    from one comparison to the next by about 15%.
    """
    import numpy as np

    c = np.where(np.isfinite(critical), np.asarray(critical, dtype=float), 0.0)
    df = np.maximum(np.asarray(df, dtype=float), 1.0)
    slope = (df + 1.0) * c * c / (df + c * c)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = (1.0 - alpha) / (max(relabellings, 1) * alpha * slope * slope)
    return np.where(slope > 0, h, 0.0)


def detectable(
    critical: np.ndarray,
    se: np.ndarray,
    power: float = POWER,
    df: np.ndarray | None = None,
    kurtosis: float | np.ndarray = 0.0,
    runs: float | np.ndarray | None = None,
    noise: float | np.ndarray = 0.0,
) -> np.ndarray:
    """The minimum detectable effect δ·se per stack; ∞ where c is ∞ (the design cannot reach α).

    A change d = δ·ŝe is found when Δ̂/ŝe' > c in a new comparison; ŝe and ŝe' are noisy
    estimates of the true se (relative variance g = (2/df + κ/runs)/4 each, κ the excess
    kurtosis). With Z = Δ̂/se − δ normal, found ⇔ Z + δ·S − c·S' > 0 (S, S' ≈ ŝe/se, mean
    1 − g/2, variance g), so δ solves δ(1 − g/2) − c = z_power·√(1 + g(δ² + c²) + h·c²), h
    (``noise``) the relative variance of the new comparison's critical value
    (:func:`critical_noise`; a permutation bar from few relabellings moves). Without
    ``df`` (g = 0) this is the normal (c + z_power)·se. ∞ also where the noise of se alone
    forbids the power asked (a heavy-tailed stack with very few runs).
    """
    import numpy as np

    critical = np.asarray(critical, dtype=float)
    se = np.asarray(se, dtype=float)
    zp = z(power)
    if df is None:
        g = np.zeros_like(critical)
    else:
        from ._tails import t_isf

        zp = np.asarray(t_isf(1.0 - power, np.maximum(np.asarray(df, dtype=float), 1.0)), dtype=float)
        n = np.asarray(df, dtype=float) + 1 if runs is None else np.asarray(runs, dtype=float)
        g = (2.0 / np.maximum(np.asarray(df, dtype=float), 1.0) + kurtosis / n) / 4.0
    a = 1.0 - g / 2.0
    lead = a * a - zp * zp * g

    c = np.where(np.isfinite(critical), critical, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        root = a * a * c * c - lead * (c * c - zp * zp * (1.0 + (g + noise) * c * c))
        out = (a * c + np.sqrt(np.maximum(root, 0.0))) / lead * se
    return np.where(np.isfinite(critical) & (lead > 0), out, np.inf)


def bonferroni_critical(alpha: float, tests: float, df: np.ndarray, alternative: str) -> np.ndarray:
    """The t value a stack must exceed when ``tests`` stacks share α (Bonferroni: α/tests each)."""
    import numpy as np

    from ._tails import t_isf

    check_alternative(alternative)
    level = alpha / max(tests, 1) / (2 if alternative == "two-sided" else 1)
    return np.asarray(t_isf(level, df), dtype=float)


def runs_needed(
    variance: np.ndarray,
    change: np.ndarray,
    alpha: float,
    power: float,
    tests: int,
    alternative: str,
    floor: float = 0.0,
    paired: bool = False,
    kurtosis: float | np.ndarray = 0.0,
) -> np.ndarray:
    """Runs a side (pairs when ``paired``; both sides with the pilot's ``variance``) to detect ``change`` per stack.

    The smallest n whose :func:`detectable` change — c_n the Bonferroni t quantile on the
    design's degrees of freedom (n − 1 pairs, 2n − 2 unpaired), se = √(2v/n) (pairs recorded
    independently of each other), the same allowance for a noisy se and heavy tails
    (``kurtosis``, one figure or one per stack) as compare's figure — is at most ``change``, and n at least :func:`min_runs`
    for the design (2/2^n two-sided for n pairs must reach α). 0 where no n up to
    :data:`MAX_RUNS` suffices.
    """
    import numpy as np

    variance = np.maximum(np.asarray(variance, dtype=float), floor)
    change = np.abs(np.asarray(change, dtype=float))
    first = min_runs(alpha, alternative, paired=paired)
    out: np.ndarray = np.zeros(len(variance), dtype=int)

    tails = np.broadcast_to(np.asarray(kurtosis, dtype=float), variance.shape)

    def enough(n: np.ndarray, v: np.ndarray, d: np.ndarray, k: np.ndarray) -> np.ndarray:
        df = n - 1.0 if paired else 2.0 * n - 2
        c = bonferroni_critical(alpha, tests, df, alternative)
        runs = n if paired else 2 * n
        return np.asarray(detectable(c, np.sqrt(2 * v / n), power, df, k, runs) <= d)

    out[(change > 0) & (variance <= 0)] = first
    live = np.flatnonzero((change > 0) & (variance > 0))
    live = live[enough(np.full(len(live), float(MAX_RUNS)), variance[live], change[live], tails[live])]
    lo, hi = np.full(len(live), first), np.full(len(live), MAX_RUNS)
    while len(live) and (lo < hi).any():  # enough() is monotone in n: c_n falls and se falls; all stacks at once
        mid = (lo + hi) // 2
        ok = enough(mid.astype(float), variance[live], change[live], tails[live])
        hi = np.where(ok & (lo < hi), mid, hi)
        lo = np.where(~ok & (lo < hi), mid + 1, lo)
    out[live] = lo
    return out


#: Time units a ``--detect 10ms`` change can be given in, in seconds.
TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@record
class Change(Record):
    """A change to detect: ``value`` of each stack's mean (``relative``) or in the profiles' unit."""

    value: float
    relative: bool

    @classmethod
    def parse(cls, text: str, unit: str | None) -> Change:
        """'5%' (relative), '120' (in the profiles' unit) or '10ms' (when that unit is a time unit)."""
        raw = text.strip().replace(" ", "")
        number, scale, relative = raw, 1.0, False
        if raw.endswith("%"):
            number, scale, relative = raw[:-1], 0.01, True
        else:
            suffix = next(
                (s for s in sorted(TIME_UNITS, key=len, reverse=True) if raw.endswith(s) and _is_number(raw[: -len(s)])), None
            )
            if suffix is not None:
                if unit not in TIME_UNITS:
                    raise ArgumentError(
                        f"{text!r} is a time but the profiles are in {unit or 'an unknown unit'!r}; "
                        "give the change in their unit or as a percentage"
                    )
                number, scale = raw[: -len(suffix)], TIME_UNITS[suffix] / TIME_UNITS[unit]
        try:
            value = float(number) * scale
        except ValueError:
            raise ArgumentError(f"{text!r} is not a change such as 5%, 120 or 10ms") from None
        return cls._checked(value, relative, text)

    @classmethod
    def _checked(cls, value: float, relative: bool, text: str) -> Change:
        if not value > 0 or not math.isfinite(value):
            raise ArgumentError(f"the change to detect must be positive, not {text!r}")
        return cls(value, relative)

    def of(self, means: np.ndarray) -> np.ndarray:
        """The change in the unit for stacks with these means."""
        import numpy as np

        return self.value * np.asarray(means, dtype=float) if self.relative else np.full(len(means), self.value)

    def describe(self, unit: str | None) -> str:
        return f"{100 * self.value:g}%" if self.relative else f"{self.value:g} {unit or ''}".rstrip()


#: ``plan`` plans for the stacks holding at least this share of the pilot's total (the ones that matter).
PLAN_SHARE = 0.01
#: re-plans rows by measuring: (rows, pilot runs × tested stacks, row targets, α, power, alternative, paired,
#: least n, spread inflation) → (rows, comparisons per measurement); see :func:`.resampling.plan`
Check = Callable[
    ["tuple[PlanRow, ...]", "np.ndarray", list[int], float, float, str, bool, int, float], "tuple[tuple[PlanRow, ...], int]"
]
#: ``plan`` checks this many rows by resampling (those the formula gives the most runs: the ones that set the plan).
CHECKED_ROWS = 3
#: ... each while one resampled comparison holds at most this many values (runs × tested stacks, both sides; and
#: runs × resamples for the drawn statistics):
#: beyond, a row keeps the formula's answer (seconds, not minutes, for ``flamespace plan``).
CHECKED_CELLS = 2_000_000


@record
class PlanRow(Record):
    stack: Stack
    mean: float
    sd: float
    change: float
    runs: int  # runs a side; 0: not reachable within MAX_RUNS
    power: float | None = None  # the power maxt.test reached at ``runs`` on resampled pilot runs (None: not checked)
    first_guess: int = 0  # the formula's runs (runs_needed), where the resampling started


@record
class Plan(Record):
    """How many runs a side (pairs when ``paired``) a comparison needs, from a pilot sample of one program."""

    rows: tuple[PlanRow, ...]  # the stacks planned for
    tested: int  # stacks the family-wise correction is over
    pilot_runs: int
    alpha: float
    power: float
    alternative: str
    minimum: int  # fewest runs a side for which the exact permutation test can reach α
    change: Change
    unit: str | None
    paired: bool = True
    share: float = PLAN_SHARE
    rest: tuple[PlanRow, ...] = ()  # the other tested stacks: what planning for them too would cost
    run_total: float = 0.0  # the pilot's mean total per run (its unit), to say what the runs cost
    resamples: int = 0  # comparisons per power measurement of the rows checked by resampling

    @property
    def runs(self) -> int | None:
        """Runs a side that detect the change in every row (None if one is out of reach)."""
        return _most(self.rows)

    @property
    def rest_runs(self) -> int | None:
        """Runs a side that would also detect it in every other tested stack (None: out of reach or none)."""
        return _most(self.rows + self.rest) if self.rest else None

    def seconds(self, runs: int) -> float | None:
        """Seconds of program time ``runs`` a side cost (both sides), when the profiles are in a time unit."""
        scale = TIME_UNITS.get(self.unit or "")
        return None if scale is None else 2 * runs * self.run_total * scale


def _most(rows: tuple[PlanRow, ...]) -> int | None:
    if not rows or any(r.runs == 0 for r in rows):
        return None
    return max(r.runs for r in rows)


def plan(
    pilot: Sample,
    change: Change,
    alpha: float = 0.05,
    power: float = POWER,
    top: int | None = None,
    alternative: str = "two-sided",
    frequency: FrequencyFilter | None = None,
    paired: bool = True,
    share: float = PLAN_SHARE,
    check: Check | None = None,
) -> Plan:
    """Runs a side needed to detect ``change`` in each stack of ``pilot`` holding ≥ ``share`` of its total.

    ``paired`` (the default: ``collect`` and ``gate`` record and test pairs): n pairs tested by
    sign flips, whose smallest p 2/2^n (two-sided) must reach α. ``top`` caps the number of
    stacks planned for (the widest first). The other tested stacks go to ``rest`` so the plan
    can say what they would cost. Both sides are assumed to vary like the pilot: its per-stack
    variance, floored at δ²/12 as in the tests and taken at its :data:`PILOT_CONFIDENCE` upper
    confidence bound s²·(m−1)/χ²(1−γ; m−1) for m pilot runs, and its excess kurtosis (heavy
    tails need more runs). The correction is family-wise over every stack the frequency filter
    keeps (what ``compare`` would test); see :func:`runs_needed`.

    That formula is the first guess. The :data:`CHECKED_ROWS` rows needing the most runs are
    then checked by the test itself (:func:`checked`): comparisons of n pairs (runs a side)
    drawn from the pilot's runs, the change added to the row's stack, run through
    ``maxt.test``; n moves until ``power`` of them find it: ``check`` does that
    (:func:`.resampling.plan` passes it; None: the formula alone).
    """
    import numpy as np

    from ._result import variance_floor
    from ._tails import chi2_ppf, normal_ppf
    from .matrix import FrequencyFilter

    check_alternative(alternative)
    if not 0 < alpha < 1:
        raise ArgumentError(f"alpha must be between 0 and 1, not {alpha}")
    if pilot.n < 2:
        raise ArgumentError(f"the pilot needs at least 2 runs to estimate the variation between runs; got {pilot.n}")
    if top is not None and top < 1:
        raise ArgumentError(f"top must be ≥ 1, not {top}")
    if not 0 <= share < 1:
        raise ArgumentError(f"the share of the total to plan for must be between 0 and 1, not {share}")
    matrix = pilot.matrix
    keep = (frequency or FrequencyFilter()).keep(matrix)
    columns = np.flatnonzero(keep)
    means = matrix[:, columns].mean(axis=0)
    ordered = columns[np.argsort(-means, kind="stable")]
    total = float(matrix.sum(axis=1).mean())
    matter = matrix[:, ordered].mean(axis=0) >= share * total
    chosen = ordered[matter][:top] if top is not None else ordered[matter]
    m = pilot.n
    padding = (m - 1) / float(chi2_ppf(1 - PILOT_CONFIDENCE, m - 1))
    # each stack's tails as compare's detectable takes them (shrunk toward the pooled figure); a difference of two runs: κ/2
    kurtosis = kurtosis_by_stack([matrix[:, columns]]) / (2 if paired else 1)
    position = {int(j): k for k, j in enumerate(columns)}

    def rows_for(which: np.ndarray) -> tuple[PlanRow, ...]:
        mean = matrix[:, which].mean(axis=0)
        variance = matrix[:, which].var(axis=0, ddof=1)
        amount = change.of(mean)
        tails = kurtosis[[position[int(j)] for j in which]]
        runs = runs_needed(
            variance * padding, amount, alpha, power, len(columns), alternative, variance_floor(matrix), paired, tails
        )
        return tuple(
            PlanRow(pilot.stacks[j], float(u), float(math.sqrt(v)), float(d), int(r))
            for j, u, v, d, r in zip(which, mean, variance, amount, runs)
        )

    rest = np.setdiff1d(ordered, chosen, assume_unique=True)
    least = min_runs(alpha, alternative, paired=paired)
    rows = rows_for(chosen)
    reps = 0
    if check is not None:
        level = alpha / max(len(columns), 1) / (2 if alternative == "two-sided" else 1)
        critical = normal_ppf(1 - level)  # the test's critical value where the check plans (large n): Bonferroni's z
        rows, reps = check(
            rows,
            matrix[:, columns],
            [int(np.flatnonzero(columns == j)[0]) for j in chosen],
            alpha,
            power,
            alternative,
            paired,
            least,
            assured_padding(m, kurtosis_of([matrix[:, columns]]), float(critical), power),
        )
    return Plan(
        rows,
        len(columns),
        pilot.n,
        alpha,
        power,
        alternative,
        least,
        change,
        pilot.unit,
        paired,
        share,
        rows_for(ordered[np.isin(ordered, rest)]),
        total,
        reps,
    )
