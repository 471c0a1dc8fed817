"""Per-stack Welch t-tests, corrected for many stacks: Holm (family-wise) or BH/BY (false discoveries).

Assumes independent runs and means close enough to normal (n ≳ 20 per group for counts);
at 3-5 runs a side prefer maxt, whose permutation test is exact (docs/performance.md). Each
group's variance is floored at δ²/12 (:func:`._result.variance_floor`), as in maxt, so a
stack without variance gets a finite t instead of p = 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ArgumentError
from ._result import Moments, TestResult, check_alternative, variance_floor
from .power import bonferroni_critical

if TYPE_CHECKING:
    import numpy as np

    from .comparison import CompareOptions

FDR_METHODS = ("bh", "by")


def fdr_factor(fdr: str, m: int) -> float:
    """Benjamini–Yekutieli's Σ 1/i over m tests (1 for BH)."""
    return sum(1.0 / i for i in range(1, m + 1)) if fdr == "by" and m else 1.0


def adjust(p: np.ndarray, fdr: str = "bh") -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (q-values); ``by``: Benjamini–Yekutieli, for any dependence."""
    import numpy as np

    if fdr not in FDR_METHODS:
        raise ArgumentError(f"unknown FDR correction {fdr!r}; choose one of {', '.join(FDR_METHODS)}")
    m = len(p)
    if m == 0:
        return np.asarray(p, dtype=float)
    order = np.argsort(p)
    scaled = p[order] * m * fdr_factor(fdr, m) / np.arange(1, m + 1)
    q = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(q, 1.0)
    return out


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values: family-wise error control under any dependence."""
    import numpy as np

    m = len(p)
    if m == 0:
        return np.asarray(p, dtype=float)
    order = np.argsort(p, kind="stable")
    scaled = np.maximum.accumulate(p[order] * (m - np.arange(m)))
    out = np.empty(m)
    out[order] = np.minimum(scaled, 1.0)
    return out


def test(x1: np.ndarray, x2: np.ndarray, alpha: float, fdr: str | None = None, alternative: str = "greater") -> TestResult:
    """Welch t per stack in the direction of ``alternative``, Holm-adjusted (``fdr`` None) or BH/BY.

    Intervals: Bonferroni (level 1 − α/m; Holm may reject a stack whose interval touches 0) or
    FCR-adjusted for BH/BY (Benjamini–Yekutieli 2005: level 1 − R·α/m for R discoveries, so an
    interval excludes 0 exactly for the discoveries). One-sided tests get two-sided intervals
    at twice that error, whose lower (greater) or upper (less) bound is the one-sided bound.
    The global p-value is the smallest adjusted one.
    """
    import numpy as np

    from ._tails import t_isf, t_sf

    check_alternative(alternative)
    m = Moments.of(x1, x2)
    t, se, df = m.welch(variance_floor(np.vstack([x1, x2])))
    two = alternative == "two-sided"
    p: np.ndarray
    if two:
        p = 2 * t_sf(np.abs(t), df)
    else:
        p = t_sf(t if alternative == "greater" else -t, df)
    count = len(p)
    if fdr is None:
        q = holm(p)
        level = alpha / max(count, 1)
        control = "family-wise error (Holm)"
    else:
        q = adjust(p, fdr)
        level = max(int((q <= alpha).sum()), 1) * alpha / (max(count, 1) * fdr_factor(fdr, count))
        control = f"false-discovery rate ({fdr.upper()})"
    significant = q <= alpha
    half = t_isf(level / 2 if two else level, df) * se
    delta = m.delta
    return TestResult(
        method="welch",
        statistic=t,
        p=p,
        p_adjusted=q,
        lower=delta - half,
        upper=delta + half,
        significant=significant,
        global_statistic=float(np.max(np.abs(t) if two else (t if alternative == "greater" else -t))) if count else 0.0,
        global_p=float(q.min()) if count else 1.0,
        statistic_name="max |t|" if two else ("max t" if alternative == "greater" else "max −t"),
        details={"interval_level": 1 - (level if two else 2 * level)},
        critical=bonferroni_critical(alpha, count * fdr_factor(fdr, count) if fdr else count, df, alternative),
        se=se,
        control=control,
    )


def run(x1: np.ndarray, x2: np.ndarray, options: CompareOptions) -> TestResult:
    """The method seam (:class:`.methods.Method`): :func:`test` with compare's options."""
    return test(x1, x2, options.alpha, options.fdr_method, options.alternative)
