"""Two-sample Hotelling T² on the mean flame graphs, with simultaneous intervals (Tornetta, §3).

Assumes runs are independent and the stack vectors roughly multivariate normal with a common
covariance. Needs fewer varying stacks than n1 + n2 − 1 runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Tuple

from ..errors import ArgumentError
from ._result import Moments, TestResult

if TYPE_CHECKING:
    import numpy as np


def g_squared(n1: int, n2: int, p: int) -> float:
    """G² = (n1+n2−p−1) / ((n1+n2−2)·p) · n1·n2/(n1+n2): turns ΔᵀS⁻¹Δ into an F(p, n1+n2−p−1) value."""
    return (n1 + n2 - p - 1) / ((n1 + n2 - 2) * p) * (n1 * n2) / (n1 + n2)


def intervals(delta: "np.ndarray", variances: "np.ndarray", n1: int, n2: int, p: int, f_star: float) -> Tuple["np.ndarray", "np.ndarray"]:
    """Simultaneous intervals Δk ± sqrt(F*·Σkk / G²), with Σkk the pooled variance of stack k."""
    import numpy as np

    half = np.sqrt(f_star * np.asarray(variances, dtype=float) / g_squared(n1, n2, p))
    delta = np.asarray(delta, dtype=float)
    return delta - half, delta + half


def test(x1: "np.ndarray", x2: "np.ndarray", alpha: float) -> TestResult:
    """Hotelling's T² with pooled covariance; per-stack decisions from the simultaneous intervals.

    Stacks with zero variance in both groups make the covariance singular: they are taken out
    of the test (a difference in them is certain: p = 0; none: p = 1). If the rest is still
    singular (e.g. shares that sum to 1), the test runs in the rank-r subspace the data spans
    (pseudo-inverse, r degrees of freedom) and says so in ``notes``.
    """
    import numpy as np
    from scipy import stats

    m = Moments.of(x1, x2)
    n1, n2 = m.n1, m.n2
    delta = m.delta
    pooled_var = ((n1 - 1) * m.var1 + (n2 - 1) * m.var2) / (n1 + n2 - 2)
    scale = np.maximum(np.abs(m.mean1), np.abs(m.mean2))
    constant = pooled_var <= (1e-12 * scale) ** 2
    varying = ~constant
    q = int(varying.sum())
    notes = []
    if constant.any():
        notes.append(f"{int(constant.sum())} stack(s) without variance in either group tested exactly (p = 0 if the means differ, else 1)")
    if q >= n1 + n2 - 1:
        raise ArgumentError(
            f"hotelling needs fewer varying stacks than n1 + n2 − 1 = {n1 + n2 - 1} runs, but there are {q}; "
            "use --method welch or maxt (valid for any number of stacks), collect more runs, "
            "or drop rare stacks with --min-runs/--min-fraction"
        )
    p_raw = np.where(delta != 0, 0.0, 1.0)
    p_adj = p_raw.copy()
    lower, upper = delta.copy(), delta.copy()
    statistic = np.where(delta != 0, np.inf, 0.0)
    global_f, global_p, rank, f_star = 0.0, 1.0, 0, float("nan")
    if q:
        d = delta[varying]
        centred = np.vstack([x1[:, varying] - m.mean1[varying], x2[:, varying] - m.mean2[varying]])
        pooled = centred.T @ centred / (n1 + n2 - 2)
        w, v = np.linalg.eigh(pooled)
        tol = w.max() * q * np.finfo(float).eps
        keep = w > tol
        rank = int(keep.sum())
        if rank < q:
            notes.append(f"pooled covariance has rank {rank} < {q} stacks; tested in the {rank}-dimensional subspace the runs span")
        proj = v[:, keep].T @ d
        quad = float(np.sum(proj**2 / w[keep]))
        df2 = n1 + n2 - rank - 1
        g2 = g_squared(n1, n2, rank)
        dist = stats.f(rank, df2)
        global_f = g2 * quad
        global_p = float(dist.sf(global_f))
        f_star = float(dist.isf(alpha))
        s = pooled_var[varying]
        per_stack = g2 * d**2 / s
        statistic[varying] = per_stack
        p_adj[varying] = dist.sf(per_stack)
        t = d / np.sqrt(s * (1 / n1 + 1 / n2))
        p_raw[varying] = 2 * stats.t.sf(np.abs(t), n1 + n2 - 2)
        lower[varying], upper[varying] = intervals(d, s, n1, n2, rank, f_star)
    significant = np.where(varying, statistic >= f_star, delta != 0)
    return TestResult(
        method="hotelling", statistic=statistic, p=p_raw, p_adjusted=p_adj, lower=lower, upper=upper,
        significant=significant, global_statistic=global_f, global_p=global_p, statistic_name="F",
        notes=tuple(notes), details={"df1": rank, "df2": n1 + n2 - rank - 1, "f_star": f_star},
    )
