"""Which recorder records each kind of profile: the one place a new recorder is added.

Each kind's module is imported only when that kind is started: this runs inside the
profiled program from its first line, and a sampled program must not pay for tracemalloc
or the allocation hooks (nor a memory profile for the sampler).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Collection, Mapping

    from .protocol import Recorder


def start_recorder(
    kind: str, arguments: Mapping[str, Any], hidden_files: Collection[str] = (), **sampler_extras: Any
) -> Recorder:
    """The started recorder of ``kind`` (one of :data:`~.raw.KINDS`).

    ``arguments`` are the options' recorder arguments (``SamplerOptions.as_dict()``,
    ``MemoryOptions.engine_arguments()``); frames of ``hidden_files`` at the root of a stack
    are left out (the launcher's ``runpy``). ``sampler_extras`` go to the sampler only
    (``root_cut``, ``on_deadline``: see :class:`~.engine.Engine`).
    """
    if kind == "sampler":
        from .engine import SamplingRecorder

        return SamplingRecorder(**arguments, hidden_files=hidden_files, **sampler_extras).start()
    if kind == "alloc":
        from .alloc import AllocRecorder

        return AllocRecorder(**arguments, hidden_files=hidden_files).start()
    if kind == "live":
        from .memory import MemoryRecorder

        return MemoryRecorder(kind, **arguments, hidden_files=hidden_files).start()
    raise ValueError(f"no recorder records {kind!r}")


__all__ = ["start_recorder"]
