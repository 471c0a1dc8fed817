"""Fuzzing the perf reader: real perf output, truncated, with bytes flipped or inserted, gives a
profile or our InputError, never another exception, with every option (derandomized: CI runs the
same cases every time)."""

from __future__ import annotations

import io

from hypothesis import example, given
from hypothesis import strategies as st

import flamespace as fs

from ..conftest import DATA
from .test_fuzz import FUZZ, _read_or_refuse

#: Edge cases of the format: comments, two event types, a header without period, a one-line
#: sample, Java frames, inlined frames, unknown frames, samples not separated by blank lines.
EDGES = b"""# cmdline : /usr/bin/perf record -g java -jar app.jar
java 24636/25607 [000] 4794564.109216:     250 cycles:
\t7f722d142778 Ljava/io/PrintStream;::print+0x1f (/tmp/perf-19982.map)
# a comment inside a sample
\tffffffff8103ce3b native_safe_halt ([kernel.kallsyms])
\t7f53389994d0 [unknown] (/usr/lib/libjvm.so)

java 24636/25607 [000] 4794564.109217:     9 instructions:
\t1 outer->inner(int)-> (/bin/a)
V8 WorkerThread 3/0 4794564.2: cycles:
\t0 [unknown] ([unknown])


     false 39654 19115.48:      1 cycles:u:  ffff9b201293 [unknown] ([unknown])
go 12 1.0: 0 cycles:
\t2 net/http.(*Client).Do (/bin/go)
\t3 (process) (/bin/go)

"""
SEEDS = [EDGES] + [(DATA / "perf" / name).read_bytes()[:6000] for name in ("c-program.perf", "python-program.perf")]
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


@FUZZ
@given(mangled_perf(), OPTIONS)
@example(b"\x0bbusy 1 1.0: 5 cpu-clock: \n\t 114b leaf+0x22 (/tmp/busy)\n\nbusy 1 1.1: 5 cpu-clock: \n\t 1153 le", {})
def test_whole_samples_and_the_line_loop_agree(data: bytes, options: dict) -> None:
    """The fast path (whole samples, cached) must be the line loop (the Perl script's rules), faster."""
    from flamespace.formats.perf import ReadOptions, _Collapser

    options.pop("srcline", None)  # with --srcline the line loop is the only path
    options.pop("skip_invalid", None)
    settings = ReadOptions(skip_invalid=True, **options)
    text = data.decode("utf-8", "surrogateescape").replace("\r\n", "\n").replace("\r", "\n")
    outcomes = []
    for fast in (True, False):
        collapser = _Collapser(settings, "<fuzz>", None)
        try:
            if fast:
                collapser.samples(io.StringIO(text))
            else:
                collapser.lines(iter(io.StringIO(text)), 0)  # as a file is read: lines end at '\n' only
        except fs.InputError as error:
            outcomes.append(("error", str(error)))
            continue
        outcomes.append((collapser.counts, collapser.notes(), collapser.event_filter, dict(collapser.other_events)))
    assert outcomes[0] == outcomes[1]


SCHED_OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        **{name: st.just(True) for name in ("tid", "wake_stack", "recurse")},
        "off_cpu": st.sampled_from(["auto", "stat", "switch"]),
    },
)


@st.composite
def mangled_sched(draw: st.DrawFn) -> bytes:
    seed = draw(st.sampled_from(["sched-events.txt", "sched-switch-events.txt"]))  # sched_stat delays; switch time stamps
    data = bytearray((DATA / "perf" / seed).read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["truncate", "flip", "insert", "digits"]))
        if kind == "truncate":
            del data[at:]
        elif kind == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        else:
            data[at:at] = b"9" * draw(st.integers(20, 400))
    return bytes(data)


@FUZZ
@given(mangled_sched(), SCHED_OPTIONS)
def test_perf_sched_reader_raises_only_input_errors(data: bytes, options: dict) -> None:
    try:
        profile = fs.formats.registry.read(io.BytesIO(data), "perf-sched", options=options)
    except fs.InputError:
        return
    for stack, value in profile.items():
        assert isinstance(stack, tuple) and all(isinstance(f, str) for f in stack)
        assert 0 < value < float("inf"), (stack, value)
