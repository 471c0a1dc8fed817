"""CPython 3.15's sampling profiler (Tachyon): its binary captures and JSONL summaries, made by Python 3.15.2
from tests/data/tachyon/known.py (tests/data/tachyon/README.md), checked against Tachyon's own replay of
each capture to collapsed stacks (its reader's answer)."""

from __future__ import annotations

import io
import json
import os
import struct
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given

import flamespace as fs
from flamespace.core.python_frames import split_frame
from flamespace.diagnostics import Diagnostics
from flamespace.formats import registry, tachyon, tachyon_jsonl

from .test_fuzz import FUZZ, _read_or_refuse, mangled

DATA = Path(__file__).resolve().parent.parent / "data" / "tachyon"
CAPTURES = ["known", "known.zstd", "native-cpu"]


def tachyons_own(name: str) -> Counter:
    """Tachyon's replay of capture ``name`` to collapsed stacks: (basename, function, line) or a bare name per
    frame, root first, threads merged."""
    counts: Counter = Counter()
    for line in (DATA / f"{name}.replay.collapsed").read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = []
        for part in stack.split(";")[1:]:  # after tid:N
            file, colon, rest = part.partition(":")
            frames.append((file,) + tuple(rest.rsplit(":", 1)) if colon else part)
        counts[tuple(tuple(frame) if isinstance(frame, tuple) else frame for frame in frames)] += int(count)
    return counts


def as_tachyon_names(graph: fs.FlameGraph) -> Counter:
    counts: Counter = Counter()
    for stack, value in graph.items():
        frames = []
        for frame in stack:
            parts = split_frame(frame)
            frames.append(frame if parts is None else (os.path.basename(parts[1]), parts[0], str(parts[2])))
        counts[tuple(frames)] += value
    return counts


@pytest.mark.parametrize("name", CAPTURES)
def test_a_capture_reads_as_tachyons_own_replay_of_it(name):
    """Every sample, by stack, as Tachyon's own reader replays it: uncompressed, zstd, and native frames in cpu mode.
    (Failed before: no tachyon format.)"""
    graph = registry.read_graph(DATA / f"{name}.bin")  # detected by its magic
    assert graph.metadata.unit == "samples"
    assert as_tachyon_names(graph) == tachyons_own(name)


def test_a_captures_header_says_what_the_run_was():
    labels = registry.read_graph(DATA / "known.bin").metadata.labels
    assert labels["target_python"] == "3.15.2" and labels["interval_us"] == "5000" and labels["mode"] == "wall"
    assert labels["threads"] == "2" and labels["compression"] == "none"
    assert 0.4 < float(labels["duration_s"]) < 5 and float(labels["rate_achieved"]) > 0
    cpu = registry.read_graph(DATA / "native-cpu.bin")
    assert cpu.metadata.labels["mode"] == "cpu" and cpu.metadata.metric == "cpu"


def test_threads_puts_each_thread_under_its_own_root():
    graph = fs.read(DATA / "known.bin", "tachyon", options={"threads": True}).graph()
    roots = Counter()
    for stack, value in graph.items():
        roots[stack[0]] += value
    assert set(roots) == {"MainThread", next(root for root in roots if root.startswith("Thread "))}
    assert all(stack[-1].startswith("sleeper (") for stack in graph if stack[0] != "MainThread")
    assert sum(roots.values()) == sum(tachyons_own("known").values())


def test_the_profilers_own_frames_are_left_out_as_tachyon_leaves_them_out():
    names = {frame for stack in registry.read_graph(DATA / "known.bin") for frame in stack}
    assert not any("_sync_coordinator" in name for name in names)
    assert "<native>" in {frame for stack in registry.read_graph(DATA / "native-cpu.bin") for frame in stack}


def big_endian(data: bytes) -> bytes:
    """The little-endian capture ``data`` (uncompressed) as a big-endian writer would have written it."""
    out = bytearray(data)
    out[0:4] = b"TACH"
    for offset, fmt in ((4, "I"), (12, "QQIIIQQII")):
        values = struct.unpack_from("<" + fmt, data, offset)
        struct.pack_into(">" + fmt, out, offset, *values)
    end = len(data) - tachyon.FOOTER_SIZE
    struct.pack_into(">IIQ", out, end, *struct.unpack_from("<IIQ", data, end))
    struct.pack_into(">II", out, end - 8, *struct.unpack_from("<II", data, end - 8))
    struct.pack_into(">ddddQ", out, end - 56, *struct.unpack_from("<ddddQ", data, end - 56))
    header = tachyon.read_header(data, "x")
    at = tachyon.HEADER_SIZE
    samples = data[at : header.strings_at]
    position = 0
    while position < len(samples):  # each record's thread and interpreter ids; the rest are varints and bytes
        struct.pack_into(">QI", out, at + position, *struct.unpack_from("<QI", samples, position))
        position = _record_end(samples, position)
    return bytes(out)


def _record_end(samples: bytes, at: int) -> int:
    def varint(at: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            byte = samples[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value, at

    encoding = samples[at + 12]
    at += 13
    if encoding == tachyon.REPEAT:
        count, at = varint(at)
        for _ in range(count):
            _, at = varint(at)
            at += 1
        return at
    _, at = varint(at)
    at += 1
    first, at = varint(at)
    new = first
    if encoding != tachyon.FULL:
        new, at = varint(at)
    for _ in range(new):
        _, at = varint(at)
    return at


def test_a_big_endian_capture_reads_the_same():
    data = (DATA / "known.bin").read_bytes()
    swapped = big_endian(data)
    assert swapped[:4] == b"TACH"
    assert list(fs.read(io.BytesIO(swapped)).samples()) == list(fs.read(io.BytesIO(data)).samples())


# -- time: the capture as a flame chart -------------------------------------------------------------

#: known.py's phases: (lane, function, seconds it runs). spin_a then spin_b in the main thread; sleeper in
#: its own thread, started just before spin_a.
PHASES = [("MainThread", "spin_a", 0.3), ("MainThread", "spin_b", 0.2), ("sleeper", "sleeper", 0.2)]


def phase_times(chart: fs.FlameChart) -> dict[str, tuple[str, list[float]]]:
    """Each phase's lane and the times (s) of the samples in it."""
    found: dict[str, tuple[str, list[float]]] = {}
    for sample in chart.samples():
        functions = [split_frame(frame)[0] for frame in sample.stack]
        for _, function, _ in PHASES:
            if function in functions:
                found.setdefault(function, (sample.thread, []))[1].append(sample.timestamp / 1e9)
    return found


def test_a_capture_is_a_flame_chart_of_known_pys_phases_in_the_order_and_at_the_times_they_ran():
    """The samples' times are the header's start plus each thread's deltas: spin_a's samples span its 0.3 s, then
    spin_b's its 0.2 s, while the sleeper's lane shows its 0.2 s from spin_a's start. Tolerance: a phase's first
    and last samples are each within one interval (5 ms) of its start and end, and the sampler may be late by up
    to another (the fixture's achieved rate is 200/s): 2 intervals. The fixture is fixed bytes, so no flake.
    (Failed before: the reader dropped the deltas and gave a flame graph.)"""
    chart = fs.read(DATA / "known.bin")
    assert isinstance(chart, fs.FlameChart) and chart.unit == "samples"
    interval = int(chart.metadata.labels["interval_us"]) / 1e6
    tolerance = 2 * interval
    phases = phase_times(chart)
    (main_a, a), (main_b, b), (lane, sleep) = (phases[function] for _, function, _ in PHASES)
    assert main_a == main_b == "MainThread" and lane.startswith("Thread ")
    assert set(chart.threads) == {"MainThread", lane}
    for (_, _, seconds), times in zip(PHASES, (a, b, sleep)):
        assert times == sorted(times)
        assert abs((max(times) - min(times)) - seconds) <= tolerance
    assert max(a) <= min(b) <= max(a) + tolerance  # spin_b follows spin_a
    assert abs(min(sleep) - min(a)) <= tolerance  # the sleeper starts with spin_a
    assert 0 <= min(a) and max(b) <= float(chart.metadata.labels["duration_s"])
    stamps = [sample.timestamp for sample in chart.samples()]
    assert stamps == sorted(stamps)


def test_the_chart_sums_to_the_flame_graph_every_other_command_gets():
    """A sample weighs 1 (unit samples) in the chart as in the graph, so both say the same counts."""
    for name in CAPTURES:
        chart = fs.read(DATA / f"{name}.bin")
        assert len(chart) == sum(tachyons_own(name).values())
        assert as_tachyon_names(chart.graph()) == tachyons_own(name)


def test_html_flamechart_draws_a_lane_per_thread(tmp_path, capsys):
    """(Failed before: the capture was a flame graph, drawn end to end on one lane, "all".)"""
    from flamespace.cli import main

    out = tmp_path / "chart.html"
    assert main(["html", "--flamechart", str(DATA / "known.bin"), "-o", str(out)]) == 0
    page = out.read_text()
    assert "MainThread" in page and "Thread 1" in page
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("output", ["flamespace-json", "gecko", "speedscope"])
def test_the_time_ordered_outputs_keep_a_lane_per_thread_in_time_order(tmp_path, output):
    """convert --to a format that keeps time order writes the chart, not its flame graph: each thread's
    samples in order (flamespace-json: exactly, times included). (Failed before: a flame graph, one lane.)"""
    chart = fs.read(DATA / "known.bin")
    path = tmp_path / f"known.{output}"
    fs.write(chart, path, output)
    back = fs.read(path, output)
    assert isinstance(back, fs.FlameChart) and len(back.threads) == 2
    lanes = {thread: [s.stack for s in chart.samples() if s.thread == thread] for thread in chart.threads}
    for thread in back.threads:
        assert [s.stack for s in back.samples() if s.thread == thread] == lanes[next(t for t in lanes if thread.startswith(t))]
    if output == "flamespace-json":
        assert list(back.samples()) == list(chart.samples())


def spliced(data: bytes, at: int, length: int, replacement: bytes) -> bytes:
    """An uncompressed capture with ``length`` bytes of its samples at ``at`` replaced, its table offsets and
    size moved to match."""
    out = bytearray(data[:at] + replacement + data[at + length :])
    shift = len(replacement) - length
    for field in (40, 48):  # the string and frame tables' offsets
        struct.pack_into("<Q", out, field, struct.unpack_from("<Q", out, field)[0] + shift)
    struct.pack_into("<Q", out, len(out) - 24, len(out))  # the footer's file size
    return bytes(out)


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        out.append(value & 0x7F | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def test_a_corrupt_time_delta_is_refused_at_its_offset_or_skipped_with_a_count():
    """A delta that puts a sample past what a chart holds (2**62 ns after the start) cannot be a real run's.
    (Failed before: deltas were not read, so the capture was read as if nothing were wrong.)"""
    data = (DATA / "known.bin").read_bytes()
    at = tachyon.HEADER_SIZE + 13  # the first record's delta, after its thread, interpreter and encoding
    old = len(varint(tachyon._varint(data, at, "x", 0, "")[0]))
    damaged = spliced(data, at, old, varint(2**62))
    assert tachyon.read_header(damaged, "x").frames_at == tachyon.read_header(data, "x").frames_at + 9 - old
    message = error_of(damaged)
    assert f"at byte {at}: a time delta of {2**62} µs puts a sample" in message and "damaged delta" in message
    diagnostics = Diagnostics()
    chart = fs.read(io.BytesIO(damaged), "tachyon", skip_invalid=True, diagnostics=diagnostics)
    assert len(chart) == 0 and any("kept the 0 samples before it" in warning for warning in diagnostics.warnings)


# -- errors: the file, the byte offset, what was wrong ------------------------------------------------


def error_of(data: bytes) -> str:
    with pytest.raises(fs.InputError) as caught:
        fs.read(io.BytesIO(data), "tachyon")
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_capture_cut_short_is_refused_with_what_the_footer_says():
    data = (DATA / "known.bin").read_bytes()
    message = error_of(data[:-100])
    assert "the footer says the file has" in message and "cut short" in message


def test_another_format_version_names_the_python_that_wrote_it():
    data = bytearray((DATA / "known.bin").read_bytes())
    struct.pack_into("<I", data, 4, 2)
    assert registry.detect(bytes(data[:64])).name == "tachyon"  # claimed, so that the reader says why not
    assert "Tachyon's binary format version 2 (written by Python 3.15.2); flamespace reads version 1" in error_of(bytes(data))


def test_a_damaged_sample_record_is_refused_at_its_offset_or_skipped_with_a_count():
    data = bytearray((DATA / "known.bin").read_bytes())
    header = tachyon.read_header(bytes(data), "x")
    second = _record_end(data[tachyon.HEADER_SIZE : header.strings_at], 0) + tachyon.HEADER_SIZE
    data[second + 12] = 9  # the second record's encoding byte
    message = error_of(bytes(data))
    assert f"at byte {second + 12}: unknown stack encoding 9" in message
    diagnostics = Diagnostics()
    graph = registry.read_graph(io.BytesIO(bytes(data)), "tachyon", skip_invalid=True, diagnostics=diagnostics)
    assert graph.total() == 1  # the first record's one sample
    (warning,) = [w for w in diagnostics.warnings if "kept the" in w]
    assert f"kept the 1 samples before it, {header.samples - 1} lost" in warning


def test_a_frame_index_past_the_frame_table_is_refused():
    data = bytearray((DATA / "known.bin").read_bytes())
    end = len(data) - tachyon.FOOTER_SIZE
    struct.pack_into("<I", data, end + 4, 2)  # the footer's count of frames, cut to 2
    assert "of a table of 2" in error_of(bytes(data))


def test_zstd_captures_without_a_decompressor_say_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "compression", None)
    monkeypatch.setitem(sys.modules, "zstandard", None)
    message = error_of((DATA / "known.zstd.bin").read_bytes())
    assert "install the zstandard package" in message and "--compression none" in message


def test_a_damaged_zstd_frame_is_refused():
    data = bytearray((DATA / "known.zstd.bin").read_bytes())
    data[tachyon.HEADER_SIZE + 20] ^= 0xFF
    message = error_of(bytes(data))
    assert "at byte" in message and ("zstd" in message or "sample" in message or "frame" in message)


# -- JSONL ---------------------------------------------------------------------------------------------


def test_jsonl_gives_each_functions_own_samples_and_says_it_has_no_stacks():
    """Tachyon's JSONL of the same capture (its replay --jsonl): each frame's self count is the samples whose
    innermost frame it is in Tachyon's collapsed replay. (Failed before: no tachyon-jsonl format.)"""
    diagnostics = Diagnostics()
    graph = fs.read(DATA / "known.replay.jsonl", diagnostics=diagnostics)  # detected by its meta record
    leaves: Counter = Counter()
    for stack, count in tachyons_own("known").items():
        leaves[(stack[-1],)] += count
    assert as_tachyon_names(graph) == leaves
    assert graph.metadata.labels["stacks"] == tachyon_jsonl.NO_STACKS and graph.metadata.labels["mode"] == "wall"
    assert any("per-function counts, not stacks" in warning for warning in diagnostics.warnings)


def jsonl_error(lines: list[str]) -> str:
    with pytest.raises(fs.InputError) as caught:
        fs.read(io.BytesIO("\n".join(lines).encode()), "tachyon-jsonl")
    return str(caught.value)


def test_jsonl_errors_name_the_line():
    lines = (DATA / "known.replay.jsonl").read_text().splitlines()
    assert "line 3: not JSON" in jsonl_error(lines[:2] + ["{not json"] + lines[2:])
    assert "line 1: the first record must be 'meta'" in jsonl_error(lines[1:])
    frames = json.loads(lines[2])
    frames["frames"][0]["line"] = -4
    assert "line 3: 'line' must be a non-negative integer, not -4" in jsonl_error(lines[:2] + [json.dumps(frames)] + lines[3:])
    meta = json.loads(lines[0])
    meta["v"] = 1
    assert "line 1: schema version 1; flamespace reads version 0" in jsonl_error([json.dumps(meta)] + lines[1:])


def test_jsonl_without_its_end_record_is_read_with_a_warning():
    lines = (DATA / "known.replay.jsonl").read_text().splitlines()
    diagnostics = Diagnostics()
    graph = fs.read(io.BytesIO("\n".join(lines[:-1]).encode()), "tachyon-jsonl", diagnostics=diagnostics)
    assert graph.total() > 0 and any("no 'end' record" in warning for warning in diagnostics.warnings)


def test_detection_tells_tachyons_files_from_json_profiles():
    assert registry.detect((DATA / "known.bin").read_bytes()).name == "tachyon"
    assert registry.detect((DATA / "known.replay.jsonl").read_bytes()[:4096]).name == "tachyon-jsonl"
    assert tachyon_jsonl.sniff(b'{"meta": {"version": 24}}\n') is False


@FUZZ
@given(mangled("tachyon", [(DATA / name).read_bytes() for name in ("known.bin", "known.zstd.bin", "native-cpu.bin")]))
def test_tachyon_reader_raises_only_input_errors(data: bytes) -> None:
    _read_or_refuse(data, "tachyon")


@FUZZ
@given(mangled("tachyon-jsonl", [(DATA / "known.replay.jsonl").read_bytes()]))
def test_tachyon_jsonl_reader_raises_only_input_errors(data: bytes) -> None:
    _read_or_refuse(data, "tachyon-jsonl")
