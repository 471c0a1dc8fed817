"""Power measured by the test itself: comparisons drawn from recorded runs, a change put in, run through maxt.

``plan`` and ``detectable`` start from a formula (a t quantile, a heavy-tail allowance); the
formula is a model, and on few pairs or runs with sampler stalls it promised more than the
permutation test delivered. Here the answer is checked the way it will be used: comparisons of
the design (n pairs or n runs a side) are drawn from the runs at hand, a change of the size in
question is added to one stack of the candidate side, and :func:`.maxt.test` (compare's test,
same α, direction and statistic) says whether it finds it. The share found is the power.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable, Dict, Optional, Tuple

if TYPE_CHECKING:
    import numpy as np

    #: draws the two sides (runs × stacks each) of one comparison of n runs a side (n pairs)
    PairDrawer = Callable[["np.random.Generator", int], Tuple["np.ndarray", "np.ndarray"]]

#: Comparisons per power estimate: Monte-Carlo s.e. √(0.8·0.2/200) = 0.028 at 80%.
RESAMPLES = 200
#: Relabellings per resampled test (p-values in steps of 1/401; compare's 2,000 change its power by < 0.01).
PERMUTATIONS = 400


def found_share(draw: "PairDrawer", n: int, target: int, amount: float, paired: bool, alpha: float, alternative: str,
                reps: int = RESAMPLES, permutations: int = PERMUTATIONS, seed: int = 0,
                floor: Optional[float] = None) -> Tuple[int, int]:
    """(found, tried): how many of ``reps`` comparisons drawn by ``draw``, with ``amount`` added to
    stack ``target`` of the candidate side, :func:`.maxt.test` calls significant at ``alpha``.

    The same ``seed`` draws the same comparisons whatever ``amount`` and ``n``'s neighbours are
    (common random numbers), so power compared across sizes is not blurred by fresh noise.
    ``amount`` is signed: ``less`` tests look for a negative one.
    """
    import numpy as np

    from . import maxt

    rng = np.random.default_rng(seed)
    found = 0
    for r in range(reps):
        x1, x2 = draw(rng, n)
        x2 = np.array(x2, dtype=float)
        x2[:, target] += amount
        result = maxt.test(x1, x2, alpha, permutations, seed=r, alternative=alternative, paired=paired, floor=floor)
        found += bool(result.significant[target])
    return found, reps


def independent(runs: "np.ndarray", nested: bool = True) -> "PairDrawer":
    """Both sides drawn with replacement from one pilot's ``runs`` (rows), independently.

    ``nested``: each comparison first redraws the pilot itself (m of its m runs, with
    replacement) and draws both sides from that, so the power is averaged over what another
    pilot of the same size might have shown: a small pilot's spread is uncertain, and a plan
    that hits 80% only if the pilot happened to be typical falls short on average (power
    is concave in n around 80%). Pairs of such draws are no more alike than any two runs,
    as ``plan`` assumes.
    """
    m = len(runs)

    def draw(rng: "np.random.Generator", n: int) -> "Tuple[np.ndarray, np.ndarray]":
        pool = runs[rng.integers(0, m, m)] if nested else runs
        return pool[rng.integers(0, m, n)], pool[rng.integers(0, m, n)]

    return draw


def probit(share: float, reps: int) -> float:
    """The normal quantile of a measured share, kept off 0 and 1 (half a count from each end)."""
    from ._tails import normal_ppf

    return float(normal_ppf(min(max(share, 0.5 / reps), 1 - 0.5 / reps)))


def smallest_n(power_at: Callable[[int], float], first: int, least: int, power: float, critical: Callable[[int], float],
               reps: int, most: int, steps: int = 3) -> Tuple[int, float]:
    """The n ≥ ``least`` at which the measured power (``power_at``) reaches ``power``, starting at ``first``.

    The power of a shift is Φ(κ√n − c_n) in the normal model (c_n the design's critical
    value, ``critical``); each measurement gives κ = (Φ⁻¹(measured) + c_n)/√n, and the next n
    solves κ√n − c_n = Φ⁻¹(power) (a secant on the probit scale; c_n moves with n only
    through its degrees of freedom, so a few fixed-point passes solve it). Up to ``steps``
    measurements, stopping when the prediction repeats; the answer is the last prediction,
    measured (one more measurement if it was not). Returns (n, power measured at n).
    """
    from ._tails import normal_ppf

    goal = float(normal_ppf(power))
    measured: Dict[int, float] = {}
    n = min(max(first, least), most)
    for _ in range(steps):
        if n in measured:
            break
        measured[n] = power_at(n)
        kappa = (probit(measured[n], reps) + critical(n)) / math.sqrt(n)
        if kappa <= 0:  # nothing found: the model cannot extrapolate; go up fourfold
            n = min(most, 4 * n)
            continue
        for _ in range(3):
            n = max(least, min(most, math.ceil(((goal + critical(n)) / kappa) ** 2)))
    if n not in measured:
        measured[n] = power_at(n)
    return n, measured[n]
