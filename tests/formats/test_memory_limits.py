"""Small inputs must not take unbounded memory (issue 24): decompressed size, pstats paths, stack depth.

The limits live in formats/_limits.py; the tests set them small through their environment
variables, so that each case is cheap, and check the error names the limit and the variable.
"""

from __future__ import annotations

import gzip
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from flamespace.core.chart import FlameChart
from flamespace.errors import ArgumentError, InputError
from flamespace.formats import _limits, registry


def _pstats_layers(layers: int) -> bytes:
    """A pstats call graph of ``layers`` layers of two functions, each calling both of the next
    layer: 2**layers paths from the root in a file of about 300 bytes a layer."""
    stats = {}
    for layer in range(layers):
        for k in range(2):
            callers = (
                {
                    ("m.py", 2 * (layer - 1) + j + 1, f"f{layer - 1}_{j}"): (1, 1, 0.001, 0.001 * (layers - layer))
                    for j in range(2)
                }
                if layer
                else {}
            )
            stats[("m.py", 2 * layer + k + 1, f"f{layer}_{k}")] = (2, 2, 0.001, 0.002 * (layers - layer), callers)
    return marshal.dumps(stats)


# -- decompressed size ----------------------------------------------------------------------


def _folded_gzip(path: Path, lines: int) -> Path:
    path.write_bytes(gzip.compress(b"main;work;leaf 1\n" * lines))
    return path


def test_a_gzip_input_past_the_set_size_is_an_input_error_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _folded_gzip(tmp_path / "x.folded.gz", 200_000)  # 3.4 MB of text in about 10 KB
    monkeypatch.setenv(_limits.GUNZIP_ENV, "1M")
    with pytest.raises(
        InputError, match=r"x\.folded\.gz: decompresses to more than 1\.00 MiB .*FLAMESPACE_MAX_DECOMPRESSED=SIZE"
    ):
        registry.read(str(source), "folded")
    monkeypatch.setenv(_limits.GUNZIP_ENV, "4M")
    assert registry.read(str(source), "folded").total() == 200_000
    monkeypatch.setenv(_limits.GUNZIP_ENV, "none")
    assert registry.read(str(source), "folded").total() == 200_000


def test_by_default_a_gzip_input_may_expand_a_bounded_ratio_of_its_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(_limits.GUNZIP_ENV, raising=False)
    monkeypatch.setattr(_limits, "GUNZIP_FLOOR", 1 << 20)  # the default's floor, small for the test
    bomb = _folded_gzip(tmp_path / "bomb.folded.gz", 200_000)  # expands about 300 times
    with pytest.raises(InputError, match=r"the larger of 1\.00 MiB and 100 times the compressed size read; a gzip bomb"):
        registry.read(str(bomb), "folded")
    import random

    rng = random.Random(4)  # text that compresses as profiles do, a few times
    text = "".join(f"main;f{rng.randrange(10**6)};g{rng.randrange(10**6)} {rng.randrange(1, 99)}\n" for _ in range(100_000))
    ordinary = tmp_path / "ordinary.folded.gz"
    ordinary.write_bytes(gzip.compress(text.encode()))
    assert len(text) > 2 << 20  # past the floor
    assert len(registry.read(str(ordinary), "folded")) > 90_000


def test_a_bad_limit_in_the_environment_says_what_is_expected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_limits.GUNZIP_ENV, "lots")
    with pytest.raises(ArgumentError, match="FLAMESPACE_MAX_DECOMPRESSED='lots': expected a count such as 4000000 or 4G"):
        registry.read(str(_folded_gzip(tmp_path / "x.folded.gz", 10)), "folded")


def test_the_cli_refuses_a_gzip_bomb_with_exit_1(tmp_path: Path) -> None:
    """A JSON reader holds its whole input: a 2 MB gzip of speedscope events took 3 GB and more before."""
    bomb = tmp_path / "bomb.speedscope.json.gz"
    head = (
        '{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"}]},'
        '"profiles":[{"type":"evented","name":"t","unit":"none","startValue":0,"endValue":1,"events":['
    )
    pair = '{"type":"O","frame":0,"at":0},{"type":"C","frame":0,"at":0}'
    bomb.write_bytes(gzip.compress((head + ",".join([pair] * 40_000) + "]}]}").encode()))
    env = {**os.environ, _limits.GUNZIP_ENV: "1M"}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from flamespace.cli import script; sys.exit(script())",
            "convert",
            str(bomb),
            "-o",
            str(tmp_path / "out.folded"),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 1, done.stderr
    assert "decompresses to more than 1.00 MiB" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out.folded").exists()


# -- pstats ---------------------------------------------------------------------------------


def test_a_pstats_call_graph_of_exponentially_many_paths_stops_at_the_frame_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """200 layers of two functions: 59 KB that grew to 7.4 GB before MemoryError."""
    source = tmp_path / "layers.pstats"
    source.write_bytes(_pstats_layers(200))
    monkeypatch.setenv(_limits.STACK_FRAMES_ENV, "100000")
    with pytest.raises(
        InputError,
        match=r"layers\.pstats: the call graph has too many paths .* pass 100,000 frames .*"
        r"FLAMESPACE_MAX_STACK_FRAMES=COUNT",
    ):
        registry.read(str(source), "pstats")


def test_a_pstats_call_graph_within_the_frame_limit_reads_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "layers.pstats"
    source.write_bytes(_pstats_layers(8))  # 2**8 paths to the last layer
    monkeypatch.setenv(_limits.STACK_FRAMES_ENV, "100000")
    graph = registry.read(str(source), "pstats")
    assert len(graph) == 2**9 - 2 and abs(graph.total() - 0.016) < 1e-9  # every path; the own times, all of them


def test_a_pstats_integer_of_thousands_of_digits_is_an_input_error() -> None:
    from flamespace.formats import pstats

    data = marshal.dumps({("m.py", 1, "f"): (1, 10**50000, 0.1, 0.1, {})})
    with pytest.raises(InputError, match=r"x\.pstats: at byte 24: an integer of 11074 15-bit digits: no number of a pstats file"):
        pstats.parse_bytes(data, source="x.pstats")
    huge = marshal.dumps({("m.py", 1, "f"): (1, 10**310, 0.1, 0.1, {})})  # within the digits, past the largest number
    with pytest.raises(InputError, match="the call count of f is 1000000000"):
        pstats.parse_bytes(huge, source="x.pstats")


# -- stack depth ----------------------------------------------------------------------------

DEEP = 100_000
#: The reading child's address space: the readers made a tuple per node of the stack tree
#: (100,000 deep: 40 GB, killed at 24 GB; a 3 GB limit was reached in 6-14 s).
ADDRESS_LIMIT = 1536 << 20

_READ_DEEP = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (%d, %d))
from flamespace.formats import registry
chart = registry.read(sys.argv[1], sys.argv[2])
graph = chart.graph()
print(len(graph), max(len(stack) for stack, _ in graph.items()), graph.total())
""" % (ADDRESS_LIMIT, ADDRESS_LIMIT)


def _deep_cpuprofile(path: Path) -> None:
    import json

    nodes = [{"id": 1, "callFrame": {"functionName": "(root)", "url": "", "lineNumber": -1}, "children": [2]}]
    nodes += [
        {"id": k, "callFrame": {"functionName": f"f{k}", "url": "file:///a.js", "lineNumber": k}, "children": [k + 1]}
        for k in range(2, DEEP + 2)
    ]
    nodes[-1]["children"] = []
    path.write_text(
        json.dumps({"nodes": nodes, "startTime": 0, "endTime": 30, "samples": [DEEP + 1, DEEP + 1], "timeDeltas": [0, 10]})
    )


@pytest.mark.parametrize("fmt", ["chrome", "gecko", "cpuprofile"])
def test_a_chart_reader_reads_one_stack_100k_deep_in_bounded_memory(fmt: str, tmp_path: Path) -> None:
    """What flamespace writes of a 100,000-deep stack (chrome, gecko) reads back under a 1.5 GB
    address limit; a cpuprofile's call tree as deep too."""
    import flamespace as fs

    source = tmp_path / f"deep.{fmt}"
    if fmt == "cpuprofile":
        _deep_cpuprofile(source)
        expected = (1, DEEP, 30_000)  # 10 us and 20 us
    else:
        stack = tuple(f"f{k}" for k in range(DEEP))
        registry.write(fs.FlameGraph({stack: 5}, unit="ms"), str(source), fmt)
        expected = (1, DEEP, 5)
    done = subprocess.run([sys.executable, "-c", _READ_DEEP, str(source), fmt], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    stacks, depth, total = done.stdout.split()
    assert (int(stacks), int(depth), float(total)) == expected


def test_wanted_stacks_are_the_stacks_of_the_tree() -> None:
    """The stacks made for the nodes asked are those a tuple for every node gives."""
    import random

    from flamespace.formats._nesting import wanted_stacks

    rng = random.Random(7)
    for _ in range(50):
        size = rng.randrange(1, 60)
        parents = [0] + [rng.randrange(node) for node in range(1, size)]  # parents before children
        labels = [-1] + [rng.randrange(5) for _ in range(1, size)]
        names = ["a", "b", "c", "d", "e"]
        every: list = [()]
        for node in range(1, size):
            every.append(every[parents[node]] + (names[labels[node]],))
        wanted = sorted(rng.sample(range(size), rng.randrange(size + 1)))
        made = wanted_stacks(wanted, parents, [None] + [names[label] for label in labels[1:]], {0: ()}, _limits.FrameBudget("x"))
        assert {node: made[node] for node in wanted} == {node: every[node] for node in wanted}


def test_a_cpuprofile_node_under_a_missing_or_cyclic_parent_is_refused_though_never_sampled() -> None:
    import io
    import json

    from flamespace.formats import cpuprofile

    def profile(nodes: list) -> io.StringIO:
        return io.StringIO(json.dumps({"nodes": nodes, "samples": [1], "timeDeltas": [1], "startTime": 0, "endTime": 5}))

    frame = {"functionName": "f", "url": ""}
    with pytest.raises(InputError, match="node 2 has an ancestor 9 that is not in 'nodes'"):
        cpuprofile.parse(profile([{"id": 1, "callFrame": frame}, {"id": 2, "callFrame": frame, "parent": 9}]))
    with pytest.raises(InputError, match="the parents of node 2 form a cycle"):
        cpuprofile.parse(
            profile(
                [
                    {"id": 1, "callFrame": frame},
                    {"id": 2, "callFrame": frame, "parent": 3},
                    {"id": 3, "callFrame": frame, "parent": 2},
                ]
            )
        )


def _recursion_chart(depth: int, function: str = "f") -> FlameChart:
    """A recursion ``depth`` deep with time at every depth: as many distinct stacks, about depth**2 / 2 frames."""
    from flamespace.core.chart import FlameChart
    from flamespace.core.metadata import Metadata

    chart = FlameChart(Metadata(unit="ns"))
    stack: tuple = ()
    for level in range(depth):
        stack += (f"{function} (r.py:{level + 1})",)
        chart.append(1000 * (level + 1), "main", stack, 1000)
    return chart


@pytest.mark.parametrize("fmt", ["chrome", "chrome-arrays", "gecko", "cpuprofile", "speedscope", "speedscope-arrays"])
def test_a_chart_reader_stops_at_the_frame_limit_when_every_depth_is_sampled(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recursion 100,000 deep sampled at every depth has 5 billion frames of stacks (a trace of it
    that flamespace wrote grew to 24 GB); 1,500 deep, 1.1 million, past a limit of 1,000,000.
    -arrays: the reader of long traces (array operations), else taken from 10,000 events."""
    from flamespace.formats import _nesting

    if fmt.endswith("-arrays"):
        monkeypatch.setattr(_nesting, "ARRAYS_FROM", 0)
        fmt = fmt[: -len("-arrays")]
    source = tmp_path / f"recursion.{fmt}"
    if fmt == "cpuprofile":
        import json

        nodes = [
            {"id": k, "callFrame": {"functionName": "f", "url": "r.py", "lineNumber": k}, "children": [k + 1]}
            for k in range(1, 1501)
        ]
        nodes[-1]["children"] = []
        source.write_text(
            json.dumps(
                {"nodes": nodes, "samples": list(range(1, 1501)), "timeDeltas": [1] * 1500, "startTime": 0, "endTime": 1501}
            )
        )
    else:
        registry.write(_recursion_chart(1500), str(source), fmt)
    monkeypatch.setenv(_limits.STACK_FRAMES_ENV, "1000000")
    with pytest.raises(
        InputError,
        match=r"recursion\.\w+: the stacks of the samples are too many and too deep: they pass "
        r"1,000,000 frames in all .* set FLAMESPACE_MAX_STACK_FRAMES=COUNT",
    ):
        registry.read(str(source), fmt)
    monkeypatch.setenv(_limits.STACK_FRAMES_ENV, "2M")
    chart = registry.read(str(source), fmt)
    assert max(len(stack) for stack in chart.stacks) == 1500 and len(chart.stacks) == 1500


# -- convert's peak ----------------------------------------------------------------------------

#: The child's own peak: VmHWM is its address space's (ru_maxrss would count the parent's peak,
#: which Linux carries over exec).
_CONVERT_PEAK = """
import sys
from flamespace.cli import script
sys.argv = ["flamespace", "convert", sys.argv[1], "-o", sys.argv[2]]
code = script()
peak = [line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
print(code, int(peak) * 1024)
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the peak from /proc (Linux)")
def test_convert_of_one_folded_file_peaks_at_about_twice_its_size(tmp_path: Path) -> None:
    """Distinct stacks (the worst case: nothing is shared): the stack cache kept every stack's text
    while the output was written, 3.0 times the file's size at the peak (1 GB: 2.8 GB); now 1.9."""
    import random

    rng = random.Random(3)
    vocabulary = [f"module{m}.function_{k} (pkg/file{m}.py:{k})" for m in range(50) for k in range(40)]
    source = tmp_path / "distinct.folded"
    with open(source, "w") as out:
        for _ in range(70_000):  # 40 MB
            out.write(";".join(rng.choices(vocabulary, k=rng.randrange(5, 25))) + f" {rng.randrange(1, 1000)}\n")
    done = subprocess.run(
        [sys.executable, "-c", _CONVERT_PEAK, str(source), str(tmp_path / "out.folded")], capture_output=True, text=True
    )
    code, peak = done.stdout.split()
    assert code == "0", done.stderr
    assert int(peak) < 2.4 * source.stat().st_size, (int(peak), source.stat().st_size)


def test_a_binary_reader_gets_no_more_than_the_limit_either(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pprof takes its whole input as bytes (formats._binary.read_bytes): a 437 KB gzip of 300 MB
    of samples reached 6.3 GB; 2 MB of them here, past a limit of 1 MiB."""

    def field(number: int, payload: bytes) -> bytes:  # a length-delimited protobuf field (payloads < 128 bytes)
        return bytes([number << 3 | 2, len(payload)]) + payload

    strings = b"".join(field(6, text) for text in (b"", b"samples", b"count", b"f"))
    head = field(1, b"\x08\x01\x10\x02") + field(4, b"\x08\x01" + field(4, b"\x08\x01")) + field(5, b"\x08\x01\x10\x03") + strings
    sample = field(2, field(1, b"\x01") + field(2, b"\x01"))
    source = tmp_path / "many.pb.gz"
    source.write_bytes(gzip.compress(head + sample * 250_000))
    monkeypatch.setenv(_limits.GUNZIP_ENV, "1M")
    with pytest.raises(InputError, match=r"many\.pb\.gz: decompresses to more than 1\.00 MiB"):
        registry.read(str(source), "pprof")
    monkeypatch.setenv(_limits.GUNZIP_ENV, "3M")
    assert registry.read(str(source), "pprof").total() == 250_000


@pytest.mark.parametrize("fmt", ["chrome", "chrome-arrays", "gecko", "speedscope", "speedscope-arrays"])
def test_the_frame_limit_counts_every_thread_of_a_reading(fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads of 1.1 million frames each (other functions: stacks no thread shares) pass a
    limit of 2,000,000 (a limit per thread or per profile would let a file of many threads take
    any memory)."""
    from flamespace.formats import _nesting

    if fmt.endswith("-arrays"):
        monkeypatch.setattr(_nesting, "ARRAYS_FROM", 0)
        fmt = fmt[: -len("-arrays")]
    chart = _recursion_chart(1500)
    other = _recursion_chart(1500, "g").relabelled(thread_suffix=" 2")
    source = tmp_path / f"threads.{fmt}"
    registry.write(chart.merged(other), str(source), fmt)
    monkeypatch.setenv(_limits.STACK_FRAMES_ENV, "2M")
    with pytest.raises(
        InputError, match=r"threads\.\w+: the stacks of the samples are too many and too deep: they pass 2,097,152"
    ):
        registry.read(str(source), fmt)
    monkeypatch.setenv(_limits.STACK_FRAMES_ENV, "3M")
    assert len(registry.read(str(source), fmt).threads) == 2
