"""The folded reader on long lines (issue 24: one 40 MB line took 15 s, a 2 MB gzip of one 2 GB
line ran past 300 s). A line of many chunks is gathered and scanned once, counted here by the
bytes the C core is given; a line longer than the limit (formats/_limits.py MAX_LINE, or the
environment variable FLAMESPACE_MAX_LINE) is refused once that much is read, naming file:line,
the limit and how to raise it."""

from __future__ import annotations

import gzip
import io
from pathlib import Path
from typing import Any

import pytest

from flamespace.cli import main
from flamespace.errors import ArgumentError, InputError
from flamespace.formats import _io, _limits, folded

needs_core = pytest.mark.skipif(folded._core is None, reason="the folded C core is not built")


class ScanCounter:
    """The C core, counting the bytes each call of sum_lines is given to scan."""

    def __init__(self, core: Any) -> None:
        self.core = core
        self.scanned = 0

    def sum_lines(self, data: bytes, start: int, *args: Any) -> Any:
        self.scanned += len(data) - start
        return self.core.sum_lines(data, start, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.core, name)


class Endless(io.RawIOBase):
    """``prefix``, then ``fill`` bytes up to twice the default line limit (so that a reader
    without a limit ends); counts what is read."""

    def __init__(self, prefix: bytes = b"", fill: bytes = b"a;") -> None:
        self.prefix, self.fill, self.given = prefix, fill, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.given > 2 * _limits.MAX_LINE:
            return 0
        n = len(buffer)
        head = self.prefix[:n]
        self.prefix = self.prefix[len(head) :]
        body = (self.fill * ((n - len(head)) // len(self.fill) + 1))[: n - len(head)]
        buffer[:n] = head + body
        self.given += n
        return n


@needs_core
def test_a_long_line_is_scanned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """8 MB in one line, 128 chunks: joining each chunk to the line and scanning it again gave
    the core 540 MB to scan (quadratic); now about the input's size."""
    frames = 4 << 20
    text = b"a;" * frames + b"leaf 3\nother 2\n"
    counter = ScanCounter(folded._core)
    monkeypatch.setattr(folded, "_core", counter)
    graph = folded.parse(io.BytesIO(text))
    assert {len(stack): value for stack, value in graph.items()} == {frames + 1: 3, 1: 2}
    assert counter.scanned <= 2 * len(text), f"{counter.scanned:,} bytes scanned for {len(text):,}"


@needs_core
def test_the_column_reader_and_add_ints_gather_a_long_line_too(monkeypatch: pytest.MonkeyPatch) -> None:
    text = b"x" * (3 << 20) + b" 5\ny 1\n"
    total: dict[str, Any] = {}
    folded.add_ints(io.BufferedReader(io.BytesIO(text)), total)  # type: ignore[arg-type]
    assert total == {"x" * (3 << 20): 5, "y": 1}
    index: dict[str, int] = {}
    _, values, _ = folded.ColumnReader(index).read(io.BufferedReader(io.BytesIO(text)))  # type: ignore[arg-type]
    assert values == [5, 1] and len(index) == 2


@pytest.mark.parametrize("path", ["binary", "text", "two columns"])
def test_a_line_longer_than_the_limit_is_refused_once_that_much_is_read(monkeypatch: pytest.MonkeyPatch, path: str) -> None:
    monkeypatch.setenv(_limits.MAX_LINE_ENV, "2M")
    stream = Endless(b"# unit: ns\nmain;a 1\n")
    source: Any = stream if path != "text" else io.TextIOWrapper(io.BufferedReader(stream), encoding="utf-8")
    options = folded.ReadOptions(columns="2" if path == "two columns" else "auto", skip_invalid=True)
    with pytest.raises(InputError) as caught:
        folded.parse(source, options, source="endless.folded")
    message = str(caught.value)
    assert message.startswith("endless.folded:3: line is longer than 2.00 MiB (2,097,152 bytes)")
    assert "FLAMESPACE_MAX_LINE" in message
    assert stream.given <= (2 << 20) + (1 << 17)  # the limit and a chunk or two, not the line


@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"])
def test_a_line_as_long_as_the_limit_is_read(monkeypatch: pytest.MonkeyPatch, ending: bytes) -> None:
    monkeypatch.setenv(_limits.MAX_LINE_ENV, "1M")
    for columns, counts in (("auto", b" 7"), ("2", b" 7 8")):
        line = b"f;" * ((1 << 19) - 1 - len(counts) // 2) + b"ab" + counts  # 1 MiB exactly
        assert len(line) == 1 << 20
        for longer in (False, True):
            text = b"x" + counts + ending + line + b"9" * longer + ending + b"y" + counts + ending
            if longer:
                with pytest.raises(InputError, match=":2: line is longer than 1.00 MiB"):
                    folded.parse(io.BytesIO(text), folded.ReadOptions(columns=columns))
            else:
                graph = folded.parse(io.BytesIO(text), folded.ReadOptions(columns=columns))
                assert len(getattr(graph, "after", graph)) == 3


def test_the_default_limit_refuses_an_endless_line_before_it_is_read_whole() -> None:
    stream = Endless(b"a 1\n")
    with pytest.raises(InputError, match=r"^<input>:2: line is longer than 128 MiB"):
        folded.parse(stream)
    assert stream.given < _limits.MAX_LINE + (1 << 20)


@pytest.mark.parametrize("value", ["lots", "-5", "1.5G", "100K"])
def test_a_bad_limit_is_refused_by_name(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(_limits.MAX_LINE_ENV, value)
    with pytest.raises(ArgumentError, match="FLAMESPACE_MAX_LINE"):
        folded.parse(io.BytesIO(b"a 1\n"))


@pytest.mark.parametrize(
    "value, limit", [("3M", 3 << 20), ("1g", 1 << 30), ("2 GiB", 2 << 30), ("1048576", 1 << 20), ("", 128 << 20)]
)
def test_the_limit_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch, value: str, limit: int) -> None:
    monkeypatch.setenv(_limits.MAX_LINE_ENV, value)
    assert _limits.max_line_bytes() == limit


def test_the_cli_refuses_a_gzip_of_a_long_line_with_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """A gzip of a few kB that holds an 8 MB line, refused at a limit of 1 MiB: exit 1, file:line, no traceback."""
    monkeypatch.setenv(_limits.MAX_LINE_ENV, "1M")
    path = tmp_path / "long.folded.gz"
    path.write_bytes(gzip.compress(b"main 1\n" + b"a;" * (4 << 20) + b"b 1\n", compresslevel=1))
    assert main(["convert", "--to", "folded", str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{path}:2: line is longer than 1.00 MiB" in err and "FLAMESPACE_MAX_LINE=" in err
    monkeypatch.setenv(_limits.MAX_LINE_ENV, "16M")
    assert main(["convert", "--to", "folded", "-o", str(tmp_path / "out.folded"), str(path)]) == 0


@pytest.mark.parametrize("format", ["faulthandler", "gdb", "jstack", "stap", "austin", "dtrace", "perf-sched", "pyspy"])
def test_the_line_readers_share_the_limit(monkeypatch: pytest.MonkeyPatch, format: str) -> None:
    """The readers of formats/_collapse.py and the other line readers read lines through the same limit."""
    from flamespace.formats import registry

    monkeypatch.setenv(_limits.MAX_LINE_ENV, "1M")
    stream = Endless(b"Thread 1:\n", fill=b"x")
    with pytest.raises(InputError, match=r"^<stream>:2: line is longer than 1.00 MiB"):
        registry.read(io.BufferedReader(stream), format, skip_invalid=True)  # type: ignore[arg-type]
    assert stream.given <= (1 << 20) + (1 << 17)


TRICKY = [
    "",
    "a",
    "a\n",
    "\n\n\n",
    "a\nb",
    "a\r\nb\r\n",
    "a\rb\n",
    "a\x0cb\nc\x1cd\n",
    "é\u2028ü\n\x85x\n",
    "long " * 50 + "\n" + "x" * 300 + "\n\n" + "tail",
]


@pytest.mark.parametrize("text", TRICKY)
def test_bounded_lines_gives_the_lines_iterating_gives(text: str) -> None:
    """Line breaks of every kind, none at the end, lines longer than a read."""
    assert list(_io.bounded_lines(io.StringIO(text), "x")) == list(io.StringIO(text))
    for newline in (None, "", "\n"):  # None: as text_reader reads
        wrapped = io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8", newline=newline)
        expected = list(io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8", newline=newline))
        assert list(_io.bounded_lines(wrapped, "x")) == expected
