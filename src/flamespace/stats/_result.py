"""What every two-sample method returns, the per-stack moments they share, and the variance floor."""

from __future__ import annotations

import math
from .._record import Record, factory, record
from typing import TYPE_CHECKING

from ..errors import ArgumentError

if TYPE_CHECKING:
    import numpy as np

#: The alternatives a test can take: candidate > baseline (regressions), < , or either.
ALTERNATIVES = ("greater", "less", "two-sided")


def check_alternative(alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise ArgumentError(f"unknown alternative {alternative!r}; choose one of {', '.join(ALTERNATIVES)}")


def describe_alternative(alternative: str) -> str:
    """The direction tested, in words for a report."""
    return {
        "greater": "one-sided (regressions only: candidate > baseline)",
        "less": "one-sided (improvements only: candidate < baseline)",
        "two-sided": "two-sided (regressions and improvements)",
    }[alternative]


@record
class TestResult(Record):
    """Per-stack arrays (in the order of the matrix columns) and the global test of one method.

    ``lower``/``upper`` bound Δ = candidate mean − baseline mean at the method's error rate;
    ``p_adjusted`` is the p-value after the multiple-testing correction that ``significant``
    (``p_adjusted ≤ α``) uses. ``critical`` (per stack, on the scale of ``statistic``) is the
    value the statistic must exceed in the tested direction for a first discovery, and ``se``
    the standard error that turns it into a change in the unit. ``changed_critical`` is the bar
    a *changed* stack must clear: its observed labelling then tops the relabellings, so it ranks
    against the others alone (at 6 pairs the largest of 31 distinct maxima where ``critical`` is
    the second of 32); with ``se`` it gives the minimum detectable effect (:mod:`.power`). ``smallest_p`` is the smallest adjusted p-value
    the design can produce (a permutation test on 3 + 3 runs cannot go below 1/20).
    """

    __test__ = False  # not a pytest test class

    method: str
    statistic: np.ndarray
    p: np.ndarray
    p_adjusted: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    significant: np.ndarray
    global_statistic: float
    global_p: float
    statistic_name: str
    notes: tuple[str, ...] = ()
    details: dict[str, float | str] = factory(dict)
    critical: np.ndarray | None = None
    se: np.ndarray | None = None
    changed_critical: np.ndarray | None = None
    smallest_p: float = 0.0
    control: str = "family-wise error"


def resolution(pooled: np.ndarray) -> float:
    """The data's resolution δ: the smallest positive gap between distinct values (0 included)
    of the pooled runs × stacks matrix.

    1 for sample counts; one sampling interval for profiles that weight each sample by a fixed
    interval; tiny (so the floor vanishes) for continuous values such as shares or jittered
    times, where exact ties have probability 0 anyway. 0 when every value is 0. It depends on
    the pooled data alone, so it is the same for every relabelling of the runs (which keeps
    permutation tests exact).
    """
    import numpy as np

    values = np.sort(np.append(pooled.ravel(), 0.0))  # not np.unique: it imports numpy.ma (0.05 s)
    if np.isnan(values[-1]):  # NaNs sort last; np.unique's gaps would hold one
        return math.nan
    gaps = np.diff(values)
    gaps = gaps[gaps > 0]  # between distinct values
    return float(gaps.min()) if gaps.size else 0.0


def variance_floor(pooled: np.ndarray) -> float:
    """δ²/12: the variance of rounding to resolution δ (Sheppard), the least variance a recorded
    value can be said to have. A stack that is 0 in every baseline run and 1 in every candidate
    run has no observed variance, but counts that round to the same integer are not identical
    measurements; flooring each group's variance at δ²/12 keeps its t finite (3 for 3 + 3 runs
    instead of ∞), so such a stack is judged by the permutation distribution, not declared
    certain. The simulations in docs/performance.md compare it with SAM's s0 (Tusher 2001).
    """
    delta = resolution(pooled)
    return delta * delta / 12.0


@record
class Moments(Record):
    """Means and unbiased variances of each stack in the two groups (1: baseline, 2: candidate)."""

    n1: int
    n2: int
    mean1: np.ndarray
    mean2: np.ndarray
    var1: np.ndarray
    var2: np.ndarray

    @classmethod
    def of(cls, x1: np.ndarray, x2: np.ndarray) -> Moments:
        return cls(len(x1), len(x2), x1.mean(axis=0), x2.mean(axis=0), x1.var(axis=0, ddof=1), x2.var(axis=0, ddof=1))

    @property
    def delta(self) -> np.ndarray:
        return self.mean2 - self.mean1

    def welch(self, floor: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Welch's t (signed: candidate − baseline), its standard error and Welch–Satterthwaite
        degrees of freedom per stack, each group's variance floored at ``floor``.

        With a positive floor (the default floor is positive unless every value is 0) every t
        is finite. With ``floor`` = 0 a stack without variance has se = 0: t is ±∞ when the
        means differ, which a permutation test ranks as the extreme it is (the same value on
        the relabellings that separate the groups as well), and 0 when they do not.
        """
        import numpy as np

        a = np.maximum(self.var1, floor) / self.n1
        b = np.maximum(self.var2, floor) / self.n2
        se = np.sqrt(a + b)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(se > 0, self.delta / np.where(se > 0, se, 1.0), np.sign(self.delta) * np.inf)
            t = np.where((se == 0) & (self.delta == 0), 0.0, t)
            df = (a + b) ** 2 / (a**2 / (self.n1 - 1) + b**2 / (self.n2 - 1))
        df = np.where(np.isfinite(df), df, self.n1 + self.n2 - 2.0)
        return t, se, df
