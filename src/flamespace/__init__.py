"""flamespace: flame graphs as vectors.

Read a profile, combine and compare it, write it back::

    import flamespace as fs
    base = fs.read("before.folded")
    cand = fs.read("after.folded")
    parts = fs.decompose(base, cand)       # appeared, grown, disappeared, shrunk
    print(fs.similarity(base, cand))
    fs.write(fs.strip(cand, "lines"), "after-by-function.folded")
    fs.render.svg(cand, fs.SvgOptions(title="after"), "after.svg")

Profile a block of code::

    with fs.profile(mode="cpu") as p:
        work()
    fs.write(p.graph, "work.folded")

Trace it (every call, exact counts and times)::

    with fs.trace() as t:
        work()
    fs.write(t.graph(), "work.folded")

Attributes are imported on first use, so ``import flamespace`` is cheap.

PYTEST_DONT_REWRITE: ``flamespace record -m pytest`` imports this package before pytest
starts, and pytest (which rewrites the asserts of plugins such as ours) warned on every
profiled test run that it could not; there are no asserts here to rewrite.
"""

from __future__ import annotations

from ._lazy import lazy_exports
from .core import _EXPORTS as _CORE_EXPORTS
from .core.display import set_drawer as _set_drawer

_EXPORTS = {
    **{name: f"core.{module}" for name, module in _CORE_EXPORTS.items()},
    "Diagnostics": "diagnostics",
    **dict.fromkeys(["ArgumentError", "FlamespaceError", "InputError", "UnitMismatchError"], "errors"),
    **dict.fromkeys(["read", "write"], "formats.registry"),
    **dict.fromkeys(["Sampler", "SamplerOptions"], "collect.sampler"),
    "Recording": "collect.recording",
    **dict.fromkeys(["profile", "Profiler", "Rotation"], "collect.api"),
    "MemoryOptions": "collect.memory",
    **dict.fromkeys(["Collection", "RunFailedError", "collect_runs"], "collect.runs"),
    **dict.fromkeys(["RecordError", "RecordResult", "record_program"], "collect.launcher"),
    "Program": "collect.target",
    **dict.fromkeys(["trace", "Trace", "TraceOptions"], "collect.tracer"),
    **dict.fromkeys(["CompareOptions", "Comparison", "Margin", "StackChange", "compare"], "stats.comparison"),
    **dict.fromkeys(["FrequencyFilter", "Sample"], "stats.matrix"),
    **dict.fromkeys(["ComparedSides", "compare_sides"], "workflows.samples"),
    **dict.fromkeys(["gate", "GateError", "GateResult", "GateRun", "GateSide", "GateStopped"], "workflows.gate"),
    **dict.fromkeys(["SampleSimilarity", "sample_similarity"], "stats.similarity"),
    "render": "render",
    **dict.fromkeys(["SvgOptions", "TextOptions"], "render"),
    "agent": "agent",  # flamespace.agent.start(...) after a bare `import flamespace`
}

__all__ = sorted(_EXPORTS)
# profiles, comparisons and histories show themselves in notebooks (_repr_html_) through the render layer
_set_drawer("flamespace.render.notebook")


def load_ipython_extension(ipython: object) -> None:
    """``%load_ext flamespace``: the ``%flamespace``, ``%%flamespace`` and ``%flamespace_compare``
    magics (flamespace.notebook; needs IPython: ``pip install 'flamespace[notebook]'``)."""
    from .notebook import load_ipython_extension as load

    load(ipython)


# __version__ too comes on first use: the profiled child imports this package, not the version
__getattr__, __dir__ = lazy_exports(__name__, {**_EXPORTS, "__version__": "_version"})

TYPE_CHECKING = False
if TYPE_CHECKING:  # what type checkers and editors see (without importing typing at run time)
    from ._version import __version__
    from .collect.memory import MemoryOptions
    from .collect.api import Profiler, Rotation, profile
    from .collect.launcher import RecordError, RecordResult, record_program
    from .collect.recording import Recording
    from .collect.runs import Collection, RunFailedError, collect_runs  # noqa: F401
    from .collect.sampler import Sampler, SamplerOptions
    from .collect.target import Program
    from .collect.tracer import Trace, TraceOptions, trace
    from .core import *  # noqa: F401,F403
    from .diagnostics import Diagnostics
    from .errors import ArgumentError, FlamespaceError, InputError, UnitMismatchError
    from .formats.registry import read, write
    from .stats.comparison import CompareOptions, Comparison, Margin, StackChange, compare
    from .stats.matrix import FrequencyFilter, Sample
    from .stats.similarity import SampleSimilarity, sample_similarity
    from .workflows.gate import GateError, GateResult, GateRun, GateSide, GateStopped, gate  # noqa: F401
    from .workflows.samples import ComparedSides, compare_sides  # noqa: F401
    from . import render  # noqa: F401
    from .render import SvgOptions, TextOptions  # noqa: F401
