"""Every profiler test must leave nothing behind: no thread, no hook, the switch interval as it was."""

from __future__ import annotations

import signal
import sys
import threading

import pytest


@pytest.fixture(autouse=True)
def no_leftovers():
    threads = set(threading.enumerate())
    switch = sys.getswitchinterval()
    profile, trace = sys.getprofile(), sys.gettrace()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGPROF, signal.SIGALRM)}
    yield
    import tracemalloc

    assert set(threading.enumerate()) <= threads, "a thread was left running"
    assert sys.getswitchinterval() == switch, "the switch interval was not restored"
    assert (sys.getprofile(), sys.gettrace()) == (profile, trace), "a profile or trace hook was left installed"
    assert {s: signal.getsignal(s) for s in handlers} == handlers, "a signal handler was not restored"
    assert not tracemalloc.is_tracing(), "tracemalloc was left running"
    try:
        from flamespace.collect import _alloc
    except ImportError:
        return
    assert not _alloc.running(), "the allocation hooks were left installed"
