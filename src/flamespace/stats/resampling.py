"""Power measured by the test itself: comparisons drawn from recorded runs, a change put in, run through maxt.

``plan`` and ``detectable`` start from a formula (a t quantile, a heavy-tail allowance); the
formula is a model, and on few pairs or runs with sampler stalls it promised more than the
permutation test delivered. Here the answer is checked the way it will be used: comparisons of
the design (n pairs or n runs a side) are drawn from the runs at hand, a change of the size in
question is added to one stack of the candidate side, and :func:`.maxt.test` (compare's test,
same α, direction and statistic) says whether it finds it. The share found is the power.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    import numpy as np

    from .power import Change, Plan, PlanRow
    from .matrix import Sample

#: Comparisons per power measurement: Monte-Carlo s.e. √(0.8·0.2/1000) = 0.013 at 80%.
RESAMPLES = 1000
#: Null comparisons per measurement run through maxt.test for its critical value (the comparisons
#: take them in turn, so the critical value's own noise between comparisons is in the power).
CRITICALS = 20
#: Relabellings per resampled test (p-values in steps of 1/401; compare's 2,000 change its power by < 0.01).
PERMUTATIONS = 400


class Resampled:
    """Comparisons of one design drawn from a pilot's runs, to measure the power for a change in one stack.

    The critical value is maxt.test's own, on null comparisons of n pairs (runs a side) drawn
    from the pilot's rows (every tested stack: the family the maximum is over). The changed
    stack's statistic (compare's t: of the pair differences, or Welch's; variances floored as
    the test floors them) is drawn from its mean and spread with standardised residuals pooled
    over every tested stack, weighted by spread (as :func:`.power.kurtosis_of`): a pilot of 10
    runs often shows a stack no stall, while its other stacks show what stalls do. Residuals
    are scaled by √``inflation`` (:func:`.power.assured_padding`: what makes the plan reach its
    power on average over pilots, given how unsure a guide the pilot's variances are). Returns the share of comparisons whose statistic
    beats its critical value.
    """

    def __init__(
        self,
        runs: np.ndarray,
        target: int,
        paired: bool,
        alpha: float,
        alternative: str,
        floor: float,
        inflation: float = 1.0,
        reps: int = RESAMPLES,
        seed: int = 0,
    ) -> None:
        self.runs, self.target, self.paired, self.alpha, self.alternative = runs, target, paired, alpha, alternative
        self.floor, self.reps, self.seed = floor, reps, seed
        self.mean = runs.mean(axis=0)
        self.scaled = self.mean + math.sqrt(inflation) * (runs - self.mean)
        self.residuals, self.weights = pooled_residuals(runs)
        self.sd = math.sqrt(inflation) * float(runs[:, target].std(ddof=1)) if len(runs) > 1 else 0.0

    def criticals(self, n: int, permutations: int = PERMUTATIONS) -> np.ndarray:
        """maxt.test's bar for a changed target (``changed_critical``) on :data:`CRITICALS` null comparisons of n."""
        import numpy as np

        from . import maxt

        rng = np.random.default_rng(self.seed)
        m = len(self.scaled)
        out = []
        for r in range(CRITICALS):
            x1, x2 = self.scaled[rng.integers(0, m, n)], self.scaled[rng.integers(0, m, n)]
            result = maxt.test(
                x1, x2, self.alpha, permutations, seed=r, alternative=self.alternative, paired=self.paired, floor=self.floor
            )
            bar = result.changed_critical if result.changed_critical is not None else result.critical
            assert bar is not None
            out.append(float(bar[self.target]))  # the bar a changed stack clears, as compare's detectable takes it
        return np.array(out)

    def statistics(self, n: int, amount: float) -> np.ndarray:
        """The tested statistic s(t) of the target stack in ``reps`` comparisons of n with ``amount`` added."""
        import numpy as np

        rng = np.random.default_rng(self.seed + 1)
        if not len(self.residuals):
            return np.zeros(self.reps)

        def side() -> np.ndarray:
            picks = rng.choice(len(self.residuals), size=(self.reps, n), p=self.weights)
            return self.mean[self.target] + self.sd * self.residuals[picks]

        y1, y2 = side(), side() + amount
        if self.paired:
            d = y2 - y1
            var = np.maximum(d.var(axis=1, ddof=1), 2 * self.floor) if n > 1 else np.full(self.reps, 2 * self.floor)
            t = d.mean(axis=1) / np.sqrt(var / n)
        else:
            v1 = np.maximum(y1.var(axis=1, ddof=1), self.floor) / n
            v2 = np.maximum(y2.var(axis=1, ddof=1), self.floor) / n
            t = (y2.mean(axis=1) - y1.mean(axis=1)) / np.sqrt(v1 + v2)
        t = np.nan_to_num(t)
        return np.abs(t) if self.alternative == "two-sided" else (-t if self.alternative == "less" else t)

    def power(self, n: int, amount: float) -> float:
        """The share of ``reps`` comparisons of n that find ``amount`` in the target stack."""
        import numpy as np

        critical = self.criticals(n)
        beats = self.statistics(n, amount) > np.resize(critical, self.reps)
        return float(beats.mean())


def probit(share: float, reps: int) -> float:
    """The normal quantile of a measured share, kept off 0 and 1 (half a count from each end)."""
    from ._tails import normal_ppf

    return float(normal_ppf(min(max(share, 0.5 / reps), 1 - 0.5 / reps)))


def smallest_n(
    power_at: Callable[[int], float],
    first: int,
    least: int,
    power: float,
    critical: Callable[[int], float],
    reps: int,
    most: int,
    steps: int = 6,
) -> tuple[int, float]:
    """The smallest n ≥ ``least`` whose measured power (``power_at``) reaches ``power``, starting at ``first``.

    The power of a shift is Φ(κ√n − c_n) in the normal model (c_n the design's critical
    value, ``critical``); each measurement gives κ = (Φ⁻¹(measured) + c_n)/√n, and the next n
    solves κ√n − c_n = Φ⁻¹(power) (a secant on the probit scale), kept strictly between the
    largest n measured short of the target and the smallest measured to reach it. Stops when
    those two are within 5% (or 1) of each other, or after ``steps`` measurements. Returns the
    smallest n measured to reach the target and its power; if none did (``most`` too small, or
    out of steps), the largest n measured and its power, below the target.
    """
    from ._tails import normal_ppf

    goal = float(normal_ppf(power))
    measured: dict[int, float] = {}
    low, high = least - 1, most + 1  # measured short of the target / reaching it (sentinels)
    n = min(max(first, least), most)
    for _ in range(steps):
        measured[n] = power_at(n)
        if measured[n] >= power:
            high = min(high, n)
        else:
            low = max(low, n)
        if high - low <= max(1, 0.05 * high) or low >= most:
            break
        kappa = (probit(measured[n], reps) + critical(n)) / math.sqrt(n)
        guess = 2 * n if kappa <= 0 else n
        for _ in range(3 if kappa > 0 else 0):
            guess = max(least, min(most, math.ceil(((goal + critical(guess)) / kappa) ** 2)))
        if not low < guess < high:  # the model points outside the bracket: halve it instead (geometrically)
            guess = math.ceil(math.sqrt(max(low, 1) * min(high, 2 * most))) if high <= most else min(most, 2 * max(low, 1))
            guess = max(low + 1, min(guess, high - 1))
        if guess in measured:
            break
        n = guess
    if high <= most:
        return high, measured[high]
    top = max(measured)
    return top, measured[top]


def pooled_residuals(runs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every stack's residuals around its mean, each divided by its spread, with weights ∝ that spread
    (the wide stacks' tails are the ones that matter; a rare stack's huge kurtosis says little)."""
    import numpy as np

    mean, spread = runs.mean(axis=0), runs.std(axis=0)
    live = spread > 0
    residuals = ((runs[:, live] - mean[live]) / spread[live]).ravel()
    weights = np.broadcast_to(spread[live], (len(runs), int(live.sum()))).ravel()
    return residuals, (weights / weights.sum() if len(weights) else weights)


def checked(
    rows: tuple[PlanRow, ...],
    runs: np.ndarray,
    targets: list[int],
    alpha: float,
    power: float,
    alternative: str,
    paired: bool,
    least: int,
    inflation: float,
    reps: int = RESAMPLES,
    seed: int = 0,
) -> tuple[tuple[PlanRow, ...], int]:
    """``rows`` with the :data:`.power.CHECKED_ROWS` that need the most runs re-planned by resampling the pilot's ``runs``.

    Per row: the power of n pairs (runs a side) measured by :class:`.Resampled`
    (maxt.test's critical value on null comparisons drawn from the pilot, the row's change in
    its stack), n found by :func:`.smallest_n` from the formula's guess. Rows out
    of reach, or whose comparisons would exceed :data:`.power.CHECKED_CELLS`, keep the formula's answer.
    """
    import numpy as np

    from . import power as planning
    from ._result import variance_floor

    if reps <= 0:
        return rows, 0

    tests = runs.shape[1]
    floor = variance_floor(runs)
    sign = -1.0 if alternative == "less" else 1.0
    order = sorted((k for k, r in enumerate(rows) if r.runs), key=lambda k: -rows[k].runs)[: planning.CHECKED_ROWS]
    out = [r.replace(first_guess=r.runs) for r in rows]
    most = max(least, planning.CHECKED_CELLS // (2 * max(tests, reps)))  # maxt's comparisons and the drawn statistics alike

    def critical(n: int) -> float:
        df = np.array(n - 1.0 if paired else 2.0 * n - 2)
        return float(planning.bonferroni_critical(alpha, tests, df, alternative))

    for k in order:
        row = rows[k]
        if row.runs > most:
            continue
        design = Resampled(runs, targets[k], paired, alpha, alternative, floor, inflation, reps, seed + k)

        def power_at(n: int, design: Resampled = design, amount: float = sign * row.change) -> float:
            return design.power(n, amount)

        n, reached = smallest_n(power_at, row.runs, least, power, critical, reps, most)
        out[k] = out[k].replace(runs=n, power=reached)
    return tuple(out), reps


def plan(pilot: Sample, change: Change, resamples: int | None = None, seed: int = 0, **options: Any) -> Plan:
    """:func:`.power.plan` with its rows that set the plan checked by resampling (:func:`checked`):
    ``resamples`` comparisons per measurement (None: :data:`RESAMPLES`; 0: the formula alone)."""
    from functools import partial

    from . import power

    reps = RESAMPLES if resamples is None else resamples
    options["check"] = partial(checked, reps=reps, seed=seed) if reps > 0 else None
    return power.plan(pilot, change, **options)
