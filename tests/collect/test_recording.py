"""The seams of collect/: every recorder is a Recorder whose stop() hands over a RawRecording,
one merge() makes the Recording, and record_program() is the public way to record a program."""

from __future__ import annotations

import os
import pickle

import pytest

import flamespace as fs
import flamespace.collect as collect
from flamespace.collect.alloc import available
from flamespace.collect.protocol import Recorder
from flamespace.collect._bootstrap import start_recorder
from flamespace.collect.raw import Quality, RawRecording
from flamespace.collect.recording import merge, process_frame
from flamespace.core.chart import FlameChart


def quality(ticks: int, gap: int, error: str | None = None) -> Quality:
    q = Quality()
    q.ticks = q.samples = ticks
    q.longest_gap_ns = gap
    if error:
        q.error(error)
    return q


def sampled(pid: int, start_ns: int, totals: dict, q: Quality, chart: FlameChart | None = None) -> RawRecording:
    return RawRecording("sampler", totals, start_ns, 2_000_000_000, q, chart, pid=pid, argv=("job.py", str(pid)))


def test_a_raw_recording_survives_the_pickle_between_child_and_parent():
    chart = FlameChart()
    chart.append(5, "MainThread", ("main", "work"), 10)
    raw = sampled(42, 7, {("main", "work"): 10}, quality(3, 9, "boom"), chart)
    raw.deadline = True
    back = pickle.loads(pickle.dumps(raw, protocol=pickle.HIGHEST_PROTOCOL))
    assert back.totals == raw.totals and back.quality == raw.quality and back.quality.first_error == "boom"
    assert (back.pid, back.argv, back.deadline, back.kind) == (42, ("job.py", "42"), True, "sampler")
    assert list(back.chart.samples()) == list(chart.samples())


def test_merge_sums_processes_under_their_root_frames_and_merges_quality():
    first = sampled(1, 0, {("main",): 30, ("main", "a"): 10}, quality(100, 5))
    second = sampled(2, 500_000_000, {("main",): 20}, quality(50, 40, "late"))
    recording = merge([first, second], fs.SamplerOptions(rate=100), {"command": "python job.py"}, roots=True)
    assert dict(recording.graph.items()) == {
        ("job.py 1 (1)", "main"): 30,
        ("job.py 1 (1)", "main", "a"): 10,
        ("job.py 2 (2)", "main"): 20,
    }
    q = recording.quality
    assert (q.ticks, q.longest_gap_ns, q.first_error, q.duration_ns) == (150, 40, "late", 4_000_000_000)
    labels = recording.graph.metadata.labels
    assert labels["processes"] == "2" and labels["command"] == "python job.py"
    assert labels["duration_s"] == "2.500"  # from the first start to the last end
    assert labels["rate_achieved"] == "37.5"  # 150 ticks over 4 s of recording: per process


def test_merge_of_one_process_without_roots_keeps_its_stacks_and_timeline():
    chart = FlameChart()
    chart.append(1, "MainThread", ("main",), 7)
    recording = merge([sampled(9, 0, {("main",): 7}, quality(200, 1), chart)], fs.SamplerOptions())
    assert dict(recording.graph.items()) == {("main",): 7}
    assert recording.chart is chart and chart.metadata is recording.graph.metadata
    assert "processes" not in recording.graph.metadata.labels
    assert recording.profile_for("speedscope") is chart and recording.profile_for("folded") is recording.graph


def test_merge_of_memory_recordings_counts_their_events():
    raws = [RawRecording("alloc", {("f",): 100, ("g",): 0}, 0, 10**9, events=3, pid=p) for p in (1, 2)]
    recording = merge(raws, fs.MemoryOptions(mode="alloc", interval=1024), {"run": "1"})
    assert dict(recording.graph.items()) == {("f",): 200}  # zeros are not stacks of a FlameGraph
    labels = recording.graph.metadata.labels
    assert (labels["samples"], labels["bytes_per_sample"], labels["run"]) == ("6", "1024", "1")
    assert recording.graph.metadata.unit == "bytes" and recording.problems == []
    live = merge([RawRecording("live", {("f",): 8}, events=2)], fs.MemoryOptions(mode="live", weight="count"))
    assert live.graph.metadata.labels["blocks"] == "2" and live.graph.metadata.unit == "count"


def test_merge_refuses_nothing_and_mixed_kinds():
    with pytest.raises(ValueError, match="at least one"):
        merge([], fs.SamplerOptions())
    with pytest.raises(ValueError, match="different kinds: live, sampler"):
        merge([sampled(1, 0, {}, Quality()), RawRecording("live")], fs.SamplerOptions())


def test_a_process_is_named_by_its_command_or_its_multiprocessing_name():
    assert process_frame(RawRecording("live", pid=3, argv=("-c",))) == "python -c (3)"
    assert process_frame(RawRecording("live", pid=3, argv=("/a/b/w.py", "x"))) == "w.py x (3)"
    assert process_frame(RawRecording("live", pid=4, process_name="ForkPoolWorker-1")) == "ForkPoolWorker-1 (4)"


KINDS = [
    ("sampler", fs.SamplerOptions(rate=1000).as_dict()),
    ("live", fs.MemoryOptions(mode="live").engine_arguments()),
    pytest.param(
        "alloc",
        fs.MemoryOptions(mode="alloc").engine_arguments(),
        marks=pytest.mark.skipif(available() is not None, reason="the C extension _alloc is not built"),
    ),
]


@pytest.mark.parametrize("kind, arguments", KINDS)
def test_every_recorder_is_a_recorder_and_hands_over_a_raw_recording(kind, arguments):
    recorder = start_recorder(kind, arguments)
    assert isinstance(recorder, Recorder)
    kept = [bytearray(4096) for _ in range(200)]  # something for every kind to see
    raw = recorder.stop()
    del kept
    assert isinstance(raw, RawRecording) and raw.kind == kind
    assert raw.elapsed_ns >= 0 and raw.start_ns > 0
    assert (raw.quality is not None) == (kind == "sampler")


def test_an_unknown_kind_has_no_recorder():
    with pytest.raises(ValueError, match="no recorder records 'nonsense'"):
        start_recorder("nonsense", {})


def test_record_program_runs_a_program_in_its_directory_with_its_environment(tmp_path):
    code = "import os, sys; open('seen.txt', 'w').write(os.environ['FS_SEEN']); sys.exit(3)"
    program = fs.Program(collect.parse_command(["-c", code]), name="candidate", env={"FS_SEEN": "yes"}, cwd=str(tmp_path))
    result = fs.record_program(program, fs.SamplerOptions(rate=200), labels={"run": "4"})
    assert result.exit_code == 3 and result.processes == 1 and not result.stopped_by_duration
    assert (tmp_path / "seen.txt").read_text() == "yes"
    labels = result.recording.graph.metadata.labels
    assert labels["command"].startswith("python -c") and (labels["run"], labels["program"]) == ("4", "candidate")
    assert "FS_SEEN" not in os.environ


def test_record_program_records_memory_too(tmp_path):
    program = fs.Program(collect.parse_command(["-c", "kept = [bytearray(100_000) for _ in range(20)]"]))
    result = fs.record_program(program, fs.MemoryOptions(mode="live"))
    assert result.exit_code == 0 and result.recording.graph.total() >= 2_000_000
    assert result.recording.graph.metadata.labels["blocks"]


def test_every_public_name_of_collect_resolves_and_the_root_reexports_record_program():
    for name in collect.__all__:
        assert getattr(collect, name) is not None, name
    assert fs.record_program is collect.record_program and fs.Recording is collect.Recording
    assert fs.Program is collect.Program


def test_the_version_is_declared_once():
    from importlib.metadata import version

    from flamespace._version import __version__

    assert fs.__version__ == __version__ == version("flamespace")


def test_the_profiled_child_imports_no_typing_or_dataclasses(tmp_path):
    """What the child imports before the program runs is missing from the start-up profile."""
    code = "import sys; print(sorted(m for m in ('typing', 'dataclasses', 'platform', 'flamespace.collect.sampler') if m in sys.modules))"
    for options in (fs.SamplerOptions(), fs.MemoryOptions(mode="live")):
        out = tmp_path / "out.txt"
        with open(out, "w") as stream:
            result = fs.record_program(fs.Program(collect.Target("code", code, flags=("-S",))), options, stdout=stream)
        assert result.exit_code == 0
        assert out.read_text().strip() == "[]", options


def test_the_live_recorder_stops_tracing_before_its_own_imports():
    """Importing tracemalloc (pickle, fnmatch, linecache, ...) to read the traces was charged to
    the program: 96% of the live profile of `python -c pass` (1.2 MB in 7,300 blocks)."""
    result = fs.record_program(fs.Program(collect.Target("code", "pass")), fs.MemoryOptions(mode="live"))
    files = {frame.rpartition("(")[2].split(":")[0].rpartition("/")[2] for stack in result.recording.graph for frame in stack}
    # frames name their file like "<module> (<stdlib>/tracemalloc.py:13)"
    assert not files & {"tracemalloc.py", "pickle.py", "fnmatch.py", "linecache.py"}, files
