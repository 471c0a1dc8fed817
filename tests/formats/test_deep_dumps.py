"""Thread dumps 500,000 frames deep read in time linear in their depth (issue 24: a faulthandler
dump 100,000 frames deep took 48 s). The stack was a string with each caller put in front of it,
copied whole at every frame: terabytes copied, minutes of CPU, where a linear read takes a
second or two. tests/cpu_bound.py runs each read within 60 s of CPU time."""

from __future__ import annotations

import io

from flamespace.formats import elfutils, faulthandler, gdb
from flamespace.formats._collapse import Callers

from ..cpu_bound import within_cpu_seconds

DEPTH = 500_000
BOUND = 60  # CPU seconds


def test_a_faulthandler_dump_500000_frames_deep() -> None:
    frames = "".join(f'  File "/app/package/module{i % 7}.py", line {i} in function_{i}\n' for i in range(DEPTH))
    dump = f"Thread 0x00007f0000000001 (most recent call first):\n{frames}\n"

    def read() -> None:
        graph = faulthandler.parse(io.StringIO(dump))
        (stack,) = list(graph)
        assert len(stack) == DEPTH and stack[0] == f"/app/package/module{(DEPTH - 1) % 7}.py:{DEPTH - 1}:function_{DEPTH - 1}"
        assert stack[-1] == "/app/package/module0.py:0:function_0" and graph.total() == 1

    within_cpu_seconds(BOUND, read)


def test_an_eu_stack_dump_500000_frames_deep() -> None:
    frames = "".join(f"#{i}  0x{i:016x} std::vector<int>::push_back_{i}\n" for i in range(DEPTH))
    dump = f"PID 42 - process\nTID 42:\n{frames}"

    def read() -> None:
        graph = elfutils.parse(io.StringIO(dump), elfutils.ReadOptions(tid=True))
        (stack,) = list(graph)
        assert (
            stack[:2] == ("TID=42", f"std::vector<int>::push_back_{DEPTH - 1}")
            and stack[-1].endswith("_0")
            and len(stack) == DEPTH + 1
        )

    within_cpu_seconds(BOUND, read)


def test_callers_build_the_stack_as_the_scripts_do() -> None:
    """As ``frame . ";" . stack`` with an empty frame under an empty stack lost."""
    stack = Callers()
    for frame in ["", "", "leaf", "", "root"]:
        stack.add(frame)
    assert stack and stack.text() == "root;;leaf"
    stack.clear()
    stack.add("")
    assert not stack and stack.text() == ""


def test_a_gdb_backtrace_500000_frames_deep() -> None:
    frames = "".join(f"#{i}  0x{i:016x} in function_in_a_library_{i} () from /lib/libx.so\n" for i in range(DEPTH))
    dump = f"Thread 1 (Thread 0x7f00 (LWP 42)):\n{frames}\n"

    def read() -> None:
        (stack,) = list(gdb.parse(io.StringIO(dump)))
        assert len(stack) == DEPTH and stack[0] == f"function_in_a_library_{DEPTH - 1}" and stack[-1].endswith("_0")

    within_cpu_seconds(BOUND, read)
