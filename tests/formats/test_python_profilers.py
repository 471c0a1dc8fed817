"""py-spy raw output and pstats files (cProfile, yappi): real output of tests/data/pstats/prog.py, and
the one frame naming every reader shares (core.python_frames)."""

from __future__ import annotations

import io
import marshal
from pathlib import Path

import pytest
from hypothesis import given

import flamespace as fs
from flamespace.collect.naming import FrameNamer
from flamespace.core.python_frames import PathShortener, PythonFrames, short_path, split_frame
from flamespace.diagnostics import Diagnostics
from flamespace.formats import pstats, pyspy, registry

from .test_fuzz import FUZZ, _read_or_refuse, mangled

DATA = Path(__file__).resolve().parent.parent / "data"


def test_one_naming_for_the_recorder_and_the_readers() -> None:
    shorten = PathShortener(cwd="/work/app", stdlib_dirs=["/usr/lib/python3.11"])
    names = PythonFrames(shorten)
    assert names("f", "/work/app/pkg/a.py", 3) == "f (pkg/a.py:3)"
    assert names("f", "/usr/lib/python3.11/json/decoder.py", 3) == "f (<stdlib>/json/decoder.py:3)"
    assert names("f", "/opt/py/lib/python3.15/random.py", 9) == "f (<stdlib>/random.py:9)"  # another machine's Python
    assert names("f", "/x/lib/python3.12/site-packages/certifi/core.py", 1) == "f (site-packages/certifi/core.py:1)"
    assert names("f", "<frozen os>", 0) == "f (<frozen os>)" and names("exec", "", 4) == "exec"
    assert short_path(shorten, "/srv/other.py") == "/srv/other.py"
    assert split_frame("Worker.run (pkg/a.py:17)") == ("Worker.run", "pkg/a.py", 17)
    assert split_frame("f (lib.so)") == ("f", "lib.so", None) and split_frame("plain") is None
    # the recorder's own namer gives the same name for the same code
    code = test_one_naming_for_the_recorder_and_the_readers.__code__
    recorded = FrameNamer().location(code, 30)
    assert PythonFrames()(code.co_qualname if hasattr(code, "co_qualname") else code.co_name, code.co_filename, 30) == recorded


def test_pyspy_frames_are_renamed_and_thread_roots_dropped() -> None:
    plain = registry.read(str(DATA / "pyspy" / "raw.txt"), "pyspy")
    assert "leaf (prog.py:6)" in {f for stack, _ in plain.items() for f in stack}
    assert plain.metadata.unit == "samples" and plain.metadata.labels["profiler"] == "py-spy"
    full = registry.read(str(DATA / "pyspy" / "raw-threads-full-filenames.txt"), "pyspy")
    frames = {f for stack, _ in full.items() for f in stack}
    assert not any(f.startswith("thread (") for f in frames)
    assert "<module> (site-packages/certifi/core.py:16)" in frames
    assert not any("/lib/python3" in f for f in frames)
    raw = registry.read(str(DATA / "pyspy" / "raw-threads-full-filenames.txt"), "folded")
    assert full.total() == raw.total()
    kept = pyspy.parse(
        io.StringIO('thread (0x7F01);process 12:"python x.py";f (/srv/a.py:1) 3\n'), pyspy.ReadOptions(threads=True)
    )
    assert dict(kept.items()) == {("thread (0x7F01)", 'process 12:"python x.py"', "f (/srv/a.py:1)"): 3}


def test_an_empty_pyspy_file_is_an_empty_profile_with_a_warning() -> None:
    diagnostics = Diagnostics()
    assert len(pyspy.parse(io.StringIO(""), diagnostics=diagnostics)) == 0 and "empty" in diagnostics.warnings[0]


def test_pyspy_is_never_sniffed() -> None:
    assert registry.detect((DATA / "pyspy" / "raw.txt").read_bytes()).name == "folded"


def _own_time(name: str) -> float:
    stats = marshal.loads((DATA / "pstats" / name).read_bytes())
    return sum(value[2] for value in stats.values())


@pytest.mark.parametrize("name", ["cprofile.pstats", "yappi.pstats"])
def test_pstats_stacks_are_estimated_and_keep_the_total(name: str) -> None:
    diagnostics = Diagnostics()
    with registry.open_binary(str(DATA / "pstats" / name)) as (stream, source):
        text = io.TextIOWrapper(stream)
        graph = pstats.parse(text, source=source, diagnostics=diagnostics)
        text.detach()
    assert graph.total() == pytest.approx(_own_time(name), rel=1e-9)
    assert graph.metadata.unit == "s" and graph.metadata.labels["stacks"] == pstats.ESTIMATED
    assert "not stacks" in diagnostics.warnings[0]
    assert registry.detect((DATA / "pstats" / name).read_bytes()[:4096]).name == "pstats"
    hot = max(graph.items(), key=lambda item: item[1])[0]
    assert hot[-1] in ("<built-in method time.sleep>", "leaf (prog.py:3)")


def test_cprofile_stacks_follow_the_calls() -> None:
    graph = registry.read(str(DATA / "pstats" / "cprofile.pstats"))
    stacks = {stack: value for stack, value in graph.items()}
    leaf = (
        "<built-in method builtins.exec>",
        "<module> (prog.py:1)",
        "main (prog.py:19)",
        "run (prog.py:13)",
        "middle (prog.py:9)",
        "leaf (prog.py:3)",
    )
    assert stacks[leaf] == pytest.approx(
        marshal.loads((DATA / "pstats" / "cprofile.pstats").read_bytes())[("prog.py", 3, "leaf")][2]
    )


def test_a_function_called_from_two_places_is_shared_by_time() -> None:
    stats = {
        ("m.py", 1, "main"): (1, 1, 1.0, 10.0, {}),
        ("m.py", 5, "a"): (1, 1, 0.0, 6.0, {("m.py", 1, "main"): (1, 1, 0.0, 6.0)}),
        ("m.py", 9, "b"): (1, 1, 0.0, 3.0, {("m.py", 1, "main"): (1, 1, 0.0, 3.0)}),
        ("m.py", 12, "work"): (2, 2, 9.0, 9.0, {("m.py", 5, "a"): (1, 1, 6.0, 6.0), ("m.py", 9, "b"): (1, 1, 3.0, 3.0)}),
    }
    graph = pstats.parse_bytes(marshal.dumps(stats))
    assert dict(graph.items()) == pytest.approx(
        {
            ("main (m.py:1)",): 1.0,
            ("main (m.py:1)", "a (m.py:5)", "work (m.py:12)"): 6.0,
            ("main (m.py:1)", "b (m.py:9)", "work (m.py:12)"): 3.0,
        }
    )


def test_call_counts_share_time_where_there_is_no_time_per_caller() -> None:
    stats = {
        ("m.py", 1, "a"): (1, 1, 0.0, 6.0, {}),
        ("m.py", 2, "b"): (1, 1, 0.0, 2.0, {}),
        ("m.py", 3, "w"): (4, 4, 8.0, 8.0, {("m.py", 1, "a"): 3, ("m.py", 2, "b"): 1}),
    }
    assert dict(pstats.parse_bytes(marshal.dumps(stats)).items()) == pytest.approx(
        {("a (m.py:1)", "w (m.py:3)"): 6.0, ("b (m.py:2)", "w (m.py:3)"): 2.0}
    )  # 3 calls to 1


def test_recursion_keeps_the_total() -> None:
    stats = {
        ("r.py", 1, "f"): (3, 1, 3.0, 3.0, {("r.py", 1, "f"): (2, 2, 2.0, 2.0), ("r.py", 9, "main"): (1, 1, 1.0, 3.0)}),
        ("r.py", 9, "main"): (1, 1, 0.5, 3.5, {}),
    }
    assert pstats.parse_bytes(marshal.dumps(stats)).total() == pytest.approx(3.5)


def test_bad_pstats_name_the_byte_offset() -> None:
    data = (DATA / "pstats" / "cprofile.pstats").read_bytes()
    with pytest.raises(fs.InputError, match=r"at byte \d+: the data ends inside a value \(truncated file\?\)"):
        pstats.parse_bytes(data[:200])
    with pytest.raises(fs.InputError, match="not a pstats file: expected a marshalled dict"):
        pstats.parse_bytes(marshal.dumps((1, 2)))
    with pytest.raises(fs.InputError, match=r"not a pstats file: a function key is 'x'"):
        pstats.parse_bytes(marshal.dumps({"x": (1, 1, 1.0, 1.0, {})}))
    with pytest.raises(fs.InputError, match="a code object: .*record with cProfile"):
        registry.read(str(DATA / "pstats" / "profile.pstats"))
    diagnostics = Diagnostics()
    assert len(pstats.parse_bytes(b"", diagnostics=diagnostics)) == 0 and diagnostics.warnings


def test_our_marshal_decoder_agrees_with_marshal() -> None:
    for name in ("cprofile.pstats", "yappi.pstats"):
        data = (DATA / "pstats" / name).read_bytes()
        decoder = pstats._Marshal(data, name)
        assert decoder.value() == marshal.loads(data)
    value = {("a", 2**40, "b"): (-(2**70), 1.5, None, True, "é" * 300)}
    assert pstats._Marshal(marshal.dumps(value), "x").value() == value


PSTATS = [(DATA / "pstats" / "cprofile.pstats").read_bytes()]
PYSPY = [(DATA / "pyspy" / "raw-threads-full-filenames.txt").read_bytes()[:3000].rpartition(b"\n")[0] + b"\n"]


@FUZZ
@given(mangled("pstats", PSTATS))
def test_pstats_reader_raises_only_input_errors(data: bytes) -> None:
    _read_or_refuse(data, "pstats")


@FUZZ
@given(mangled("pyspy", PYSPY))
def test_pyspy_reader_raises_only_input_errors(data: bytes) -> None:
    _read_or_refuse(data, "pyspy")
