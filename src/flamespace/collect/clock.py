"""Clocks the recorders read, behind one small interface so tests can inject their own."""

from __future__ import annotations

import sys
import time


class Clock:
    """Monotonic wall time and per-thread CPU time, both in integer nanoseconds."""

    def now_ns(self) -> int:
        return time.monotonic_ns()

    def thread_cpu_ns(self, native_id: int) -> int | None:
        """CPU time used so far by the OS thread ``native_id``; None if it has gone or cannot be read."""
        try:
            return time.clock_gettime_ns(_thread_cpu_clock(native_id))
        except (OSError, OverflowError):
            return None

    @staticmethod
    def supports_thread_cpu() -> bool:
        return sys.platform.startswith("linux")


def _thread_cpu_clock(native_id: int) -> int:
    """Linux's clock id for a thread's CPU time (what pthread_getcpuclockid returns).

    Built from the kernel thread id rather than asking pthread_getcpuclockid: that call
    reads the thread's pthread struct, which is freed when a detached thread exits, so
    calling it on a thread that has just ended can crash. clock_gettime on a stale id
    merely fails with EINVAL.
    """
    return ((~native_id) << 3) | 6  # CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED


__all__ = ["Clock"]
