"""Recording profiles: in this process (:class:`Sampler`, :func:`profile`) or of a whole
program run under the recorder (:func:`record_program`, many times: :func:`collect_runs`).

The seams (see :mod:`.protocol`): every recorder is a :class:`Recorder` whose ``stop()``
hands over a :class:`RawRecording`; :func:`merge` turns those of one run's processes into a
:class:`Recording`. Attributes are imported on first use (see :mod:`flamespace._lazy`):
the recorders import this package inside the profiled program.
"""

from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(["Profiler", "Rotation", "profile"], "api"),
    **dict.fromkeys(["MEMORY_MODES", "MemoryOptions"], "memory"),
    **dict.fromkeys(["RecordError", "RecordResult", "record_program"], "launcher"),
    "Recorder": "protocol",
    **dict.fromkeys(["AIMED_SAMPLES", "MAX_TRUSTED_MISSED_SHARE", "Quality", "RawRecording", "round_rate"], "raw"),
    **dict.fromkeys(["Recording", "merge"], "recording"),
    **dict.fromkeys(["Collection", "Run", "RunFailedError", "collect_runs"], "runs"),
    **dict.fromkeys(["MAX_RATE", "MIN_RATE", "MODES", "SamplerOptions"], "options"),
    "Sampler": "sampler",
    **dict.fromkeys(["Program", "Target", "parse_command", "program_name"], "target"),
    "thread_name": "engine",
    "FrameNamer": "naming",
    **dict.fromkeys(["Trace", "TraceOptions", "trace"], "tracer"),
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

TYPE_CHECKING = False
if TYPE_CHECKING:  # what type checkers and editors see (without importing typing at run time)
    from .api import Profiler, Rotation, profile
    from .engine import thread_name
    from .launcher import RecordError, RecordResult, record_program
    from .memory import MEMORY_MODES, MemoryOptions
    from .naming import FrameNamer
    from .options import MAX_RATE, MIN_RATE, MODES, SamplerOptions
    from .protocol import Recorder
    from .raw import AIMED_SAMPLES, MAX_TRUSTED_MISSED_SHARE, Quality, RawRecording, round_rate
    from .recording import Recording, merge
    from .runs import Collection, Run, RunFailedError, collect_runs
    from .sampler import Sampler
    from .target import Program, Target, parse_command, program_name
    from .tracer import Trace, TraceOptions, trace
