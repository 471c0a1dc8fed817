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
from typing import TYPE_CHECKING, Optional

from ..errors import ArgumentError
from ._result import check_alternative

if TYPE_CHECKING:
    import numpy as np

#: The 80% power the minimum detectable effect is stated at.
POWER = 0.8
#: Beyond this many runs a side, ``runs_needed`` answers None (not reachable in practice).
MAX_RUNS = 100_000


def relabellings(n1: int, n2: int) -> int:
    """How many ways the pooled runs can be split into groups of n1 and n2."""
    return math.comb(n1 + n2, n1)


def smallest_p(n1: int, n2: int, permutations: int, alternative: str) -> float:
    """The smallest p-value a permutation test of this design can give.

    Enumerated exactly (C(n1+n2, n1) ≤ ``permutations``): 1/C one-sided; two-sided with
    n1 = n2 the mirrored labelling has the same |t|, so 2/C. Random relabellings: 1/(B+1).
    """
    check_alternative(alternative)
    total = relabellings(n1, n2)
    if total <= permutations:
        return (2.0 if alternative == "two-sided" and n1 == n2 else 1.0) / total
    return 1.0 / (permutations + 1)


def min_runs(alpha: float, alternative: str, permutations: Optional[int] = None) -> int:
    """The fewest runs a side (both sides equal) for which a permutation test can reach ``alpha``
    (with at least ``permutations`` random relabellings when enumeration is out of budget)."""
    budget = permutations if permutations is not None else 10**12
    for n in range(2, MAX_RUNS):
        if smallest_p(n, n, budget, alternative) <= alpha:
            return n
    raise ArgumentError(f"no design reaches alpha = {alpha}")  # pragma: no cover - alpha > 0


def z(power: float) -> float:
    """The standard normal quantile of ``power`` (0.84 for 80%)."""
    from scipy import stats

    if not 0 < power < 1:
        raise ArgumentError(f"power must be between 0 and 1, not {power}")
    return float(stats.norm.ppf(power))


def detectable(critical: "np.ndarray", se: "np.ndarray", power: float = POWER) -> "np.ndarray":
    """The minimum detectable effect (c + z_power)·se per stack; ∞ where c is ∞ (the design cannot reach α)."""
    import numpy as np

    critical = np.asarray(critical, dtype=float)
    with np.errstate(invalid="ignore"):
        out = (critical + z(power)) * np.asarray(se, dtype=float)
    return np.where(np.isfinite(critical), out, np.inf)


def bonferroni_critical(alpha: float, tests: int, df: "np.ndarray", alternative: str) -> "np.ndarray":
    """The t value a stack must exceed when ``tests`` stacks share α (Bonferroni: α/tests each)."""
    import numpy as np
    from scipy import stats

    check_alternative(alternative)
    level = alpha / max(tests, 1) / (2 if alternative == "two-sided" else 1)
    return np.asarray(stats.t.isf(level, df), dtype=float)


def runs_needed(variance: "np.ndarray", change: "np.ndarray", alpha: float, power: float, tests: int,
                alternative: str, floor: float = 0.0) -> "np.ndarray":
    """Runs a side (both sides equal, both with the pilot's ``variance``) to detect ``change`` per stack.

    The smallest n with (c_n + z_power)·sqrt(2·v/n) ≤ change, c_n the Bonferroni t quantile on
    2n − 2 degrees of freedom over ``tests`` stacks, and n at least :func:`min_runs` (so the
    exact permutation test can reach α). 0 where no n up to :data:`MAX_RUNS` suffices.
    """
    import numpy as np

    variance = np.maximum(np.asarray(variance, dtype=float), floor)
    change = np.abs(np.asarray(change, dtype=float))
    zp = z(power)
    first = min_runs(alpha, alternative)
    out = np.zeros(len(variance), dtype=int)
    for k, (v, d) in enumerate(zip(variance, change)):
        if d <= 0:
            continue
        if v <= 0:
            out[k] = first
            continue
        lo, hi = first, MAX_RUNS

        def enough(n: int) -> bool:
            c = float(bonferroni_critical(alpha, tests, np.array(2.0 * n - 2), alternative))
            return (c + zp) * math.sqrt(2 * v / n) <= d

        if not enough(hi):
            continue
        while lo < hi:  # enough() is monotone in n: c_n falls and se falls
            mid = (lo + hi) // 2
            if enough(mid):
                hi = mid
            else:
                lo = mid + 1
        out[k] = lo
    return out
