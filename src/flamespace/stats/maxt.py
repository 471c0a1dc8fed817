"""Westfall–Young max-|t| permutation test: family-wise error control for any number of stacks.

Only assumes the runs are exchangeable when nothing changed (no normality, any correlation
between stacks). Seeded, so a result can be reproduced.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ..errors import ArgumentError
from ._result import Moments, TestResult

if TYPE_CHECKING:
    import numpy as np

#: Bound on the floats in one batch of permuted statistics (memory ≈ 8 bytes × this × 4).
BATCH_CELLS = 1_000_000


def _permuted_t(groups: "np.ndarray", x: "np.ndarray", x2: "np.ndarray", total: "np.ndarray", total2: "np.ndarray", n1: int, n2: int) -> "np.ndarray":
    """|Welch t| of every stack for a batch of group assignments (rows of 0/1 ``groups``)."""
    import numpy as np

    s1 = groups @ x
    q1 = groups @ x2
    m1 = s1 / n1
    m2 = (total - s1) / n2
    v1 = np.maximum(q1 - n1 * m1 * m1, 0.0) / (n1 - 1)
    v2 = np.maximum(total2 - q1 - n2 * m2 * m2, 0.0) / (n2 - 1)
    se = np.sqrt(v1 / n1 + v2 / n2)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(m2 - m1) / se
    t[~np.isfinite(t)] = 0.0
    return t


def test(x1: "np.ndarray", x2: "np.ndarray", alpha: float, permutations: int = 1000, seed: Optional[int] = None) -> TestResult:
    """Max-|t| single-step test over ``permutations`` random relabellings of the runs.

    Adjusted p_k = (1 + #{b: max_j |t_bj| ≥ |t_k|}) / (B + 1); raw p_k counts |t_bk| alone.
    Intervals Δk ± c·se_k with c the (1 − α) quantile of the permuted maxima hold simultaneously.
    """
    import numpy as np

    if permutations < 1:
        raise ArgumentError(f"permutations must be ≥ 1, not {permutations}")
    m = Moments.of(x1, x2)
    n1, n2 = m.n1, m.n2
    t, se, _ = m.welch()
    observed = np.abs(t)
    pooled = np.vstack([x1, x2])
    centred = pooled - pooled.mean(axis=0)  # avoids cancellation in the sums of squares
    squares = centred * centred
    total, total2 = centred.sum(axis=0), squares.sum(axis=0)
    rng = np.random.default_rng(seed)
    n, p = pooled.shape
    batch = max(1, min(permutations, BATCH_CELLS // max(p, 1)))
    maxima = np.empty(permutations)
    exceed = np.zeros(p)
    threshold = observed * (1 - 1e-9)  # ties count as exceeding, despite rounding
    done = 0
    while done < permutations:
        size = min(batch, permutations - done)
        order = np.argsort(rng.random((size, n)), axis=1)[:, :n1]
        groups = np.zeros((size, n))
        np.put_along_axis(groups, order, 1.0, axis=1)
        permuted = _permuted_t(groups, centred, squares, total, total2, n1, n2)
        maxima[done:done + size] = permuted.max(axis=1) if p else 0.0
        exceed += (permuted >= threshold).sum(axis=0)
        done += size
    ranked = np.sort(maxima)
    above = permutations - np.searchsorted(ranked, threshold, side="left")
    p_adj = (1 + above) / (permutations + 1)
    p_raw = (1 + exceed) / (permutations + 1)
    values = np.append(ranked, observed.max() if p else 0.0)
    critical = float(np.quantile(values, 1 - alpha, method="higher"))
    delta = m.delta
    half = critical * se
    return TestResult(
        method="maxt", statistic=t, p=p_raw, p_adjusted=p_adj, lower=delta - half, upper=delta + half,
        significant=p_adj <= alpha, global_statistic=float(observed.max()) if p else 0.0,
        global_p=float(p_adj.min()) if p else 1.0, statistic_name="max |t|",
        details={"permutations": permutations, "critical_t": critical},
    )
