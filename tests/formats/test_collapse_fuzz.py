"""Fuzzing the stack collapsers: mangled inputs give a profile or our InputError, never another exception.

Seeds are the hand-made inputs in tests/data/collapse and small excerpts of each peer
format; hypothesis truncates them, flips and inserts bytes and puts out-of-range numbers
where numbers were (the mutations of test_fuzz.py). Derandomized: CI runs the same cases.
"""

from __future__ import annotations

from typing import Callable

import pytest
from hypothesis import given

from ..conftest import DATA
from .test_fuzz import FUZZ, _read_or_refuse, mangled

HANDMADE = DATA / "collapse"

#: Small valid inputs of the formats whose hand-made data lives elsewhere (peer fixtures).
SMALL = {
    "sample": (
        "Analysis of sampling rg (pid 1) every 1 millisecond\n\nCall graph:\n"
        "    5 Thread_1   DispatchQueue_1: com.apple.main-thread  (serial)\n"
        "    + 5 start  (in libdyld.dylib) + 1  [0x7fff737cf3d5]\n"
        "    +   3 main  (in rg) + 41  [0x10384b549]\n"
        "    +   ! 2 work  (in rg) + 3  [0x10384b54a]\n"
        "    +   1 idle  (in rg) + 2  [0x10384b54b]\n\n"
        "Total number in stack (recursive counted multiple, when >=5):\n"
    ),
    "vtune": 'Function Stack,CPU Time:Self,Module\nTotal,0.0,[Unknown]\n main,0.5,app.exe\n  "f(int, int)",1.25,app.exe\n  g,0.001,app.exe\n',
    "vsprof": (
        'Level,Function Name,Number of Calls,Elapsed Inclusive Time %,Module Name,\n0,"app.exe",0,100.00,"",\n'
        '1,"main()",12,91.25,"app.exe",\n2,"f(int, bool&)","2,893,824",54.37,"app.exe",\n1,"g",7,1.0,"app.exe",\n'
    ),
    "ghcprof": (
        "COST CENTRE MODULE SRC  no. entries  %time %alloc   %time %alloc  ticks     bytes\n\n"
        "MAIN        MAIN   <b>    1       0   10.0    1.0   100.0  100.0      5       728\n"
        " main       Main   m.hs   2       1   60.5    2.0    90.0   99.0     12      1024\n"
        "  go        Main   m.hs   3       1   29.5    3.0    29.5   97.0      4      2048\n"
    ),
}


def _seeds(format: str) -> list[bytes]:
    if format in SMALL:
        return [SMALL[format].encode()]
    return [path.read_bytes() for path in sorted((HANDMADE / format).iterdir()) if path.suffix != ".expected"]


FORMATS = [
    "dtrace",
    "sample",
    "vtune",
    "vsprof",
    "ghcprof",
    "bpftrace",
    "gdb",
    "elfutils",
    "jstack",
    "faulthandler",
    "pmc",
    "stap",
    "instruments",
    "xctrace",
]


@pytest.mark.parametrize("format", FORMATS)
def test_every_seed_reads(format: str) -> None:
    """The seeds are valid: each gives a non-empty profile (so mangling starts from real input)."""
    import io

    import flamespace as fs

    for seed in _seeds(format):
        assert fs.read(io.BytesIO(seed), format).total() > 0


def _fuzz(format: str) -> Callable[..., None]:
    """A hypothesis test that reads mangled inputs of ``format``."""

    @FUZZ
    @given(mangled(format, seeds=_seeds(format)))
    def test(data: bytes) -> None:
        _read_or_refuse(data, format)

    test.__name__ = f"test_{format}_reader_raises_only_input_errors"
    return test


for _format in FORMATS:
    globals()[f"test_{_format}_reader_raises_only_input_errors"] = _fuzz(_format)
