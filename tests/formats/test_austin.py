"""Austin text and MOJO: real output of Austin 3.7 (tests/data/austin/README.md says how it was made)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given

import flamespace as fs
from flamespace.diagnostics import Diagnostics
from flamespace.formats import austin, registry

from .test_fuzz import FUZZ, _read_or_refuse, mangled

DATA = Path(__file__).resolve().parent.parent / "data" / "austin"


def read(name: str, **options: object) -> fs.FlameGraph:
    path = DATA / name
    with registry.open_binary(str(path)) as (stream, source):
        text = io.TextIOWrapper(stream, encoding="utf-8", errors="surrogateescape")
        graph: fs.FlameGraph = austin.parse(text, austin.ReadOptions(**options), source=source)  # type: ignore[arg-type]
        text.detach()
    return graph


def values(graph: fs.FlameGraph) -> dict:
    return dict(graph.items())


def test_text_and_mojo_of_one_run_give_the_same_flame_graph() -> None:
    text, mojo = registry.read(str(DATA / "wall.austin")), registry.read(str(DATA / "wall.mojo"))
    assert values(text) == values(mojo) and len(text) > 10
    assert text.metadata == mojo.metadata
    assert (text.metadata.unit, text.metadata.metric) == ("us", "wall")
    assert text.metadata.labels["profiler"] == "austin 3.7.0"


def test_its_pprof_and_speedscope_give_the_same_flame_graph() -> None:
    """austin2pprof keeps samples with no Python frame (as the empty stack); Austin's readers drop them, as austin2speedscope does."""
    ours = values(registry.read(str(DATA / "wall.austin")))
    pprof = values(registry.read(str(DATA / "wall.pprof")))
    speedscope = values(registry.read(str(DATA / "wall.speedscope.json")).graph())  # type: ignore[union-attr]
    assert pprof.pop(()) > 0
    assert ours == pprof == speedscope


def test_frames_are_named_as_our_recorder_names_them() -> None:
    frames = {frame for stack, _ in read("wall.austin").items() for frame in stack}
    assert "Worker.run (/tmp/fx/prog.py:17)" in frames  # qualname, then (file:line)
    assert "_find_and_load (<frozen importlib._bootstrap>:1176)" in frames
    full = {frame for stack, _ in read("full.austin").items() for frame in stack}
    assert "<module> (site-packages/certifi/core.py:16)" in full
    assert any(frame.endswith("(<stdlib>/random.py:62)") for frame in full)  # another machine's standard library
    assert not any("/lib/python3" in frame for frame in full)


def _metric_column(name: str, column: int) -> int:
    """The sum of one metric column of an Austin text file, over samples with a frame (independent of the reader)."""
    total = 0
    for line in (DATA / name).read_text().splitlines():
        if line.startswith("P"):
            stack, _, metrics = line.rpartition(" ")
            if stack.count(";") >= 2:
                total += int(metrics.split(",")[column])
    return total


def test_full_mode_has_every_metric() -> None:
    wall, cpu = read("full.austin", metric="wall"), read("full.austin", metric="cpu")
    alloc = read("full.austin", metric="alloc")
    assert wall.total() == _metric_column("full.austin", 0) == read("full.austin").total()
    assert 0 < cpu.total() < wall.total()
    assert (cpu.metadata.metric, cpu.metadata.unit, alloc.metadata.unit) == ("cpu", "us", "bytes")
    assert alloc.total() > 0
    mojo_wall, mojo_cpu = read("full.mojo"), read("full.mojo", metric="cpu")
    assert 0 < mojo_cpu.total() < mojo_wall.total()


def test_cpu_and_memory_modes() -> None:
    cpu = read("cpu.austin")
    assert (cpu.metadata.metric, cpu.total()) == ("cpu", _metric_column("cpu.austin", 0))
    memory = read("memory.austin")
    assert (memory.metadata.metric, memory.metadata.unit) == ("alloc", "bytes")
    with pytest.raises(fs.ArgumentError, match="cpu mode has no wall metric.*austin -f"):
        read("cpu.austin", metric="wall")
    with pytest.raises(fs.ArgumentError, match="metric must be one of"):
        read("cpu.austin", metric="bogus")


def test_memory_deltas_split_into_allocations_and_frees() -> None:
    text = "# mode: memory\nP1;T0:1;a.py:f:1 100\nP1;T0:1;a.py:g:2 -40\nP1;T0:1;a.py:f:1 -10\n"
    alloc = austin.parse(io.StringIO(text))
    dealloc = austin.parse(io.StringIO(text), austin.ReadOptions(metric="dealloc"))
    assert values(alloc) == {("f (a.py:1)",): 100}
    assert values(dealloc) == {("g (a.py:2)",): 40, ("f (a.py:1)",): 10}


def test_threads_keeps_process_and_thread_as_roots() -> None:
    graph = read("wall.mojo", threads=True)
    roots = {stack[:2] for stack, _ in graph.items()}
    (root,) = roots
    assert root[0].startswith("P") and root[1].startswith("T0:")
    assert roots == {
        stack[:2] for stack, _ in read("wall.austin", threads=True).items()
    }  # MOJO's hex thread id as Austin's text writes it


def test_bad_lines_name_the_line_and_can_be_skipped() -> None:
    text = "# austin: 3.7.0\n# mode: wall\nP1;T0:1;a.py:f:1 10\nP1;T0:1;a.py:f:1 ten\nnot a sample\n"
    with pytest.raises(fs.InputError, match=r"<input>:4: expected one integer metric.*'ten'"):
        austin.parse(io.StringIO(text))
    diagnostics = Diagnostics()
    graph = austin.parse(io.StringIO(text), austin.ReadOptions(skip_invalid=True), diagnostics=diagnostics)
    assert values(graph) == {("f (a.py:1)",): 10}
    assert diagnostics.skipped == 2 and "expected an Austin sample" in diagnostics.examples[1][2]


def test_mojo2austin_full_mode_text_is_refused_with_a_hint() -> None:
    with pytest.raises(fs.InputError, match="read the MOJO file itself"):
        austin.parse(io.StringIO("# mode: full\nP1;T0:1;a.py:f:1 10\n"))


def test_truncated_mojo_names_the_byte_offset() -> None:
    data = (DATA / "wall.mojo").read_bytes()
    with pytest.raises(fs.InputError, match=r"at byte \d+: the MOJO stream ends inside"):
        austin.parse_mojo(data[: len(data) // 2 - 1] + b"\x85", source="cut.mojo")
    with pytest.raises(fs.InputError, match="at byte 3: MOJO version 9 is not supported"):
        austin.parse_mojo(b"MOJ\x09")
    with pytest.raises(fs.InputError, match="unknown MOJO event 14"):
        austin.parse_mojo(b"MOJ\x03\x0e")


def test_an_empty_input_is_an_empty_profile_with_a_warning() -> None:
    diagnostics = Diagnostics()
    graph = austin.parse(io.StringIO(""), diagnostics=diagnostics)
    assert len(graph) == 0 and "empty" in diagnostics.warnings[0]
    diagnostics = Diagnostics()
    assert len(austin.parse_mojo(b"MOJ\x03", diagnostics=diagnostics)) == 0 and diagnostics.warnings


def test_sniffing_tells_austin_from_folded() -> None:
    assert registry.detect((DATA / "wall.austin").read_bytes()[:4096]).name == "austin"
    assert registry.detect((DATA / "wall.mojo").read_bytes()[:4096]).name == "austin"
    assert registry.detect(b"P12;T0:12;a.py:f:1 5\n").name == "austin"  # no header
    assert registry.detect(b"# unit: ns\nmain;f 5\n").name == "folded"
    assert registry.detect(b"Parser;parse 5\n").name == "folded"
    assert austin.sniff(b"# austin: 3.7.0") is None  # no full line yet


SEEDS = [(DATA / name).read_bytes() for name in ("wall.mojo", "full.mojo")] + [
    (DATA / "wall.austin").read_bytes()[:3000],
    (DATA / "full.austin").read_bytes()[:3000].rpartition(b"\n")[0] + b"\n",
]


@FUZZ
@given(mangled("austin", SEEDS))
def test_austin_reader_raises_only_input_errors(data: bytes) -> None:
    _read_or_refuse(data, "austin")
