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


def loads(values: np.ndarray) -> np.ndarray | None:
    """Each row's load (rows: runs or points; columns: stacks), None when fewer than
    :data:`LOAD_STACKS` stacks have a median above 0 over the rows. Computed from all rows alike
    (a symmetric function of them), so a permutation test of the divided rows stays exact."""
    import numpy as np

    typical = np.median(values, axis=0)
    used = typical > 0
    if int(used.sum()) < LOAD_STACKS:
        return None
    found = np.median(values[:, used] / typical[used], axis=1)
    return np.where(found > 0, found, 1.0)
