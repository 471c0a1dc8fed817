"""Running a piece of a test within a bound of CPU time, for "linear time" claims that no
operation count can make (a string copied whole at every step): the test's input is made so
large that a quadratic step takes minutes of CPU and a linear one about a second, and the bound
sits far between. CPU time, not wall time, so a loaded machine does not make it flake."""

from __future__ import annotations

import os
import resource
import signal
import traceback
from typing import Callable

import pytest


def within_cpu_seconds(seconds: int, function: Callable[[], None]) -> None:
    """Run ``function`` in a forked child allowed ``seconds`` of CPU time; fail the test if the
    child runs out of it or ``function`` raises (its traceback is on stderr)."""
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        code = 1
        try:
            resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))
            function()
            code = 0
        except BaseException:  # noqa: BLE001 - whatever it is, the child reports it and exits
            traceback.print_exc()
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL):
        pytest.fail(f"took more than {seconds} s of CPU time: not linear in the input's size")
    assert os.waitstatus_to_exitcode(status) == 0, "the child failed (its traceback is above)"
