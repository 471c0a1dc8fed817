"""Two-sample Hotelling T² on the mean flame graphs, with simultaneous intervals (Tornetta, §3).

Assumes runs are independent and the stack vectors roughly multivariate normal with a common
covariance. Needs fewer varying stacks than n1 + n2 − 1 runs. Its F test is two-sided by
nature (a quadratic form sees a change in any direction).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from ..errors import ArgumentError
from ._result import Moments, TestResult, check_alternative

if TYPE_CHECKING:
    import numpy as np

    from .comparison import CompareOptions

#: Closed testing runs 2^q − 1 subset tests; beyond this many varying stacks, Scheffé's intervals decide.
CLOSED_MAX = 12


def check_stacks(varying: int, runs: int, at_least: bool = False) -> None:
    """Refuse ``varying`` stacks over ``runs`` = n1 + n2 runs: the pooled covariance of q stacks
    needs q < n1 + n2 − 1. ``at_least``: ``varying`` is a lower bound and ``runs`` an upper one
    (found while the runs are still being read, so the refusal comes before reading them all)."""
    if varying >= runs - 1:
        raise ArgumentError(
            f"hotelling needs fewer varying stacks than n1 + n2 − 1 = {runs - 1} runs, but there are "
            f"{'at least ' if at_least else ''}{varying}; use --method welch or maxt (valid for any number of stacks), "
            "collect more runs, or drop rare stacks with --min-runs/--min-fraction"
        )


def g_squared(n1: int, n2: int, p: int | np.ndarray) -> float | np.ndarray:
    """G² = (n1+n2−p−1) / ((n1+n2−2)·p) · n1·n2/(n1+n2): turns ΔᵀS⁻¹Δ into an F(p, n1+n2−p−1) value."""
    return (n1 + n2 - p - 1) / ((n1 + n2 - 2) * p) * (n1 * n2) / (n1 + n2)


def intervals(delta: np.ndarray, variances: np.ndarray, n1: int, n2: int, p: int, f_star: float) -> tuple[np.ndarray, np.ndarray]:
    """Simultaneous intervals Δk ± sqrt(F*·Σkk / G²), with Σkk the pooled variance of stack k."""
    import numpy as np

    half = np.sqrt(f_star * np.asarray(variances, dtype=float) / g_squared(n1, n2, p))
    delta = np.asarray(delta, dtype=float)
    return delta - half, delta + half


def f_tests(delta: np.ndarray, covariance: np.ndarray, n1: int, n2: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """F value, p-value and rank of Hotelling's test for a batch of (sub)problems.

    ``delta``: (..., q), ``covariance``: (..., q, q). A singular covariance (e.g. shares that
    sum to 1) is handled in the rank-r subspace the runs span (pseudo-inverse, r degrees of freedom).
    """
    import numpy as np

    from ._tails import f_sf

    w, v = np.linalg.eigh(covariance)
    q = covariance.shape[-1]
    tol = np.maximum(w.max(axis=-1, keepdims=True), 0.0) * q * np.finfo(float).eps
    keep = w > tol
    rank = keep.sum(axis=-1)
    proj = np.einsum("...ji,...j->...i", v, delta)
    quad = np.where(keep, proj**2 / np.where(keep, w, 1.0), 0.0).sum(axis=-1)
    safe = np.maximum(rank, 1)
    f = np.where(rank > 0, g_squared(n1, n2, safe) * quad, 0.0)
    p = np.where(rank > 0, f_sf(f, safe, n1 + n2 - safe - 1), 1.0)
    return f, p, rank


def closed_p(delta: np.ndarray, covariance: np.ndarray, n1: int, n2: int) -> np.ndarray:
    """Closed-testing adjusted p-values: p_k = max over every subset S ∋ k of Hotelling's p_S.

    Rejecting H_k when p_k ≤ α (every intersection hypothesis containing k rejected by its own
    level-α test) controls the family-wise error strongly (Marcus, Peritz & Gabriel 1976).
    """
    import numpy as np

    q = len(delta)
    adjusted = np.zeros(q)
    for size in range(1, q + 1):
        subsets = np.array(list(itertools.combinations(range(q), size)))
        _, p, _ = f_tests(delta[subsets], covariance[subsets[:, :, None], subsets[:, None, :]], n1, n2)
        for column in range(size):
            np.maximum.at(adjusted, subsets[:, column], p)
    return adjusted


def test(x1: np.ndarray, x2: np.ndarray, alpha: float, alternative: str = "two-sided") -> TestResult:
    """Hotelling's T² with pooled covariance; per-stack decisions by closed testing.

    Per stack: closed testing over the varying stacks while they are at most
    :data:`CLOSED_MAX` (exact family-wise control, more powerful than the intervals); beyond,
    Scheffé's simultaneous intervals decide (conservative; said in ``notes``). Stacks without
    variance in either group are left out: the F test has no distribution for them, and
    declaring a difference in them certain (p = 0) is what made 3 + 3 A/A comparisons fail
    one time in eleven; maxt tests them. The F test is two-sided: with a one-sided
    ``alternative`` it still tests for any change, and the alternative selects which
    significant changes count (said in ``notes``): the raw p-values are the one-sided t
    test's, and a stack's adjusted p is never below its raw p, so a stack that moved against
    the tested direction is not significant (:func:`_directed`).
    """
    import numpy as np

    from ._tails import f_isf, f_sf

    check_alternative(alternative)
    m = Moments.of(x1, x2)
    n1, n2 = m.n1, m.n2
    delta = m.delta
    pooled_var = ((n1 - 1) * m.var1 + (n2 - 1) * m.var2) / (n1 + n2 - 2)
    scale = np.maximum(np.abs(m.mean1), np.abs(m.mean2))
    constant = pooled_var <= (1e-12 * scale) ** 2
    varying = ~constant
    q = int(varying.sum())
    notes = []
    if alternative != "two-sided":
        notes.append(
            f"Hotelling's F test is two-sided (it tests for any change); with the {alternative} alternative "
            "the raw p-values are one-sided and only stacks that moved in that direction can be significant"
        )
    if constant.any():
        notes.append(
            f"{int(constant.sum())} stack(s) without variance in either group left out of Hotelling's test "
            "(no decision for them; maxt tests them)"
        )
    check_stacks(q, n1 + n2)
    p_raw = np.ones(len(delta))
    p_adj = np.ones(len(delta))
    lower, upper = np.full(len(delta), -np.inf), np.full(len(delta), np.inf)
    statistic = np.zeros(len(delta))
    critical = np.full(len(delta), np.inf)
    se = np.sqrt(pooled_var * (1 / n1 + 1 / n2))
    global_f, global_p, rank, f_star = 0.0, 1.0, 0, float("nan")
    if q:
        d = delta[varying]
        centred = np.vstack([x1[:, varying] - m.mean1[varying], x2[:, varying] - m.mean2[varying]])
        covariance = centred.T @ centred / (n1 + n2 - 2)
        f, gp, r = f_tests(d, covariance, n1, n2)
        global_f, global_p, rank = float(f), float(gp), int(r)
        if rank < q:
            notes.append(
                f"pooled covariance has rank {rank} < {q} stacks; tested in the {rank}-dimensional subspace the runs span"
            )
        df1, df2 = rank, n1 + n2 - rank - 1
        f_star = float(f_isf(alpha, df1, df2))
        s = pooled_var[varying]
        per_stack = g_squared(n1, n2, rank) * d**2 / s
        statistic[varying] = per_stack
        t = d / np.sqrt(s * (1 / n1 + 1 / n2))
        p_raw[varying] = _one_stack_p(t, n1 + n2 - 2, alternative)
        lower[varying], upper[varying] = intervals(d, s, n1, n2, rank, f_star)
        # Scheffé's critical t: |t| > sqrt(F*/G²) / sqrt(1/n1 + 1/n2) ⇔ the interval excludes 0.
        critical[varying] = np.sqrt(f_star / g_squared(n1, n2, rank)) / np.sqrt(1 / n1 + 1 / n2)
        if q <= CLOSED_MAX:
            p_adj[varying] = closed_p(d, covariance, n1, n2)
        else:
            p_adj[varying] = f_sf(per_stack, df1, df2)
            notes.append(
                f"{q} varying stacks are too many for closed testing (at most {CLOSED_MAX}): per-stack decisions "
                "come from Scheffé's simultaneous intervals and are conservative"
            )
    p_adj, toward = _directed(p_adj, p_raw, delta, alternative)
    significant = varying & toward & (p_adj <= alpha)
    return TestResult(
        method="hotelling",
        statistic=statistic,
        p=p_raw,
        p_adjusted=p_adj,
        lower=lower,
        upper=upper,
        significant=significant,
        global_statistic=global_f,
        global_p=global_p,
        statistic_name="F",
        notes=tuple(notes),
        details={"df1": rank, "df2": n1 + n2 - rank - 1, "f_star": f_star, "interval_level": 1 - alpha},
        critical=critical,
        se=se,
        control="family-wise error",
    )


def _one_stack_p(t: np.ndarray, df: int, alternative: str) -> np.ndarray:
    """Each stack's own (unadjusted) p: Student's t with pooled variance, in the direction tested."""
    import numpy as np

    from ._tails import t_sf

    if alternative == "two-sided":
        return np.asarray(2 * t_sf(np.abs(t), df), dtype=float)
    return np.asarray(t_sf(t if alternative == "greater" else -t, df), dtype=float)


def _directed(p_adjusted: np.ndarray, p_raw: np.ndarray, delta: np.ndarray, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """The adjusted p-values for ``alternative`` and which stacks moved in its direction.

    The F tests' adjusted p is two-sided; raised to the stack's own one-sided p where that is
    larger (it is ≥ 1/2 for a stack that moved the other way), an adjusted p is never below
    the raw one, and a stack that moved against the tested direction is never significant.
    """
    import numpy as np

    if alternative == "two-sided":
        return np.maximum(p_adjusted, p_raw), np.ones(len(delta), dtype=bool)
    toward = delta > 0 if alternative == "greater" else delta < 0
    return np.maximum(p_adjusted, p_raw), toward


def run(x1: np.ndarray, x2: np.ndarray, options: CompareOptions) -> TestResult:
    """The method seam (:class:`.methods.Method`): :func:`test` with compare's options."""
    return test(x1, x2, options.alpha, options.alternative)
