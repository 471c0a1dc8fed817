"""Samples of flame graphs and two-sample tests: which stacks changed between two versions.

numpy is imported only when a sample is built or a test runs; scipy never (the t, F and χ² tails are in _tails).
"""

from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(["CompareOptions", "Comparison", "Margin", "StackChange", "compare"], "comparison"),
    **dict.fromkeys(["FrequencyFilter", "Sample"], "matrix"),
    **dict.fromkeys(["SampleSimilarity", "sample_similarity"], "similarity"),
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .comparison import CompareOptions, Comparison, Margin, StackChange, compare
    from .matrix import FrequencyFilter, Sample
    from .similarity import SampleSimilarity, sample_similarity
