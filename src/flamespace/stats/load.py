"""Each run's load: what divides out when every stack costs more alike (more requests, a slower machine).

A service's profile follows its traffic: twice the requests, twice every stack's time. A run's
(or a history point's) load is the median, over the stacks, of each stack's value there against
its own median over all runs: a median of ratios, as RNA-seq's size factors (Anders & Huber
2010). Dividing by it leaves each stack's own change. Where shares divide by the total, which
moves with any stack that grew (so every other stack's share falls), one stack that grew is
outvoted in this median and moves the others little (by a part of their spread that shrinks as
the stacks are more). What it cannot tell: a change that makes most stacks cost more alike reads
as load.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import numpy as np

#: Stacks above 0 a load needs: with fewer, one changed stack moves their median by much of the others' noise.
LOAD_STACKS = 5
#: The most weight one stack has in the median (before the weights are scaled back to a sum of 1).
MOST_WEIGHT = 1 / LOAD_STACKS


def stacks_used(values: np.ndarray) -> int:
    """How many stacks (columns) a load of ``values`` is read from: those with a median above 0 over the rows."""
    import numpy as np

    return int((np.median(values, axis=0) > 0).sum())


def loads(values: np.ndarray) -> np.ndarray | None:
    """Each row's load (rows: runs or points; columns: stacks), None when fewer than
    :data:`LOAD_STACKS` stacks have a median above 0 over the rows.

    The median is weighted by each stack's precision: 1 / (its ratios' median distance from
    their row's plain median)², each weight at most :data:`MOST_WEIGHT`. A stack that holds
    still says more of the load than one that scatters, and a stack that changed scatters
    around the others (its ratios are of two levels), so it weighs less: in simulation another
    stack was called changed beside it in 6.5% of comparisons, 10% with a plain median (docs/serve.md).
    Computed from all rows alike (a symmetric function of them), so a permutation test of the
    divided rows stays exact."""
    import numpy as np

    typical = np.median(values, axis=0)
    used = typical > 0
    if int(used.sum()) < LOAD_STACKS:
        return None
    ratios = values[:, used] / typical[used]
    plain = np.median(ratios, axis=1)
    scatter = np.median(np.abs(ratios - plain[:, None]), axis=0)
    weights = 1.0 / np.maximum(scatter, 1e-9) ** 2  # ratios are near 1: 1e-9 is a stack that does not scatter
    weights = np.minimum(weights / weights.sum(), MOST_WEIGHT)
    found = weighted_medians(ratios, weights / weights.sum())
    return np.where(found > 0, found, 1.0)


def weighted_medians(rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Each row's weighted median (``weights`` per column, summing to 1): the first value, in order,
    at which the weights reach half."""
    import numpy as np

    order = np.argsort(rows, axis=1)
    reached = np.cumsum(weights[order], axis=1)
    at = np.minimum((reached < 0.5 - 1e-12).sum(axis=1), rows.shape[1] - 1)
    return np.take_along_axis(rows, order, axis=1)[np.arange(len(rows)), at]
