"""Westfall–Young max-t permutation test: family-wise error control for any number of stacks.

Only assumes the runs are exchangeable when nothing changed (no normality, any correlation
between stacks). Exact: when the relabellings of the runs into two groups number no more than
the permutation budget, every one is enumerated (3 + 3 runs: 20); beyond, random relabellings
with the observed one counted, p = (1 + #{≥}) / (B + 1). Seeded, so a result can be reproduced.

The statistic is Welch's t with each group's variance floored at δ²/12 (see
:func:`._result.variance_floor`): finite for every stack, and computed identically on every
relabelling, which is all a permutation test needs to hold its level.

The relabellings' statistics are made by the C core (_maxt.c: 2,000 relabellings of 100 runs
× 10,000 stacks in about 0.12 s of one core) or, built without it, by numpy (matrix products
with the 0/1 label matrix, about 1 s); see :class:`_Relabelled`.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any
from collections.abc import Iterator

from ..errors import ArgumentError
from ._result import Moments, TestResult, check_alternative, variance_floor
from .moderation import DEFAULT_STATISTIC, check_statistic, chosen
from .power import smallest_p

try:
    from . import _maxt  # the C loop over relabellings (_maxt.c)

    _core: ModuleType | None = _maxt
except ImportError:  # built without it: numpy computes every relabelling's t
    _core = None

if TYPE_CHECKING:
    from types import ModuleType

    import numpy as np

    from .comparison import CompareOptions
    from .moderation import Prior

#: Bound on the floats in one batch of permuted statistics (memory ≈ 8 bytes × this × 4).
BATCH_CELLS = 1_000_000
#: Bound on the bytes of labels in one batch for the C core (without --fdr it keeps no t: 8 MB, 80,000 relabellings of 100 runs).
LABEL_BYTES = 8_000_000
#: Relative tolerance under which a permuted statistic counts as equal to (so exceeding) the observed one.
TIES = 1e-9


def _permuted_t(
    groups: np.ndarray,
    x: np.ndarray,
    x2: np.ndarray,
    total: np.ndarray,
    total2: np.ndarray,
    n1: int,
    n2: int,
    floor: float,
    prior: Prior,
) -> np.ndarray:
    """Signed Welch t (group 2 − group 1) of every stack for a batch of group-1 indicators (rows of
    ``groups``), each group's variance moderated by ``prior`` (:mod:`.moderation`) and floored."""
    import numpy as np

    s1 = groups @ x
    q1 = groups @ x2
    weighted = prior.weighted()
    # the same arithmetic as Moments.welch, in place: a batch is 10^6 cells, and fresh
    # temporaries for each step cost more than the arithmetic
    m1 = s1 / n1
    m2 = np.subtract(total, s1, out=s1)
    m2 /= n2
    v1 = np.multiply(n1, m1)
    v1 *= m1
    np.subtract(q1, v1, out=v1)
    np.maximum(v1, 0.0, out=v1)
    v1 += weighted
    v1 /= n1 - 1 + prior.df
    np.maximum(v1, floor, out=v1)
    v2 = np.subtract(total2, q1, out=q1)
    square = np.multiply(n2, m2)
    square *= m2
    v2 -= square
    np.maximum(v2, 0.0, out=v2)
    v2 += weighted
    v2 /= n2 - 1 + prior.df
    np.maximum(v2, floor, out=v2)
    v1 /= n1
    v2 /= n2
    se = np.add(v1, v2, out=v1)
    np.sqrt(se, out=se)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.subtract(m2, m1, out=m1)
        t /= se
    t[np.isnan(t)] = 0.0  # 0/0: no difference and no variance, no evidence either way
    return t  # ±inf only with floor = 0 (the default floor keeps t finite); they rank as the extremes they are


def relabellings(n1: int, n2: int, permutations: int, batch: int, rng: np.random.Generator) -> tuple[Iterator[np.ndarray], bool]:
    """Batches of group-1 indicator rows (uint8 0/1): every labelling when there are ≤ ``permutations``
    (the observed one, runs 0..n1−1, first), else ``permutations`` random ones. Also: exact?"""
    import numpy as np

    n = n1 + n2
    exact = math.comb(n, n1) <= permutations

    def enumerate_all() -> Iterator[np.ndarray]:
        combos = itertools.combinations(range(n), n1)
        while True:
            chunk = list(itertools.islice(combos, batch))
            if not chunk:
                return
            groups = np.zeros((len(chunk), n), dtype=np.uint8)
            np.put_along_axis(groups, np.array(chunk), 1, axis=1)
            yield groups

    def draw() -> Iterator[np.ndarray]:
        done = 0
        while done < permutations:
            size = min(batch, permutations - done)
            order = np.argsort(rng.random((size, n)), axis=1)[:, :n1]
            groups = np.zeros((size, n), dtype=np.uint8)
            np.put_along_axis(groups, order, 1, axis=1)
            done += size
            yield groups

    return (enumerate_all() if exact else draw()), exact


def _sign_flips(n: int, permutations: int, batch: int, rng: np.random.Generator) -> tuple[Iterator[np.ndarray], bool]:
    """Batches of rows with one flag per pair (uint8, 1: its difference changes sign): all 2^n when
    ≤ ``permutations`` (the observed, none flipped, first), else ``permutations`` random ones. Also: exact?"""
    import numpy as np

    exact = 2**n <= permutations

    def enumerate_all() -> Iterator[np.ndarray]:
        flips = itertools.product((0, 1), repeat=n)
        while True:
            chunk = list(itertools.islice(flips, batch))
            if not chunk:
                return
            yield np.array(chunk, dtype=np.uint8)

    def draw() -> Iterator[np.ndarray]:
        done = 0
        while done < permutations:
            size = min(batch, permutations - done)
            done += size
            yield (rng.random((size, n)) < 0.5).astype(np.uint8)

    return (enumerate_all() if exact else draw()), exact


def _paired_variance(mean: np.ndarray, squares: np.ndarray, n: int, floor: float, prior: Prior) -> np.ndarray:
    """The variance of the differences within pairs, moderated by ``prior`` and floored at ``floor``."""
    import numpy as np

    return np.maximum((np.maximum(squares - n * mean * mean, 0.0) + prior.weighted()) / (n - 1 + prior.df), floor)


def _paired_t(mean: np.ndarray, squares: np.ndarray, n: int, floor: float, prior: Prior) -> np.ndarray:
    """Paired t of the mean difference per pair (the variance of :func:`_paired_variance`)."""
    import numpy as np

    var = _paired_variance(mean, squares, n, floor, prior)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt(var / n)
    t[np.isnan(t)] = 0.0
    return t


#: s(t) of the tested direction: greater, less, two-sided (the ``mode`` of _maxt.c).
_MODES = {"greater": 0, "less": 1, "two-sided": 2}


class _Relabelled:
    """What the statistic of every relabelling is made from, and the statistic's reductions over
    a batch of relabellings: by the C core (_maxt.c) when built, else by numpy.

    Unpaired: ``x`` the pooled runs, centred; ``sq`` their squares; ``total``/``total2`` the
    column sums of both; labels mark the runs of group 1. Paired: ``x`` the differences within
    pairs, ``total`` their sums, ``total2`` their sums of squares (invariant under sign flips);
    labels mark the pairs whose difference changes sign. Both paths compute the same t by the
    same operations but for the order of the sums over runs (a matrix product here, tables of
    subset sums there) and divisions by n made products with 1/n, so they agree to rounding
    (tests/stats/test_maxt_core.py); the C core also gives the same bits on every x86-64.
    """

    def __init__(
        self,
        x: np.ndarray,
        sq: np.ndarray | None,
        total: np.ndarray,
        total2: np.ndarray,
        n1: int,
        n2: int,
        floor: float,
        paired: bool,
        prior: Prior,
    ) -> None:
        import numpy as np

        def contiguous(a: np.ndarray) -> np.ndarray:  # the C core reads C-order float64 buffers
            return np.ascontiguousarray(a, dtype=np.float64)

        self.x, self.total, self.total2 = contiguous(x), contiguous(total), contiguous(total2)
        self.sq = None if sq is None else contiguous(sq)
        self.n1, self.n2, self.floor, self.paired, self.prior = n1, n2, floor, paired, prior
        self.weighted = contiguous(prior.weighted())

    def t(self, labels: np.ndarray) -> np.ndarray:
        """The t of every stack (columns) on every relabelling (rows of ``labels``), by numpy."""
        if self.paired:
            signs = 1.0 - 2.0 * labels
            return _paired_t(signs @ self.x / len(self.x), self.total2, len(self.x), self.floor, self.prior)
        assert self.sq is not None
        return _permuted_t(
            labels.astype(float), self.x, self.sq, self.total, self.total2, self.n1, self.n2, self.floor, self.prior
        )

    def reduce(
        self, labels: np.ndarray, threshold: np.ndarray, alternative: str, keep_t: bool, core: ModuleType | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """Over the relabellings of ``labels``: max_j t and max_j −t of each, per stack the count
        of relabellings whose s(t) ≥ ``threshold`` (s: the tested direction), and (``keep_t``) every t."""
        import numpy as np

        count, p = len(labels), len(self.total)
        if core is None or not p:
            t = self.t(labels)
            tested = np.abs(t) if alternative == "two-sided" else (-t if alternative == "less" else t)
            high, low = (t.max(axis=1), (-t).max(axis=1)) if p else (np.zeros(count), np.zeros(count))
            return high, low, (tested >= threshold).sum(axis=0).astype(float), t if keep_t else None
        high, low, exceed = np.empty(count), np.empty(count), np.zeros(p)
        out = np.empty((count, p)) if keep_t else None
        core.permuted(
            self.x,
            self.sq,
            self.total,
            self.total2,
            np.ascontiguousarray(labels, dtype=np.uint8),
            count,
            len(self.x),
            p,
            self.n1,
            self.n2,
            self.floor,
            self.paired,
            self.weighted,
            self.prior.df,
            np.ascontiguousarray(threshold, dtype=np.float64),
            _MODES[alternative],
            high,
            low,
            exceed,
            out,
        )
        return high, low, exceed, out


def _statistics(
    x1: np.ndarray,
    x2: np.ndarray,
    floor: float,
    paired: bool,
    permutations: int,
    batch: int,
    rng: np.random.Generator,
    moderated: bool = False,
) -> tuple[np.ndarray, np.ndarray, _Relabelled, Iterator[np.ndarray], int, bool]:
    """Observed t and its standard error per stack, what the relabelled statistics are made of,
    batches of relabellings (label rows), how many relabellings are counted and whether they
    are all of them.

    Unpaired: Welch's t, relabellings that split the pooled runs into groups of n1 and n2.
    Paired (run i of each side was recorded next to the other, as ``collect`` alternates
    them): the t of the differences within pairs, relabellings that swap the two runs of any
    pair (a sign flip of its difference). Drift of the machine between pairs then cancels:
    only the two runs of a pair need to be exchangeable, not every run.

    ``moderated``: each variance shrunk toward a prior estimated from all stacks of the pooled
    runs without their labels (:mod:`.moderation`), the same in every relabelling.
    """
    import numpy as np

    from . import moderation

    if paired:
        n = len(x1)
        diff = np.ascontiguousarray(x2 - x1)
        squares = (diff * diff).sum(axis=0)  # invariant under sign flips
        diff_floor = 2.0 * floor  # a difference of two values each rounded to δ
        prior = moderation.paired(diff, (x1 + x2).mean(axis=0) / 2) if moderated else moderation.none(diff.shape[1])
        mean = diff.mean(axis=0)
        t = _paired_t(mean, squares, n, diff_floor, prior)
        variance = diff.var(axis=0, ddof=1)
        se = np.sqrt(np.maximum(prior.moderate(variance, n - 1) if prior.df else variance, diff_floor) / n)
        flips, exact = _sign_flips(n, permutations, batch, rng)
        made = _Relabelled(diff, None, diff.sum(axis=0), squares, n, n, diff_floor, True, prior)
        return t, se, made, flips, (2**n if exact else permutations + 1), exact
    m = Moments.of(x1, x2)
    n1, n2 = m.n1, m.n2
    pooled = np.vstack([x1, x2])
    prior = moderation.unpaired(pooled, n1) if moderated else moderation.none(pooled.shape[1])
    if prior.df:
        m = m.replace(var1=prior.moderate(m.var1, n1 - 1), var2=prior.moderate(m.var2, n2 - 1))
    t, se, _ = m.welch(floor)
    centred = pooled - pooled.mean(axis=0)  # avoids cancellation in the sums of squares
    sq = centred * centred
    total, total2 = centred.sum(axis=0), sq.sum(axis=0)
    groups, exact = relabellings(n1, n2, permutations, batch, rng)
    made = _Relabelled(centred, sq, total, total2, n1, n2, floor, False, prior)
    return t, se, made, groups, (math.comb(n1 + n2, n1) if exact else permutations + 1), exact


def _critical(values: np.ndarray, level: float) -> float:
    """The value a statistic must exceed for p = #{values ≥ it}/N ≤ ``level``: the (⌊level·N⌋+1)-th
    largest, raised by the tie band (:func:`_beyond_ties`)."""
    import numpy as np

    ranked = np.sort(values)
    k = int(math.floor(level * len(ranked) + 1e-9))
    return float(_beyond_ties(ranked[len(ranked) - k - 1])) if k < len(ranked) else -math.inf


def _changed_critical(values: np.ndarray, level: float, exact: bool, mirrored: bool) -> float:
    """The bar a changed stack's statistic must clear: with its observed labelling (and, two-sided
    with equal groups, that labelling's mirror, the same max |t|) above every other, p ≤ ``level``
    needs at most ⌊level·N⌋ − m of the others to reach it. ``values``: every relabelling's maximum
    in the test's order (enumerated: the observed first and its mirror last; drawn: the observed last).

    In a null comparison the observed labelling ranks anywhere, so :func:`_critical` is one rank
    lower: at 6 pairs the second largest of 32 distinct maxima, where a change must beat the
    largest of the 31 others (15% higher on lognormal runs; the detectable size was found 73% of
    the time instead of 80%). From a few hundred relabellings the two agree.
    """
    import numpy as np

    drop = 2 if exact and mirrored else 1
    others = values[1 : len(values) - 1] if drop == 2 else (values[1:] if exact else values[:-1])
    k = int(math.floor(level * len(values) + 1e-9)) - drop
    if k < 0:
        return math.inf
    ranked = np.sort(others)
    return float(_beyond_ties(ranked[len(ranked) - k - 1])) if k < len(ranked) else -math.inf


def _beyond_ties(value: Any) -> Any:
    """A critical value raised by the band in which p-values count a relabelled statistic as equal
    (:data:`TIES`), so an interval holds what the test does not reject. At 3 + 3 runs the observed
    maximum often ties another relabelling's (the same pattern of counts in another stack) and,
    equal but for rounding, put the interval's end 1e-14 beyond the truth while p counted the tie:
    coverage was 0.84 where 0.90 was due."""
    import numpy as np

    return value + TIES * np.maximum(np.abs(value), 1.0)


def _top(tops: np.ndarray | None, batch: np.ndarray, keep: int) -> np.ndarray:
    """The ``keep`` largest values of each column seen so far."""
    import numpy as np

    both = batch if tops is None else np.vstack([tops, batch])
    return both if len(both) <= keep else np.partition(both, len(both) - keep, axis=0)[-keep:]


def test(
    x1: np.ndarray,
    x2: np.ndarray,
    alpha: float,
    permutations: int = 2000,
    seed: int | None = None,
    alternative: str = "greater",
    fdr: str | None = None,
    floor: float | None = None,
    paired: bool = False,
    statistic: str = DEFAULT_STATISTIC,
) -> TestResult:
    """The permutation test in the direction of ``alternative``.

    Family-wise (``fdr`` None): adjusted p_k = #{relabellings whose max_j s(t_j) ≥ s(t_k)}/N,
    with s(t) = t (greater), −t (less) or |t| (two-sided), N the relabellings counted
    (observed included). Raw p_k counts stack k alone; with ``fdr`` (bh/by) they are adjusted
    for the false-discovery rate instead. Ties count as exceeding.

    Intervals hold simultaneously (FWER) or at the FCR level R·α/m (FDR). One-sided tests get
    two-sided intervals at level 1 − 2α: the lower bound Δ − c₊·se is the one-sided α bound
    (c₊ the permutation quantile of max t), the upper Δ + c₋·se (c₋ from max −t), so "the
    interval excludes 0" agrees with the decision. Two-sided: Δ ± c·se from max |t|. Critical
    values include the tie band of the p-values (:func:`_beyond_ties`).
    ``floor``: the variance floor, by default δ²/12 from the pooled data (any value computed
    without the labels keeps the test exact). ``paired``: row i of ``x1`` and of ``x2`` are a
    pair (see :func:`_statistics`). ``statistic``: ``welch``, ``moderated`` (the variances of
    the t shrunk toward a prior from all stacks, :mod:`.moderation`; exact all the same), or
    ``auto`` (moderated when the smaller side has few runs: :func:`.moderation.chosen`).
    """
    import numpy as np

    from .welch import FDR_METHODS, fdr_factor, adjust

    check_alternative(alternative)
    check_statistic(statistic)
    if permutations < 1:
        raise ArgumentError(f"permutations must be ≥ 1, not {permutations}")
    if fdr is not None and fdr not in FDR_METHODS:
        raise ArgumentError(f"unknown FDR correction {fdr!r}; choose one of {', '.join(FDR_METHODS)}")
    n1, n2 = len(x1), len(x2)
    if paired and n1 != n2:
        raise ArgumentError(f"a paired test needs as many baseline runs as candidate runs; got {n1} and {n2}")
    statistic = chosen(statistic, min(n1, n2))
    pooled = np.vstack([x1, x2])
    floor = variance_floor(pooled) if floor is None else floor
    n, p = pooled.shape
    batch = max(1, min(permutations, BATCH_CELLS // max(p, 1)))
    if _core is not None and fdr is None:  # no batch of t is kept: only the labels (n bytes each) bound a batch
        batch = max(batch, min(permutations, LABEL_BYTES // n))
    t, se, made, batches, count, exact = _statistics(
        x1, x2, floor, paired, permutations, batch, np.random.default_rng(seed), statistic == "moderated"
    )
    two = alternative == "two-sided"
    sign = -1.0 if alternative == "less" else 1.0
    observed = np.abs(t) if two else sign * t
    with np.errstate(invalid="ignore"):
        threshold = np.where(np.isfinite(observed), observed - TIES * np.maximum(np.abs(observed), 1.0), observed)
    keep = int(math.floor(alpha * count + 1e-9)) + 1  # per-stack tail an FDR interval may need
    high: list[np.ndarray] = []  # max_j t_j per relabelling
    low: list[np.ndarray] = []  # max_j −t_j per relabelling
    exceed = np.zeros(p)
    top_high = top_low = None
    for labels in batches:
        batch_high, batch_low, batch_exceed, permuted = made.reduce(labels, threshold, alternative, fdr is not None, _core)
        high.append(batch_high)
        low.append(batch_low)
        exceed += batch_exceed
        if permuted is not None:
            top_high = _top(top_high, np.abs(permuted) if two else permuted, keep)
            top_low = None if two else _top(top_low, -permuted, keep)
    if not exact:  # the observed labelling is one of the N = B + 1 counted
        high.append(np.array([t.max()]) if p else np.zeros(0))
        low.append(np.array([(-t).max()]) if p else np.zeros(0))
        exceed += 1
        if fdr is not None:
            top_high = _top(top_high, (np.abs(t) if two else t)[None, :], keep)
            top_low = None if two else _top(top_low, -t[None, :], keep)
    max_high = np.concatenate(high) if p else np.zeros(count)
    max_low = np.concatenate(low) if p else np.zeros(count)
    max_tested = np.maximum(max_high, max_low) if two else (max_low if sign < 0 else max_high)
    ranked = np.sort(max_tested)
    p_fwer = (count - np.searchsorted(ranked, threshold, side="left")) / count
    p_raw = np.minimum(exceed / count, 1.0)
    delta = x2.mean(axis=0) - x1.mean(axis=0)
    floor_p = smallest_p(n1, n2, permutations, alternative, paired)
    notes: list[str] = []
    if fdr is None:
        p_adj = p_fwer
        significant = p_adj <= alpha
        if two:
            c = _critical(max_tested, alpha)
            c_high = c_low = c
        else:
            c_high, c_low = _critical(max_high, alpha), _critical(max_low, alpha)
        with np.errstate(invalid="ignore"):
            lower, upper = delta - c_high * se, delta + c_low * se
        critical = np.full(p, c if two else (c_low if sign < 0 else c_high))
        changed = np.full(p, _changed_critical(max_tested, alpha, exact, two and (paired or n1 == n2)))
        control = "family-wise error"
    else:
        p_adj = adjust(p_raw, fdr)
        significant = p_adj <= alpha
        level = max(int(significant.sum()), 1) * alpha / (max(p, 1) * fdr_factor(fdr, p))
        first = alpha / (max(p, 1) * fdr_factor(fdr, p))  # the level of a first discovery
        lower, upper, critical = delta.copy(), delta.copy(), np.zeros(p)
        changed = None
        if p:
            assert top_high is not None and (two or top_low is not None)  # fdr: every relabelling added to them
            ordered_high = -np.sort(-top_high, axis=0)
            ordered_low = ordered_high if two or top_low is None else -np.sort(-top_low, axis=0)
            k, k1 = (int(math.floor(x * count + 1e-9)) for x in (level, first))
            with np.errstate(invalid="ignore"):
                lower = delta - _beyond_ties(ordered_high[min(k, keep - 1)]) * se
                upper = delta + _beyond_ties(ordered_low[min(k, keep - 1)]) * se
            critical = (ordered_low if sign < 0 else ordered_high)[min(k1, keep - 1)]
        control = f"false-discovery rate ({fdr.upper()})"
        if p and first < 1 / count:
            notes.append(
                f"per-stack permutation p-values cannot go below 1/{count}, but a first discovery among {p} stacks "
                f"needs p ≤ {first:.2g}: "
                + ("collect more runs" if exact else f"raise --permutations to {int(math.ceil(1 / first))} or more")
                + " (the family-wise max-t test has no such limit)"
            )
    critical = np.where(floor_p > alpha, np.inf, critical)
    lower, upper = np.where(np.isnan(lower), -np.inf, lower), np.where(np.isnan(upper), np.inf, upper)  # ∞·0 with floor = 0
    statistic_name = "max |t|" if two else ("max −t" if sign < 0 else "max t")
    return TestResult(
        method="maxt",
        statistic=t,
        p=p_raw,
        p_adjusted=p_adj,
        lower=lower,
        upper=upper,
        significant=significant,
        global_statistic=float(observed.max()) if p else 0.0,
        global_p=float(p_fwer.min()) if p else 1.0,
        statistic_name=statistic_name,
        details={
            "relabellings": count,
            "exact": int(exact),
            "variance_floor": floor,
            "paired": int(paired),
            "statistic": statistic,
            **({"prior_df": made.prior.df} if statistic == "moderated" else {}),
        },
        critical=critical,
        se=se,
        changed_critical=None if changed is None else np.where(floor_p > alpha, np.inf, changed),
        smallest_p=floor_p,
        control=control,
        notes=tuple(notes),
    )


def run(x1: np.ndarray, x2: np.ndarray, options: CompareOptions) -> TestResult:
    """The method seam (:class:`.methods.Method`): :func:`test` with compare's options."""
    return test(
        x1,
        x2,
        options.alpha,
        options.permutations,
        options.seed,
        options.alternative,
        options.fdr_method,
        paired=options.paired,
        statistic=options.statistic,
    )
