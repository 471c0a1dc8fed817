"""pprof: our wire decoder against the official schema (decoded by the protobuf package), real
austin2pprof output, and our writer read back by both."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given

import flamespace as fs
from flamespace.core.python_frames import PythonFrames
from flamespace.diagnostics import Diagnostics
from flamespace.formats import pprof, registry

from .test_fuzz import FUZZ, GRAPH, _read_or_refuse, mangled

DATA = Path(__file__).resolve().parent.parent / "data" / "austin"
pytest.importorskip("google.protobuf")
from ._profile_proto import profile_class  # noqa: E402  (after the skip: protobuf is a test extra)

Profile = profile_class()


def _official(data: bytes, column: int = -1) -> dict:
    """The flame graph of a profile decoded by protobuf with the official schema: a reference
    implementation of the rules the reader follows (leaf-first locations, inlined lines)."""
    message = Profile()
    message.ParseFromString(data)
    strings = list(message.string_table)
    names = PythonFrames()  # the naming convention is not under test here: the decoding is
    functions = {f.id: f for f in message.function}
    locations = {loc.id: loc for loc in message.location}
    graph: dict = {}
    for sample in message.sample:
        stack = []
        for location_id in sample.location_id:
            for line in locations[location_id].line:  # innermost first, as the locations are
                function = functions[line.function_id]
                name, file = strings[function.name], strings[function.filename]
                stack.append(names(name, file, line.line or None))
        key = tuple(reversed(stack))
        if sample.value[column] > 0:
            graph[key] = graph.get(key, 0) + sample.value[column]
    return graph


def _inlined_profile() -> bytes:
    """A profile with what austin2pprof never writes: an inlined call, two sample types, a default, unpacked ids."""
    message = Profile()
    message.string_table.extend(["", "cpu", "nanoseconds", "alloc_space", "bytes", "main", "m.go", "inl", "leaf"])
    for type_index, unit in ((1, 2), (3, 4)):
        value_type = message.sample_type.add()
        value_type.type, value_type.unit = type_index, unit
    for function_id, name in ((1, 5), (2, 7), (3, 8)):
        function = message.function.add()
        function.id, function.name, function.filename = function_id, name, 6
    outer = message.location.add()
    outer.id = 1
    outer.line.add(function_id=2, line=30)  # "inl" was inlined into "main"
    outer.line.add(function_id=1, line=10)
    leaf = message.location.add()
    leaf.id = 2
    leaf.line.add(function_id=3, line=40)
    message.sample.add(location_id=[2, 1], value=[7, 100])
    message.sample.add(location_id=[1], value=[3, 0])
    message.default_sample_type = 1
    message.period, message.period_type.type, message.period_type.unit = 10, 1, 2
    return message.SerializeToString()


def test_austin2pprof_output_matches_the_official_decoder() -> None:
    data = (DATA / "wall.pprof").read_bytes()
    graph = pprof.parse_bytes(data)
    assert dict(graph.items()) == _official(data)
    assert (graph.metadata.unit, graph.metadata.metric) == ("us", "Wall time")


def test_inlined_lines_sample_types_and_the_default() -> None:
    data = _inlined_profile()
    default = pprof.parse_bytes(data)  # default_sample_type names cpu, the first
    assert (
        dict(default.items())
        == _official(data, 0)
        == {("main (m.go:10)", "inl (m.go:30)", "leaf (m.go:40)"): 7, ("main (m.go:10)", "inl (m.go:30)"): 3}
    )
    assert (default.metadata.unit, default.metadata.metric) == ("ns", "cpu")
    assert default.metadata.labels["pprof.period"] == "10 nanoseconds of cpu"
    alloc = pprof.parse_bytes(data, pprof.ReadOptions(sample_type="alloc_space"))
    assert dict(alloc.items()) == _official(data, 1) and alloc.metadata.unit == "bytes"
    assert dict(pprof.parse_bytes(data, pprof.ReadOptions(sample_type="1")).items()) == dict(alloc.items())
    with pytest.raises(fs.ArgumentError, match="no sample type 'wall'; it has cpu, alloc_space"):
        pprof.parse_bytes(data, pprof.ReadOptions(sample_type="wall"))


def test_without_a_default_the_last_sample_type_is_read() -> None:
    message = Profile()
    message.ParseFromString(_inlined_profile())
    message.default_sample_type = 0
    assert pprof.parse_bytes(message.SerializeToString()).metadata.metric == "alloc_space"


def test_the_writer_round_trips_and_the_official_decoder_reads_it() -> None:
    graph = fs.FlameGraph(
        {("main (a.py:1)", "f (a.py:2)"): 30, ("main (a.py:1)",): 10, ("g",): 5, ("x (lib.so)",): 2},
        unit="ns",
        metric="cpu",
        labels={"command": "python a.py", "profiler": "flamespace"},
    )
    out = io.StringIO()
    pprof.dump(graph, out, pprof.WriteOptions(gzip=False))
    data = out.getvalue().encode("utf-8", "surrogateescape")
    assert _official(data) == {("main (a.py:1)", "f (a.py:2)"): 30, ("main (a.py:1)",): 10, ("g",): 5, ("x (lib.so)",): 2}
    back = pprof.parse_bytes(data)
    assert dict(back.items()) == dict(graph.items())
    assert (back.metadata.unit, back.metadata.metric) == ("ns", "cpu")
    assert dict(back.metadata.labels) == {"command": "python a.py", "profiler": "flamespace"}  # labels travel as comments


def test_written_files_are_gzipped_and_read_back_through_the_registry(tmp_path: Path) -> None:
    path = tmp_path / "out.pprof"
    registry.write(GRAPH, str(path), "pprof")
    raw = path.read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    back = registry.read(str(path))  # detected from the gunzipped content
    assert {s: round(v) for s, v in GRAPH.items()} == dict(back.items())


@pytest.mark.parametrize(
    "text", ["a;b 3\nc 1\n", "# unit: ns\n# metric: cpu\n# command: x y\ng 5\nmain (a.py:1);f (a.py:2) 30\n"]
)
def test_folded_to_pprof_to_folded_is_identical(text: str) -> None:
    folded = registry.by_name("folded")
    out = io.StringIO()
    pprof.dump(folded.parse(io.StringIO(text)), out, pprof.WriteOptions(gzip=False))
    again = io.StringIO()
    folded.dump(pprof.parse_bytes(out.getvalue().encode("utf-8", "surrogateescape")), again)
    assert again.getvalue() == text


def test_differential_profiles_cannot_be_written() -> None:
    with pytest.raises(fs.ArgumentError, match="differential"):
        pprof.dump(fs.Differential(fs.FlameGraph({("a",): 1}), fs.FlameGraph({("a",): 2})), io.StringIO())


def test_truncated_and_broken_input_name_the_byte_offset() -> None:
    data = (DATA / "wall.pprof").read_bytes()
    with pytest.raises(fs.InputError, match=r"x.pprof: at byte \d+: not a valid pprof profile: .*truncated"):
        pprof.parse_bytes(data[:-7], source="x.pprof")
    with pytest.raises(fs.InputError, match="not a valid pprof profile: a sample type is string 99"):
        pprof.parse_bytes(b"\x0a\x02\x08\x63")
    with pytest.raises(fs.InputError, match="cannot read: Compressed file ended before"):
        fs.read(io.BytesIO(gzip.compress(data)[:-20]), "pprof")


def test_negative_values_are_refused_or_skipped() -> None:
    message = Profile()
    message.ParseFromString(_inlined_profile())
    message.sample[0].value[0] = -4
    data = message.SerializeToString()
    with pytest.raises(fs.InputError, match="negative value -4"):
        pprof.parse_bytes(data)
    diagnostics = Diagnostics()
    graph = pprof.parse_bytes(data, pprof.ReadOptions(skip_invalid=True), diagnostics=diagnostics)
    assert diagnostics.skipped == 1 and graph.total() == 3


def test_an_empty_input_is_an_empty_profile_with_a_warning() -> None:
    diagnostics = Diagnostics()
    assert len(pprof.parse_bytes(b"", diagnostics=diagnostics)) == 0 and diagnostics.warnings


def test_sniffing_is_specific() -> None:
    assert registry.detect((DATA / "wall.pprof").read_bytes()[:4096]).name == "pprof"
    assert registry.detect(_inlined_profile()).name == "pprof"
    assert registry.detect(b"\nmain;f 5\n").name == "folded"
    assert registry.detect(b"\x12\x05hello").name != "pprof"


SEEDS = [(DATA / "wall.pprof").read_bytes(), _inlined_profile(), pprof.encode(GRAPH)]


@FUZZ
@given(mangled("pprof", SEEDS))
def test_pprof_reader_raises_only_input_errors(data: bytes) -> None:
    _read_or_refuse(data, "pprof")


@pytest.mark.skipif(shutil.which("go") is None, reason="needs Go's pprof (go tool pprof): apt-get install golang-go")
def test_go_tool_pprof_reads_what_we_write(tmp_path: Path) -> None:
    path = tmp_path / "ours.pprof"
    graph = fs.FlameGraph({("main (a.py:1)", "f (a.py:2)"): 30, ("main (a.py:1)",): 10, ("g",): 5}, unit="ns", metric="cpu")
    registry.write(graph, str(path), "pprof")
    done = subprocess.run(
        ["go", "tool", "pprof", "-top", "-unit=ns", str(path)],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(tmp_path)},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Type: cpu" in done.stdout and "100% of 45ns total" in done.stdout
    rows = {
        line.split()[-1]: line.split()[0] for line in done.stdout.splitlines() if line.strip().endswith((" f", " main", " g"))
    }
    assert rows == {"f": "30ns", "main": "10ns", "g": "5ns"}


def test_sample_labels_are_counted_without_them_and_a_note_says_so(tmp_path):
    """The reader of files (the CLI's) keeps one flame graph: samples with pprof sample labels count
    in it as the others do, and the diagnostics say how many carried which labels."""
    from tests.workflows.serve.pushes import labelled_profile

    path = tmp_path / "labelled.pprof"
    path.write_bytes(
        labelled_profile([("main;a", 3, {"endpoint": "/x"}), ("main;b", 4, {}), ("main;a", 5, {"size": (1024, "bytes")})])
    )
    notes = Diagnostics()
    graph = registry.read_graph(str(path), diagnostics=notes)
    assert dict(graph.items()) == {("main", "a"): 8, ("main", "b"): 4}
    assert notes.warnings == [
        f"{path}: 2 of 3 samples carry pprof sample labels (endpoint, size), which a flame graph does not keep: "
        "they are counted without them"
    ]
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from flamespace.cli import script; sys.exit(script())", "info", str(path)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and "2 of 3 samples carry pprof sample labels" in done.stderr, done.stderr
