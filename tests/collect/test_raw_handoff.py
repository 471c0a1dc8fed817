"""The child's hand-off: a RawRecording saved by raw.dumps comes back equal from raw.loads."""

from __future__ import annotations

from flamespace.collect.raw import Quality, RawRecording, dumps, loads
from flamespace.core.chart import FlameChart


def fields(raw: RawRecording) -> dict:
    return {name: getattr(raw, name) for name in RawRecording.__slots__}


def sample() -> RawRecording:
    quality = Quality()
    quality.ticks, quality.samples, quality.longest_gap_ns = 12, 11, 3_000_000
    quality.error("frame vanished")
    return RawRecording(
        "sampler",
        {("main", "f"): 10_000_000, ("main",): 2.5},
        start_ns=5,
        elapsed_ns=7,
        quality=quality,
        pid=42,
        argv=("-c", "x"),
        process_name="ForkPoolWorker-1",
        deadline=True,
    )


def test_builtin_fields_go_through_marshal_and_come_back_equal():
    raw = sample()
    data = dumps(raw)
    assert data[:1] == b"M"  # no pickle in the profiled program
    back = loads(data)
    assert fields(back) == fields(raw)
    assert isinstance(back.quality, Quality) and back.quality.first_error == "frame vanished"


def test_a_memory_recording_without_quality():
    raw = RawRecording("alloc", {("a", "b"): 512}, events=3)
    back = loads(dumps(raw))
    assert back.quality is None and fields(back) == fields(raw)


class Name(str):
    """A str subclass: marshal refuses it."""


def test_what_marshal_refuses_is_pickled():
    raw = RawRecording("sampler", {(Name("main"),): 1}, quality=Quality())
    data = dumps(raw)
    assert data[:1] == b"P"
    assert fields(loads(data)) == fields(raw)


def test_a_kept_timeline_is_pickled():
    raw = sample()
    raw.chart = FlameChart()
    data = dumps(raw)
    assert data[:1] == b"P"
    assert isinstance(loads(data).chart, FlameChart)
