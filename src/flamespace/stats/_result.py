"""What every two-sample method returns, and the per-stack moments they share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, Tuple

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class TestResult:
    """Per-stack arrays (in the order of the matrix columns) and the global test of one method.

    ``lower``/``upper`` bound Δ = candidate mean − baseline mean at the method's error rate;
    ``p_adjusted`` is the p-value after the multiple-testing correction that ``significant``
    (``p_adjusted ≤ α``) uses.
    """

    __test__ = False  # not a pytest test class

    method: str
    statistic: "np.ndarray"
    p: "np.ndarray"
    p_adjusted: "np.ndarray"
    lower: "np.ndarray"
    upper: "np.ndarray"
    significant: "np.ndarray"
    global_statistic: float
    global_p: float
    statistic_name: str
    notes: Tuple[str, ...] = ()
    details: Dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Moments:
    """Means and unbiased variances of each stack in the two groups (1: baseline, 2: candidate)."""

    n1: int
    n2: int
    mean1: "np.ndarray"
    mean2: "np.ndarray"
    var1: "np.ndarray"
    var2: "np.ndarray"

    @classmethod
    def of(cls, x1: "np.ndarray", x2: "np.ndarray") -> "Moments":
        return cls(len(x1), len(x2), x1.mean(axis=0), x2.mean(axis=0), x1.var(axis=0, ddof=1), x2.var(axis=0, ddof=1))

    @property
    def delta(self) -> "np.ndarray":
        return self.mean2 - self.mean1

    def welch(self) -> Tuple["np.ndarray", "np.ndarray", "np.ndarray"]:
        """Welch's t, its standard error and Welch–Satterthwaite degrees of freedom per stack.

        A stack with no variance in either group has se = 0: t is ±inf when the means differ
        (every run of one group differs from every run of the other) and 0 when they do not.
        """
        import numpy as np

        a, b = self.var1 / self.n1, self.var2 / self.n2
        se = np.sqrt(a + b)
        delta = self.delta
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(se > 0, delta / np.where(se > 0, se, 1.0), np.sign(delta) * np.inf)
            t = np.where((se == 0) & (delta == 0), 0.0, t)
            df = (a + b) ** 2 / (a**2 / (self.n1 - 1) + b**2 / (self.n2 - 1))
        df = np.where(np.isfinite(df), df, self.n1 + self.n2 - 2.0)
        return t, se, df
