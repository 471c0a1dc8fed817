"""pytest plugin: ``pytest --flamespace DIR`` records each test marked ``@pytest.mark.flamespace`` as a run.

Each marked test's call (not its fixtures' set-up or tear-down) is profiled in the test's own
process and written to ``DIR/<test>/run-NNN.folded`` with the next free number, so repeated
pytest invocations add runs; ``--flamespace-runs N`` runs each marked test N times in one
session. Two such directories, say of the base branch and of a pull request, compare like
any samples of runs: ``flamespace compare -a base/tests.test_io.test_parse -b head/tests.test_io.test_parse``.

Without ``--flamespace`` the marker does nothing. Loaded through the ``pytest11`` entry point
of every environment flamespace is installed in, so this module imports nothing else of
flamespace until a marked test is recorded.
"""

from __future__ import annotations

import os
import re
from typing import Any
from collections.abc import Generator

import pytest

MARKER = "flamespace"
#: Samples per second: tests are short (a 50 ms test gives ~50 samples), unlike the
#: programs ``flamespace record`` is meant for (its default is 100 Hz).
DEFAULT_RATE = 1000.0
#: The parameter that repeats a marked test (``--flamespace-runs``); its ids are ``flamespace-run-K``.
REPEAT = "_flamespace_repeat"
_REPEAT_ID = re.compile(r"(?<=\[)flamespace-run-\d+-?|-flamespace-run-\d+")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("flamespace", "recording tests with flamespace")
    group.addoption(
        "--flamespace",
        metavar="DIR",
        dest="flamespace_dir",
        default=None,
        help="Record each test marked @pytest.mark.flamespace as a run: DIR/<test>/run-NNN.folded "
        "(the next free number, so runs of several sessions add up).",
    )
    group.addoption(
        "--flamespace-runs",
        metavar="N",
        dest="flamespace_runs",
        type=int,
        default=1,
        help="Run each marked test N times in this session (default 1), each a run.",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(**options): with pytest --flamespace DIR, record the test's call as a run in DIR/<test>/; "
        f"options as flamespace.profile's (mode='wall'|'cpu'|'alloc'|'live', rate={DEFAULT_RATE:g}, lines=False, ...)",
    )
    if config.getoption("flamespace_runs") < 1:
        raise pytest.UsageError(f"--flamespace-runs must be at least 1, not {config.getoption('flamespace_runs')}")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """--flamespace-runs N: each marked test N times, as N parameters (fresh fixtures each time)."""
    runs = metafunc.config.getoption("flamespace_runs")
    if runs > 1 and _recording(metafunc.config) and metafunc.definition.get_closest_marker(MARKER) is not None:
        metafunc.fixturenames.append(REPEAT)
        metafunc.parametrize(REPEAT, range(1, runs + 1), ids=[f"flamespace-run-{k}" for k in range(1, runs + 1)])


@pytest.hookimpl(hookwrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Generator[None, Any, None]:
    """Profile the call of a marked test; a test that fails leaves no run (as collect leaves out failed runs)."""
    directory = _recording(pyfuncitem.config)
    marker = pyfuncitem.get_closest_marker(MARKER)
    if directory is None or marker is None:
        yield
        return
    if marker.args:
        raise pytest.UsageError(f"{pyfuncitem.nodeid}: @pytest.mark.{MARKER} takes keyword options only, not {marker.args!r}")
    recorder = _Recorder(marker.kwargs, {"test": run_directory_name(pyfuncitem.nodeid)}, pyfuncitem.obj)
    outcome = yield
    graph = recorder.stop()
    if outcome.excinfo is None:
        write_run(graph, os.path.join(directory, run_directory_name(pyfuncitem.nodeid)))


def run_directory_name(nodeid: str) -> str:
    """A test's directory: ``tests/test_io.py::TestX::test_parse[big]`` -> ``tests.test_io.TestX.test_parse_big``
    (the --flamespace-runs parameter left out, so every repetition goes to one directory)."""
    nodeid = _REPEAT_ID.sub("", nodeid).replace("[]", "")
    path, _, rest = nodeid.partition("::")
    if path.endswith(".py"):
        path = path[:-3]
    name = path.replace("/", ".") + ("." + rest.replace("::", ".") if rest else "")
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_.") or "test"


def write_run(graph: Any, directory: str) -> str:
    """Write ``graph`` as the next free ``run-NNN.folded`` of ``directory`` (claimed atomically: xdist
    workers may write runs of one test at once); returns its path."""
    from .formats import registry

    os.makedirs(directory, exist_ok=True)
    taken = [int(m.group(1)) for m in map(re.compile(r"run-(\d+)\.folded$").match, os.listdir(directory)) if m]
    number = max(taken, default=0) + 1
    while True:
        path = os.path.join(directory, f"run-{number:03d}.folded")
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            break
        except FileExistsError:
            number += 1
    registry.write(graph, path, "folded")
    return path


def _recording(config: pytest.Config) -> str | None:
    return config.getoption("flamespace_dir")


class _Recorder:
    """A sampler (wall, cpu) whose stacks start at the test function, or a memory recorder (alloc, live).

    Frames are named without line numbers unless ``lines=True``: the runs are compared across
    versions of the code, where lines move. Threads that were running before the test (a
    pytest-xdist worker's I/O thread, say) are left out; threads the test starts are kept."""

    def __init__(self, options: dict[str, Any], labels: dict[str, str], test: Any) -> None:
        from .collect import MEMORY_MODES

        self._test = test
        options = {"lines": False, **options}
        mode = options.pop("mode", "wall")
        self._sampler: Any = None
        if mode in MEMORY_MODES:
            from .collect import profile

            self._profiler: Any = profile(mode, **options)
            self._profiler.__enter__()
            return
        from .collect import Sampler, SamplerOptions

        self._thread_roots = bool(options.get("threads", False))
        self._before = _thread_names_but_ours()
        options.update(threads=True, rate=options.get("rate", DEFAULT_RATE))  # thread names tell whose stack it is
        self._sampler = Sampler(SamplerOptions(mode=mode, **options), labels=labels, root_cut=_test_call_codes()).start()

    def stop(self) -> Any:
        from .core.vector import FlameGraph

        if self._sampler is None:
            self._profiler.__exit__(None, None, None)
            return _from_the_test(self._profiler.graph, self._test)

        graph = self._sampler.stop().graph
        kept: dict[Any, Any] = {}
        for stack, value in graph.items():
            if stack[0] not in self._before:
                stack = stack if self._thread_roots else stack[1:]
                if stack:
                    kept[stack] = kept.get(stack, 0) + value
        return FlameGraph(kept, metadata=graph.metadata)


def _thread_names_but_ours() -> set:
    """The names the sampler gives the other threads running now."""
    import sys
    import threading

    from .collect import thread_name

    ours = threading.get_ident()
    return {thread_name(ident) for ident in sys._current_frames() if ident != ours}


def _from_the_test(graph: Any, test: Any) -> Any:
    """A memory profile's stacks from the test function on: the memory recorders keep every
    frame, so pytest's are cut here (the sampler cuts them as it goes); allocations outside
    the test function (pytest's and ours as the recording starts and stops) are left out."""
    from .collect import FrameNamer
    from .core.vector import FlameGraph

    code = getattr(test, "__code__", None)
    if code is None:  # a callable object: no frame to cut at
        return graph
    name = FrameNamer(lines=False).location(code, None)[:-1]  # "f (file.py)" -> "f (file.py"
    kept: dict[Any, Any] = {}
    for stack, value in graph.items():
        start = next((i for i, frame in enumerate(stack) if _without_line(frame) == name), None)
        if start is not None:
            kept[stack[start:]] = kept.get(stack[start:], 0) + value
    return FlameGraph(kept, metadata=graph.metadata)


def _without_line(frame: str) -> str:
    """``f (file.py:12)`` or ``f (file.py)`` -> ``f (file.py``."""
    head, sep, tail = frame[:-1].rpartition(":") if frame.endswith(")") else ("", "", "")
    return head if sep and tail.isdigit() else frame[:-1]


def _test_call_codes() -> frozenset:
    """Where a test's stack begins: pytest's own call of the test function (its frames below are left out)."""
    try:
        from _pytest.python import pytest_pyfunc_call as default_call
    except ImportError:  # pragma: no cover - a pytest that moved it: stacks keep pytest's frames
        return frozenset()
    return frozenset({default_call.__code__})
