"""How alike runs are within each of two samples and between them: the distribution of σ.

If the candidate behaves like the baseline, σ between a baseline run and a candidate run
looks like σ between two baseline runs; a real change moves the "between" values down.
"""

from __future__ import annotations

from .._record import Record, record
from typing import TYPE_CHECKING

from .matrix import Sample

if TYPE_CHECKING:
    import numpy as np

QUANTILES = (0.0, 0.05, 0.5, 0.95, 1.0)


@record
class SampleSimilarity(Record):
    """σ(f, g) = 1 − ‖f − g‖ / (‖f‖ + ‖g‖) for every pair of runs: within each sample and across."""

    within_first: np.ndarray
    within_second: np.ndarray
    between: np.ndarray

    def groups(self) -> dict[str, np.ndarray]:
        return {"within first": self.within_first, "within second": self.within_second, "between": self.between}

    def summary(self) -> dict[str, dict[str, float]]:
        """Per group: pairs, mean and the quantiles min, 5%, median, 95%, max."""
        import numpy as np

        out = {}
        for name, values in self.groups().items():
            row = {"pairs": int(len(values)), "mean": float(values.mean()) if len(values) else float("nan")}
            for q in QUANTILES:
                row[_label(q)] = float(np.quantile(values, q)) if len(values) else float("nan")
            out[name] = row
        return out


def _label(q: float) -> str:
    return {0.0: "min", 0.5: "median", 1.0: "max"}.get(q, f"{100 * q:g}%")


def _pairwise(x: np.ndarray, y: np.ndarray, same: bool) -> np.ndarray:
    """σ for all pairs (i < j when ``x`` and ``y`` are the same runs)."""
    import numpy as np

    nx, ny = x.sum(axis=1), y.sum(axis=1)
    values = []
    for i in range(len(x)):
        others = y[i + 1 :] if same else y
        scale = nx[i] + (ny[i + 1 :] if same else ny)
        dist = np.abs(others - x[i]).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            values.append(np.where(scale > 0, 1.0 - dist / np.where(scale > 0, scale, 1.0), 1.0))
    return np.concatenate(values) if values else np.zeros(0)


def sample_similarity(first: Sample, second: Sample, normalize: bool = False) -> SampleSimilarity:
    """σ within ``first``, within ``second`` and between them; ``normalize`` compares shapes (shares)."""
    if normalize:
        first, second = first.normalized(), second.normalized()
    stacks = sorted(set(first.stacks) | set(second.stacks))
    x, y = first.over(stacks), second.over(stacks)
    return SampleSimilarity(_pairwise(x, x, True), _pairwise(y, y, True), _pairwise(x, y, False))
