"""Moderated variances for few runs and many stacks (limma's empirical Bayes, Smyth 2004).

With 3 runs a side each stack's variance has 2 degrees of freedom, so the t of 200 noise
stacks has a heavy tail and the max-t test's critical value is large. limma shrinks each
variance toward a prior s0² with d0 prior degrees of freedom estimated from all stacks:
ṽ = (d0·s0² + d·v)/(d0 + d). Profiles' stacks differ in scale by orders of magnitude (a
variance grows with the stack's mean), so the prior is a trend: log s0² follows the stacks'
log mean (a running median over stacks ranked by mean), and d0 comes from how far each
stack's variance scatters around it beyond what its own degrees of freedom explain. Stacks
that do not follow a common trend (real profiles, whose stacks differ in more than scale)
give a small d0, and the test falls back to Welch's t.

d0 is at most the degrees of freedom of the smaller group's own variance: the prior never
outweighs a stack's own runs. Beyond that the statistic turns into a difference of means over a
fixed scale, and a changed stack's relabellings (groups that mix changed and unchanged runs,
whose own variance is large) then keep most of its t and raise the critical value it must
beat: in benchmarks/bench_maxt_moderated.py a cap of 30 lost half the power a cap at the
group's df gained (docs/statistics.md).

Both the trend and d0 are estimated from the pooled runs without their labels (the variance
of each stack about its grand mean, or the mean square of the paired differences): the same
for every relabelling, so the permutation test stays exact.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .._record import Record, record

if TYPE_CHECKING:
    import numpy as np

#: maxt's statistics: ``auto`` (the default: moderated below :data:`MODERATE_BELOW` runs on the
#: smaller side, else Welch's), Welch's t, or the moderated t of this module.
STATISTICS = ("auto", "welch", "moderated")
DEFAULT_STATISTIC = "auto"
#: ``auto`` moderates when the smaller side has fewer runs (pairs) than this: there each Welch
#: variance has at most 3 degrees of freedom, and in benchmarks/bench_maxt_moderated.py the
#: moderated t found a +40% stack in 0.97 of 3 + 10 Poisson pools (Welch 0.56), 0.62 of the
#: issue's pools (0.22), 0.80 at 5 Poisson pairs (0.11); it lost only where the changed stack
#: is far quieter than its peers (timing 3 + 10: 0.085 against 0.17). From 5 runs on the two
#: differ less and Welch's needs no model of the stacks (docs/statistics.md).
MODERATE_BELOW = 5
#: Points at which the running median is made (interpolated between).
KNOTS = 256
#: Fewest stacks with a variance to estimate a prior from; fewer: no moderation.
MIN_STACKS = 20
#: Stacks in each window of the running median that makes the trend (at least; a tenth of them with many).
WINDOW = 15


def chosen(statistic: str, smaller_side: int) -> str:
    """The statistic ``statistic`` stands for when the smaller side has ``smaller_side`` runs (or pairs)."""
    if statistic != "auto":
        return statistic
    return "moderated" if smaller_side < MODERATE_BELOW else "welch"


def check_statistic(statistic: str) -> None:
    from ..errors import ArgumentError

    if statistic not in STATISTICS:
        raise ArgumentError(f"unknown statistic {statistic!r}; choose one of {', '.join(STATISTICS)}")


@record
class Prior(Record):
    """The prior of each stack's variance: ``df`` degrees of freedom (0: none) at ``scale`` (s0² per stack)."""

    df: float
    scale: np.ndarray

    def weighted(self) -> np.ndarray:
        """d0·s0² per stack: what the moderated sum of squares adds (0 without a prior)."""
        return self.df * self.scale

    def moderate(self, variance: np.ndarray, df: float) -> np.ndarray:
        """ṽ = (d0·s0² + d·v)/(d0 + d): each variance (on ``df`` degrees of freedom) shrunk toward the prior."""
        return (variance * df + self.weighted()) / (df + self.df)


def none(p: int) -> Prior:
    """No moderation: Welch's variances as they are."""
    import numpy as np

    return Prior(0.0, np.zeros(p))


def trigamma(x: np.ndarray) -> np.ndarray:
    """ψ'(x) for x > 0: the recurrence up to 6, then the asymptotic series (error < 1e-12)."""
    import numpy as np

    x = np.array(x, dtype=float)
    total = np.zeros_like(x)
    while True:
        small = x < 6
        if not small.any():
            break
        total = total + np.where(small, 1.0 / np.where(small, x, 1.0) ** 2, 0.0)
        x = np.where(small, x + 1.0, x)
    w = 1.0 / (x * x)
    series = 1.0 / x + w / 2 + w / x * (1.0 / 6 - w * (1.0 / 30 - w * (1.0 / 42 - w / 30)))
    return np.asarray(total + series)


def trigamma_inverse(y: float) -> float:
    """The x > 0 with ψ'(x) = ``y`` (limma's Newton iteration on 1/ψ', from 0.5 + 1/y)."""
    import numpy as np

    if y > 1e7:
        return 1.0 / math.sqrt(y)
    if y < 1e-6:
        return 1.0 / y
    x = 0.5 + 1.0 / y
    for _ in range(50):
        tri = float(trigamma(np.array([x]))[0])
        h = tri * (1 - tri / y) / float(_tetragamma(x))
        x += h
        if -h / x < 1e-8:
            break
    return x


def _tetragamma(x: float) -> float:
    """ψ''(x) (recurrence up to 6, then the asymptotic series)."""
    total = 0.0
    while x < 6:
        total -= 2.0 / x**3
        x += 1.0
    w = 1.0 / (x * x)
    return total - w * (1.0 + 1.0 / x + w * (0.5 - w * (1.0 / 6 - w / 6)))


def _log_chi2_moments(df: float) -> tuple[float, float]:
    """Mean and variance of log(χ²_d/d): ψ(d/2) − log(d/2) and ψ'(d/2)."""
    import numpy as np

    half = df / 2.0
    return _digamma(half) - math.log(half), float(trigamma(np.array([half]))[0])


def _digamma(x: float) -> float:
    """ψ(x) (recurrence up to 6, then the asymptotic series)."""
    total = 0.0
    while x < 6:
        total -= 1.0 / x
        x += 1.0
    w = 1.0 / (x * x)
    return total + math.log(x) - 0.5 / x - w * (1.0 / 12 - w * (1.0 / 120 - w / 252))


def _running_median(values: np.ndarray, window: int) -> np.ndarray:
    """The median of each value's ``window`` nearest neighbours in the order given (a window
    that would pass an end is moved inside, so no end value is repeated into a median), made
    at no more than :data:`KNOTS` evenly spaced values and interpolated between them (10,000
    stacks with windows of 1,000: 0.005 s instead of 0.08)."""
    import numpy as np

    n = len(values)
    window = min(window, n)
    windows = np.lib.stride_tricks.sliding_window_view(values, window)
    knots = np.linspace(0, n - 1, min(n, KNOTS)).round().astype(int)
    knots = knots[np.r_[True, np.diff(knots) > 0]]  # (not np.unique: it imports numpy.ma, 0.05 s)
    start = np.clip(knots - window // 2, 0, n - window)
    return np.asarray(np.interp(np.arange(n), knots, np.median(windows[start], axis=1)))


def estimate(variance: np.ndarray, level: np.ndarray, df: float, max_df: float) -> Prior:
    """The prior from each stack's label-free ``variance`` (on ``df`` degrees of freedom under
    no change) and its ``level`` (the size the trend follows): s0² per stack from the running
    median of log variance over stacks ranked by level, d0 from the spread of the residuals
    minus the spread log χ²_d/d has by itself (limma's fitFDist), at most ``max_df``. The
    residuals are clipped above at median + 3 robust s.d. (MAD): the few stacks that changed
    sit there, their pooled variance inflated by the change; the quiet side is kept whole, as it
    is the heterogeneity that should limit shrinkage."""
    import numpy as np

    p = len(variance)
    usable = np.flatnonzero((variance > 0) & np.isfinite(variance) & (level > 0))
    if len(usable) < MIN_STACKS or df < 1 or max_df <= 0:
        return none(p)
    order = usable[np.argsort(level[usable], kind="stable")]
    logs = np.log(variance[order])
    window = max(WINDOW, len(order) // 10) | 1
    trend = _running_median(logs, window)
    residual = logs - trend
    robust = 1.4826 * float(np.median(np.abs(residual - np.median(residual))))
    spread = float(np.var(np.minimum(residual, np.median(residual) + 3.0 * robust)))
    centre, own = _log_chi2_moments(df)
    excess = spread - own
    d0 = max_df if excess <= 0 else min(2.0 * trigamma_inverse(excess), max_df)
    # E[log variance] = log s0² + E[log χ²_d/d] (limma); the residuals' mean, clipped at 4 robust s.d.
    # against the changed stacks, says where the mean sits against the running median
    bound = 4.0 * math.sqrt(spread) if spread > 0 else 0.0
    log_scale_sorted = trend + float(np.mean(np.clip(residual, -bound, bound))) - centre
    # each stack's prior: the trend at its level (interpolated; stacks without a variance take the nearest)
    scale = np.exp(np.interp(np.log(np.where(level > 0, level, level[usable].min())), np.log(level[order]), log_scale_sorted))
    return Prior(float(d0), np.asarray(scale, dtype=float))


def unpaired(pooled: np.ndarray, n1: int) -> Prior:
    """The prior of two groups' variances from the pooled runs (the first ``n1`` the baseline's:
    only the group sizes are used): each stack's variance about its grand mean (n − 1 degrees
    of freedom under no change), trend over the stack's mean."""
    n = len(pooled)
    return estimate(pooled.var(axis=0, ddof=1), pooled.mean(axis=0), n - 1, min(n1, n - n1) - 1)


def paired(diff: np.ndarray, level: np.ndarray) -> Prior:
    """The prior of the variance of paired differences: their mean square about 0 (unchanged
    by swapping the runs of a pair; n degrees of freedom under no change), trend over ``level``
    (each stack's mean over both sides, also unchanged by swaps)."""
    n = len(diff)
    return estimate((diff * diff).mean(axis=0), level, n, n - 1)
