"""What the sampler records (:class:`SamplerOptions`): every default and check once.

Imported inside the profiled program (the engine takes these options), so it imports
only what the engine does, plus :mod:`flamespace._record`: no ``typing``, no
``dataclasses`` (and :mod:`flamespace.errors` only to refuse options).
"""

from __future__ import annotations

import sys

from .._record import Record, fields, record
from .clock import Clock

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..core.vector import Stack

MODES = ("wall", "cpu")
WEIGHTS = ("time", "samples")
MIN_RATE, MAX_RATE = 1.0, 10_000.0
#: Where the sampler runs: ``outside`` the program (this process reads the child's memory, without its
#: GIL: :mod:`.outside`), ``inside`` it (a thread of the program: :mod:`.engine`), or ``auto``: outside
#: where it can be (wall and cpu mode, no --async or --subprocesses, a CPython it reads), else
#: inside. Chosen by measurement: docs/statistics.md, "The recorder under load".
SAMPLERS = ("auto", "outside", "inside")


@record
class SamplerOptions(Record):
    """What to record; ``flamespace record``'s options map one to one onto these.

    ``mode``: ``wall`` (every thread, running or waiting) or ``cpu`` (only time on a CPU,
    from per-thread CPU clocks). ``rate``: mean samples per second (1-10,000). ``weight``:
    ``time`` (ns since the thread's previous sample) or ``samples`` (1 per sample).
    ``idle``: in wall mode, put the time a thread spent off-CPU under an ``[idle]`` leaf.
    ``lines``: name frames with their line number. ``threads``: the thread name as root
    frame. ``root``: frames put under every stack (e.g. the process). ``timeline``: keep
    every sample in time order (for flame charts). ``duration``: stop after this many
    seconds. ``seed``: make the random intervals repeatable. ``asyncio``: show a thread
    that runs an asyncio task as the task's awaiting chain, not the event loop's internals.
    ``sampler``: where the sampler of a program flamespace starts runs (:data:`SAMPLERS`).
    """

    mode: str = "wall"
    rate: float = 100.0
    weight: str = "time"
    idle: bool = False
    lines: bool = True
    threads: bool = False
    root: Stack = ()
    timeline: bool = False
    duration: float | None = None
    seed: int | None = None
    asyncio: bool = False
    sampler: str = "auto"

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem is not None:
            from ..errors import ArgumentError  # imported only to refuse: the profiled child never needs it

            raise ArgumentError(problem)
        object.__setattr__(self, "root", tuple(self.root))

    def _problem(self) -> str | None:
        if self.mode not in MODES:
            return f"unknown sampling mode {self.mode!r}; choose one of {', '.join(MODES)}"
        if self.weight not in WEIGHTS:
            return (
                f"unknown weight {self.weight!r}; sampling weighs by {' or '.join(WEIGHTS)} (the memory modes by bytes or count)"
            )
        if not MIN_RATE <= self.rate <= MAX_RATE:
            return f"the sampling rate must be between 1 and 10,000 Hz, not {self.rate:g}"
        if self.duration is not None and not 0 < self.duration < float("inf"):  # inf cannot travel to the child as a literal
            return f"the duration must be positive (a finite number of seconds), not {self.duration:g}"
        if self.idle and self.mode != "wall":
            return "idle marking splits wall time into on- and off-CPU; it needs mode 'wall'"
        if self.sampler not in SAMPLERS:
            return f"unknown sampler {self.sampler!r}; choose one of {', '.join(SAMPLERS)}"
        if self.sampler == "outside" and self.inside_only() is not None:
            return f"{self.inside_only()} needs the sampler inside the program: use --sampler inside (or auto)"
        if (self.mode == "cpu" or self.idle) and not Clock.supports_thread_cpu():
            return f"per-thread CPU clocks are not available on {sys.platform}; use mode 'wall'"
        return None

    def inside_only(self) -> str | None:
        """The option that only the in-process sampler can record, if one is asked for: asyncio's tasks
        (their awaiting chains are walked in the program's objects). Threading's names are read from
        outside too (:mod:`.remote.names`)."""
        if self.asyncio:
            return "--async (asyncio's tasks are read from the program's objects)"
        return None

    @property
    def unit(self) -> str:
        return "ns" if self.weight == "time" else "samples"

    def as_dict(self) -> dict[str, object]:
        """The fields by name: how the options travel to a profiled child, as a Python literal
        (:func:`~.launcher.bootstrap_code`), where ``SamplerOptions(**options)`` rebuilds them."""
        return {name: getattr(self, name) for name in fields(SamplerOptions)}
