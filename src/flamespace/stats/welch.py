"""Per-stack Welch t-tests with a false-discovery-rate correction; valid for any number of stacks.

Assumes independent runs and means close enough to normal (n ≳ 20 per group for counts).
Controls the expected share of false discoveries among the stacks reported, not the chance of
any false discovery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ArgumentError
from ._result import Moments, TestResult

if TYPE_CHECKING:
    import numpy as np

FDR_METHODS = ("bh", "by")


def adjust(p: "np.ndarray", fdr: str = "bh") -> "np.ndarray":
    """Benjamini–Hochberg adjusted p-values (q-values); ``by``: Benjamini–Yekutieli, for any dependence."""
    import numpy as np

    if fdr not in FDR_METHODS:
        raise ArgumentError(f"unknown FDR correction {fdr!r}; choose one of {', '.join(FDR_METHODS)}")
    m = len(p)
    if m == 0:
        return np.asarray(p, dtype=float)
    factor = float(np.sum(1.0 / np.arange(1, m + 1))) if fdr == "by" else 1.0
    order = np.argsort(p)
    scaled = p[order] * m * factor / np.arange(1, m + 1)
    q = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(q, 1.0)
    return out


def test(x1: "np.ndarray", x2: "np.ndarray", alpha: float, fdr: str = "bh") -> TestResult:
    """Welch t per stack, ``fdr``-adjusted; intervals are FCR-adjusted (Benjamini–Yekutieli 2005).

    With R stacks selected out of m, each interval has level 1 − R·α/m (at least one stack is
    counted), so an interval excludes 0 exactly for the selected stacks. The global p-value is
    the smallest adjusted one (Simes' test for ``bh``).
    """
    import numpy as np
    from scipy import stats

    m = Moments.of(x1, x2)
    t, se, df = m.welch()
    p = np.where(np.isfinite(t), 2 * stats.t.sf(np.abs(t), df), 0.0)
    q = adjust(p, fdr)
    significant = q <= alpha
    count = len(p)
    factor = float(np.sum(1.0 / np.arange(1, count + 1))) if fdr == "by" and count else 1.0
    level = max(int(significant.sum()), 1) * alpha / (max(count, 1) * factor)
    half = stats.t.isf(level / 2, df) * se
    delta = m.delta
    return TestResult(
        method="welch", statistic=t, p=p, p_adjusted=q, lower=delta - half, upper=delta + half,
        significant=significant, global_statistic=float(np.max(np.abs(t))) if count else 0.0,
        global_p=float(q.min()) if count else 1.0, statistic_name="max |t|",
        details={"interval_level": 1 - level},
    )
