"""Change points in a series (one point per commit or per day): where a stack's level changed.

The method is **binary segmentation with a standardised CUSUM statistic and a permutation
p-value** (one split at a time: the point that best splits the segment's mean, kept only if
its permutation p-value is ≤ α, then the same on each side). We chose it over E-divisive
means (Matteson & James 2014, the method of MongoDB's performance CI; Daly et al. 2020)
for three reasons:

- **The question is a level.** "Which commit made this stack grow" asks about a shift of the
  mean. The standardised CUSUM is the likelihood-ratio statistic for one shift of the mean
  (the most powerful for a step in Gaussian noise). E-divisive compares whole distributions,
  so a change of spread alone (a noisier CI machine, a run that was alone on it) is reported
  as a change, which is the wrong answer to this question.
- **Cost.** A permutation of n points costs O(n) for CUSUM (one cumulative sum) and O(n²)
  for the energy statistic (every pair of points): 999 permutations of a 1,000-commit series
  are about 10⁶ operations instead of 10⁹, for each of the stacks shown, so the p-values stay
  exact permutation p-values rather than a handful of draws. DataStax's Hunter (Fleming et al.
  2023), built on MongoDB's E-divisive code, replaced its permutation test with a t-test,
  citing its cost and its run-to-run randomness.
- **Determinism.** The permutations are drawn from a generator seeded by ``seed`` and the
  segment's bounds, so the same series gives the same answer, whatever order segments are
  tested in.

**Error rate.** A series without any change reports one with probability at most α (the first
test is a valid permutation test at level α, and nothing is reported unless it rejects):
exact when the points are exchangeable, i.e. independent and identically distributed when
nothing changed. Drift (a slowly warming machine) or correlated neighbours break that
assumption. Later splits are tested the same way within their segment, so a series with one
real change reports a second, false one in about 2α of cases (docs/performance.md). Series of
up to :data:`MAX_EXACT` points are tested on every ordering (exact), longer ones on
``permutations`` random orderings with the observed one counted, p = (1 + #{T* ≥ T}) / (B + 1),
stopped early once 20 orderings reach the observed statistic (Besag & Clifford's sequential
p-value, as valid; a series without a change costs a few dozen orderings, not thousands).
Short series cannot be significant at small α: :func:`smallest_p` (6 points, 0.1; 10, 0.008).

**Robust to stalls, weighted by profiles** (issue 26). The statistic is computed on the
levels winsorised at :data:`WINSOR` robust standard deviations of their median
(:func:`winsorised`; one sampler stall of twice the stack's time would otherwise carry the
CUSUM), and each point weighs as many profiles as it holds (:func:`cusum`); a permutation moves
a point with its weight. Ranks were tried first: their CUSUM favours splits in the middle and
lost an off-centre step in short series. The split is then placed where the weighted absolute
deviations from each side's median are least (:func:`locate`), and a change's levels are the
medians of its sides. On 30 points of 1-5 profiles with 2.5% of profiles stalled, an 8% step is
found in 92% of series (the mean CUSUM: 33%) and flat series report a change in 5.5% ± 0.5
(benchmarks/bench_changepoint.py --timing; docs/statistics.md, "History's change points").

**Several runs per point.** A point's level is the median of its runs, and each point counts
once in the permutation (with its number of runs as its weight): the point (one build of one commit, one day's machine) is the replicate, because
commit-level effects (code layout, the machine a job ran on) are usually larger than the
run-to-run noise within a commit, and permuting runs one by one would ignore them.

Binary segmentation may miss a short excursion that returns to the old level between two
long stretches (its CUSUM is diluted); each side must hold ``min_size`` points, so a change
in the last commits is reported once ``min_size`` points after it exist.
"""

from __future__ import annotations

import math

from .._record import Record, record
from ..errors import ArgumentError

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: typing stays off `history --help`'s path
    from collections.abc import Iterable, Sequence

    import numpy as np

#: The defaults of :func:`detect`, documented once (the CLI reuses them).
ALPHA = 0.05
PERMUTATIONS = 999
MIN_SIZE = 2
SEED = 0
#: Series this short are tested on every ordering of their points (7! = 5,040 orderings).
MAX_EXACT = 7
#: Relative tolerance under which a permuted statistic counts as equal to the observed one.
TIES = 1e-9
#: Bound on the cells of one batch of permuted series (8 bytes each).
BATCH_CELLS = 1_000_000
#: Rows of the first batch of random orderings (later ones double, up to BATCH_CELLS cells).
FIRST_BATCH = 64
#: Points further than this many robust standard deviations from the median are pulled back (:func:`winsorised`).
WINSOR = 2.5
#: Random orderings stop once this many reach the observed statistic (:func:`_sequential_p`).
STOP_AFTER = 20


@record
class ChangePoint(Record):
    """A change of level before point ``index`` (the first point at the new level).

    ``before``/``after`` are the median levels of the segments on either side (bounded by the
    neighbouring change points); ``relative`` is (after − before) / |before| (±inf when the
    level was 0 before, nan when both are 0). ``p`` is the permutation p-value of the split
    within the segment it was found in; ``statistic`` the standardised CUSUM there.
    """

    index: int
    label: str
    before: float
    after: float
    relative: float
    p: float
    statistic: float

    @property
    def change(self) -> float:
        return self.after - self.before


@record
class ChangePoints(Record):
    """Every change point found in one series (in order of ``index``), with how they were tested."""

    points: tuple[ChangePoint, ...]
    levels: tuple[float, ...]
    labels: tuple[str, ...]
    alpha: float
    permutations: int
    min_size: int

    @property
    def segments(self) -> list[tuple[int, int, float]]:
        """(start, end, mean level) of each stretch between change points."""
        bounds = [0, *(c.index for c in self.points), len(self.levels)]
        return [(a, b, _mean(self.levels[a:b])) for a, b in zip(bounds, bounds[1:]) if b > a]


def smallest_p(n: int) -> float:
    """The smallest p-value any series of ``n`` points can have: every ordering that puts the same
    points before the best split (and its reverse) reaches the same statistic, so at least
    2 · k! (n − k)! of the n! orderings do, and 2 / C(n, k) is least at k = n/2 (6 points: 0.1;
    10: 0.008; 14: 0.0006). Random permutations estimate the same p."""
    return min(1.0, 2 / math.comb(n, n // 2)) if n >= 2 else 1.0


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


def levels_of(series: Iterable[float | Sequence[float] | np.ndarray]) -> np.ndarray:
    """One level per point: a number as it is, several runs by their median (a stalled run moves it
    little). A point without runs is an error."""
    return _levels_and_counts(series)[0]


def _levels_and_counts(series: Iterable[float | Sequence[float] | np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Each point's level (:func:`levels_of`) and how many runs it holds (1 for a bare number)."""
    import numpy as np

    if isinstance(series, np.ndarray) and series.ndim == 1 and series.dtype.kind in "iuf":
        values: np.ndarray = series.astype(float)  # one number a point (a history's series): no loop
        counts: np.ndarray = np.ones(len(values))
    else:
        out: list[float] = []
        sizes: list[int] = []
        for i, point in enumerate(series):
            runs = np.atleast_1d(np.asarray(point, dtype=float))
            if runs.size == 0:
                raise ArgumentError(f"point {i} of the series has no runs")
            out.append(float(np.median(runs)))
            sizes.append(runs.size)
        values, counts = np.asarray(out, dtype=float), np.asarray(sizes, dtype=float)
    if not np.isfinite(values).all():
        raise ArgumentError(f"point {int(np.flatnonzero(~np.isfinite(values))[0])} of the series is not a finite number")
    return values, counts


def winsorised(x: np.ndarray, reach: float = WINSOR) -> np.ndarray:
    """``x`` with every value beyond ``reach`` robust standard deviations of its median pulled back to
    that bound: a stalled point then weighs no more than a point at the bound, while a step
    keeps its size (unlike ranks, whose CUSUM favours splits in the middle and loses an
    off-centre step in a short series). The spread is 1.4826 × the median absolute deviation
    (the mean absolute deviation × 1.2533 when over half the points are equal). Permuting
    the winsorised values is still an exact permutation test: the bounds depend on the
    values, not on their order."""
    import numpy as np

    centre = float(np.median(x))
    deviations = np.abs(x - centre)
    spread = 1.4826 * float(np.median(deviations)) or 1.2533 * float(deviations.mean())
    if spread == 0:
        return x
    clipped: np.ndarray = np.clip(x, centre - reach * spread, centre + reach * spread)
    return clipped


def cusum(x: np.ndarray, min_size: int, centred: bool = False, weights: np.ndarray | None = None) -> np.ndarray:
    """The standardised CUSUM |S_k| / sqrt(W_k (W − W_k) / W) for splits k = min_size .. n − min_size,
    of each row of ``x`` (a batch of series): the statistic of a shift of the mean after point k − 1.

    ``weights`` (same shape as ``x``, default 1 each): how many runs each point holds; S_k sums
    weight × (value − weighted mean) and W_k the weights of the first k points, so a point of five
    runs counts as five points of one. Invariant to adding a constant; scales with the data (the
    permutation p-value does not). ``centred``: the rows already have (weighted) mean 0
    (permutations of a centred series), so the cumulative sums are taken in place of a copy.
    """
    import numpy as np

    n = x.shape[-1]
    if weights is None:
        partial = np.cumsum(x if centred else x - x.mean(axis=-1, keepdims=True), axis=-1)[..., min_size - 1 : n - min_size]
        k = np.arange(min_size, n - min_size + 1, dtype=float)
        scale = np.sqrt(n / (k * (n - k)))
    else:
        total = weights.sum(axis=-1, keepdims=True)
        centre = 0 if centred else (weights * x).sum(axis=-1, keepdims=True) / total
        partial = np.cumsum(weights * (x - centre), axis=-1)[..., min_size - 1 : n - min_size]
        w = np.cumsum(weights, axis=-1)[..., min_size - 1 : n - min_size]
        scale = np.sqrt(total / (w * (total - w)))
    np.abs(partial, out=partial)
    partial *= scale
    return partial


def split(
    x: np.ndarray, min_size: int, permutations: int, rng: np.random.Generator, weights: np.ndarray | None = None
) -> tuple[int, float, float]:
    """The best split of ``x`` (index of the first point after it), its statistic and its permutation
    p-value. With ``weights``, each point is permuted together with its weight."""
    import itertools

    import numpy as np

    w = np.ones(len(x)) if weights is None else np.asarray(weights, dtype=float)
    x = x - (w * x).sum() / w.sum()  # the weighted mean of every permutation: centred once
    observed = cusum(x, min_size, centred=True, weights=w)
    t = float(observed.max())
    best = int(np.argmax(observed >= t * (1 - TIES)))  # the first of near-ties: rounding cannot move it
    threshold = t * (1 - TIES)
    n = len(x)
    if n <= MAX_EXACT:
        orders = np.array(list(itertools.permutations(range(n))))
        exceed = int((cusum(x[orders], min_size, centred=True, weights=w[orders]).max(axis=1) >= threshold).sum())
        p = exceed / len(orders)
    else:
        p = _sequential_p(x, threshold, min_size, permutations, rng, w)
    return best + min_size, t, p


def _sequential_p(
    x: np.ndarray, threshold: float, min_size: int, permutations: int, rng: np.random.Generator, weights: np.ndarray | None = None
) -> float:
    """The permutation p-value of ``threshold``, stopped early as Besag & Clifford (1991) do: once
    :data:`STOP_AFTER` random orderings reach it (after L drawn), p = STOP_AFTER / L, a valid
    p-value too, and well above any level a test would use; else (1 + #{T* ≥ T}) / (B + 1).
    Most series of a history have no change, and stop after a few dozen orderings instead of
    thousands. Batches grow from :data:`FIRST_BATCH` rows; the h-th exceedance is found within
    its batch, so the answer does not depend on the batch sizes. ``weights`` move with their points."""
    import numpy as np

    n = len(x)
    w = np.ones(n) if weights is None else weights
    largest = max(1, BATCH_CELLS // n)
    size = min(FIRST_BATCH, largest)
    exceed, done = 0, 0
    while done < permutations:
        size = min(size, permutations - done)
        orders = rng.permuted(np.broadcast_to(np.arange(n), (size, n)), axis=1)
        hits = cusum(x[orders], min_size, centred=True, weights=w[orders]).max(axis=1) >= threshold
        count = int(hits.sum())
        if exceed + count >= STOP_AFTER:
            at = int(np.flatnonzero(hits)[STOP_AFTER - exceed - 1])  # the ordering that made it STOP_AFTER
            return STOP_AFTER / (done + at + 1)
        exceed += count
        done += size
        size = min(2 * size, largest)
    return (1 + exceed) / (permutations + 1)


def detect(
    series: Iterable[float | Sequence[float] | np.ndarray],
    labels: Sequence[str] | None = None,
    alpha: float = ALPHA,
    permutations: int = PERMUTATIONS,
    min_size: int = MIN_SIZE,
    seed: int = SEED,
    weights: Sequence[float] | np.ndarray | None = None,
) -> ChangePoints:
    """The change points of ``series`` (one number or several runs per point, in time order).

    ``labels`` name the points (commits, days; default their index). ``weights``: how many
    profiles each point holds (default: its number of runs, 1 for a bare number). A series
    without a change reports one with probability at most ``alpha`` (module docstring).
    Deterministic given ``seed``.
    """
    import numpy as np

    if not 0 < alpha < 1:
        raise ArgumentError(f"alpha must lie between 0 and 1, not {alpha}")
    if permutations < 1:
        raise ArgumentError(f"permutations must be at least 1, not {permutations}")
    if min_size < 1:
        raise ArgumentError(f"min_size must be at least 1, not {min_size}")
    x, counts = _levels_and_counts(series)
    w = counts if weights is None else _weights(weights, len(x))
    names = tuple(str(i) for i in range(len(x))) if labels is None else tuple(str(s) for s in labels)
    if len(names) != len(x):
        raise ArgumentError(f"{len(names)} labels for {len(x)} points")
    found: list[tuple[int, float, float]] = []
    pending = [(0, len(x))]
    while pending:
        start, end = pending.pop()
        if end - start < 2 * min_size:
            continue
        rng = np.random.default_rng([seed, start, end])
        at, t, p = split(winsorised(x[start:end]), min_size, permutations, rng, w[start:end])
        if p <= alpha:
            at = locate(x[start:end], w[start:end], min_size)
            found.append((start + at, t, p))
            pending += [(start, start + at), (start + at, end)]
    found.sort()
    bounds = [0, *(i for i, _, _ in found), len(x)]
    points = []
    for j, (index, t, p) in enumerate(found):
        before = float(np.median(x[bounds[j] : index]))  # medians: a stalled point moves them little
        after = float(np.median(x[index : bounds[j + 2]]))
        points.append(ChangePoint(index, names[index], before, after, _relative(before, after), p, t))
    return ChangePoints(tuple(points), tuple(x.tolist()), names, alpha, permutations, min_size)


def locate(x: np.ndarray, weights: np.ndarray, min_size: int) -> int:
    """Where a segment the rank test found a change in is split: the k that least costs the weighted
    absolute deviations from each side's median (robust as the test is). The rank CUSUM's own
    peak leans towards the middle by a point on a clean step of unequal sides (the first point of
    the longer side has a rank below the mean); this cost does not."""
    import numpy as np

    costs = np.array(
        [
            sum(float((weights[a:b] * np.abs(x[a:b] - np.median(x[a:b]))).sum()) for a, b in ((0, k), (k, len(x))))
            for k in range(min_size, len(x) - min_size + 1)
        ]
    )
    least = costs.min()
    # the first of near-ties, as split() takes: rounding at another scale cannot move the split
    return min_size + int(np.argmax(costs <= least + TIES * float(costs.max())))


def _weights(weights: Sequence[float] | np.ndarray, n: int) -> np.ndarray:
    """``weights`` as an array: one positive finite number per point."""
    import numpy as np

    w = np.asarray(weights, dtype=float)
    if w.shape != (n,):
        raise ArgumentError(f"{w.size} weights for {n} points")
    if not (np.isfinite(w) & (w > 0)).all():
        raise ArgumentError(f"weight of point {int(np.flatnonzero(~(np.isfinite(w) & (w > 0)))[0])} is not a positive number")
    return w


def _relative(before: float, after: float) -> float:
    if before == 0:
        return math.nan if after == 0 else math.copysign(math.inf, after)
    return (after - before) / abs(before)
