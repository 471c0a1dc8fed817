"""A program that spends its time in C called from known Python functions, and how to judge a merged stack of it.

Used by tests/remote/test_native.py and benchmarks/bench_native.py: ``--native`` must name the C
function under the Python function that called it (docs/attach.md, "Native frames").
"""

from __future__ import annotations

import re
import subprocess
import textwrap
from pathlib import Path

#: A C library with a function that spins (built by :func:`build_library` with gcc).
SPIN_SOURCE = textwrap.dedent("""
    long spin_c(long n) {
        volatile long total = 0;
        for (long i = 0; i < n; i++) {
            total += i;
        }
        return total;
    }
""")

#: The program: PHASE functions each call C in a loop. ``argv``: the library, then ``stdin`` (the phase is
#: read from stdin, and each phase said on stdout when it starts) or the seconds of each phase (all in turn,
#: round and round until it is killed).
PROGRAM = textwrap.dedent("""
    import ctypes, json, os, re, sys, threading, time, zlib

    library = ctypes.CDLL(sys.argv[1])
    library.spin_c.argtypes = [ctypes.c_long]
    DATA = os.urandom(1 << 12) * 256
    BIG = [{"key": i, "values": [str(i), i * 0.5, None, True]} for i in range(20000)]
    SUBJECT = "a" * 20 + "b"

    def in_zlib():
        zlib.compress(DATA, 9)

    def in_json():
        json.dumps(BIG)

    def in_re():
        re.match(r"(a+)+$", SUBJECT)

    def in_ctypes():
        library.spin_c(20_000_000)

    def py_spin(n):
        total = 0
        for i in range(n):
            total += i
        return total

    def in_callback():
        list(map(py_spin, [3000] * 100))

    PHASES = {"zlib": in_zlib, "json": in_json, "re": in_re, "ctypes": in_ctypes, "callback": in_callback}
    phase = "none"

    def control():
        global phase
        for line in sys.stdin:
            phase = line.strip()

    def work():
        said = None
        while phase != "end":
            current = phase
            if current != said:
                print(current, flush=True)
                said = current
            function = PHASES.get(current)
            if function is None:
                time.sleep(0.001)
            else:
                function()

    def timed(seconds):
        while True:
            for name, function in PHASES.items():
                end = time.perf_counter() + seconds
                while time.perf_counter() < end:
                    function()

    print("ready", flush=True)
    if sys.argv[2] == "stdin":
        threading.Thread(target=control, daemon=True).start()
        work()
    else:
        timed(float(sys.argv[2]))
""")

#: Per phase: the C functions expected (any of them), the Python function that calls C (as the frame names
#: it on 3.9/3.10, and with its class on 3.11+), and the Python function C calls back (None: none may be
#: below the C frame). ``callback`` is the sandwich Python -> C -> Python, where one C frame of the
#: evaluation loop on 3.11+ must be told from the other (py-spy#634, #751).
EXPECTED: dict[str, tuple[set[str], set[str], str | None]] = {
    "zlib": ({"zlib_compress", "deflate"}, {"in_zlib"}, None),
    "json": (
        {"encoder_call", "encoder_listencode_list", "encoder_listencode_obj", "encoder_listencode_dict"},
        {"iterencode", "JSONEncoder.iterencode"},
        None,
    ),
    "re": ({"sre_ucs1_match", "_sre_SRE_Pattern_match", "_sre_SRE_Pattern_match_impl", "sre_match"}, {"match"}, None),
    "ctypes": ({"spin_c"}, {"in_ctypes"}, None),
    "callback": ({"map_next"}, {"in_callback"}, "py_spin"),
}
_PYTHON_FRAME = re.compile(r" \((.*\.py|<[^>]*>):\d+\)$")


def build_library(directory: Path) -> Path:
    """The spin library, compiled with gcc in ``directory`` (with its unwind tables, as gcc always writes them)."""
    source = directory / "spin.c"
    source.write_text(SPIN_SOURCE)
    library = directory / "libspin.so"
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", str(source), "-o", str(library)], check=True, capture_output=True)
    return library


def is_python(frame: str) -> bool:
    return _PYTHON_FRAME.search(frame) is not None


def function_of(frame: str) -> str:
    return frame.rsplit(" (", 1)[0]


def judge(stack: tuple[str, ...] | list[str], phase: str, interpreter_frames: bool = True) -> str:
    """'right' (an expected C frame, the expected Python function the nearest Python frame above it, the phase's
    own function above that, and below it no Python frame, or the one it calls back alone), 'wrong' (an
    expected C frame otherwise placed), or 'other' (no expected C frame: the program between two calls, or in
    other C code). ``interpreter_frames=False`` judges a profiler that hides the interpreter's own C functions
    (py-spy): where the C function is one (``map_next``), on the order of the Python frames alone."""
    c_functions, callers, callee = EXPECTED[phase]
    where = next((index for index, frame in enumerate(stack) if not is_python(frame) and function_of(frame) in c_functions), None)
    if where is None and not interpreter_frames and callee is not None:
        python = [function_of(frame) for frame in stack if is_python(frame)]
        if callee not in python:
            return "other"
        at = python.index(callee)
        return "right" if at > 0 and python[at - 1] in callers and at == len(python) - 1 else "wrong"
    if where is None:
        return "other"
    above = [function_of(frame) for frame in stack[:where] if is_python(frame)]
    below = [function_of(frame) for frame in stack[where:] if is_python(frame)]
    if above and above[-1] in callers and f"in_{phase}" in above and below in ([], [callee]):
        return "right"
    return "wrong"


def phase_of(stack: tuple[str, ...] | list[str]) -> str | None:
    """The phase a stack of the timed program is in (its ``in_<phase>`` frame), None between phases."""
    for frame in stack:
        function = function_of(frame)
        if function.startswith("in_") and function[3:] in EXPECTED and is_python(frame):
            return function[3:]
    return None


__all__ = ["EXPECTED", "PROGRAM", "build_library", "judge", "phase_of"]
