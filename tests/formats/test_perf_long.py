"""perf script text read a chunk at a time: a sample of many chunks is gathered and split once
(joining each chunk to the rest and splitting it again was quadratic in the sample's length),
and a line longer than the line limit is refused once that much is read (issue 24, item 5)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from flamespace.errors import InputError
from flamespace.formats import _limits, perf, registry

from .test_folded_long_lines import Endless

DATA = Path(__file__).resolve().parent.parent / "data" / "perf"


@pytest.mark.parametrize("name", ["c-program.perf", "python-program.perf", "two-events.perf"])
@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64])
def test_any_chunk_size_reads_the_same_profile(monkeypatch: pytest.MonkeyPatch, name: str, chunk: int) -> None:
    """Samples and blank lines cut anywhere by the end of a chunk (a blank line split between two)."""
    text = (DATA / name).read_text()
    expected = perf.parse(io.StringIO(text), source=name)
    monkeypatch.setattr(perf, "_CHUNK", chunk)
    assert dict(perf.parse(io.StringIO(text), source=name).items()) == dict(expected.items())


def test_a_line_longer_than_the_limit_is_refused_once_that_much_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_limits.MAX_LINE_ENV, "1M")
    header = b"app 100 [000] 10857.100000: 1 cycles:\n\tffffffff821f8b58 __schedule+0x618 ([kernel.kallsyms])\n"
    stream = Endless(header, fill=b"x")
    with pytest.raises(InputError, match=r"^<stream>:3: line is longer than 1.00 MiB"):
        registry.read(io.BufferedReader(stream), "perf")  # type: ignore[arg-type]
    assert stream.given <= 4 << 20  # the limit and a chunk or two, not the line
