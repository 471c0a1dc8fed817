"""Fuzzing the perf reader: real perf output, truncated, with bytes flipped or inserted, gives a
profile or our InputError, never another exception, with every option (derandomized: CI runs the
same cases every time)."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st

import flamespace as fs

from ..conftest import DATA
from .test_fuzz import FUZZ, _read_or_refuse

SEEDS = [(DATA / "perf" / name).read_bytes()[:6000] for name in ("c-program.perf", "python-program.perf")]
OPTIONS = st.fixed_dictionaries(
    {}, optional={name: st.just(True) for name in ("pid", "tid", "kernel", "jit", "all", "addrs", "srcline", "skip_invalid")}
)


@st.composite
def mangled_perf(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["truncate", "flip", "insert", "digits"]))
        at = draw(st.integers(0, len(data)))
        if kind == "truncate":
            del data[at:]
        elif kind == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        else:  # long runs of digits: the patterns must not backtrack for ever
            data[at:at] = b"9" * draw(st.integers(20, 400))
    return bytes(data)


@FUZZ
@given(mangled_perf(), OPTIONS)
def test_perf_reader_raises_only_input_errors(data: bytes, options: dict) -> None:
    skip_invalid = options.pop("skip_invalid", False)
    try:
        profile = fs.formats.registry.read(io.BytesIO(data), "perf", skip_invalid=skip_invalid, options=options)
    except fs.InputError:
        return
    for stack, value in profile.items():
        assert isinstance(stack, tuple) and all(isinstance(f, str) for f in stack)
        assert 0 < value < float("inf"), (stack, value)


@FUZZ
@given(mangled_perf())
def test_detection_of_mangled_perf_output_raises_only_input_errors(data: bytes) -> None:
    _read_or_refuse(data, None)  # type: ignore[arg-type]  # detected: every format's sniff sees it
