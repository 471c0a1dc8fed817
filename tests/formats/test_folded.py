"""The folded format: every edge case of the grammar, malformed input, goldens, I/O paths."""

from __future__ import annotations

import gzip
import io
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

import flamespace as fs
from flamespace import Differential, FlameGraph
from flamespace.formats import folded, registry

from ..conftest import assert_golden


def parse(text: str, **options):
    return folded.parse(io.StringIO(text), folded.ReadOptions(**options), source="t.folded")


def test_count_after_the_last_whitespace_and_spaces_in_frames():
    g = parse("main (app.py:3);do work (lib.py:9) 12\n")
    assert g == FlameGraph({("main (app.py:3)", "do work (lib.py:9)"): 12})


def test_repeated_stacks_are_summed_and_values_stay_ints():
    g = parse("a;b 1\na;b 2\n")
    assert g[("a", "b")] == 3 and isinstance(g[("a", "b")], int)


def test_decimal_counts_as_flamegraph_pl_accepts_them():
    g = parse("a 1.5\nb 2.\nc 3\n")
    assert g == FlameGraph({("a",): 1.5, ("b",): 2.0, ("c",): 3})


@pytest.mark.parametrize(
    "text",
    [
        "a;b 1\r\nc 2\r\n",  # CRLF
        "a;b 1   \nc 2\t\n",  # trailing whitespace
        "\n\na;b 1\n\n   \nc 2",  # blank lines, no final newline
        "\ufeffa;b 1\nc 2\n",  # UTF-8 BOM
        "a;b\t1\nc 2\n",  # tab before the count
        "# a comment\na;b 1\n#another\nc 2\n",  # comments
    ],
)
def test_tolerated_variations(text):
    assert parse(text) == FlameGraph({("a", "b"): 1, ("c",): 2})


def test_whitespace_before_the_last_one_stays_in_the_stack_as_in_perl():
    assert parse("a;b  1\nc;  2\n") == FlameGraph({("a", "b "): 1, ("c", " "): 2})


def test_metadata_lines_never_become_stacks():
    text = "# austin: 3.6.0\n# interval: 100\n# mode: wall\n# unit: ns\n# metric: wall\na;b 5\n"
    g = parse(text)
    assert g == FlameGraph({("a", "b"): 5})
    assert g.unit == "ns" and g.metric == "wall"
    assert dict(g.labels) == {"austin": "3.6.0", "interval": "100", "mode": "wall"}


def test_empty_stack_and_empty_frames_are_kept():
    g = parse(" 5\na;;b 1\n")
    assert g == FlameGraph({(): 5, ("a", "", "b"): 1})


def test_zero_counts_add_nothing():
    assert parse("a 0\nb 1\n") == FlameGraph({("b",): 1})


def test_two_counts_on_every_line_is_differential_input():
    d = parse("a;b 3 5\nc 2 0\nd 0 7\n")
    assert isinstance(d, Differential)
    assert d.before == FlameGraph({("a", "b"): 3, ("c",): 2})
    assert d.after == FlameGraph({("a", "b"): 5, ("d",): 7})


def test_a_last_frame_ending_in_a_number_is_not_differential_unless_every_line_is():
    g = parse("main;worker 3 5\nmain;idle 2\n")
    assert g == FlameGraph({("main", "worker 3"): 5, ("main", "idle"): 2})
    assert isinstance(parse("main;worker 3 5\n", columns="1"), FlameGraph)


def test_forced_two_columns_names_the_line_without_a_second_count():
    with pytest.raises(fs.InputError, match=r"t.folded:2: expected two counts"):
        parse("a 1 2\nb 3\n", columns="2")


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("a;b 1\nno count here\n", 2, "found 'here'"),
        ("a;b 1\nlonely\n", 2, "found no count after a space"),
        ("a;b x\n", 1, "found 'x'"),
        ("a;b -3\n", 1, "count -3 is negative"),
        ("a;b 1e5\n", 1, "found '1e5'"),
        ("a;b 1,5\n", 1, "found '1,5'"),
        ("a;b .5\n", 1, "found '.5'"),
        ("a;b ٣\n", 1, "found '٣'"),  # a non-ASCII digit
        ("ok 1\n\n\n" + "x" * 200 + "\n", 4, r"\.\.\.'$"),  # long lines are shortened
    ],
)
def test_malformed_lines_name_file_line_and_problem(text, line, message):
    with pytest.raises(fs.InputError, match=message) as info:
        parse(text)
    assert info.value.source == "t.folded" and info.value.line == line
    assert str(info.value).startswith(f"t.folded:{line}: ")


def test_skip_invalid_counts_what_was_skipped():
    diagnostics = fs.Diagnostics()
    g = folded.parse(
        io.StringIO("a 1\nbad\nb 2\nworse x\n"),
        folded.ReadOptions(skip_invalid=True),
        source="t.folded",
        diagnostics=diagnostics,
    )
    assert g == FlameGraph({("a",): 1, ("b",): 2})
    assert diagnostics.skipped == 2
    assert [e[1] for e in diagnostics.examples] == [2, 4]
    assert diagnostics.messages()[0] == "skipped 2 invalid lines"


def test_frames_are_interned():
    g = parse("shared;a 1\nshared;b 1\n")
    first, second = sorted(g)
    assert first[0] is second[0]


def test_writer_is_sorted_bytewise_like_perl():
    g = FlameGraph({("b",): 1, ("a", "b"): 2, ("a",): 3, ("a b",): 4, ("B",): 5, ("é",): 6, ("z",): 7})
    text = folded.dumps(g, folded.WriteOptions(header=False))
    assert text.splitlines() == ["B 5", "a 3", "a b 4", "a;b 2", "b 1", "z 7", "é 6"]


def test_writer_replaces_semicolons_and_line_breaks_in_frames():
    g = FlameGraph({("Lfoo;", "bar\nbaz"): 1})
    assert folded.dumps(g, folded.WriteOptions(header=False)) == "Lfoo:;bar baz 1\n"


def test_writer_refuses_negative_values_and_collisions():
    with pytest.raises(ValueError, match="negative"):
        folded.dumps(FlameGraph({("a",): 1}) - FlameGraph({("a",): 2}))
    with pytest.raises(ValueError, match="collide"):
        folded.dumps(FlameGraph({("a;b",): 1, ("a:b",): 1}))


@pytest.mark.parametrize(
    "value, text",
    [(3, "3"), (2.0, "2"), (0.5, "0.5"), (1e-07, "0.0000001"), (1.5e20, "150000000000000000000")],
)
def test_numbers_are_written_without_exponents(value, text):
    assert folded.format_number(value) == text
    assert folded.loads(f"a {folded.format_number(value)}\n")[("a",)] == pytest.approx(value)


def test_writer_golden_with_metadata(tmp_path):
    g = FlameGraph(
        {
            ("main (app.py:1)", "load (io.py:20)", "json.loads"): 120,
            ("main (app.py:1)", "compute (core.py:8)"): 3000,
            ("main (app.py:1)",): 15,
            ("main (app.py:1)", "compute (core.py:8)", "helper;odd"): 7,
            ("<module> (ü.py:1)",): 2,
        },
        unit="ns",
        metric="wall",
        labels={"command": "python app.py", "python": "3.11.7"},
    )
    assert_golden(folded.dumps(g), "folded/writer-metadata.folded", tmp_path)


def test_writer_golden_differential(tmp_path):
    d = Differential(
        FlameGraph({("a", "b"): 10, ("a", "c"): 5, ("gone",): 1}),
        FlameGraph({("a", "b"): 12, ("a", "c"): 2.5, ("new",): 4}),
    )
    assert_golden(folded.dumps(d, folded.WriteOptions(header=False)), "folded/writer-differential.folded", tmp_path)


def test_registry_reads_gzip_by_magic_bytes_whatever_the_name(tmp_path):
    path = tmp_path / "profile.txt"
    path.write_bytes(gzip.compress(b"a;b 3\nc 4\n"))
    assert registry.read(path) == FlameGraph({("a", "b"): 3, ("c",): 4})


def test_registry_keeps_undecodable_bytes_losslessly(tmp_path):
    src = tmp_path / "latin1.folded"
    src.write_bytes(b"caf\xe9;x 1\n")
    g = registry.read(src)
    out = tmp_path / "out.folded"
    registry.write(g, out, header=False)
    assert out.read_bytes() == b"caf\xe9;x 1\n"


def test_registry_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(fs.InputError, match="nope.folded: cannot read"):
        registry.read(tmp_path / "nope.folded")


def test_registry_truncated_gzip_is_an_input_error(tmp_path):
    path = tmp_path / "cut.folded.gz"
    path.write_bytes(gzip.compress(b"a;b 3\n" * 1000)[:50])
    with pytest.raises(fs.InputError, match="cannot read"):
        registry.read(path)


def test_registry_reads_stdin():
    code = "import flamespace as fs; print(fs.read('-'))"
    out = subprocess.run([sys.executable, "-c", code], input=b"a;b 2\n", capture_output=True, check=True).stdout.decode()
    assert "'a;b': 2" in out


def test_sniff():
    assert folded.sniff(b"a;b 1\n") is True
    assert folded.sniff(b"# unit: ns\na;b 1\n") is True
    assert folded.sniff(b'{"$schema": 1}\n') is False
    assert folded.sniff(b"a;b 1") is None


@given(st.text(alphabet="0123456789.٢²+-e x", max_size=8))
def test_count_syntax_is_digits_with_an_optional_point(text):
    """The reader's count check (no regex, to keep `re` off the start-up path) means what
    the documented pattern means."""
    import re

    from flamespace.formats.folded import _is_decimal

    assert _is_decimal(text) == bool(re.fullmatch(r"[0-9]+(?:\.[0-9]*)?", text))


@pytest.mark.parametrize("count", ["9" * 301, "9" * 400 + ".5", "1" + "0" * 300 + ".0"])
def test_counts_out_of_range_are_refused_with_their_line(count):
    # a 400-digit decimal used to read as inf; one of 5000 digits raised a bare ValueError
    with pytest.raises(fs.InputError, match=r"<input>:2: count 9*1?0*\.\.\. is out of range"):
        fs.formats.folded.loads(f"a 1\nb {count}\n")


def test_largest_count_is_read():
    assert fs.formats.folded.loads("a " + "9" * 300 + "\n")[("a",)] == int("9" * 300)
