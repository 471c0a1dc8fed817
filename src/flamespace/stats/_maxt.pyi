# Types of the C extension _maxt.c (the max-t permutation test's loop over relabellings).

from typing import Any

def permuted(
    x: Any,
    sq: Any | None,
    total: Any,
    total2: Any,
    labels: Any,
    count: int,
    runs: int,
    p: int,
    n1: int,
    n2: int,
    floor: float,
    paired: bool,
    weighted: Any,
    prior_df: float,
    threshold: Any,
    mode: int,
    max_high: Any,
    max_low: Any,
    exceed: Any,
    out: Any | None,
    /,
) -> None:
    """The t of every stack on each of the ``count`` relabellings in ``labels``, reduced: max_high[b] = max t,
    max_low[b] = max −t (each variance moderated: sum of squares + weighted[j] over df + prior_df), exceed[j] += #{b: s(t) ≥ threshold[j]} (mode 0: t, 1: −t, 2: |t|); every t in ``out``
    unless it is None. Arrays are C-contiguous float64 (labels uint8)."""
