"""Profiling from inside a program: ``with flamespace.profile():``, ``@flamespace.profile()``
and :class:`Rotation` for services that write a profile every N seconds."""

from __future__ import annotations

import functools
import os
import threading
import time
from typing import Any, Callable, TypeVar

from ..core.chart import FlameChart
from ..core.vector import FlameGraph
from ..errors import ArgumentError
from .memory import MEMORY_MODES, MemoryOptions
from ._bootstrap import start_recorder
from .recording import Recording, merge
from .sampler import Sampler, SamplerOptions

F = TypeVar("F", bound=Callable[..., Any])


class Profiler:
    """A sampler that runs for a ``with`` block or each call of a decorated function.

    After the block, ``graph`` is the flame graph (and ``chart`` the timeline if
    ``timeline=True``); ``tree()`` is its short tree in human units, and in a notebook the
    profiler shows itself as the viewer. As a decorator it sums every call; nested and recursive calls
    are recorded once. ``output`` writes the profile when each block ends.
    """

    def __init__(
        self,
        options: SamplerOptions | MemoryOptions,
        output: str | os.PathLike[str] | None = None,
        format: str = "folded",
    ) -> None:
        self.options = options
        self.output = output
        self.format = format
        self.recordings: list[Recording] = []
        self._sampler: Sampler | _MemorySession | None = None
        self._depth = 0
        self._lock = threading.Lock()

    def __enter__(self) -> Profiler:
        with self._lock:
            self._depth += 1
            if self._depth == 1:
                options = self.options
                # threads that were there before the block and only wait (a notebook's history thread) stay out
                self._sampler = (
                    Sampler(options, bystanders_run_only=True).start()
                    if isinstance(options, SamplerOptions)
                    else _MemorySession(options)
                )
        return self

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth > 0 or self._sampler is None:
                return
            sampler, self._sampler = self._sampler, None
        self.recordings.append(sampler.stop())
        if self.output is not None:
            from ..formats.registry import write

            write(self.chart if self.format == "speedscope" and self.chart is not None else self.graph, self.output, self.format)

    def __call__(self, function: F) -> F:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return function(*args, **kwargs)

        wrapper.profiler = self  # type: ignore[attr-defined]  # a function attribute
        return wrapper  # type: ignore[return-value]  # wraps keeps the signature, which mypy cannot see

    @property
    def graph(self) -> FlameGraph:
        """The flame graph of every block recorded so far (the sum, if there were several)."""
        if not self.recordings:
            raise RuntimeError("nothing recorded yet: use the profiler in a `with` block or as a decorator first")
        graphs = [r.graph for r in self.recordings]
        if len(graphs) == 1:
            return graphs[0]
        from ..core.algebra import sum_graphs

        return sum_graphs(graphs)

    @property
    def chart(self) -> FlameChart | None:
        """The timeline of the last block (with ``timeline=True``)."""
        return self.recordings[-1].chart if self.recordings else None

    @property
    def problems(self) -> list[str]:
        """Reasons not to trust the last recording (too few samples, the sampler fell behind)."""
        return self.recordings[-1].problems if self.recordings else []

    def tree(self, min_share: float | None = None, show_all: bool = False, thread: str = "auto") -> str:
        """The short tree of :attr:`graph`, as ``flamespace record`` prints it (render/console.py):
        library code folded into the program's frames unless ``show_all``, calls below ``min_share``
        (default 2%) folded into their caller, ``thread`` ``auto`` (the main thread alone when the
        others only waited; record with ``threads=True`` to tell), ``all`` or a thread's name."""
        from ..core.display import text
        from .tracer import _tree_options

        return text(self.graph, **_tree_options(min_share, show_all, thread))

    def _repr_html_(self) -> str | None:
        """In a notebook: the profile in the viewer (core/display.py); nothing before a block ran."""
        from ..core.display import html

        return html(self.graph) if self.recordings else None


class _MemorySession:
    """A memory recorder (``alloc`` or ``live``) for one block, with the Sampler's ``stop``."""

    def __init__(self, options: MemoryOptions) -> None:
        self.options = options
        self.recorder = start_recorder(options.mode, options.engine_arguments())

    def stop(self) -> Recording:
        return merge([self.recorder.stop()], self.options)


def profile(
    mode: str = "wall",
    rate: float = 100.0,
    *,
    output: str | os.PathLike[str] | None = None,
    format: str = "folded",
    **options: Any,
) -> Profiler:
    """Profile this process while a block (or a decorated function) runs.

    ``mode`` ``wall`` or ``cpu`` samples stacks at ``rate`` Hz; ``options`` are those of
    :class:`SamplerOptions` (``weight``, ``idle``, ``lines``, ``threads``, ``timeline``,
    ``seed``, ...). ``alloc`` (bytes allocated in the block) and ``live`` (bytes still
    allocated at its end) take those of :class:`MemoryOptions` (``weight``, ``lines``,
    ``interval``, ``seed``) and no ``rate``. ``output`` writes the profile after each block.
    Threads that were running before the block, other than the one that enters it, count only
    while they run (their CPU time): a notebook's history thread or idle pool workers that only
    wait do not fill a wall profile, as ``trace()`` leaves them out.

    >>> with profile(mode="cpu", rate=1000) as p:   # doctest: +SKIP
    ...     work()
    >>> p.graph                                       # doctest: +SKIP
    """
    if mode in MEMORY_MODES:
        return Profiler(MemoryOptions(mode=mode, **options), output, format)
    if format == "speedscope":
        options["timeline"] = True  # speedscope output is a timeline
    return Profiler(SamplerOptions(mode=mode, rate=rate, **options), output, format)


class Rotation:
    """Writes each interval's flame graph to a numbered file, keeping the newest ``keep``.

    ``pattern`` holds ``{n}`` (interval number) and/or ``{time}`` (UTC, ``20261121-153000``),
    e.g. ``"profiles/app-{time}.folded"``. Use with a Sampler::

        rotation = Rotation("profiles/app-{n}.folded", keep=24)
        sampler = Sampler(options, on_interval=(3600, rotation)).start()

    Memory stays bounded: the sampler starts each interval afresh.
    """

    def __init__(self, pattern: str, keep: int | None = None, format: str = "folded") -> None:
        if "{n}" not in pattern and "{time}" not in pattern:
            raise ArgumentError("the file name pattern needs {n} or {time}, or every interval overwrites the last")
        if keep is not None and keep < 1:
            raise ArgumentError(f"keep must be at least 1, not {keep}")
        self.pattern, self.keep, self.format = pattern, keep, format
        self.written: list[str] = []
        self._count = 0

    def __call__(self, graph: FlameGraph) -> None:
        from ..formats.registry import write

        self._count += 1
        path = self.pattern.format(n=self._count, time=time.strftime("%Y%m%d-%H%M%S", time.gmtime()))
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        write(graph, path, self.format)
        self.written.append(path)
        while self.keep is not None and len(self.written) > self.keep:
            old = self.written.pop(0)
            try:
                os.remove(old)
            except FileNotFoundError:
                pass


__all__ = ["Profiler", "Rotation", "profile"]
